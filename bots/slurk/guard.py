"""The bot's Slurk session: nobody else may hold it at start, and a running bot notices when it loses it.

Slurk keeps one session per user (`GET /users/{id}` -> `session_id`, the socket.io sid of the user's newest
connection). A second connection of the bot user takes the session over (private messages and per-user updates go
to the newest connection only), and when the *older* connection closes, Slurk empties the session and takes the
newer connection out of its rooms: that one is still connected but receives nothing ("deaf").

At start (`wait_until_session_free`, before connecting): an empty session is fine. A session that is the one our
predecessor recorded in the lease (lease.py) is our own dead connection: Slurk drops it within ~0.1 s of the
process dying when the socket was a WebSocket, but only after its ping timeout (~140-235 s measured) when the
process hung or the socket was still long-polling, and never when Slurk itself was restarted meanwhile. We wait a
little for it to go, then connect anyway (should Slurk drop it later and leave us deaf, the guard reconnects).
Any other session is another live connection of this bot user, most likely a second instance with another state
file: we wait a little (it may be stopping) and then refuse to start (`InstanceConflict`), unless told to take
over (`take_over`, for a session known to be dead).

While running (`SessionGuard`, one thread): every `interval` seconds it checks that
- the lease is still ours (else: exit, `InstanceConflict`);
- the socket is connected; python-socketio reconnects by itself after a transport error (with back-off and a limit
  of attempts), the guard reconnects when nobody does (the server closed the connection, the attempts ran out),
  and gives up after `max_offline` seconds without a connection (`SessionLost`);
- something arrived on the socket lately: Slurk pings every 5 s, so `silence` seconds without a single packet
  mean a dead transport that python-engineio would only notice after Slurk's ping timeout (125 s): reconnect;
- Slurk's session for the bot user is our sid (confirmed by a second look a moment later): empty means deaf ->
  reconnect; another sid means another connection took it over -> exit (`InstanceConflict`), since a tug of war
  between two instances would double everything.
Reconnecting re-joins every member room (`joined_room`), and the rooms re-sync as after any reconnect.
Exiting means `SlurkBot.run()` raises, and `python -m bots serve` exits with status 3 (conflict) or 4 (session
lost), so a supervisor restarts it.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any, Optional, Protocol

import socketio

from .lease import InstanceConflict
from .retry import backoff
from .rest import SlurkAPIError

log = logging.getLogger(__name__)


class GuardedBot(Protocol):
    """What the guard watches and calls of the bot (`runtime.SlurkBot`)."""

    url: str
    user_id: int
    rest: Any
    lease: Any  # lease.Lease
    logs: Any  # shipping.LogShipper
    _stopped: threading.Event  # set when the bot stops

    @property
    def sio(self) -> socketio.Client: ...

    @property
    def stopping(self) -> bool: ...

    def _fail(self, exc: Exception) -> None: ...


class SessionLost(RuntimeError):
    """The bot lost its Slurk connection or session and could not get it back."""


def session_of(rest, user_id: int) -> tuple[bool, Optional[str]]:
    """(known, session_id) of the user: known is False when Slurk could not be asked."""
    try:
        user = rest.get_user(user_id)
    except SlurkAPIError:
        return False, None
    return True, (user or {}).get("session_id") or None


def wait_until_session_free(rest, user_id: int, url: str, predecessor_sid: Optional[str], *,
                            foreign_wait: float, predecessor_wait: float, take_over: bool = False,
                            poll: float = 0.1) -> None:
    """Return when nobody else holds the bot user's session (see the module doc); raise InstanceConflict if another
    connection holds it for longer than `foreign_wait` seconds."""
    start = time.monotonic()
    said = None
    while True:
        known, session = session_of(rest, user_id)
        if not known or session is None:
            return  # free (or Slurk cannot be asked: connecting will tell)
        waited = time.monotonic() - start
        if predecessor_sid is not None and session == predecessor_sid:
            if said != "ours":
                said = "ours"
                log.info("Slurk still shows this bot's previous connection (session %s); waiting up to %g s for it "
                         "to go", session, predecessor_wait)
            if waited >= predecessor_wait:
                log.warning("Slurk still shows this bot's previous connection (session %s) after %g s; connecting "
                            "anyway (should Slurk drop it later, the bot reconnects)", session, predecessor_wait)
                return
        else:
            if take_over:
                log.warning("Slurk user %s is connected from another connection (session %s); taking over as told",
                            user_id, session)
                return
            if said != "foreign":
                said = "foreign"
                log.info("Slurk user %s is connected from another connection (session %s); waiting up to %g s in "
                         "case it is stopping", user_id, session, foreign_wait)
            if waited >= foreign_wait:
                raise InstanceConflict(
                    f"Slurk user {user_id} on {url} is connected right now from another connection (session "
                    f"{session}), which is not this bot's previous one: another instance of this bot is probably "
                    "running, with another state file (BOT_STATE_DB) or on another machine. A second instance would "
                    "answer every event twice, and when either exits Slurk drops the other's connection. Stop the "
                    "other instance first. If there is none (it was killed and Slurk still shows its connection, "
                    "which lasts minutes after a hang and for good if Slurk was restarted meanwhile), start this one "
                    "with --take-over (BOT_TAKE_OVER=1).")
        time.sleep(poll)
        poll = min(poll * 2, 1.0)  # back off while waiting


class SessionGuard:
    def __init__(self, bot: GuardedBot, interval: float = 5.0, silence: Optional[float] = None,
                 max_offline: float = 600.0, confirm: float = 1.0):
        self.bot = bot
        self.interval = interval
        self.silence = silence
        self.max_offline = max_offline
        self.confirm = confirm
        self.reconnects = 0  # reconnections the guard made (diagnostics, tests)
        self._offline_since: Optional[float] = None
        self._thread = threading.Thread(target=self._loop, name="slurk-guard", daemon=True)

    def start(self) -> "SessionGuard":
        self._thread.start()
        return self

    # ------------------------------------------------------------------------------------------------------------
    def _loop(self) -> None:
        bot = self.bot
        while not bot._stopped.wait(self.interval):
            try:
                failure = self.check()
            except Exception:  # pragma: no cover - a bug in a check must not end the watch
                log.exception("session check failed")
                continue
            if failure is not None:
                bot._fail(failure)
                return

    def check(self) -> Optional[Exception]:
        """One round of checks; returns the failure to exit with, or None."""
        bot = self.bot
        if bot.stopping:
            return None
        lease = getattr(bot, "lease", None)
        if lease is not None and lease.lost:
            return InstanceConflict(lease.lost)
        sio = bot.sio
        now = time.monotonic()
        if not sio.connected:
            self._offline_since = self._offline_since or now
            offline = now - self._offline_since
            if offline >= self.max_offline:
                return SessionLost(f"no connection to Slurk at {bot.url} for {offline:.0f} s; giving up so that a "
                                   "supervisor can restart the bot")
            if not self._reconnecting():
                log.warning("the socket is closed and nobody reconnects it; reconnecting")
                return self.reconnect()
            return None
        self._offline_since = None
        silent = self._silent_for(now)
        if silent is not None and silent >= self._silence_limit():
            log.warning("nothing arrived on the socket for %.0f s (Slurk pings every few seconds): the connection "
                        "is dead; reconnecting", silent)
            return self.reconnect()
        return self._check_session()

    def _check_session(self) -> Optional[Exception]:
        bot = self.bot
        mine = _sid(bot.sio)
        known, session = session_of(bot.rest, bot.user_id)
        if known and getattr(bot, "logs", None) is not None:
            bot.logs.wake()  # Slurk's REST answers: log events waiting after a failure may go now
        if not known or mine is None or session == mine:
            if known and mine is not None and getattr(bot, "lease", None) is not None:
                bot.lease.set_sid(mine)
            return None
        time.sleep(self.confirm)  # a reconnect may be under way: look again
        if bot.stopping:
            return None
        mine2 = _sid(bot.sio)
        known, session2 = session_of(bot.rest, bot.user_id)
        if not known or mine2 != mine or session2 == mine or session2 != session:
            return None
        if session is None:
            log.warning("Slurk no longer lists this connection (session %s): user %s's session is empty, so no "
                        "events would reach the bot; reconnecting", mine, bot.user_id)
            return self.reconnect()
        return InstanceConflict(
            f"Another connection took over Slurk user {bot.user_id}'s session on {bot.url} (session {session}, ours "
            f"was {mine}): another instance of this bot is running. Stopping this one, since two would answer every "
            "event twice; stop the other instance, then restart.")

    def _silent_for(self, now: float) -> Optional[float]:
        last = getattr(self.bot.sio.eio, "last_packet", None)
        return None if not last else now - last

    def _silence_limit(self) -> float:
        if self.silence is not None:
            return self.silence
        ping = getattr(self.bot.sio.eio, "ping_interval", None) or 25
        return 2 * ping + 10

    def _reconnecting(self) -> bool:
        task = getattr(self.bot.sio, "_reconnect_task", None)  # python-socketio leaves it set when it gives up
        return task is not None and getattr(task, "is_alive", lambda: True)()

    def reconnect(self) -> Optional[Exception]:
        """Close the connection and open a new one, with back-off, until it works or `max_offline` is over."""
        bot, sio = self.bot, self.bot.sio
        started = time.monotonic()
        try:
            if sio.connected:
                sio.disconnect()
        except Exception:  # pragma: no cover - it is closing anyway
            log.debug("disconnect failed", exc_info=True)
        attempts = 0
        while not bot.stopping:
            if sio.connected:  # python-socketio's own reconnection got there first
                break
            try:
                sio.connect(sio.connection_url, headers=sio.connection_headers, auth=sio.connection_auth,
                            transports=sio.connection_transports, namespaces=sio.connection_namespaces,
                            socketio_path=sio.socketio_path, wait_timeout=10)
                break
            except (socketio.exceptions.ConnectionError, ValueError) as exc:  # ValueError: engine.io not closed yet
                if "Already connected" in str(exc):
                    break
                attempts += 1
                offline = time.monotonic() - (self._offline_since or started)
                if offline >= self.max_offline:
                    return SessionLost(f"cannot reconnect to Slurk at {bot.url} ({exc}) for {offline:.0f} s; giving up "
                                       "so that a supervisor can restart the bot")
                if attempts in (1, 10) or attempts % 50 == 0:
                    log.warning("reconnecting to Slurk failed (%s, attempt %d); trying again", exc, attempts)
                if bot._stopped.wait(backoff(attempts, 0.5, 10.0)):
                    return None
        if not bot.stopping and sio.connected:
            self.reconnects += 1
            log.info("reconnected to Slurk (session %s)", _sid(sio))
        return None


def _sid(sio) -> Optional[str]:
    try:
        return sio.get_sid("/")
    except Exception:
        return None


def serve_until_stopped(start, stopped: threading.Event, stop) -> None:
    """A bot's `run`: start, then wait until `stopped` is set (by stop() from another thread or a signal handler)
    or Ctrl-C, then stop. The wait is in short steps so that Ctrl-C reaches the main thread."""
    start()
    try:
        while not stopped.wait(0.5):
            pass
    except KeyboardInterrupt:
        log.info("interrupted; stopping")
    finally:
        stop()
