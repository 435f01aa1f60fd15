"""`./run_bot.sh concierge [--config FILE]`: the waiting-room bot that pairs people into task rooms.

Environment (as written by `setup` into bot.env): SLURK_URL, CONCIERGE_TOKEN, CONCIERGE_USER, WAITING_ROOM,
optionally TASK_ID (the only task it pairs people for; without it, any task a person's token names) and AGENT_USERS
(`seat:user_id,...`: agent users added to each new room of TASK_ID, so the task bot can show the agent under a
human-looking name), WAITING_TIMEOUT (seconds, default 600), CONCIERGE_ROOMS_PER_MINUTE (default 30), and the
completion settings of the config file (completion.platform / url_template, for the Prolific link).

What it does (slurk-protocol.md §2.5 and §4):
  * every person who arrives in its waiting room (`status: join`) is greeted privately and queued by the task of
    their token, as the server reports it (`GET /users/{id}/task` -> task id, num_users, layout id); users without a
    task (bots), and people of a task it was not configured for, are not paired;
  * when a task has `num_users` people waiting (checked to be still online): `POST /rooms {layout_id}`, then every
    person is taken out of the waiting room (`DELETE /users/{u}/rooms/{waiting}`, with the user's fresh ETag) and
    then added (`POST /users/{u}/rooms/{new}`), in that order, as slurk-bots' concierge does (Slurk's page turns the
    chat read-only on any `left_room`, so it must come before the new room's `joined_room`); when all are in, the
    room is announced with `room_created {room, task}`, so the task bot joins via `new_task_room`; agent users are
    added afterwards. A move that fails half-way puts everyone moved so far back into the waiting room;
  * a person still waiting after `waiting_timeout` seconds (counted from their first arrival, so a page reload does
    not restart the clock) gets a completion code: logged as `confirmation_log {status_txt: no_partner,
    confirmation_token}` for them, and sent privately with a polite note (and the Prolific link when configured);
  * people who leave the waiting room are forgotten (their place in the queue and their timer).

What it does not trust: `room_created` can be emitted by anyone in Slurk (no login or permission check), so a
`new_task_room` it did not cause is only logged, never acted on; it serves only its own waiting room and the task it
was configured for, and it reads people's tasks from the server. Names people chose at login are shown through
`plain_name` (chat is rendered as markdown and HTML).

When Slurk fails (it is down, restarting, or answers errors):
  * every failed step is retried after an exponential back-off (RETRY_BASE doubling up to RETRY_CAP seconds, with a
    seeded jitter), at most `retry_limit` times in a row; a group that cannot be placed keeps its place in the queue
    and never loops without waiting (the people's waiting timeout ends it at the latest);
  * for a minute after a server error it creates at most `rooms_per_minute` rooms (counted from that error) and one
    group at a time; a launch whose rooms are created without errors is not capped (groups are placed by MOVERS
    threads at once). People held back by the cap or a back-off are told their place in the queue and the expected
    wait privately, when it changes and at most every PLACE_INTERVAL seconds;
  * its socket reconnects with python-socketio's back-off (0.5 s doubling to RECONNECT_DELAY_MAX), at most
    RECONNECT_LIMIT times; then it stops with an error (exit code 1), so that a supervisor or the researcher notices;
  * a room it created but could not fill is given up: everyone the server may have put into it is taken out again
    and put back on the waiting-room page, and the room is made read-only (Slurk has no room state beyond that) and
    never used again (`dead_rooms`); a person whose move failed with a server error is first re-added to the waiting
    room as a probe before another room is made for them (a session Slurk lost in a restart fails the probe, not a
    new room).

Socket events are received in order and handled one at a time by a worker thread (timers feed the same queue), so
the state never sees a leave before the join that preceded it. A failure while handling one person or one group is
logged and never stops the others.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import html
import logging
import os
import queue
import random
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

import socketio

from bots.config import DEFAULT_ROOMS_PER_MINUTE, ConfigError
from bots.slurk.rest import SlurkAPIError, SlurkREST
from bots.slurk.socket import InOrderClient, user_id_of
from tasks.core.codes import CompletionConfig, new_code
from tasks.core.wording import plain_name

from .provision import DEFAULT_WAITING_TIMEOUT, read_study_config

log = logging.getLogger("bots.concierge")

RETRY_BASE = 1.0     # seconds before the first retry of a failed step
RETRY_CAP = 30.0     # the longest wait between two tries
RETRY_JITTER = 0.2   # each wait is scaled by a factor in [1 - j, 1 + j] (then capped)
RETRY_LIMIT = 100    # failed tries of one step in a row before it is given up (until something new triggers it)
WINDOW = 60.0        # seconds of the rooms-per-minute cap (in force for this long after a server error)
PLACE_INTERVAL = 10.0  # seconds: at most one queue-place message per person in this time, refreshed this often
RECONNECT_DELAY_MAX = 5.0  # the socket reconnects after 0.5, 1, 2, 4, 5, 5, ... s (python-socketio, +-0.5 s)
MOVERS = 8           # groups placed at the same time (threads)
RECONNECT_LIMIT = 720      # reconnection attempts (about an hour) before the concierge stops with an error


class ConciergeAuthError(RuntimeError):
    """Slurk did not log the concierge in (it accepts bad credentials silently)."""


# ----------------------------------------------------------------------------------------------------------------
# Timers: threading by default; tests use ManualTimers and fire them when they choose.


class ThreadTimers:
    def __init__(self):
        self._timers: dict[Any, threading.Timer] = {}
        self._lock = threading.Lock()

    def set(self, key: Any, seconds: float, fn: Callable[[], None]) -> None:
        t = threading.Timer(max(0.0, seconds), fn)
        t.daemon = True
        with self._lock:
            old = self._timers.pop(key, None)
            self._timers[key] = t
        if old:
            old.cancel()
        t.start()

    def cancel(self, key: Any) -> None:
        with self._lock:
            t = self._timers.pop(key, None)
        if t:
            t.cancel()

    def cancel_all(self) -> None:
        with self._lock:
            timers, self._timers = list(self._timers.values()), {}
        for t in timers:
            t.cancel()


class ManualTimers:
    """Timers that fire only when a test says so (`fire(key)` / `fire_all()`); `pending` shows what is armed."""

    def __init__(self):
        self.pending: dict[Any, tuple[float, Callable[[], None]]] = {}
        self._lock = threading.Lock()

    def set(self, key, seconds, fn) -> None:
        with self._lock:
            self.pending[key] = (seconds, fn)

    def cancel(self, key) -> None:
        with self._lock:
            self.pending.pop(key, None)

    def cancel_all(self) -> None:
        with self._lock:
            self.pending.clear()

    def fire(self, key) -> bool:
        with self._lock:
            entry = self.pending.pop(key, None)
        if entry is None:
            return False
        entry[1]()
        return True

    def fire_all(self) -> int:
        with self._lock:
            keys = list(self.pending)
        return sum(self.fire(k) for k in keys)


class Backoff:
    """Waits before retry number `attempt` (0-based): base * 2**attempt, capped at `cap`, scaled by a jitter factor
    in [1 - jitter, 1 + jitter] drawn from a random.Random seeded with `seed` (the same seed gives the same waits),
    then capped again."""

    def __init__(self, base: float = RETRY_BASE, cap: float = RETRY_CAP, jitter: float = RETRY_JITTER,
                 seed: Any = 0):
        if base <= 0 or cap < base:
            raise ValueError("back-off needs 0 < base <= cap")
        if not 0 <= jitter < 1:
            raise ValueError("jitter must be in [0, 1)")
        self.base, self.cap, self.jitter = float(base), float(cap), float(jitter)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def delay(self, attempt: int) -> float:
        raw = min(self.cap, self.base * 2.0 ** min(max(0, int(attempt)), 62))
        with self._lock:
            r = self._rng.random()
        return min(self.cap, raw * (1.0 - self.jitter + 2.0 * self.jitter * r))


def shown_name(name: Any) -> str:
    """A person's login name as the concierge writes it into an html message: inert markdown, escaped html."""
    return html.escape(plain_name(name), quote=False)


# ----------------------------------------------------------------------------------------------------------------


@dataclass
class Waiting:
    user_id: int
    name: str
    task_id: int
    num_users: int
    layout_id: int
    timer: int  # generation of this person's timer


class Concierge:
    def __init__(self, url: str, token: str, user_id: int, waiting_room: int, *, rest: Optional[SlurkREST] = None,
                 etag: str = "auto", waiting_timeout: float = DEFAULT_WAITING_TIMEOUT,
                 completion: Optional[CompletionConfig] = None, task_id: Optional[int] = None,
                 agent_users: Optional[Mapping[str, int]] = None, timers=None,
                 code_source: Callable[[], str] = new_code, clock: Callable[[], float] = time.monotonic,
                 auth_timeout: float = 5.0, emit_timeout: float = 10.0,
                 rooms_per_minute: int = DEFAULT_ROOMS_PER_MINUTE, retry_base: float = RETRY_BASE,
                 retry_cap: float = RETRY_CAP, retry_limit: int = RETRY_LIMIT, seed: Any = None,
                 movers: int = MOVERS):
        self.url = url.rstrip("/")
        self.user_id = int(user_id)
        self.waiting_room = int(waiting_room)
        self._token = token
        self.rest = rest or SlurkREST(self.url, token, etag=etag)
        self.waiting_timeout = float(waiting_timeout)
        self.completion = completion or CompletionConfig()
        self.task_id = None if task_id is None else int(task_id)
        self.agent_users = {str(s): int(u) for s, u in (agent_users or {}).items()}
        self.timers = timers if timers is not None else ThreadTimers()
        self.code_source = code_source
        self.clock = clock
        self.auth_timeout = auth_timeout
        self.emit_timeout = emit_timeout
        if int(rooms_per_minute) < 1:
            raise ValueError("rooms_per_minute must be 1 or more")
        self.rooms_per_minute = int(rooms_per_minute)
        self.retry_limit = max(1, int(retry_limit))
        self.backoff = Backoff(retry_base, retry_cap, seed=self.user_id if seed is None else seed)

        self._lock = threading.RLock()
        self.queues: dict[int, list[int]] = {}        # task id -> waiting user ids, first come first
        self.people: dict[int, Waiting] = {}          # user id -> who is waiting
        self.first_seen: dict[int, float] = {}        # user id -> clock() at first arrival
        self.compensated: dict[int, str] = {}         # user id -> completion code (no partner)
        self.placed: dict[int, int] = {}              # user id -> task room they were moved to
        self.rooms: dict[int, dict] = {}              # task room in use -> {task, users}
        self.dead_rooms: dict[int, dict] = {}         # rooms it created and gave up -> {task, left_in, read_only}
        self.suspects: set[int] = set()               # people whose last move failed with a server error
        self.stats: collections.Counter = collections.Counter()  # rooms_created, rooms_given_up, retries, ...
        self._created: collections.deque = collections.deque()  # clock() of each room created in the last WINDOW
        self._tries: dict[tuple, int] = {}            # retry key -> failed tries in a row
        self._group_waits: set[int] = set()           # tasks whose grouping waits for a retry timer
        self._put_back_users: set[int] = set()        # taken out of the waiting room for a move not yet complete
        self._trouble: Optional[tuple[float, float]] = None  # (first, last) clock() of server errors, this episode
        self._retry_at: dict[tuple, float] = {}       # retry key -> clock() when it is tried again
        self._told: dict[int, tuple[tuple, float]] = {}  # user -> (place message key, clock() sent)
        # Rooms are opened by a few threads at once (a launch brings many people in a minute; each room costs a
        # handful of requests); grouping stays in the worker thread, so the queue is only ever changed in order.
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, int(movers)),
                                                           thread_name_prefix="concierge-move")
        self._moving: set[int] = set()               # people whose move is under way (their leave waits for it)
        self._looking: set[int] = set()              # people whose token's task is being read
        self._lookups = 0                             # task reads under way in the pool
        self._inflight = 0                            # groups being placed by the pool
        self._timer_gen = 0
        self._events: "queue.Queue[tuple]" = queue.Queue()
        self._worker = threading.Thread(target=self._loop, name="concierge", daemon=True)
        self._joined = threading.Event()
        self._connected = threading.Event()
        self._stopped = threading.Event()
        self._gen = 0
        self.failed: Optional[str] = None  # why the concierge stopped on its own
        self._sio = InOrderClient(reconnection=True, reconnection_delay=0.5,
                                   reconnection_delay_max=RECONNECT_DELAY_MAX, reconnection_attempts=RECONNECT_LIMIT,
                                   logger=False, engineio_logger=False)
        self._sio.on("connect", self._on_connect)
        self._sio.on("disconnect", self._on_disconnect)
        self._sio.on("joined_room", self._on_joined_room)
        self._sio.on("status", self._on_status)
        self._sio.on("new_task_room", self._on_new_task_room)
        self._sio.on("__disconnect_final", self._on_reconnect_given_up)  # python-socketio: reconnection ended

    def __repr__(self) -> str:
        return f"Concierge(url={self.url!r}, user_id={self.user_id}, waiting_room={self.waiting_room}, token='***')"

    # --- lifecycle ----------------------------------------------------------------------------------------------
    def start(self) -> "Concierge":
        self._worker.start()
        try:
            self._sio.connect(self.url, headers={"Authorization": f"Bearer {self._token}", "user": str(self.user_id)},
                              namespaces=["/"], wait_timeout=max(5.0, self.auth_timeout))
        except socketio.exceptions.ConnectionError as exc:
            self.stop()
            raise ConnectionError(f"Cannot connect to the Slurk server at {self.url}: {exc}") from None
        try:
            self._verify_login()
        except Exception:
            self.stop()
            raise
        log.info("concierge logged in to %s as user %s; waiting room %s; %s", self.url, self.user_id,
                 self.waiting_room, f"task {self.task_id}" if self.task_id is not None else
                 "any task (no TASK_ID configured)")
        return self

    def _verify_login(self) -> None:
        """Slurk never refuses a socket: wait for `joined_room` of the waiting room, else say what is wrong."""
        deadline = time.monotonic() + self.auth_timeout
        while not self._joined.wait(0.1):
            if time.monotonic() < deadline:
                continue
            try:
                session = self.rest.get_user(self.user_id).get("session_id")
            except SlurkAPIError as exc:
                if exc.status == 404:
                    raise ConciergeAuthError(f"Slurk has no user {self.user_id}; check CONCIERGE_USER.") from None
                session = None
            try:
                sid = self._sio.get_sid("/")
            except Exception:
                sid = None
            if session and sid and session == sid:
                raise ConciergeAuthError(f"The concierge (user {self.user_id}) is logged in but not in the waiting "
                                         f"room {self.waiting_room}; check WAITING_ROOM and the concierge's token.")
            raise ConciergeAuthError(
                f"Slurk accepted the socket but did not log the concierge in within {self.auth_timeout:g} s. "
                "Check that CONCIERGE_TOKEN is the token of CONCIERGE_USER.")

    def run(self) -> None:
        self.start()
        try:
            while not self._stopped.wait(0.5):
                pass
        except KeyboardInterrupt:
            log.info("interrupted; stopping")
        finally:
            self.stop()

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        self.timers.cancel_all()
        try:
            self._sio.disconnect()
        except Exception:  # pragma: no cover
            log.debug("disconnect failed", exc_info=True)
        self._events.put(("stop",))
        if self._worker.is_alive() and threading.current_thread() is not self._worker:
            self._worker.join(timeout=10)
        # No move or message outlives the concierge (its calls see _stopped and end within a request's time).
        self._pool.shutdown(wait=threading.current_thread().name.startswith("concierge-move") is False,
                            cancel_futures=True)

    @property
    def sio(self) -> socketio.Client:
        return self._sio

    def idle(self) -> bool:
        """True when no event is waiting to be handled (for tests)."""
        with self._lock:
            moving = self._inflight + self._lookups
        return self._events.unfinished_tasks == 0 and moving == 0

    def wait_idle(self, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.idle():
                return True
            time.sleep(0.02)
        return self.idle()

    def waiting(self, task_id: Optional[int] = None) -> list[int]:
        with self._lock:
            if task_id is not None:
                return list(self.queues.get(int(task_id), []))
            return [u for q in self.queues.values() for u in q]

    # --- socket handlers (they only enqueue) ---------------------------------------------------------------------
    def _on_connect(self) -> None:
        self._connected.set()

    def _on_disconnect(self, reason=None) -> None:
        self._connected.clear()
        with self._lock:
            self._gen += 1
        if not self._stopped.is_set():
            log.warning("socket disconnected (%s); reconnecting", reason)

    def _on_reconnect_given_up(self, *_args) -> None:
        if self._stopped.is_set():
            return
        self.failed = (f"Slurk at {self.url} could not be reached again after {RECONNECT_LIMIT} reconnection "
                       "attempts; the concierge stops")
        log.error("%s", self.failed)
        threading.Thread(target=self.stop, name="concierge-stop", daemon=True).start()

    def _on_joined_room(self, data) -> None:
        room = _room_of(data)
        if room is None:
            return
        if room == self.waiting_room:
            self._joined.set()
            self._events.put(("sweep",))

    def _on_status(self, data) -> None:
        room = _room_of(data)
        if room is None:
            return
        uid = user_id_of(data.get("user"))
        if room != self.waiting_room or uid is None or uid == self.user_id:
            return
        name = (data.get("user") or {}).get("name") or f"user {uid}"
        if data.get("type") == "join":
            self._events.put(("join", uid, name))
        elif data.get("type") == "leave":
            self._events.put(("leave", uid))

    def _on_new_task_room(self, data) -> None:
        """Anyone can make Slurk send this (`room_created` is unauthenticated): a hint, logged, never acted on."""
        room = _room_of(data)
        if room is not None:
            self._events.put(("announced", room, data.get("task")))

    # --- the worker ---------------------------------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            event = self._events.get()
            try:
                if event[0] == "stop":
                    return
                if not self._stopped.is_set():
                    getattr(self, "_handle_" + event[0])(*event[1:])
            except Exception:
                log.exception("concierge: handling %s failed", event[0])
            finally:
                self._events.task_done()

    # --- retries: every failed step waits (exponential back-off with jitter) and is tried a limited number of times
    def _retry(self, key: tuple, event: tuple, why: str) -> bool:
        """Schedule `event` after the back-off for the next try of `key`. False (nothing scheduled) once `key` has
        failed `retry_limit` times in a row; the count starts again from zero then."""
        with self._lock:
            n = self._tries.get(key, 0) + 1
            if n > self.retry_limit:
                self._tries.pop(key, None)
                give_up = True
            else:
                self._tries[key] = n
                give_up = False
        if give_up:
            log.error("%s; given up after %d tries", why, self.retry_limit)
            self._count("given_up")
            return False
        delay = self.backoff.delay(n - 1)
        with self._lock:
            self._retry_at[key] = self.clock() + delay
        self._count("retries")
        log.warning("%s; try %d of %d in %.1f s", why, n + 1, self.retry_limit + 1, delay)
        self.timers.set(key, delay, lambda e=event: self._events.put(e))
        return True

    def _count(self, what: str) -> None:
        with self._lock:
            self.stats[what] += 1

    def _succeeded(self, key: tuple) -> None:
        with self._lock:
            self._tries.pop(key, None)

    def _handle_sweep(self) -> None:
        """After (re)connecting: pick up people who are waiting, forget those who left meanwhile."""
        try:
            online = {user_id_of(u): u for u in self.rest.get_room_users(self.waiting_room)}
        except SlurkAPIError as exc:
            self._retry(("sweep",), ("sweep",), f"cannot list the waiting room {self.waiting_room}: {exc}")
            return
        self._succeeded(("sweep",))
        online.pop(self.user_id, None)
        with self._lock:
            gone = [u for u in self.people if u not in online]
        for uid in gone:
            self._handle_leave(uid)
        for uid, user in online.items():
            if uid is not None:
                self._handle_join(uid, user.get("name") or f"user {uid}", sweep=True)

    def _handle_join(self, uid: int, name: str, sweep: bool = False, retry: bool = False) -> None:
        with self._lock:
            if uid in self.people:
                return  # (a join caused by our own re-add to the waiting room does not shorten a back-off)
            if retry and ("join", uid) not in self._tries:
                return  # they left while the retry was pending
            code = self.compensated.get(uid)
            placed = self.placed.get(uid)
        if code is not None:
            self._send(uid, self._no_partner_text(name, code))  # they came back (e.g. reloaded): repeat the code
            return
        if placed is not None:
            return  # moved already; a stale join
        # The task of their token is read by the pool (a launch brings many arrivals at once); the answer comes
        # back to this thread as an `arrived` event, in which the queue is changed.
        with self._lock:
            if uid in self._looking:
                return
            self._looking.add(uid)
            self._lookups += 1
        try:
            self._pool.submit(self._look_up, uid, name)
        except RuntimeError:  # stopping
            with self._lock:
                self._looking.discard(uid)
                self._lookups -= 1

    def _look_up(self, uid: int, name: str) -> None:
        try:
            try:
                self._events.put(("arrived", uid, name, self._task_of(uid)))
            except SlurkAPIError as exc:
                self._events.put(("lookup_failed", uid, name, str(exc)))
        finally:
            with self._lock:
                self._lookups -= 1

    def _handle_lookup_failed(self, uid: int, name: str, why: str) -> None:
        with self._lock:
            if uid not in self._looking:
                return  # they left meanwhile
            self._looking.discard(uid)
        self._retry(("join", uid), ("join", uid, name, False, True), f"cannot read the task of user {uid}: {why}")

    def _handle_arrived(self, uid: int, name: str, task: Optional[dict]) -> None:
        with self._lock:
            if uid not in self._looking:
                return  # they left while their task was read
            self._looking.discard(uid)
        self._succeeded(("join", uid))
        if task is None:
            return  # a bot, or a token without a task: not ours to pair
        if self.task_id is not None and int(task["id"]) != self.task_id:
            self._count("not_ours")
            log.warning("user %s has a token of task %s; this concierge pairs people for task %s only: not paired",
                        uid, task["id"], self.task_id)
            return
        num = int(task.get("num_users") or 0)
        if num < 1:
            log.warning("task %s has num_users %s; user %s is not paired", task.get("id"), num, uid)
            return
        with self._lock:
            if uid in self.people:
                return
            w = Waiting(uid, name, int(task["id"]), num, int(task["layout_id"]), 0)
            self._enqueue(w)
        log.info("user %s (%r) waits for task %s (%d of %d)", uid, plain_name(name), w.task_id,
                 len(self.waiting(w.task_id)), num)
        try:
            self._pool.submit(self._send, uid, self._greeting(name, num))
        except RuntimeError:  # stopping
            pass
        self._group(w.task_id)

    def _enqueue(self, w: Waiting, front: bool = False) -> None:
        """Queue a person and arm their timer for what is left of their waiting time (from the first arrival)."""
        now = self.clock()
        with self._lock:
            self._timer_gen += 1
            w.timer = self._timer_gen
            first = self.first_seen.setdefault(w.user_id, now)
            self.people[w.user_id] = w
            q = self.queues.setdefault(w.task_id, [])
            if front:
                q.insert(0, w.user_id)
            else:
                q.append(w.user_id)
            left = max(0.0, self.waiting_timeout - (now - first))
        self.timers.set(("wait", w.user_id), left,
                        lambda u=w.user_id, g=w.timer: self._events.put(("timeout", u, g)))

    def _handle_leave(self, uid: int) -> None:
        with self._lock:
            self._looking.discard(uid)
            if uid in self._moving:
                return  # the leave our move causes; a move that fails puts them back (an offline person is
                #         dropped by the online check before their next room)
            self._tries.pop(("join", uid), None)
            ours = uid in self._put_back_users and uid in self.people
            self._put_back_users.discard(uid)
        self.timers.cancel(("join", uid))
        if ours and self._kept_after_failed_move(uid):
            return
        self._forget(uid)

    def _kept_after_failed_move(self, uid: int) -> bool:
        """The leave of a move that failed and was undone: they are back in the waiting room (or are to be put back
        by the probe before their next room), so they keep their place in the queue."""
        if uid in self.suspects:
            return True
        try:
            return any(int(r.get("id", -1)) == self.waiting_room for r in self.rest.get_user_rooms(uid))
        except (SlurkAPIError, TypeError, ValueError, AttributeError):
            return False

    def _forget(self, uid: int) -> bool:
        with self._lock:
            w = self.people.pop(uid, None)
            self.suspects.discard(uid)
            self._told.pop(uid, None)
            if w is None:
                return False
            q = self.queues.get(w.task_id, [])
            if uid in q:
                q.remove(uid)
        self.timers.cancel(("wait", uid))
        log.info("user %s left the waiting room; forgotten", uid)
        return True

    def _handle_timeout(self, uid: int, gen: int) -> None:
        with self._lock:
            w = self.people.get(uid)
            if w is None or w.timer != gen or uid not in self.queues.get(w.task_id, []):
                return
            self.queues[w.task_id].remove(uid)
            del self.people[uid]
            self.suspects.discard(uid)
            code = self.code_source()
            self.compensated[uid] = code
        log.info("user %s waited too long for task %s: no partner; code sent", uid, w.task_id)
        self._handle_code(uid, code)
        self._send(uid, self._no_partner_text(w.name, code))

    def _handle_code(self, uid: int, code: str) -> None:
        """Log a no-partner completion code in Slurk (where `logs download` finds it), retried while Slurk fails."""
        try:
            self.rest.post_log("confirmation_log", self.waiting_room,
                               {"status_txt": "no_partner", "confirmation_token": code}, receiver_id=uid)
        except SlurkAPIError as exc:
            if not self._retry(("code", uid), ("code", uid, code),
                               f"could not log the completion code of user {uid}: {exc}"):
                log.error("the no-partner completion code of user %s is not in Slurk's logs: %s (pay it by hand)",
                          uid, code)
            return
        self._succeeded(("code", uid))

    # --- queue places: people held back (cap or back-off) are told their place and the expected wait ------------
    def _tell_places(self, task_id: int) -> None:
        """Each person who waits for a room although enough people are there (the cap after server errors, or a
        back-off) gets a private message with their place and an honest expected wait: the time until the next try,
        plus, while the cap is in force, a cap's share of a minute per group ahead. Sent when place or wait (rounded)
        changes, at most once per PLACE_INTERVAL per person; refreshed while they are held back."""
        now = self.clock()
        with self._lock:
            q = list(self.queues.get(task_id, []))
            held = task_id in self._group_waits
            until = self._retry_at.get(("retry", task_id), now)
            num = self.people[q[0]].num_users if q and q[0] in self.people else 0
        if not held or not q or num < 1:
            return
        capped = self._room_budget() > 0
        spacing = WINDOW / self.rooms_per_minute if capped else 0.0
        for i, uid in enumerate(q):
            group = i // num
            if (group + 1) * num > len(q):
                break  # an incomplete group waits for partners, as the greeting says
            wait = max(0.0, until - now) + group * spacing
            key = (i + 1, _about(wait))
            with self._lock:
                last = self._told.get(uid)
                if last is not None and (last[0] == key or now - last[1] < PLACE_INTERVAL):
                    continue
                self._told[uid] = (key, now)
                name = self.people[uid].name if uid in self.people else ""
            self._count("place_messages")
            self._send(uid, self._place_text(name, i + 1, wait))
        self.timers.set(("places", task_id), PLACE_INTERVAL, lambda t=task_id: self._events.put(("places", t)))

    def _handle_places(self, task_id: int) -> None:
        self._tell_places(task_id)

    def _place_text(self, name: str, place: int, wait: float) -> str:
        return (f"{shown_name(name) or 'Hello'}, you are number <b>{place}</b> in the queue for a game room; "
                f"expected wait: <b>{_about(wait)}</b>. Many people arrived at once, so rooms are opened a little "
                "more slowly for a moment. Please keep this page open: you will be moved automatically.")

    def _handle_retry(self, task_id: int) -> None:
        with self._lock:
            self._group_waits.discard(task_id)
        self._group(task_id)

    def _handle_announced(self, room: int, task: Any) -> None:
        with self._lock:
            ours = room in self.rooms or room in self.dead_rooms
        if ours:
            return
        self._count("ignored_announcements")
        if room == self.waiting_room:
            log.warning("someone announced the waiting room %s as a room of task %r (room_created is open to "
                        "everyone); ignored", room, task)
        else:
            log.info("room %s was announced for task %r, but this concierge did not create it; ignored", room, task)

    # --- grouping -----------------------------------------------------------------------------------------------
    def _group(self, task_id: int) -> None:
        try:
            self._group_now(task_id)
        finally:
            self._tell_places(task_id)

    def _group_now(self, task_id: int) -> None:
        with self._lock:
            if task_id in self._group_waits:
                return  # a retry is scheduled: arrivals do not bypass the back-off
        while True:
            with self._lock:
                q = self.queues.get(task_id, [])
                if not q:
                    return
                if self._inflight and self._troubled():
                    return  # after a server error, one group at a time (the next when this one is done)
                num = self.people[q[0]].num_users
                if len(q) < num:
                    return
                group = q[:num]
                del q[:num]
                members = [self.people[u] for u in group]
                self._moving.update(group)
                self._inflight += 1
            try:
                self._pool.submit(self._place_async, task_id, members)
            except RuntimeError:  # stopping
                with self._lock:
                    self._moving.difference_update(group)
                    self._inflight -= 1
                self._put_back(task_id, members)
                return

    def _place_async(self, task_id: int, members: list[Waiting]) -> None:
        group = [w.user_id for w in members]
        try:
            self._place(task_id, members)
        except Exception:  # a bug or an odd answer: the group keeps its place and is retried later
            log.exception("placing users %s of task %s failed", group, task_id)
            self._put_back(task_id, members)
            self._retry_group(task_id, f"placing users {group} failed")
        finally:
            with self._lock:
                self._moving.difference_update(group)
                self._inflight -= 1
            self._events.put(("regroup", task_id))  # whoever is (back) in the queue, and their places

    def _handle_regroup(self, task_id: int) -> None:
        self._group(task_id)

    def _place(self, task_id: int, members: list[Waiting]) -> bool:
        """Try to give `members` (taken from the queue) a room. True: look at the queue again at once (somebody
        left it, or the room is made); False: stop (they are back in the queue and a retry is scheduled)."""
        group = [w.user_id for w in members]
        online, offline, failed = self._still_here(members)
        if failed:
            self._server_trouble()
            self._put_back(task_id, members)
            self._retry_group(task_id, f"cannot check whether users {group} are still online")
            return False
        if offline:
            for w in offline:
                self._forget(w.user_id)
                log.info("user %s is no longer online; forgotten", w.user_id)
            self._put_back(task_id, online)
            return True
        gone, ok = self._probe(members)
        if gone:
            for w in gone:
                self._forget(w.user_id)
            self._put_back(task_id, [w for w in members if w not in gone])
            return True
        if not ok:
            self._put_back(task_id, members)
            self._retry_group(task_id, f"users {group} cannot be moved yet; no room is made for them")
            return False
        wait = self._room_budget()
        if wait > 0:
            self._put_back(task_id, members)
            self._count("deferred")
            log.warning("%d rooms were created in the last minute (the cap); users %s wait %.1f s more",
                        self.rooms_per_minute, group, wait)
            self._wait_group(task_id, wait)
            return False
        if not self._open_room(members):
            self._put_back(task_id, members)
            self._retry_group(task_id, f"no room for users {group} of task {task_id}")
            return False
        self._succeeded(("retry", task_id))
        return True

    def _put_back(self, task_id: int, members: list[Waiting]) -> None:
        """Back to the front of the queue, in their order (those who are still waiting)."""
        with self._lock:
            back = [w.user_id for w in members if w.user_id in self.people]
            q = self.queues.setdefault(task_id, [])
            q[0:0] = [u for u in back if u not in q]

    def _wait_group(self, task_id: int, seconds: float) -> None:
        with self._lock:
            self._group_waits.add(task_id)
            self._retry_at[("retry", task_id)] = self.clock() + seconds
        self.timers.set(("retry", task_id), seconds, lambda t=task_id: self._events.put(("retry", t)))

    def _retry_group(self, task_id: int, why: str) -> None:
        with self._lock:
            self._group_waits.add(task_id)
        if not self._retry(("retry", task_id), ("retry", task_id), why):
            with self._lock:
                self._group_waits.discard(task_id)  # the next arrival or reconnection tries again

    def _room_budget(self) -> float:
        """0 when a room may be created now, else the seconds until the rooms-per-minute cap allows one. The cap
        protects a server that failed: it is in force only within WINDOW of a server error, and counts the rooms
        made since the first error of that episode; a launch whose rooms are created without errors is not capped."""
        now = self.clock()
        with self._lock:
            while self._created and now - self._created[0] >= WINDOW:
                self._created.popleft()
            if self._trouble is None or now - self._trouble[1] >= WINDOW:
                return 0.0
            recent = [t for t in self._created if t >= self._trouble[0]]
        if len(recent) < self.rooms_per_minute:
            return 0.0
        return max(0.01, WINDOW - (now - recent[0]))

    def _troubled(self) -> bool:
        return self._trouble is not None and self.clock() - self._trouble[1] < WINDOW

    def _server_trouble(self) -> None:
        """A server error (not a person who is gone): the rooms-per-minute cap is in force for the next WINDOW."""
        now = self.clock()
        with self._lock:
            if self._trouble is None or now - self._trouble[1] >= WINDOW:
                self._trouble = (now, now)
            else:
                self._trouble = (self._trouble[0], now)
        self._count("server_errors")

    def _still_here(self, members: list[Waiting]) -> tuple[list[Waiting], list[Waiting], bool]:
        """(online, offline, failed): failed when the server could not tell."""
        online, offline = [], []
        for w in members:
            try:
                here = self.rest.get_user(w.user_id).get("session_id") is not None
            except SlurkAPIError as exc:
                if exc.status != 404:
                    log.error("cannot read user %s: %s", w.user_id, exc)
                    return online, offline, True
                here = False
            (online if here else offline).append(w)
        return online, offline, False

    def _probe(self, members: list[Waiting]) -> tuple[list[Waiting], bool]:
        """People whose last move failed with a server error are added to the waiting room again (they are in it
        already; Slurk only re-sends them its page) before a room is made for them: a user Slurk cannot move (e.g. a
        session it lost in a restart) fails here instead of in a new room. Returns (gone, all passed)."""
        gone: list[Waiting] = []
        for w in members:
            if w.user_id not in self.suspects:
                continue
            try:
                self.rest.join_room(w.user_id, self.waiting_room)
            except SlurkAPIError as exc:
                if _user_missing(exc):
                    gone.append(w)
                    continue
                log.warning("user %s still cannot be moved: %s", w.user_id, exc)
                return gone, False
            with self._lock:
                self.suspects.discard(w.user_id)
        return gone, True

    def _open_room(self, members: list[Waiting]) -> bool:
        """Create a room and move everyone into it; all or nobody (a room that cannot be filled is given up)."""
        task_id, layout_id = members[0].task_id, members[0].layout_id
        try:
            room = int(self.rest.create_room(layout_id)["id"])
        except (SlurkAPIError, KeyError, TypeError, ValueError) as exc:
            log.error("could not create a room for task %s (users %s): %s", task_id, [w.user_id for w in members],
                      exc)
            self._server_trouble()
            return False
        with self._lock:
            self._created.append(self.clock())
        self._count("rooms_created")
        touched: list[Waiting] = []  # people the server may have put into the room (a failed add can still add)
        for w in members:
            # Out of the waiting room first, then into the new room (as slurk-bots' concierge does): Slurk's page
            # makes the chat read-only on ANY `left_room`, so the waiting room's must reach the page before the
            # task room's `joined_room` (plugins/slurk-task.js also recovers when they cross).
            try:
                self.rest.leave_room(w.user_id, self.waiting_room)
            except SlurkAPIError as exc:
                # Still in the waiting room: joining now would leave them in both rooms; nobody else moved yet
                # is affected beyond the room given up.
                log.error("room %s: could not take user %s out of the waiting room: %s; the room is given up", room,
                          w.user_id, exc)
                self._move_failed(w, exc)
                self._give_up_room(room, task_id, touched)
                return False
            touched.append(w)
            with self._lock:
                self._put_back_users.add(w.user_id)  # the leave event this causes must not forget them yet
            try:
                self.rest.join_room(w.user_id, room)
            except SlurkAPIError as exc:
                log.error("room %s: could not add user %s: %s; the room is given up", room, w.user_id, exc)
                self._move_failed(w, exc)
                self._give_up_room(room, task_id, touched)  # puts everyone moved so far back in the waiting room
                return False
        for w in members:
            self.timers.cancel(("wait", w.user_id))
            with self._lock:
                self.people.pop(w.user_id, None)
                self.suspects.discard(w.user_id)
                self._put_back_users.discard(w.user_id)
                self._told.pop(w.user_id, None)
                self.placed[w.user_id] = room
        with self._lock:
            self.rooms[room] = {"task": task_id, "users": [w.user_id for w in members]}
        self._handle_announce(room, task_id)
        if self.agent_users and (self.task_id is None or self.task_id == task_id):
            for seat, agent in self.agent_users.items():
                try:
                    self.rest.join_room(agent, room)
                except SlurkAPIError as exc:
                    log.error("room %s: could not add the agent user %s (seat %s): %s", room, agent, seat, exc)
        log.info("room %s created for task %s with users %s", room, task_id, [w.user_id for w in members])
        return True

    def _move_failed(self, w: Waiting, exc: SlurkAPIError) -> None:
        if _user_missing(exc):
            self._forget(w.user_id)
            return
        self._server_trouble()
        if exc.status == 0 or exc.status >= 500:
            with self._lock:
                self.suspects.add(w.user_id)

    def _handle_announce(self, room: int, task_id: int) -> None:
        ack = self._call("room_created", {"room": room, "task": task_id})
        if ack and ack[0] is True:
            self._succeeded(("announce", room))
            return
        if ack is None:  # not connected, or no answer: the task bot may not know the room yet
            self._retry(("announce", room), ("announce", room, task_id),
                        f"room {room}: room_created was not acknowledged")
            return
        log.error("room %s: room_created was refused (%s); the task bot may not join", room, ack)

    def _give_up_room(self, room: int, task_id: int, touched: list[Waiting]) -> None:
        """A room that could not be filled: take out whoever the server may have added, put them back on the
        waiting-room page, make the room read-only, and never use it again."""
        self._count("rooms_given_up")
        with self._lock:
            self.dead_rooms[room] = {"task": task_id, "left_in": {w.user_id for w in touched}, "read_only": False}
        self._handle_cleanup(room)
        for w in touched:
            # Their page may show the new room (and, after `left_room`, "Disconnected!"): `joined_room` of the
            # waiting room brings the waiting-room page back. It is also a probe of whether Slurk can move them.
            if w.user_id in self.people:
                try:
                    self.rest.join_room(w.user_id, self.waiting_room)
                except SlurkAPIError as exc:
                    if not _user_missing(exc):
                        with self._lock:
                            self.suspects.add(w.user_id)
                else:
                    with self._lock:
                        self.suspects.discard(w.user_id)

    def _handle_cleanup(self, room: int) -> None:
        with self._lock:
            dead = self.dead_rooms.get(room)
            left_in = sorted(dead["left_in"]) if dead else []
        if dead is None:
            return
        for uid in left_in:
            try:
                self.rest.leave_room(uid, room)
            except SlurkAPIError as exc:
                if not _user_missing(exc):
                    continue
            with self._lock:
                dead["left_in"].discard(uid)
        if not dead["read_only"]:
            try:
                self.rest.update_room(room, read_only=True)
                dead["read_only"] = True
            except SlurkAPIError as exc:
                log.warning("room %s: could not make it read-only: %s", room, exc)
        if dead["left_in"] or not dead["read_only"]:
            self._retry(("cleanup", room), ("cleanup", room),
                        f"room {room} (given up) is not cleaned up yet (still in it: {sorted(dead['left_in'])})")
        else:
            self._succeeded(("cleanup", room))

    def _task_of(self, uid: int) -> Optional[dict]:
        """The task of the user's token as the server reports it; None for no task or no such user. Raises
        SlurkAPIError when the server cannot tell."""
        try:
            task = self.rest.get_user_task(uid)
        except SlurkAPIError as exc:
            if exc.status == 404:
                return None
            raise
        if not task or task.get("id") is None or task.get("layout_id") is None:
            return None
        return task

    # --- messages -----------------------------------------------------------------------------------------------
    def _greeting(self, name: str, num: int) -> str:
        minutes = max(1, round(self.waiting_timeout / 60))
        partner = "a partner" if num == 2 else ("your game" if num == 1 else "your partners")
        return (f"Hello <b>{shown_name(name)}</b>, welcome! Please wait here while we prepare {partner}; you will "
                f"be moved to your game room automatically. If nothing happens within {minutes} minute"
                f"{'s' if minutes != 1 else ''}, you will get a completion code here, so that you are paid for "
                "your time. Please keep this page open.")

    def _no_partner_text(self, name: str, code: str) -> str:
        return (f"Sorry, {shown_name(name)}: no partner arrived in time, so the game cannot start. Thank you very "
                f"much for waiting! {self.completion.message(code)}")

    def _send(self, uid: int, message: str) -> bool:
        ack = self._call("text", {"room": self.waiting_room, "receiver_id": int(uid), "message": message,
                                  "html": True})
        if ack and ack[0] is True:
            return True
        log.warning("could not send a private message to user %s: %s", uid,
                    ack[1] if ack and len(ack) > 1 else "no acknowledgement")
        return False

    def _call(self, event: str, payload: dict) -> Optional[list]:
        deadline = time.monotonic() + self.emit_timeout
        while not self._connected.is_set():
            if self._stopped.is_set() or time.monotonic() >= deadline:
                return None
            self._connected.wait(0.1)
        done = threading.Event()
        result: list = []

        def ack(*args):
            result.extend(args)
            done.set()

        try:
            self._sio.emit(event, payload, namespace="/", callback=ack)
        except socketio.exceptions.SocketIOError:
            return None
        while not done.wait(0.1):
            if self._stopped.is_set() or time.monotonic() >= deadline:
                return None
        return result


def _about(seconds: float) -> str:
    """A wait in words, rounded up (to 10 s under a minute, else to whole minutes): never shorter than it is."""
    if seconds < 10:
        return "a few seconds"
    if seconds < 60:
        return f"about {int(-(-seconds // 10) * 10)} seconds"
    minutes = int(-(-seconds // 60))
    return f"about {minutes} minute" + ("s" if minutes != 1 else "")


def _user_missing(exc: SlurkAPIError) -> bool:
    """A 404 about the user (not about the room)."""
    return exc.status == 404 and "user" in str(exc.errors or exc.message).lower()


# ----------------------------------------------------------------------------------------------------------------


def build_concierge(config_path: Optional[str] = None, env: Mapping[str, str] = os.environ, **kw) -> Concierge:
    study = read_study_config(config_path, env)
    cfg = study.config
    missing = []
    if not cfg.slurk.url:
        missing.append("the server address (SLURK_URL)")
    if not study.concierge_token or study.concierge_user is None:
        missing.append("the concierge's credentials (CONCIERGE_TOKEN and CONCIERGE_USER, as in bot.env)")
    if cfg.slurk.waiting_room is None:
        missing.append("the waiting room (WAITING_ROOM)")
    if missing:
        raise ConfigError("Cannot start the concierge: missing " + "; ".join(missing) + ".")
    options = dict(etag=cfg.slurk.etag, waiting_timeout=study.waiting_timeout, completion=cfg.completion,
                   task_id=cfg.slurk.task_id, agent_users=study.agent_users, auth_timeout=cfg.slurk.auth_timeout,
                   emit_timeout=cfg.slurk.emit_timeout, rooms_per_minute=cfg.concierge.rooms_per_minute)
    options.update(kw)  # tests: timers, code_source, clock, retry_base, ...
    return Concierge(cfg.slurk.url, study.concierge_token, study.concierge_user, cfg.slurk.waiting_room, **options)


def main(argv: Optional[list[str]] = None, env: Mapping[str, str] = os.environ) -> int:
    p = argparse.ArgumentParser(prog="run_bot.sh concierge", description=__doc__.splitlines()[0])
    p.add_argument("--config", help="YAML config file (the environment, e.g. from bot.env, overrides it)")
    args = p.parse_args(argv)
    try:
        bot = build_concierge(args.config, env)
    except (ConfigError, ValueError) as exc:
        log.error("%s", exc)
        return 2

    def _stop(signum, _frame):
        log.info("signal %s: stopping", signum)
        bot.stop()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    try:
        bot.run()
    except (ConciergeAuthError, ConnectionError) as exc:
        log.error("%s", exc)
        return 2
    return 1 if bot.failed else 0


def _room_of(data) -> Optional[int]:
    """The room id of a Slurk event payload, or None when it has none."""
    try:
        return int(data["room"])
    except (KeyError, TypeError, ValueError):
        return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
