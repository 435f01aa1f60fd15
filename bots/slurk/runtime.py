"""The Slurk runtime: one bot user serving one task in every room it is given.

```python
bot = SlurkBot(load_config("bot.yaml"), SPEC)
bot.run()            # = start() + wait until stop() or Ctrl-C
# or, in tests:  bot.start(); ...; bot.stop()
```

- One `socketio.Client` per bot *instance*, handlers registered before `connect`, credentials in the handshake
  headers (`Authorization: Bearer <token>`, `user: "<id>"`). Slurk accepts bad credentials silently, so `start()`
  waits until either a `joined_room` arrives or `GET /users/{id}` shows this connection's sid; otherwise it raises
  `SlurkAuthError` naming the likely cause.
- Socket handlers never block: they put the event into its room's queue (`rooms.RoomWorker`). The engine.io client
  is made to dispatch messages in arrival order (python-engineio otherwise starts one thread per message), so a
  room's queue receives its events in the order Slurk sent them.
- Rooms announced by `new_task_room` for our task are joined (`POST /users/{bot}/rooms/{room}`); every room reported
  by `joined_room` (on connect and on every reconnect) is (re)attached: a task-layout room gets a match, a room
  already playing is re-synced (presence, kept updates, views).
- Open rooms are stored after every input (`store.RoomStore`) and resumed on start (replay, timers re-armed,
  views re-sent, log events lost in a crash re-posted).
- Effects leave without blocking the room: chat messages through a per-room `Emitter` (one in flight, so order is
  kept), logs and per-user page updates through shared pools that keep each room's order (`shipping.py`).
- A finished room is left once its last messages are out: Slurk sends `stop_typing` to every room of a sender, so
  each message of a bot that stayed in all its old rooms would cost more and more.
- Agent users (`Config.agent_users`, written by `setup` as AGENT_USERS): an agent seat is bound to its own Slurk
  user (see `people.bind_agent_users`), whose name the seat carries and under whose name (`impersonate`)
  the agent's chat is shown. Agent users never take a person's seat, and their presence is never a Join/Leave.
- `metrics` records each input's turnaround (event received -> first effect sent / acknowledged) for the bench.
- One instance per bot user: `start()` takes a lease in the state db (lease.py) and refuses to start
  (`InstanceConflict`) while another instance holds it, or while another connection holds the bot user's Slurk
  session (guard.py); log events wait in a durable outbox until Slurk accepted them (outbox.py), and the previous
  run's leftovers go out first. While running, `SessionGuard` reconnects a dead or deaf socket and stops the bot
  when another connection took its session over or the connection cannot be had back: `run()` then raises
  (`InstanceConflict` / `SessionLost`) and `serve` exits with status 3 / 4.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Optional

import socketio

from ..config import Config
from .guard import SessionGuard, serve_until_stopped, wait_until_session_free
from .instances import SHARED_WARNING, OpenInstances, _shared as _shared_instances
from .lease import InstanceConflict, Lease
from .metrics import Metrics
from .outbox import Outbox
from .recent import RecentMap
from .socket import InOrderClient, user_id_of
from .rest import SlurkAPIError, SlurkREST
from .rooms import RoomWorker
from .shipping import LogShipper, PageUpdates
from .store import RoomStore
from .thinking import ThinkingPool
from .timers import Scheduler

from tasks.core.protocol import TimerFired

log = logging.getLogger(__name__)

# A room's log events gather this long, then go as one request (one batch row, bots/slurk/logbatch.py): the replies
# people wait for reach Slurk first and a game costs Slurk's single worker few commits (bench/bench_slurk_speed.py).
# The durable outbox keeps them meanwhile; a finished game's rows go at once (OutboxShipper.hurry).
LOG_SHIP_DELAY = 10.0


def log_ship_delay(env=os.environ) -> float:
    """LOG_SHIP_DELAY, or BOT_LOG_DELAY (seconds) from the environment: the tests set 0 so that they can read a
    room's log as soon as its game moved on (the delay itself has tests of its own)."""
    try:
        return max(0.0, float(env.get("BOT_LOG_DELAY", LOG_SHIP_DELAY)))
    except ValueError:
        return LOG_SHIP_DELAY


class SlurkAuthError(RuntimeError):
    """Slurk did not log the bot in (it never refuses a socket, so this is detected after connecting)."""


class SlurkConnectionError(RuntimeError):
    """The Slurk server could not be reached."""


class SlurkBot:
    # One instance per bot user, and a session that stays ours (lease.py, guard.py). Tests shorten these.
    lease_ttl = 20.0  # seconds a lease lasts without renewal (renewed every ttl/4)
    guard_interval = 5.0  # seconds between checks of the connection and of Slurk's session for the bot user
    silence_limit: Optional[float] = None  # seconds without a packet before reconnecting (None: 2 pings + 10 s)
    max_offline = 600.0  # seconds without a connection before the bot gives up (serve exits with status 4)
    foreign_session_wait = 10.0  # at start: how long another connection may hold the session before we refuse
    predecessor_session_wait = 15.0  # at start: how long we wait for our own previous connection to go
    leftover_wait = 30.0  # at start: how long we wait for the outbox of the previous run to go out
    take_over = False  # start even if another connection holds the session (serve --take-over)
    reconnect_attempts = 200  # python-socketio's own reconnection gives up after these (0.5-3 s apart)

    def __init__(self, config: Config, spec, llm_client=None, *, rest: Optional[SlurkREST] = None,
                 metrics: Optional[Metrics] = None):
        config.slurk.require()
        self.config = config
        self.spec = spec
        self.llm_client = llm_client
        self.person_order, self.brain_names = config.seat_plan(spec)
        # How people chat here ("open" / "relay", TaskSpec.chat_mode: task option `chat` or the task's default).
        self.chat = spec.chat_mode(config.task_options) if hasattr(spec, "chat_mode") else spec.chat
        self.instances = OpenInstances()  # no two open rooms play the same instance (instances.py)
        if _shared_instances(config.task_options):
            log.warning(SHARED_WARNING)
        # Slurk users who play agent seats: agent seat -> user id (never a person, never the bot itself).
        self.agent_users = {str(k): int(v) for k, v in (config.agent_users or {}).items()
                            if int(v) != int(config.slurk.user_id)}
        self.agent_user_ids = frozenset(self.agent_users.values())
        s = config.slurk
        self.url = s.url
        self.user_id = int(s.user_id)
        self.task_id = int(s.task_id)
        self._token = s.token
        self.rest = rest or SlurkREST(s.url, s.token, etag=s.etag)
        self.metrics = metrics or Metrics()
        if getattr(self.rest, "on_request", "absent") is None:
            self.rest.on_request = self.metrics.count_request
        self.store: Optional[RoomStore] = None
        self.scheduler: Optional[Scheduler] = None
        self.logs: Optional[LogShipper] = None
        self.pages: Optional[PageUpdates] = None
        self.lease: Optional[Lease] = None
        self.guard: Optional[SessionGuard] = None
        self.failure: Optional[Exception] = None  # why the bot stopped by itself (run() raises it)
        self._down = threading.Event()  # set when the shutdown is complete
        self.thinking: Optional[ThinkingPool] = None  # agents' act() calls, off the rooms' threads
        self.gen = 0  # connection generation: +1 on every disconnect
        self._rooms: dict[int, RoomWorker] = {}
        self._retired: RecentMap = RecentMap()  # finished rooms (their late events are ignored), the newest
        self._lock = threading.RLock()
        self._connected = threading.Event()
        self._joined_any = threading.Event()
        self._stopped = threading.Event()
        self._live = False
        self._task_layout: Optional[int] = None
        self._sio = InOrderClient(reconnection=True, reconnection_delay=0.5, reconnection_delay_max=3,
                                   reconnection_attempts=self.reconnect_attempts, logger=False, engineio_logger=False)
        self._register_handlers()

    def __repr__(self) -> str:
        return f"SlurkBot(task={self.spec.name!r}, url={self.url!r}, user_id={self.user_id}, token='***')"

    # --- lifecycle ----------------------------------------------------------------------------------------------
    def start(self) -> "SlurkBot":
        """Open the state db, connect, check the login, resume open rooms.

        Raises SlurkAuthError (bad credentials) or SlurkConnectionError (no server)."""
        self.store = RoomStore(self.config.state_db, server=self.url, bot_user=self.user_id)
        predecessor_sid = self._acquire_lease()
        self.scheduler = Scheduler(self._timer_fired)
        self.logs = LogShipper(self.rest, Outbox(self.store, self.url, self.user_id), ship_delay=log_ship_delay())
        self.pages = PageUpdates(self.rest, self.spec.state_element, shared_element=self.spec.shared_element)
        self.thinking = ThinkingPool(self.llm_client, pacing=self.config.pacing)
        restored = []
        for rec in self.store.open_rooms(task=self.spec.name):
            w = self._worker(rec.room_id, create=True)
            w.put("restore", rec)
            restored.append(w)
        self._before_connect(predecessor_sid)
        try:
            self._sio.connect(self.url, headers={"Authorization": f"Bearer {self._token}", "user": str(self.user_id)},
                              namespaces=["/"], wait_timeout=max(5.0, self.config.slurk.auth_timeout))
        except socketio.exceptions.ConnectionError as exc:
            self._shutdown()
            raise SlurkConnectionError(f"Cannot connect to the Slurk server at {self.url}: {exc}. "
                                       "Is it running, and is the address right (SLURK_URL / SLURK_HOST)?") from None
        try:
            self._verify_login()
        except Exception:
            self._shutdown()
            raise
        log.info("logged in to %s as user %s for task %s (%s)", self.url, self.user_id, self.task_id, self.spec.name)
        with self._lock:
            self._live = True
            for w in list(self._rooms.values()):
                w.start()
        threading.Thread(target=self._watch, name="slurk-emit-watch", daemon=True).start()
        self._after_login()
        for w in restored:
            w.put("sync")
        return self

    def run(self) -> None:
        """Serve until stop() is called (from another thread or a signal handler) or Ctrl-C."""
        serve_until_stopped(self.start, self._stopped, self.stop)
        if self.failure is not None:
            raise self.failure

    def wait(self, timeout: Optional[float] = None) -> bool:
        return self._stopped.wait(timeout)

    def stop(self) -> None:
        """Disconnect and stop every room worker. Open games stay open in the state db and resume on next start."""
        if self._stopped.is_set():
            self._down.wait(60)  # another thread (the guard) may be shutting down: wait for it
            return
        self._stopped.set()
        self._shutdown()

    def _shutdown(self) -> None:
        self._stopped.set()
        try:
            self._sio.close()  # also ends a reconnection under way (disconnect() would leave it running)
        except Exception:  # pragma: no cover
            log.debug("disconnect failed", exc_info=True)
        with self._lock:
            workers = list(self._rooms.values())
        for w in workers:
            w.put("stop")
        for w in workers:
            if w.thread.is_alive():
                w.thread.join(timeout=10)
        for part in (self.thinking, self.scheduler, self.pages, self.logs):  # those this bot started, in this order
            if part:
                part.stop()
        if self.lease:
            self.lease.release()
        if self.store:
            self.store.close()
        self._down.set()

    def _verify_login(self) -> None:
        timeout = self.config.slurk.auth_timeout
        deadline = time.monotonic() + timeout
        session = None
        delay = 0.05
        while True:
            if self._joined_any.is_set():
                return
            try:
                user = self.rest.get_user(self.user_id)
            except SlurkAPIError as exc:
                if exc.status == 404:
                    raise SlurkAuthError(
                        f"Slurk at {self.url} has no user with id {self.user_id}; check the bot's user id "
                        "(SLURK_USER / BOT_ID / slurk.user_id).") from None
                user = {}
            session = user.get("session_id")
            try:
                sid = self._sio.get_sid("/")
            except Exception:
                sid = None
            if session and sid and session == sid:
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(delay)
            delay = min(delay * 2, 0.5)  # back off (the answer is usually there in the first tenth of a second)
        raise SlurkAuthError(
            f"Slurk at {self.url} accepted the socket but did not log the bot in: no joined_room arrived within "
            f"{timeout:g} s and user {self.user_id}'s session is {'another connection' if session else 'empty'}. "
            f"Likely cause: the token is not the token of user {self.user_id} (check SLURK_TOKEN / BOT_TOKEN "
            "against SLURK_USER / BOT_ID), or the token has no room, so there was nothing to join.")

    # --- one instance per bot user (lease.py, guard.py) ---------------------------------------------------------
    def _acquire_lease(self) -> Optional[str]:
        """Take the state db's lease for this bot user (InstanceConflict if a live instance holds it); returns the
        session id the previous holder recorded."""
        self.lease = Lease(self.config.state_db, self.url, self.user_id, ttl=self.lease_ttl,
                           on_lost=lambda why: self._fail(InstanceConflict(why)))
        try:
            previous = self.lease.acquire()
        except Exception:
            self._shutdown()
            raise
        return previous.sid if previous is not None else None

    def _before_connect(self, predecessor_sid: Optional[str]) -> None:
        """Ship what the previous run left in the outbox first, then make sure that no other connection holds the
        bot user's session (InstanceConflict)."""
        if not self.logs.drain_leftover(self.leftover_wait):
            log.warning("the log events the previous run left in the outbox are not out after %g s; going on (they "
                        "keep being retried, before anything newer of their rooms)", self.leftover_wait)
        try:
            wait_until_session_free(self.rest, self.user_id, self.url, predecessor_sid,
                                    foreign_wait=self.foreign_session_wait,
                                    predecessor_wait=self.predecessor_session_wait, take_over=self.take_over)
        except Exception:
            self._shutdown()
            raise

    def _after_login(self) -> None:
        """Record our session in the lease (for a successor) and start watching it."""
        try:
            self.lease.set_sid(self._sio.get_sid("/"))
            self.lease.renew()
        except Exception:  # pragma: no cover - the renewal thread records it later
            log.debug("cannot record the session in the lease", exc_info=True)
        self.guard = SessionGuard(self, self.guard_interval, self.silence_limit, self.max_offline).start()

    def _fail(self, exc: Exception) -> None:
        """Stop because this instance must not go on (another one took over, the connection is lost for good):
        `run()` raises `exc`, and `python -m bots serve` exits with a non-zero status."""
        if self.failure is None:
            self.failure = exc
            log.error("stopping: %s", exc)
        self.stop()

    # --- socket.io ----------------------------------------------------------------------------------------------
    def _register_handlers(self) -> None:
        sio = self._sio
        sio.on("connect", self._on_connect)
        sio.on("disconnect", self._on_disconnect)
        sio.on("joined_room", self._on_joined_room)
        sio.on("left_room", self._on_left_room)
        sio.on("new_task_room", self._on_new_task_room)
        sio.on("status", lambda d: self._on_room_event("status", d))
        sio.on("text_message", lambda d: self._on_room_event("text", d))
        sio.on("command", lambda d: self._on_room_event("command", d))

    def _on_connect(self) -> None:
        if self._stopped.is_set():  # a reconnection that was under way when the bot stopped: not wanted
            threading.Thread(target=self._sio.disconnect, name="slurk-late-disconnect", daemon=True).start()
            return
        self._connected.set()
        if self.logs is not None:
            self.logs.wake()  # log events waiting after a failure try again now
        self._check_emitters()  # messages waiting for the (re)connection go out now

    def _check_emitters(self) -> None:
        with self._lock:
            workers = list(self._rooms.values())
        for w in workers:
            w.delivery.emitter.check(self.config.slurk.emit_timeout)

    def _watch(self) -> None:
        """Gives up on messages Slurk never acknowledged and resends those caught by a dropped connection."""
        while not self._stopped.wait(0.5):
            try:
                self._check_emitters()
            except Exception:  # pragma: no cover
                log.exception("emitter check failed")

    def _on_disconnect(self, reason=None) -> None:
        with self._lock:
            self.gen += 1
        self._connected.clear()
        if not self._stopped.is_set():
            log.warning("socket disconnected (%s); reconnecting", reason)

    def _on_joined_room(self, data) -> None:
        t = time.perf_counter()
        room = _room(data)
        if room is None or user_id_of(data.get("user")) not in (None, self.user_id):
            return
        self._joined_any.set()
        self._dispatch(room, "joined", data, t)

    def _on_left_room(self, data) -> None:
        room = _room(data)
        if room is not None:
            self._dispatch(room, "left", data, time.perf_counter(), create=False)

    def _on_new_task_room(self, data) -> None:
        t = time.perf_counter()
        room = _room(data)
        try:
            task = int(data.get("task"))
        except (TypeError, ValueError, AttributeError):
            return
        if room is None or task != self.task_id:
            return
        self._dispatch(room, "announce", data.get("users") or [], t)

    def _on_room_event(self, kind: str, data) -> None:
        t = time.perf_counter()
        if not isinstance(data, dict):
            return
        if user_id_of(data.get("user")) == self.user_id:
            return  # our own echo
        room = _room(data)
        if room is not None:
            self._dispatch(room, kind, data, t, create=False)

    def _dispatch(self, room: int, kind: str, data: Any, t: float, create: bool = True) -> None:
        with self._lock:
            if room in self._retired:
                if not (kind == "announce" and self._retired[room] == "ignored"):
                    return
                del self._retired[room]  # a room we skipped is now announced for our task
            w = self._worker(room, create=create)
            if w is not None:
                w.put(kind, data, t)

    def _worker(self, room: int, create: bool) -> Optional[RoomWorker]:
        with self._lock:
            w = self._rooms.get(room)
            if w is None and create and not self._stopped.is_set():
                w = self._rooms[room] = RoomWorker(self, room)
                if self._live:
                    w.start()
            return w

    def _retire(self, worker: RoomWorker) -> bool:
        """Called by a worker that has nothing left to do. True when it may exit (no event is waiting for it)."""
        with self._lock:
            if not worker.queue.empty():
                return False
            self._rooms.pop(worker.room_id, None)
            self._retired[worker.room_id] = worker.state
            return True

    def _timer_fired(self, room: int, name: str, token: int) -> None:
        self._dispatch(room, "timer", TimerFired(name, token, time.time()), time.perf_counter(), create=False)

    # --- used by room workers -----------------------------------------------------------------------------------
    def is_agent_user(self, uid: Optional[int]) -> bool:
        return uid is not None and uid in self.agent_user_ids

    def task_layout_id(self) -> Optional[int]:
        if self._task_layout is None:
            try:
                self._task_layout = self.rest.get_task(self.task_id).get("layout_id")
            except SlurkAPIError as exc:
                log.error("cannot read task %s: %s", self.task_id, exc)
                return None
        return self._task_layout

    # --- introspection (tests, diagnostics) ---------------------------------------------------------------------
    def room(self, room_id: int) -> Optional[RoomWorker]:
        with self._lock:
            return self._rooms.get(int(room_id))

    @property
    def stopping(self) -> bool:
        return self._stopped.is_set()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def sio(self) -> socketio.Client:
        return self._sio


def _room(data) -> Optional[int]:
    try:
        return int(data["room"])
    except (KeyError, TypeError, ValueError):
        return None
