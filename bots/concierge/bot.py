"""The concierge bot: its state, its lifecycle and the worker thread that handles events one at a time (see the
package's docstring for what it does; the parts are in waiting_room, pairing, room_moves, retries, socket_events)."""
from __future__ import annotations

import collections
import concurrent.futures
import logging
import queue
import threading
import time
from typing import Any, Callable, Mapping, Optional

import socketio

from bots.config import DEFAULT_ROOMS_PER_MINUTE
from bots.slurk.guard import serve_until_stopped
from bots.slurk.rest import SlurkREST
from bots.study.provision import DEFAULT_WAITING_TIMEOUT
from tasks.core.codes import CompletionConfig, new_code

from .pairing import Pairing
from .retries import RETRY_BASE, RETRY_CAP, RETRY_LIMIT, Backoff, Retries
from .room_cap import RoomCap
from .room_moves import RoomMoves
from .socket_events import SocketEvents
from .timers import ThreadTimers
from .waiting_room import Waiting, WaitingRoom

log = logging.getLogger("bots.concierge")

MOVERS = 8           # groups placed at the same time (threads)


class Concierge(WaitingRoom, Pairing, RoomMoves, Retries, SocketEvents):
    """One waiting room's concierge. Its parts share the state set up here; the worker thread changes the queue,
    the pool (MOVERS threads) opens rooms and reads people's tasks, all under `_lock`."""

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
        self.cap = RoomCap(rooms_per_minute, clock)
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
        self._tries: dict[tuple, int] = {}            # retry key -> failed tries in a row
        self._group_waits: set[int] = set()           # tasks whose grouping waits for a retry timer
        self._put_back_users: set[int] = set()        # taken out of the waiting room for a move not yet complete
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
        self._sio = self._open_socket()

    @property
    def rooms_per_minute(self) -> int:
        return self.cap.per_minute

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

    def run(self) -> None:
        serve_until_stopped(self.start, self._stopped, self.stop)

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

    def _submit(self, fn: Callable, *args, undo: Optional[Callable[[], None]] = None) -> bool:
        """Hand fn(*args) to the pool. False when the pool is shut down (stopping): then undo() runs, under the lock."""
        try:
            self._pool.submit(fn, *args)
        except RuntimeError:  # stopping
            if undo is not None:
                with self._lock:
                    undo()
            return False
        return True

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

