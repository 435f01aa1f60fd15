"""The vocabulary between a match and its transports.

A match consumes *inputs* (what people, agents and timers did) and produces *effects* (what the transport must
show, send, log or schedule). Both are small frozen dataclasses that serialise to plain JSON, so an input stream
can be stored (sqlite, Slurk's log API, a JSON-lines file) and replayed to rebuild a game exactly.

Seats are named by the task (e.g. "light" and "ghost"); a transport maps its own user ids onto seat names.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Optional, Union


# ----------------------------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class Join:
    seat: str
    t: float = 0.0


@dataclass(frozen=True)
class Leave:
    seat: str
    t: float = 0.0


@dataclass(frozen=True)
class Chat:
    """A chat line. `to`: the seats it is addressed to (None = everyone). Whether a seat may address a subset is the
    game's chat policy (`Game.chat`): in an open room every line goes to everyone."""

    seat: str
    text: str
    t: float = 0.0
    # False for the 2nd..nth action of one agent turn, so turn limits count turns, not actions.
    turn: bool = True
    to: Optional[tuple[str, ...]] = None


@dataclass(frozen=True)
class Command:
    """A command such as `/propose L K`: name without the slash, arguments as strings."""

    seat: str
    name: str
    args: tuple[str, ...] = ()
    t: float = 0.0
    turn: bool = True


@dataclass(frozen=True)
class Action:
    """A structured UI action from a task page (a JSON object sent by the plugin)."""

    seat: str
    payload: Any
    t: float = 0.0
    turn: bool = True


@dataclass(frozen=True)
class TimerFired:
    name: str
    token: int
    t: float = 0.0


@dataclass(frozen=True)
class AgentUsage:
    """What one agent act cost (LLM tokens and calls), recorded by the driver like any input so that every
    transport and the replay count the same tokens."""

    seat: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failures: int = 0
    t: float = 0.0


@dataclass(frozen=True)
class Abort:
    """The transport ends the game (operator shutdown, agents that went quiet). Recorded like any input."""

    status: str
    reason: str = ""
    t: float = 0.0


Input = Union[Join, Leave, Chat, Command, Action, TimerFired, AgentUsage, Abort]
INPUT_TYPES = {cls.__name__: cls for cls in (Join, Leave, Chat, Command, Action, TimerFired, AgentUsage, Abort)}


# ----------------------------------------------------------------------------------------------------------------
# Effects


@dataclass(frozen=True)
class Message:
    """A message from the game master. `to=None` is public; otherwise private to that seat."""

    text: str
    to: Optional[str] = None
    html: bool = False
    kind: str = "info"  # "error" when it answers a rejected move


@dataclass(frozen=True)
class ChatShown:
    """A seat's chat line, accepted by the rules. `to`: who sees it besides the speaker (None = everyone).
    Transports show it where it did not already appear (an open room shows people's own lines); brains read it."""

    seat: str
    text: str
    to: Optional[tuple[str, ...]] = None

    def seen_by(self, seat: str) -> bool:
        return self.to is None or seat == self.seat or seat in self.to


@dataclass(frozen=True)
class View:
    """The complete task-page state of one seat (JSON-able). The transport renders or pushes it to the page."""

    seat: str
    data: dict


@dataclass(frozen=True)
class SetText:
    """Set the text of a page element; `to=None` for everyone."""

    element: str
    text: str
    to: Optional[str] = None


@dataclass(frozen=True)
class LogEvent:
    """A structured event for the room log (Slurk's log API, or the local JSON-lines file). `to=None` is the
    record only (researchers read it; no seat does: on Slurk it is addressed to the bot itself); `to=seat` is also
    that seat's (e.g. its completion code)."""

    event: str
    data: dict
    to: Optional[str] = None


@dataclass(frozen=True)
class SetTimer:
    name: str
    seconds: float
    token: int


@dataclass(frozen=True)
class CancelTimer:
    name: str


@dataclass(frozen=True)
class GameOver:
    """The game has ended; the transport closes the room (read-only input) after delivering earlier effects."""

    status: str
    results: dict = field(default_factory=dict)


Effect = Union[Message, ChatShown, View, SetText, LogEvent, SetTimer, CancelTimer, GameOver]


def addressed_to(effect: Effect, seat: str) -> bool:
    """Whether a seat perceives an effect (public, or private to it)."""
    if isinstance(effect, (Message, SetText)):
        return effect.to is None or effect.to == seat
    if isinstance(effect, LogEvent):
        return effect.to == seat
    if isinstance(effect, View):
        return effect.seat == seat
    if isinstance(effect, ChatShown):
        return effect.seen_by(seat)
    if isinstance(effect, GameOver):
        return True
    return False


# ----------------------------------------------------------------------------------------------------------------
# JSON


def input_to_json(inp: Input) -> dict:
    d = dataclasses.asdict(inp)
    if isinstance(inp, Command):
        d["args"] = list(inp.args)
    if isinstance(inp, Chat):
        if inp.to is None:
            del d["to"]  # logs of open-room chat keep their old shape
        else:
            d["to"] = list(inp.to)
    d["type"] = type(inp).__name__
    return d


def input_from_json(d: dict) -> Input:
    d = dict(d)
    try:
        cls = INPUT_TYPES[d.pop("type")]
    except KeyError as exc:
        raise ValueError(f"unknown input type in {d!r}") from exc
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(d) - names
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)} for {cls.__name__}")
    if cls is Command:
        d["args"] = tuple(str(a) for a in d.get("args", ()))
    if cls is Chat and d.get("to") is not None:
        d["to"] = tuple(str(s) for s in d["to"])
    return cls(**d)


def effect_to_json(effect: Effect) -> dict:
    d = dataclasses.asdict(effect)
    if isinstance(effect, ChatShown) and effect.to is not None:
        d["to"] = list(effect.to)
    d["type"] = type(effect).__name__
    return d


def parse_command_text(text: str) -> tuple[str, tuple[str, ...]]:
    """`"propose L K"` or `"/propose L K"` -> ("propose", ("L", "K")). Names are lower-cased."""
    parts = text.strip().lstrip("/").split()
    if not parts:
        return "", ()
    return parts[0].lower(), tuple(parts[1:])
