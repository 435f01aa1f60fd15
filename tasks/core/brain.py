"""Embedded agents ("brains") that take a seat. A brain sees only what its seat sees.

The driver hands every effect addressed to the brain's seat to `observe`, then calls `act` when something new
arrived. `act` returns the seat's moves (chat lines and commands). Keeping observation and action apart lets a
restored match rebuild a brain's beliefs by replaying observations without re-running its (possibly slow or
random) decisions.

LLM acts: every use of an LLM inside `act` (one decision: an agent turn, reading one message, answering one
question) runs in `with self.llm_act(use) as act:` and passes `usage=act` to the LLM client. The act records
whether the answer was usable, its tokens and times; the brain marks `act.fallback = True` when its symbolic policy
stood in (`llm_fallback`). The driver drains the acts after each `act()` and logs them (`agent_note` rows of kind
`llm_act`), so every transport and every table counts the same acts. With the brain option `strict_llm`, `llm_fallback` refuses the
fallback instead: the act is marked failed and the driver ends the game as "invalid" (for research runs).
"""
from __future__ import annotations

import io
import pickle
import random
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

from .presets import sampling_for
from .protocol import Chat, Command, Effect, Input

# Attributes a brain's snapshot leaves out: what the driver drains after every act. The LLM client is never pickled
# either, wherever the brain keeps it (see `Brain.snapshot`): a restored brain uses the new process's client.
SNAPSHOT_SKIP = ("notes", "llm_acts")
_LLM_ID = "brain-llm"


# What one LLM act counts (summed from the LLM client's usage deltas) and how long it took.
# `estimated`: calls whose token counts the client estimated (the server sent none, e.g. a stream without usage)
ACT_COUNTS = ("prompt_tokens", "completion_tokens", "calls", "retries", "invalid", "repairs", "truncated", "estimated")
ACT_TIMES = ("model_seconds", "queue_seconds")


class LLMAct:
    """One use of the LLM by a brain. Pass it as `usage=` to the LLM client: it sums the client's deltas (any object
    with some of ACT_COUNTS / ACT_TIMES as attributes; mapping-style access works for simple fakes).

    `valid`: the answer was usable (set on a normal exit of `Brain.llm_act`, cleared by an exception or by
    `Brain.llm_fallback`); `fallback`: the symbolic policy stood in; `failed`: strict mode refused the fallback;
    `effective`: set by the driver once the act()'s moves were played (valid, no fallback, and a command of that
    act() was accepted by the rules);
    `seconds`: wall time of the whole act (building the prompt, the calls, parsing, mapping)."""

    def __init__(self, use: str, seat: Optional[str] = None):
        self.use = use
        self.seat = seat
        self.valid: Optional[bool] = None
        self.fallback = False
        self.failed = False
        self.effective = False
        self.error: Optional[str] = None
        self.seconds = 0.0
        for f in ACT_COUNTS:
            setattr(self, f, 0)
        for f in ACT_TIMES:
            setattr(self, f, 0.0)

    def add(self, delta) -> "LLMAct":
        for f in ACT_COUNTS:
            setattr(self, f, getattr(self, f) + int(getattr(delta, f, 0) or 0))
        for f in ACT_TIMES:
            setattr(self, f, getattr(self, f) + float(getattr(delta, f, 0.0) or 0.0))
        return self

    # mapping-style access for duck-typed callers that keep counts in a dict
    def get(self, key, default=None):
        return getattr(self, key, default) if key in ACT_COUNTS + ACT_TIMES else default

    def __getitem__(self, key):
        if key not in ACT_COUNTS + ACT_TIMES:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key, value) -> None:
        if key not in ACT_COUNTS + ACT_TIMES:
            raise KeyError(key)
        setattr(self, key, value)

    def record(self, seat: str, brain: str) -> dict:
        """The act as a log row's data (no prompt, no answer: only what the tables need)."""
        out = {"seat": seat, "brain": brain, "use": self.use, "valid": bool(self.valid), "fallback": self.fallback,
               "failed": self.failed, "effective": self.effective, "seconds": round(self.seconds, 4)}
        out.update({f: getattr(self, f) for f in ACT_COUNTS})
        out.update({f: round(getattr(self, f), 4) for f in ACT_TIMES})
        if self.error:
            out["error"] = self.error[:300]
        return out


class Brain:
    name = "brain"
    uses_llm = False  # True: the brain calls its LLM when it has one (the real-model test tier plays every such brain)

    def __init__(self, seat: str, seed: int = 0, llm=None, options: Optional[dict] = None):
        self.seat = seat
        self.seed = seed
        self.llm = llm
        self.options = dict(options or {})
        self.rng = random.Random(seed)  # every random choice of a brain comes from its seed: games replay
        self.view: Optional[dict] = None  # the seat's latest view, for brains that keep one
        self.notes: list[dict] = []  # structured notes for the log (e.g. an LLM fallback), drained by the driver
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "failures": 0}
        self.llm_acts: list[LLMAct] = []  # LLM acts since the last drain (by the driver)
        self.strict_llm = bool(self.options.get("strict_llm", False))
        self.briefing: dict = {}  # what the seat's agent knows beyond its view (Game.agent_briefing), set when built

    def sampling(self, use: str) -> dict:
        """Keyword arguments for `llm.chat` / `llm.chat_json` in one use ("turn", "reader", ...): brain option
        `sampling`'s "*" settings merged with the use's own (tasks/core/presets.py)."""
        return sampling_for(self.options, use)

    def observe(self, effect: Effect) -> None:
        """Update beliefs from one effect the seat perceives."""

    def act(self) -> list[Input]:
        """Moves to make now; [] to wait."""
        return []

    # helpers for subclasses
    def say(self, text: str, first: bool = True) -> Chat:
        return Chat(self.seat, text, turn=first)

    def command(self, name: str, *args: str, first: bool = True) -> Command:
        return Command(self.seat, name, tuple(str(a) for a in args), turn=first)

    def note(self, kind: str, **data) -> None:
        self.notes.append({"seat": self.seat, "brain": self.name, "kind": kind, **data})

    @contextmanager
    def llm_act(self, use: str) -> Iterator[LLMAct]:
        """One LLM act (see the module docstring). An exception inside marks it invalid (and propagates); the
        act's tokens and a failure count go into `self.usage` (the driver's AgentUsage) either way."""
        act = LLMAct(use, self.seat)
        started = time.perf_counter()
        try:
            yield act
        except BaseException as exc:
            act.valid = False
            act.error = f"{type(exc).__name__}: {exc}"[:300]
            raise
        else:
            if act.valid is None:
                act.valid = True
        finally:
            act.seconds = time.perf_counter() - started
            self.llm_acts.append(act)
            for k in ("prompt_tokens", "completion_tokens", "calls"):
                self.usage[k] = self.usage.get(k, 0) + getattr(act, k)
            if not act.valid:
                self.usage["failures"] = self.usage.get("failures", 0) + 1

    def llm_missing(self, use: str) -> LLMAct:
        """Record an act the brain needed an LLM for while none is configured (an invalid act)."""
        act = LLMAct(use, self.seat)
        act.valid = False
        act.error = "no LLM configured"
        self.llm_acts.append(act)
        return act

    def llm_or_symbolic(self, use: str, ask: Callable[[LLMAct], list], symbolic: Callable[[], list]) -> list:
        """One LLM act `ask(act)`; with no LLM configured or an unusable answer, `symbolic()` stands in (nothing
        under `strict_llm`, see llm_fallback)."""
        if self.llm is None:
            act = self.llm_missing(use)
            return symbolic() if self.llm_fallback(act, error="no LLM configured") else []
        act = None
        try:
            with self.llm_act(use) as act:
                return ask(act)
        except Exception as exc:
            return symbolic() if self.llm_fallback(act, exc) else []

    def llm_fallback(self, act: Optional[LLMAct], exc: Optional[BaseException] = None, **data) -> bool:
        """The act's answer is unusable. Returns True when the symbolic policy may stand in (noted as
        `llm_fallback`), False under `strict_llm`: the act failed and the game will be reported invalid."""
        error = data.pop("error", None) or (f"{type(exc).__name__}: {exc}"[:300] if exc is not None else None)
        if act is not None:
            act.valid = False
            act.error = act.error or error
        if self.strict_llm:
            if act is not None:
                act.failed = True
            self.note("llm_failed", error=error, **data)
            return False
        if act is not None:
            act.fallback = True
        self.note("llm_fallback", error=error, **data)
        return True

    # --- memory across a restart ----------------------------------------------------------------------------------
    def snapshot(self) -> bytes:
        """The brain's whole memory as bytes: beliefs, plans, what it asked, said and promised, its random state.
        The Slurk runtime stores it after each of the brain's acts (in the bot's private state database) and, after a
        restart, replays the match to that point, loads it, and replays the rest: the brain goes on exactly where it
        was instead of greeting again. Raises (pickle.PicklingError, TypeError, ...) for a brain that holds something
        that cannot be saved; the runtime then resumes it from its observations only, as before."""
        state = {k: v for k, v in self.__dict__.items() if k not in SNAPSHOT_SKIP}
        buf = io.BytesIO()
        pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
        llm = self.llm
        pickler.persistent_id = lambda obj: _LLM_ID if llm is not None and obj is llm else None
        pickler.dump(state)
        return buf.getvalue()

    def restore(self, blob: bytes) -> None:
        """Load a `snapshot` of a brain of the same class and seat (this brain keeps its own LLM client)."""
        unpickler = pickle.Unpickler(io.BytesIO(blob))
        llm = self.llm

        def load(pid):
            if pid != _LLM_ID:
                raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
            return llm
        unpickler.persistent_load = load
        state = unpickler.load()
        if state.get("seat") != self.seat:
            raise ValueError(f"a snapshot of seat {state.get('seat')!r} cannot restore seat {self.seat!r}")
        state["llm"] = llm
        self.__dict__.update(state)

    def drain_llm_acts(self) -> list[dict]:
        acts, self.llm_acts = self.llm_acts, []
        return [a.record(self.seat, self.name) for a in acts]
