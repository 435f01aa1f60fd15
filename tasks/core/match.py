"""A match: one room's game and its seats, as a deterministic state machine from inputs to effects.

The match owns what every task shares: waiting for seats, starting, command parsing and validation (the limits of
an input are in limits.py), rollback of rejected moves, the room timers (join, inactivity with a warning,
partner-left grace), error containment, completion codes and the structured log. The task's `Game` owns only its
rules.
"""
from __future__ import annotations

import copy
import json
import traceback
from dataclasses import asdict, dataclass
from typing import Callable, Optional

from .codes import CompletionConfig, new_code
from .game import Context, Game
from .limits import MAX_ARG_CHARS, MAX_ARGS, MAX_CHAT_CHARS, MAX_NAME_CHARS, check_payload
from .limits import MAX_ACTION_BYTES, MAX_ACTION_DEPTH  # noqa: F401 (bots/slurk/intake.py reads them from here)
from .mechanisms import RuleError
from .results import complete_results
from .wording import seat_label, seat_labels
from .protocol import (
    Abort,
    Action,
    AgentUsage,
    CancelTimer,
    Chat,
    ChatShown,
    Command,
    Effect,
    GameOver,
    Input,
    Join,
    Leave,
    LogEvent,
    Message,
    SetTimer,
    TimerFired,
    View,
    input_to_json,
)

# Slurk-bots' conventional status_txt values for confirmation_log.
STATUS_TXT = {
    "completed": "success",
    "timeout": "timeout",
    "partner_left": "user_left",
    "no_partner": "no_partner",
    "error": "error",
}
LEFT_STATUS = "left"  # status_txt (and the page's core.status) of a person whose leaving closed the room

# Faults of the bot's own making (start, timers, agents' moves) in a row that close the room. A person's input that
# the rules fail on is refused instead and never counts: no input can end a room.
MAX_CONSECUTIVE_ERRORS = 3
REFUSED_TEXT = ("Sorry, something went wrong while handling that; nothing changed. Please check what you sent and try "
                "again (/help lists the commands).")
GAME_TIMER = "game:"  # prefix of timers a game sets through its context (core timers start with "core:")
# A page that reconnects within this many seconds (a reload, a network blip) is not announced: "X left the room" is
# said only once they have been away this long, and "X is back" only after that was said.
LEAVE_QUIET = 5.0


@dataclass
class SeatInfo:
    kind: str = "agent"  # "person" or "agent"
    name: str = ""
    agent: str = ""  # the brain's name for agent seats (recorded so evaluations can group games by agent pair)


@dataclass
class TimerConfig:
    join_timeout: Optional[float] = 300.0
    inactivity: Optional[float] = 300.0
    inactivity_warning: float = 60.0  # seconds before the inactivity timeout
    partner_left_grace: Optional[float] = 120.0

    @classmethod
    def from_dict(cls, d: Optional[dict]) -> "TimerConfig":
        return cls(**(d or {}))


class Match:
    def __init__(
        self,
        game: Game,
        seats: dict[str, SeatInfo],
        *,
        timers: Optional[TimerConfig] = None,
        completion: Optional[CompletionConfig] = None,
        code_source: Callable[[], str] = new_code,
        brain_options: Optional[dict] = None,
    ):
        missing = set(game.seats) - set(seats)
        if missing:
            raise ValueError(f"seats not assigned: {sorted(missing)}")
        self.game = game
        self.seats = {s: seats[s] for s in game.seats}
        self.timers = timers or TimerConfig()
        self.completion = completion or CompletionConfig()
        self.code_source = code_source
        # what the agent seats' brains were built with (a preset's sampling, reader, ...): game_start records it, so
        # an LLM game can be replayed with the same settings in every runtime
        self.brain_options = json.loads(json.dumps(brain_options or {}, sort_keys=True, default=str))
        self.phase = "new"  # new -> waiting -> playing -> over
        self.present: set[str] = {s for s, i in self.seats.items() if i.kind != "person"}
        self.seq = 0
        self.status: Optional[str] = None
        self.results: dict = {}
        self.codes: dict[str, str] = {}
        self.started_at: Optional[float] = None
        self._timer_tokens: dict[str, int] = {}
        self._next_token = 1
        self._errors_in_a_row = 0
        self._last_views: dict[str, dict] = {}
        # LLM usage per seat, from recorded AgentUsage inputs (so every transport and the replay agree).
        self.usage: dict[str, dict[str, int]] = {}
        self.left_at: dict[str, float] = {}  # person seat -> time it last left while playing (completion codes)
        self.leavers: list[str] = []  # person seats whose leaving closed the room (status "left" on their page)

    # ------------------------------------------------------------------------------------------------------------
    @property
    def persons(self) -> list[str]:
        return [s for s, i in self.seats.items() if i.kind == "person"]

    @property
    def over(self) -> bool:
        return self.phase == "over"

    def name_of(self, seat: str) -> str:
        return self.seats[seat].name or seat

    def role_of(self, seat: str) -> str:
        """What the game calls this seat when it talks to people ("Player 2"); every game-master line uses it."""
        return seat_label(self.game, seat)

    def start_record(self) -> dict:
        return {
            "task": self.game.task,
            "seed": self.game.seed,
            "options": self.game.options,
            "instance": self.game.instance(),
            "seats": {s: asdict(i) for s, i in self.seats.items()},
            "timers": asdict(self.timers),
            "brain_options": self.brain_options,
        }

    def views(self) -> list[View]:
        """The current view of every seat (for re-syncing pages after a reconnect or restart)."""
        return [View(s, self._view(s)) for s in self.seats]

    # ------------------------------------------------------------------------------------------------------------
    def open(self, t: float = 0.0) -> list[Effect]:
        """Announce the game. Starts at once when no person has to join."""
        if self.phase != "new":
            raise RuntimeError("match already opened")
        self.phase = "waiting"
        effects: list[Effect] = [LogEvent("game_start", self.start_record())]
        if self.persons and self.timers.join_timeout:
            effects.append(self._set_timer("core:join", self.timers.join_timeout))
        if self.present >= set(self.seats):
            effects += self._start(t)
        return effects

    def handle(self, inp: Input) -> list[Effect]:
        if self.phase == "new":
            raise RuntimeError("open() the match before handling inputs")
        self.seq += 1
        effects: list[Effect] = [LogEvent("game_input", {"seq": self.seq, "input": input_to_json(inp)})]
        if self.phase == "over":
            if isinstance(inp, (Chat, Command, Action)):
                effects.append(Message("This game has ended; thank you for playing.", to=inp.seat, kind="error"))
            return effects
        if isinstance(inp, Join):
            return effects + self._on_join(inp)
        if isinstance(inp, Leave):
            return effects + self._on_leave(inp)
        if isinstance(inp, TimerFired):
            return effects + self._on_timer(inp)
        if isinstance(inp, AgentUsage):
            self._count_usage(inp)
            return effects
        if isinstance(inp, Abort):
            return effects + self._finish(inp.status, inp.t, self.game.results() if self.phase == "playing" else {},
                                          inp.reason or None)
        return effects + self._on_move(inp)

    # ------------------------------------------------------------------------------------------------------------
    def _on_join(self, inp: Join) -> list[Effect]:
        if inp.seat not in self.seats:
            return []
        effects: list[Effect] = []
        was_present = inp.seat in self.present
        self.present.add(inp.seat)
        if self.phase == "playing" and f"core:left:{inp.seat}" in self._timer_tokens:
            effects.append(self._cancel_timer(f"core:left:{inp.seat}"))
            if f"core:leftnote:{inp.seat}" in self._timer_tokens:
                effects.append(self._cancel_timer(f"core:leftnote:{inp.seat}"))  # a blip: nobody was told
            else:
                effects.append(Message(f"{self.role_of(inp.seat)} is back."))
        if self.phase == "waiting" and self.present >= set(self.seats):
            effects += self._start(inp.t)
        elif self.phase == "waiting" and not was_present:
            others = "your partner arrives" if len(self.seats) == 2 else "everyone has arrived"
            effects.append(Message(f"Welcome! The game starts as soon as {others}.", to=inp.seat))
        # A (re)joining page needs its state again (while waiting: just the core part, so it knows its seat).
        view = self._view(inp.seat)
        self._last_views[inp.seat] = view
        effects.append(View(inp.seat, view))
        return effects

    def _on_leave(self, inp: Leave) -> list[Effect]:
        if inp.seat not in self.seats or self.seats[inp.seat].kind != "person":
            return []
        self.present.discard(inp.seat)
        if self.phase == "playing":
            self.left_at[inp.seat] = inp.t
        if self.phase == "playing" and self.timers.partner_left_grace:
            grace = self.timers.partner_left_grace
            out = [self._set_timer(f"core:left:{inp.seat}", grace)]
            if grace > LEAVE_QUIET:
                return out + [self._set_timer(f"core:leftnote:{inp.seat}", LEAVE_QUIET)]
            return out + [Message(f"{self.role_of(inp.seat)} left the room. Waiting up to {_duration(grace)} for "
                                  "them to return.")]
        return []

    def _on_timer(self, inp: TimerFired) -> list[Effect]:
        if self._timer_tokens.get(inp.name) != inp.token:
            return []  # cancelled or superseded
        del self._timer_tokens[inp.name]
        if inp.name == "core:join":
            if self.phase == "waiting":
                return self._finish("no_partner", inp.t, {},
                                    "Sorry, no partner arrived in time. You will be paid for waiting.")
            return []
        if inp.name == "core:inactivity_warning":
            left = _duration(self.timers.inactivity_warning)
            return [Message(f"Are you still there? The game closes in {left} unless someone acts.")]
        if inp.name == "core:inactivity":
            return self._finish("timeout", inp.t, self.game.results(), "The game was closed after a long inactivity.")
        if inp.name.startswith("core:leftnote:"):
            seat = inp.name.split(":", 2)[2]
            if self.phase != "playing" or seat in self.present:
                return []
            rest = _duration(max(0.0, (self.timers.partner_left_grace or 0) - LEAVE_QUIET))
            return [Message(f"{self.role_of(seat)} left the room. Waiting up to {rest} more for them to return.")]
        if inp.name.startswith("core:left:"):
            seat = inp.name.split(":", 2)[2]
            return self._finish("partner_left", inp.t, self.game.results(),
                                f"{self.role_of(seat)} did not come back, so the game has ended.")
        if self.phase != "playing":
            return []
        name = inp.name[len(GAME_TIMER):] if inp.name.startswith(GAME_TIMER) else inp.name
        return self._run(lambda ctx: self.game.on_timer(ctx, name), inp.t, None)

    def _on_move(self, inp) -> list[Effect]:
        seat = inp.seat
        if seat not in self.seats:
            return []
        if isinstance(inp, Chat) and len(inp.text) > MAX_CHAT_CHARS:
            return [Message(f"Your message is too long (over {MAX_CHAT_CHARS} characters) and was not sent.",
                            to=seat, kind="error")]
        if self.phase == "waiting":
            if isinstance(inp, Chat):
                try:
                    return [ChatShown(seat, inp.text, self.game.chat_audience(seat, inp.to))]
                except RuleError as exc:
                    return [Message(str(exc), to=seat, kind="error")]
            return [Message("Please wait: the game starts as soon as everyone has arrived.", to=seat, kind="error")]
        effects: list[Effect] = []
        if isinstance(inp, Chat):
            def call(ctx: Context) -> None:
                # The line is shown only once the rules accepted it (a refused line reaches nobody), and before
                # whatever the rules say about it.
                ctx.effects.append(ChatShown(seat, inp.text, self.game.chat_audience(seat, inp.to)))
                self.game.on_chat(ctx, seat, inp.text)
        elif isinstance(inp, Command):
            if len(inp.name) > MAX_NAME_CHARS:
                return [Message("Unknown command. Type /help for the list.", to=seat, kind="error")]
            if inp.name in ("help", ""):
                return [Message(self._help_text(), to=seat)]
            if len(inp.args) > MAX_ARGS or any(len(a) > MAX_ARG_CHARS for a in inp.args):
                return [Message(f"That command has too many or too long arguments (at most {MAX_ARGS} arguments of "
                                f"{MAX_ARG_CHARS} characters each), so nothing changed.", to=seat, kind="error")]
            call = lambda ctx: self.game.on_command(ctx, seat, inp.name, inp.args)  # noqa: E731
        else:
            problem = check_payload(inp.payload)
            if problem:
                return [Message(f"That page action was not accepted: {problem}.", to=seat, kind="error")]
            call = lambda ctx: self.game.on_action(ctx, seat, inp.payload)  # noqa: E731
        effects += self._reset_inactivity()
        return effects + self._run(call, inp.t, seat, inp.turn, person=self.seats[seat].kind == "person")

    def _run(self, call: Callable[[Context], None], t: float, seat: Optional[str], turn: bool = True,
             person: bool = False) -> list[Effect]:
        """Run a rule handler with rollback: a rejected or failing move changes nothing. `person`: the input is a
        person's; whatever it makes the rules raise is that input's refusal, never a room error."""
        saved = copy.deepcopy(self.game)
        saved_core = (dict(self._last_views), dict(self._timer_tokens), self._next_token)
        ctx = Context(t, seat, turn)
        try:
            call(ctx)
            # inside the guard: a view or timer that fails on what the input left behind is the input's fault too
            effects = ctx.effects + self._game_timers(ctx) + self._changed_views()
        except RuleError as exc:
            self._roll_back(saved, saved_core)
            self._errors_in_a_row = 0
            return [Message(str(exc), to=seat, kind="error"), LogEvent("move_rejected", {"seat": seat, "reason": str(exc)})]
        except Exception as exc:  # a bug in the rules must not take the room (or the process) down
            self._roll_back(saved, saved_core)
            trace = traceback.format_exc(limit=6)[-2000:]
            if person:
                return [Message(REFUSED_TEXT, to=seat, kind="error"), LogEvent("input_refused", {
                    "seat": seat, "reason": "exception", "error": type(exc).__name__, "detail": str(exc)[:300],
                    "trace": trace})]
            self._errors_in_a_row += 1
            source = "agent" if seat is not None else ("start" if call == self.game.start else "timer")
            errors: list[Effect] = [LogEvent("error", {
                "seat": seat, "source": source, "error": f"{type(exc).__name__}: {str(exc)[:300]}", "trace": trace,
            })]
            if self._errors_in_a_row >= MAX_CONSECUTIVE_ERRORS:
                return errors + self._finish("error", t, {}, "Sorry, the game ran into a technical problem on our side "
                                                             "and was closed. You will be paid.")
            if seat is not None:
                errors.append(Message("Sorry, something went wrong while handling that; nothing changed. Please try "
                                      "again.", to=seat, kind="error"))
            return errors
        self._errors_in_a_row = 0
        if ctx.ended:
            status, results = ctx.ended
            effects += self._finish(status, t, {**self.game.results(), **results})
        return effects

    def _roll_back(self, game: Game, core: tuple) -> None:
        self.game = game
        self._last_views, self._timer_tokens, self._next_token = core

    # ------------------------------------------------------------------------------------------------------------
    def _start(self, t: float) -> list[Effect]:
        self.phase = "playing"
        self.started_at = t
        effects: list[Effect] = []
        if "core:join" in self._timer_tokens:
            effects.append(self._cancel_timer("core:join"))
        effects += self._reset_inactivity()
        return effects + self._run(self.game.start, t, None)

    def _finish(self, status: str, t: float, results: dict, reason: Optional[str] = None) -> list[Effect]:
        self.phase = "over"
        self.status = status
        duration = None if self.started_at is None else round(t - self.started_at, 3)
        self.results = complete_results({**results, "status": status, "duration": duration})
        if status == "invalid":  # strict LLM mode ended it: one mark every task's tables read (evaluation/tables.py)
            self.results["invalid"] = True
        if self.usage:
            self.results["tokens"] = sum(u["prompt_tokens"] + u["completion_tokens"] for u in self.usage.values())
            self.results["llm_usage"] = {s: dict(u) for s, u in self.usage.items()}
        effects: list[Effect] = [self._cancel_timer(n) for n in list(self._timer_tokens)]
        if reason:
            effects.append(Message(reason))
        effects.append(LogEvent("game_end", {"status": status, "results": self.results}))
        bonus = results.get("bonus", {}) if isinstance(results.get("bonus"), dict) else {}
        # A room closed because someone left: whoever is still away left it (the study's left_policy says what
        # they get); the partners who stayed get the partner-left code, and the record names who left and when.
        leavers = [s for s in self.persons if s not in self.present] if status == "partner_left" else []
        self.leavers = leavers
        for seat in self.persons:
            if seat in leavers:
                code = self.code_source() if self.completion.leaver_paid else None
                data = {"status_txt": LEFT_STATUS, "left_at": self.left_at.get(seat),
                        "payment": self.completion.left_policy.replace("no_code", "none")}
                if code is not None:
                    self.codes[seat] = data["confirmation_token"] = code
                effects.append(LogEvent("confirmation_log", data, to=seat))
                effects.append(Message(self.completion.left_message(code), to=seat, html=self.completion.is_html))
                continue
            code = self.code_source()
            self.codes[seat] = code
            data = {"status_txt": STATUS_TXT.get(status, status), "confirmation_token": code}
            if leavers:
                data["partner_left"] = {s: self.left_at.get(s) for s in leavers}
            if seat in bonus:
                data["reward"] = bonus[seat]
            effects.append(LogEvent("confirmation_log", data, to=seat))
            effects.append(Message(self.completion.message(code), to=seat, html=self.completion.is_html))
        effects += self._changed_views()
        effects.append(GameOver(status, self.results))
        return effects

    def _count_usage(self, inp: AgentUsage) -> None:
        u = self.usage.setdefault(inp.seat, {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "failures": 0})
        for k in u:
            u[k] += int(getattr(inp, k) or 0)

    def _game_timers(self, ctx: Context) -> list[Effect]:
        out: list[Effect] = []
        for name, seconds in ctx.timers:
            full = GAME_TIMER + name
            out.append(self._cancel_timer(full) if seconds is None else self._set_timer(full, seconds))
        return out

    def _help_text(self) -> str:
        lines = ["Commands:"] + [f"  {usage}" for usage in self.game.commands().values()] + ["  /help: this list"]
        return "\n".join(lines)

    # ------------------------------------------------------------------------------------------------------------
    def _timers_on(self) -> bool:
        return bool(self.persons)

    def _set_timer(self, name: str, seconds: float) -> SetTimer:
        token = self._next_token
        self._next_token += 1
        self._timer_tokens[name] = token
        return SetTimer(name, seconds, token)

    def _cancel_timer(self, name: str) -> CancelTimer:
        self._timer_tokens.pop(name, None)
        return CancelTimer(name)

    def _reset_inactivity(self) -> list[Effect]:
        if not (self._timers_on() and self.timers.inactivity):
            return []
        out: list[Effect] = [self._set_timer("core:inactivity", self.timers.inactivity)]
        if self.timers.inactivity_warning and self.timers.inactivity > self.timers.inactivity_warning:
            out.append(self._set_timer("core:inactivity_warning", self.timers.inactivity - self.timers.inactivity_warning))
        return out

    def pending_timers(self) -> dict[str, int]:
        """Timer name -> token still armed (a restored match re-arms these)."""
        return dict(self._timer_tokens)

    # ------------------------------------------------------------------------------------------------------------
    def _view(self, seat: str) -> dict:
        data = dict(self.game.view(seat)) if self.phase in ("playing", "over") else {}
        data["core"] = {
            "phase": self.phase, "seat": seat, "task": self.game.task,
            "status": self._status_of(seat), "code": self.codes.get(seat), "chat": self.game.chat,
            **self._who(),
        }
        return data

    def _who(self) -> dict:
        """Who is who, for the page's "You are ..." line: every seat's role name, and the name each person has
        in Slurk's chat and user list (a person's login name; none for agents)."""
        return {"roles": seat_labels(self.game),
                "people": {s: i.name for s, i in self.seats.items() if i.kind == "person" and i.name}}

    def page_parts(self, seat: str) -> Optional[tuple[dict, dict]]:
        """(the part of the seat's page every seat shares, the seat's own part), or None when the game has no shared
        part (`Game.page_shared`) or is not playing yet: `view(seat)` is then pushed whole. The core fields split the
        same way: phase, status, task and chat are everyone's; seat and completion code are the seat's."""
        if self.phase not in ("playing", "over"):
            return None
        shared = self.game.page_shared()
        if shared is None:
            return None
        shared = dict(shared)
        shared["core"] = {"phase": self.phase, "status": self.status, "task": self.game.task, "chat": self.game.chat,
                          **self._who()}
        own = dict(self.game.page_private(seat))
        own["core"] = {"seat": seat, "code": self.codes.get(seat)}
        if self._status_of(seat) != self.status:
            own["core"]["status"] = self._status_of(seat)  # the own part's core wins over the shared one
        return shared, own

    def _status_of(self, seat: str) -> Optional[str]:
        """How the game ended for this seat: "left" for a person whose leaving closed the room, else the status."""
        if seat in self.leavers:
            return LEFT_STATUS
        return self.status

    def _changed_views(self) -> list[View]:
        out = []
        for seat in self.seats:
            v = self._view(seat)
            if self._last_views.get(seat) != v:
                self._last_views[seat] = v
                out.append(View(seat, v))
        return out


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        m = int(seconds // 60)
        return f"{m} minute" + ("s" if m != 1 else "")
    return f"{seconds:g} seconds"
