"""`./run_bot.sh concierge [--config FILE]`: the waiting-room bot that pairs people into task rooms.

Environment (as written by `setup` into bot.env): SLURK_URL, CONCIERGE_TOKEN, CONCIERGE_USER, WAITING_ROOM,
optionally TASK_ID and AGENT_USERS (`seat:user_id,...`: agent users added to each new room of TASK_ID, so the task
bot can show the agent under a human-looking name), WAITING_TIMEOUT (seconds, default 600), and the completion
settings of the config file (completion.platform / url_template, for the Prolific link).

What it does (slurk-protocol.md §2.5 and §4):
  * every person who arrives in the waiting room (`status: join`) is greeted privately and queued by the task of
    their token (`GET /users/{id}/task` -> task id, num_users, layout id); users without a task (bots) are ignored;
  * when a task has `num_users` people waiting (checked to be still online): `POST /rooms {layout_id}`, then for each
    person `POST /users/{u}/rooms/{new}` and `DELETE /users/{u}/rooms/{waiting}` (with the user's fresh ETag), then
    `room_created {room, task}` so the task bot joins via `new_task_room`; agent users are added afterwards;
  * a person still waiting after `waiting_timeout` seconds (counted from their first arrival, so a page reload does
    not restart the clock) gets a completion code: logged as `confirmation_log {status_txt: no_partner,
    confirmation_token}` for them, and sent privately with a polite note (and the Prolific link when configured);
  * people who leave the waiting room are forgotten (their place in the queue and their timer).

Socket events are received in order and handled one at a time by a worker thread (timers feed the same queue), so
the state never sees a leave before the join that preceded it. A failure while handling one person or one group is
logged and never stops the others.
"""
from __future__ import annotations

import argparse
import html
import logging
import os
import queue
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

import socketio

from bots.config import ConfigError
from bots.slurk.rest import SlurkAPIError, SlurkREST
from bots.slurk.socket import InOrderClient, user_id_of
from tasks.core.codes import CompletionConfig, new_code

from .provision import DEFAULT_WAITING_TIMEOUT, read_study_config

log = logging.getLogger("bots.concierge")

RETRY_SECONDS = 5.0  # after a failed room creation


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
                 auth_timeout: float = 5.0, emit_timeout: float = 10.0):
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

        self._lock = threading.RLock()
        self.queues: dict[int, list[int]] = {}        # task id -> waiting user ids, first come first
        self.people: dict[int, Waiting] = {}          # user id -> who is waiting
        self.first_seen: dict[int, float] = {}        # user id -> clock() at first arrival
        self.compensated: dict[int, str] = {}         # user id -> completion code (no partner)
        self.placed: dict[int, int] = {}              # user id -> task room they were moved to
        self.rooms: dict[int, dict] = {}              # task room -> {task, users}
        self._tasks: dict[int, dict] = {}             # task id -> task row (cache)
        self._timer_gen = 0
        self._events: "queue.Queue[tuple]" = queue.Queue()
        self._worker = threading.Thread(target=self._loop, name="concierge", daemon=True)
        self._joined = threading.Event()
        self._connected = threading.Event()
        self._stopped = threading.Event()
        self._gen = 0
        self._sio = InOrderClient(reconnection=True, reconnection_delay=0.5, reconnection_delay_max=3,
                                   logger=False, engineio_logger=False)
        self._sio.on("connect", self._on_connect)
        self._sio.on("disconnect", self._on_disconnect)
        self._sio.on("joined_room", self._on_joined_room)
        self._sio.on("status", self._on_status)

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
        log.info("concierge logged in to %s as user %s; waiting room %s", self.url, self.user_id, self.waiting_room)
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

    @property
    def sio(self) -> socketio.Client:
        return self._sio

    def idle(self) -> bool:
        """True when no event is waiting to be handled (for tests)."""
        return self._events.unfinished_tasks == 0

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

    def _on_joined_room(self, data) -> None:
        try:
            room = int(data["room"])
        except (KeyError, TypeError, ValueError):
            return
        if room == self.waiting_room:
            self._joined.set()
            self._events.put(("sweep",))

    def _on_status(self, data) -> None:
        if not isinstance(data, dict):
            return
        try:
            room = int(data.get("room"))
        except (TypeError, ValueError):
            return
        uid = user_id_of(data.get("user"))
        if room != self.waiting_room or uid is None or uid == self.user_id:
            return
        name = (data.get("user") or {}).get("name") or f"user {uid}"
        if data.get("type") == "join":
            self._events.put(("join", uid, name))
        elif data.get("type") == "leave":
            self._events.put(("leave", uid))

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

    def _handle_sweep(self) -> None:
        """After (re)connecting: pick up people who are waiting, forget those who left meanwhile."""
        try:
            online = {user_id_of(u): u for u in self.rest.get_room_users(self.waiting_room)}
        except SlurkAPIError as exc:
            log.error("cannot list the waiting room %s: %s", self.waiting_room, exc)
            return
        online.pop(self.user_id, None)
        with self._lock:
            gone = [u for u in self.people if u not in online]
        for uid in gone:
            self._handle_leave(uid)
        for uid, user in online.items():
            if uid is not None:
                self._handle_join(uid, user.get("name") or f"user {uid}", sweep=True)

    def _handle_join(self, uid: int, name: str, sweep: bool = False) -> None:
        with self._lock:
            if uid in self.people:
                return
            code = self.compensated.get(uid)
            placed = self.placed.get(uid)
        if code is not None:
            self._send(uid, self._no_partner_text(name, code))  # they came back (e.g. reloaded): repeat the code
            return
        if placed is not None:
            return  # moved already; a stale join
        task = self._task_of(uid)
        if task is None:
            return  # a bot, or a token without a task: not ours to pair
        num = int(task.get("num_users") or 0)
        if num < 1:
            log.warning("task %s has num_users %s; user %s is not paired", task.get("id"), num, uid)
            return
        with self._lock:
            if uid in self.people:
                return
            w = Waiting(uid, name, int(task["id"]), num, int(task["layout_id"]), 0)
            self._enqueue(w)
        log.info("user %s (%s) waits for task %s (%d of %d)", uid, name, w.task_id,
                 len(self.waiting(w.task_id)), num)
        self._send(uid, self._greeting(name, num))
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
            w = self.people.pop(uid, None)
            if w is None:
                return
            q = self.queues.get(w.task_id, [])
            if uid in q:
                q.remove(uid)
        self.timers.cancel(("wait", uid))
        log.info("user %s left the waiting room; forgotten", uid)

    def _handle_timeout(self, uid: int, gen: int) -> None:
        with self._lock:
            w = self.people.get(uid)
            if w is None or w.timer != gen or uid not in self.queues.get(w.task_id, []):
                return
            self.queues[w.task_id].remove(uid)
            del self.people[uid]
            code = self.code_source()
            self.compensated[uid] = code
        log.info("user %s waited too long for task %s: no partner; code sent", uid, w.task_id)
        try:
            self.rest.post_log("confirmation_log", self.waiting_room,
                               {"status_txt": "no_partner", "confirmation_token": code}, receiver_id=uid)
        except SlurkAPIError as exc:
            log.error("could not log the completion code of user %s: %s", uid, exc)
        self._send(uid, self._no_partner_text(w.name, code))

    def _handle_retry(self, task_id: int) -> None:
        self._group(task_id)

    # --- grouping -----------------------------------------------------------------------------------------------
    def _group(self, task_id: int) -> None:
        while True:
            with self._lock:
                q = self.queues.get(task_id, [])
                if not q:
                    return
                num = self.people[q[0]].num_users
                if len(q) < num:
                    return
                group = q[:num]
                del q[:num]
                members = [self.people[u] for u in group]
            online, offline = self._still_here(members)
            if offline:
                with self._lock:
                    for w in offline:
                        self.people.pop(w.user_id, None)
                    self.queues.setdefault(task_id, [])[0:0] = [w.user_id for w in online]
                for w in offline:
                    self.timers.cancel(("wait", w.user_id))
                    log.info("user %s is no longer online; forgotten", w.user_id)
                continue
            if not self._open_room(members):
                with self._lock:
                    self.queues.setdefault(task_id, [])[0:0] = [w.user_id for w in members]
                self.timers.set(("retry", task_id), RETRY_SECONDS,
                                lambda t=task_id: self._events.put(("retry", t)))
                return

    def _still_here(self, members: list[Waiting]) -> tuple[list[Waiting], list[Waiting]]:
        online, offline = [], []
        for w in members:
            try:
                user = self.rest.get_user(w.user_id)
                here = user.get("session_id") is not None
            except SlurkAPIError as exc:
                here = exc.status != 404
            (online if here else offline).append(w)
        return online, offline

    def _open_room(self, members: list[Waiting]) -> bool:
        task_id, layout_id = members[0].task_id, members[0].layout_id
        try:
            room = int(self.rest.create_room(layout_id)["id"])
        except SlurkAPIError as exc:
            log.error("could not create a room for task %s (users %s): %s; retrying in %gs", task_id,
                      [w.user_id for w in members], exc, RETRY_SECONDS)
            return False
        moved = []
        for w in members:
            self.timers.cancel(("wait", w.user_id))
            with self._lock:
                self.people.pop(w.user_id, None)
                self.placed[w.user_id] = room
            try:
                self.rest.join_room(w.user_id, room)
            except SlurkAPIError as exc:
                # This person stays in the waiting room, first in line, with the rest of their waiting time.
                log.error("room %s: could not add user %s: %s; they keep waiting", room, w.user_id, exc)
                with self._lock:
                    self.placed.pop(w.user_id, None)
                if exc.status != 404:
                    self._enqueue(w, front=True)
                continue
            moved.append(w)
            try:
                self.rest.leave_room(w.user_id, self.waiting_room)
            except SlurkAPIError as exc:
                log.error("could not take user %s out of the waiting room: %s", w.user_id, exc)
        with self._lock:
            self.rooms[room] = {"task": task_id, "users": [w.user_id for w in moved]}
        if not moved:
            return True
        ack = self._call("room_created", {"room": room, "task": task_id})
        if not ack or ack[0] is not True:
            log.error("room %s: room_created was not acknowledged (%s); the task bot may not join", room, ack)
        if self.agent_users and (self.task_id is None or self.task_id == task_id):
            for seat, agent in self.agent_users.items():
                try:
                    self.rest.join_room(agent, room)
                except SlurkAPIError as exc:
                    log.error("room %s: could not add the agent user %s (seat %s): %s", room, agent, seat, exc)
        log.info("room %s created for task %s with users %s", room, task_id, [w.user_id for w in moved])
        return True

    def _task_of(self, uid: int) -> Optional[dict]:
        try:
            task = self.rest.get_user_task(uid)
        except SlurkAPIError as exc:
            log.error("cannot read the task of user %s: %s", uid, exc)
            return None
        if not task or task.get("id") is None or task.get("layout_id") is None:
            return None
        return task

    # --- messages -----------------------------------------------------------------------------------------------
    def _greeting(self, name: str, num: int) -> str:
        minutes = max(1, round(self.waiting_timeout / 60))
        partner = "a partner" if num == 2 else ("your game" if num == 1 else "your partners")
        return (f"Hello <b>{html.escape(name)}</b>, welcome! Please wait here while we prepare {partner}; you will "
                f"be moved to your game room automatically. If nothing happens within {minutes} minute"
                f"{'s' if minutes != 1 else ''}, you will get a completion code here, so that you are paid for "
                "your time. Please keep this page open.")

    def _no_partner_text(self, name: str, code: str) -> str:
        return (f"Sorry, {html.escape(name)}: no partner arrived in time, so the game cannot start. Thank you very "
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
                   emit_timeout=cfg.slurk.emit_timeout)
    options.update(kw)  # tests: timers, code_source, clock, ...
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
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
