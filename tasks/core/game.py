"""The base class a task's rules derive from, and the context through which rules produce effects."""
from __future__ import annotations

import html
from typing import Any, Optional

from .mechanisms import RuleError
from .protocol import Effect, LogEvent, Message, SetText


def esc(text: Any) -> str:
    """Escape text from people before it goes into an HTML message."""
    return html.escape(str(text), quote=True)


def keys_sorted(value: Any) -> Any:
    """`value` with the keys of every dict in it in sorted order (lists and tuples keep their order)."""
    if isinstance(value, dict):
        return {k: keys_sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return type(value)(keys_sorted(v) for v in value)
    return value


class Context:
    """Collects the effects of one handled input. Rules call these methods instead of building effects."""

    def __init__(self, t: float, seat: Optional[str] = None, turn: bool = True):
        self.t = t
        self.seat = seat  # who caused this input (None for timers and start)
        # False for the 2nd..nth move of one agent turn: turn limits should count it as part of the same turn.
        self.turn = turn
        self.effects: list[Effect] = []
        self.ended: Optional[tuple[str, dict]] = None
        # Game timers asked for while handling this input: (name, seconds) to arm, or (name, None) to cancel.
        self.timers: list[tuple[str, Optional[float]]] = []

    def say(self, text: str, to: Optional[str] = None, html: bool = False) -> None:
        self.effects.append(Message(text, to=to, html=html))

    def tell(self, text: str, html: bool = False) -> None:
        """A private message to the seat that caused the current input."""
        self.say(text, to=self.seat, html=html)

    def log(self, event: str, to: Optional[str] = None, **data: Any) -> None:
        self.effects.append(LogEvent(event, data, to=to))

    def set_text(self, element: str, text: str, to: Optional[str] = None) -> None:
        self.effects.append(SetText(element, text, to=to))

    def set_timer(self, name: str, seconds: float) -> None:
        """Arm (or re-arm) a game timer; `Game.on_timer(ctx, name)` runs when it fires. Like every effect it is
        dropped when the move is rejected, and all timers are cancelled when the game ends."""
        self.timers.append((name, float(seconds)))

    def cancel_timer(self, name: str) -> None:
        self.timers.append((name, None))

    def end(self, status: str, **results: Any) -> None:
        """Finish the game (status: completed, timeout, ...). Codes and the closing are done by the match."""
        self.ended = (status, results)


class Game:
    """One task's rules for one room. Pure Python and plain data only (the match deep-copies it for rollback).

    Subclasses set `task` and `seats`, implement `generate` (seed, options -> instance JSON), `start`, `view` and
    `results`, and handle commands in methods named `cmd_<name>(ctx, seat, args)`; their docstring's first line
    is the usage shown by /help. A game is built from an instance: generated once, logged in `game_start`, and
    loaded (never regenerated) by replay, resume and prompted self-play.
    """

    task: str = ""
    title: str = ""
    seats: tuple[str, ...] = ()
    # The order in which people take seats when a game has fewer people than seats; a game that declares none
    # gets the order of its `seats` (`__init_subclass__`).
    person_seat_order: tuple[str, ...] = ()
    # "open": every chat line goes to everyone (Slurk shows people's lines itself, so the rules cannot refuse
    # them). "relay": lines go through the bot, which shows each accepted line only to its addressees; a game
    # that enforces who may talk, or private channels (a mediator), needs "relay".
    chat: str = "open"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.person_seat_order:
            cls.person_seat_order = tuple(cls.seats)

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        self.seed = seed
        self.options = dict(options or {})
        # Keys in one fixed order: a logged instance comes back from our logs sorted and from a real Slurk's
        # database in yet another order, so nothing a game says or decides may follow the generator's order.
        self.inst: dict = keys_sorted(instance if instance is not None else type(self).generate(seed, self.options))

    # --- to implement -------------------------------------------------------------------------------------------
    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        """The instance (board, maze, valuations...) for a seed and options, as JSON-able data."""
        return {}

    def instance(self) -> dict:
        """What is being played, as JSON; logged at start so the game can be rebuilt without regenerating it."""
        return self.inst

    def private_parts(self, seat: str) -> list:
        """JSON values that only `seat` may ever receive (e.g. its coins that it did not share). The leak tests
        check that no other seat's messages, pages or readable logs contain any of them (a dict counts as
        contained when a received dict holds all its items)."""
        return []

    def agent_briefing(self, seat: str) -> dict:
        """What an agent in `seat` knows that the seat's page must not show: a simulated person's own hidden
        attributes (e.g. the weights behind a planning user's preferences, which a person only feels). Handed to the
        brain in-process when it is built (`Brain.briefing`), never sent over the wire or logged."""
        return {}

    def chat_audience(self, seat: str, to: Optional[tuple[str, ...]]) -> Optional[tuple[str, ...]]:
        """Who sees a chat line of `seat` that asked for audience `to` (None = everyone); raise RuleError to refuse
        the line (it is then shown to nobody). Open rooms reach everyone."""
        if self.chat == "open":
            if to is not None and set(to) != set(self.seats) - {seat}:
                raise RuleError("In this game every message goes to everyone.")
            return None
        if to is None:
            return None
        unknown = [s for s in to if s not in self.seats or s == seat]
        if unknown or not to:
            raise RuleError(f"You cannot address {', '.join(unknown) or 'nobody'} here.")
        return tuple(s for s in self.seats if s in to)

    def start(self, ctx: Context) -> None:
        pass

    def view(self, seat: str) -> dict:
        """The page state of one seat: only what that seat may know."""
        return {}

    def page_shared(self) -> Optional[dict]:
        """For pages pushed to many people (Slurk): what every seat's page shows alike, in seat-absolute terms (no
        "mine" / "me"), or None (the default): each page then gets `view(seat)` whole. With a shared part the
        transport sends it once to the room and `page_private(seat)` to each seat, and the page (and the task's
        `TaskSpec.combine_page`, its Python twin) puts `view(seat)` back together: one update per input for all
        seats instead of one per seat. Nothing here may be private to a seat."""
        return None

    def page_private(self, seat: str) -> dict:
        """The rest of `view(seat)` when `page_shared()` is not None (see there)."""
        return self.view(seat)

    def results(self) -> dict:
        """Metrics of the game so far (called when it ends)."""
        return {}

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        pass

    def on_timer(self, ctx: Context, name: str) -> None:
        """Game-specific timers (names that do not start with "core:")."""

    # --- provided -----------------------------------------------------------------------------------------------
    def commands(self) -> dict[str, str]:
        """name -> usage line, from the cmd_ methods' docstrings."""
        out = {}
        for attr in sorted(dir(self)):
            if attr.startswith("cmd_"):
                doc = (getattr(self, attr).__doc__ or "").strip().splitlines()
                out[attr[4:]] = doc[0] if doc else "/" + attr[4:]
        return out

    def on_command(self, ctx: Context, seat: str, name: str, args: tuple[str, ...]) -> None:
        handler = getattr(self, "cmd_" + name, None)
        if handler is None:
            known = " ".join("/" + c for c in self.commands())
            raise RuleError(f"Unknown command /{name}. Commands: {known} /help")
        handler(ctx, seat, args)

    def on_action(self, ctx: Context, seat: str, payload: dict) -> None:
        """Page actions use the form {"command": name, "args": [...]}; tasks may accept richer payloads."""
        name = payload.get("command")
        args = payload.get("args", [])
        if not isinstance(name, str) or not isinstance(args, list) or not all(isinstance(a, (str, int)) for a in args):
            raise RuleError('That page action was not understood (expected {"command": name, "args": [...]}).')
        self.on_command(ctx, seat, name.lower(), tuple(str(a) for a in args))
