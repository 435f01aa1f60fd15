"""Agent turns off the rooms' threads: a small shared pool runs `brain.act()` so that a slow agent (an LLM endpoint
that hangs until its deadline) never keeps its room from answering people.

A room's worker hands a woken brain to `ThinkingPool.submit(worker, driver, seat)`. A pool thread runs
`driver.think(seat)` (inside one `LLMClient.turn()`, so all the LLM calls of the turn share one deadline) and puts
the result back on the room's queue as a `("thought", (driver, thought))` event, which the worker applies in order
with everything else (`rooms.RoomWorker._on_thought`). A room that closed or a bot that stops meanwhile drops it.

People's pages learn who is thinking from their views (`core.thinking`). So that quick agents (rule-based ones answer
in microseconds) cost no extra page updates, the pool tells the room only about an act still under way after
`show_after` seconds: it puts `("thinking", None)` on the room's queue, and the room re-sends the views then.

The pool is bounded: at most `threads` acts run at once; more wait, in order. Threads start on demand and are
daemons (an act stuck in a call until its deadline does not hold up the process's exit).

Pacing (`bots/pacing.py`): an act whose moves came sooner than a person could have written them is held back, without
holding a thread: the herald thread puts it on the room's queue when it is due (the page shows the agent thinking
meanwhile, as for a slow act).
"""
from __future__ import annotations

import collections
import contextlib
import heapq
import itertools
import logging
import threading
import time
from typing import Any, Optional, Protocol

from bots.pacing import Pacing
from tasks.core.driver import MatchDriver, Thought

log = logging.getLogger(__name__)

THREADS = 16
SHOW_AFTER = 0.5  # seconds an act must take before people's pages show the agent as thinking


class ThinkingRoom(Protocol):
    """What the pool needs of a room (`rooms.RoomWorker`): its id, its queue, and whether an answer is still wanted
    (its game plays, `state == "attached"`, and its bot is not stopping)."""

    room_id: int
    state: str
    bot: Any

    def put(self, kind: str, data: Any = None) -> None: ...


class ThinkingPool:
    def __init__(self, llm: Any = None, threads: int = THREADS, show_after: float = SHOW_AFTER,
                 pacing: Optional[Pacing] = None):
        self.llm = llm  # the bot's LLM client (or None): each act runs inside one `llm.turn()`
        self.pacing = pacing or Pacing(enabled=False)
        self.max_threads = max(1, int(threads))
        self.show_after = show_after
        self._cond = threading.Condition()
        self._jobs: "collections.deque[tuple]" = collections.deque()
        self._threads: list[threading.Thread] = []
        self._busy = 0
        self._stopped = False
        self._ids = itertools.count(1)
        self._under_way: set[int] = set()  # acts queued or running
        # acts to announce once they take long: (due, id, n, worker, None), and paced results to hand over when due:
        # (due, id, n, worker, (driver, thought)); served by one herald thread
        self._herald_cond = threading.Condition()
        self._due: list = []
        self._herald: Optional[threading.Thread] = None

    def submit(self, worker: ThinkingRoom, driver: MatchDriver, seat: str) -> None:
        with self._cond:
            if self._stopped:
                return
            job_id = next(self._ids)
            self._under_way.add(job_id)
            self._jobs.append((job_id, worker, driver, seat, time.monotonic()))
            idle = len(self._threads) - self._busy
            if len(self._jobs) > idle and len(self._threads) < self.max_threads:
                t = threading.Thread(target=self._serve, name=f"slurk-thinking-{len(self._threads)}", daemon=True)
                self._threads.append(t)
                t.start()
            else:
                self._cond.notify()
        with self._herald_cond:
            self._schedule(time.monotonic() + self.show_after, job_id, worker, None)

    def _schedule(self, due: float, job_id: int, worker: ThinkingRoom, payload) -> None:
        """Caller holds `_herald_cond`."""
        heapq.heappush(self._due, (due, job_id, next(self._ids), worker, payload))
        if self._herald is None:
            self._herald = threading.Thread(target=self._announce, name="slurk-thinking-herald", daemon=True)
            self._herald.start()
        self._herald_cond.notify()

    def busy(self) -> int:
        """Acts running or waiting (for tests and diagnostics)."""
        with self._cond:
            return len(self._under_way)

    def stop(self) -> None:
        """No new acts; idle threads end now, busy ones after their act (its result is dropped by the room)."""
        with self._cond:
            self._stopped = True
            self._jobs.clear()
            self._cond.notify_all()
        with self._herald_cond:
            self._due.clear()
            self._herald_cond.notify_all()

    # ------------------------------------------------------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                job_id, worker, driver, seat, started = self._jobs.popleft()
                self._busy += 1
            held = False
            try:
                held = self._run(job_id, worker, driver, seat, started)
            except Exception:  # pragma: no cover - _run reports its own errors
                log.exception("thinking job failed")
            finally:
                worker = driver = None  # an idle thread must not keep its last room alive
                with self._cond:
                    self._busy -= 1
                    if not held:
                        self._under_way.discard(job_id)

    def _run(self, job_id: int, worker: ThinkingRoom, driver: MatchDriver, seat: str, started: float) -> bool:
        """Think, then hand the result to the room now, or (True) hold it back until a person could have written it."""
        if worker.state != "attached" or worker.bot.stopping:
            return False  # the game ended or the bot stops: nobody would use the answer
        turn = getattr(self.llm, "turn", None)
        try:
            with (turn() if callable(turn) else contextlib.nullcontext()):
                thought = driver.think(seat)
        except Exception as exc:
            log.exception("room %s: the agent in seat %s failed", worker.room_id, seat)
            thought = Thought(seat, error=f"{type(exc).__name__}: {exc}")
        hold = 0.0 if thought.error is not None else self.pacing.seconds(thought.moves, time.monotonic() - started)
        if hold > 0:
            with self._herald_cond:
                if not self._stopped:
                    self._schedule(time.monotonic() + hold, job_id, worker, (driver, thought))
                    return True
        worker.put("thought", (driver, thought))
        return False

    def _announce(self) -> None:
        """Tell a room when one of its acts has taken `show_after` seconds (its pages then show it thinking), and
        hand a paced act's result to its room when it is due."""
        while True:
            with self._herald_cond:
                while True:
                    if self._stopped:
                        return
                    if self._due:
                        wait = self._due[0][0] - time.monotonic()
                        if wait <= 0:
                            _due, job_id, _n, worker, payload = heapq.heappop(self._due)
                            break
                        self._herald_cond.wait(wait)
                    else:
                        self._herald_cond.wait()
            if payload is not None:  # a paced result is due
                worker.put("thought", payload)
                with self._cond:
                    self._under_way.discard(job_id)
                continue
            with self._cond:
                still = job_id in self._under_way
            if still:
                worker.put("thinking", None)
