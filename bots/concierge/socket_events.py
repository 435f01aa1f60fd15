"""The concierge's socket: logging in to the waiting room, the events Slurk sends (they only enqueue work for the
worker thread), and private messages and announcements sent with an acknowledgement."""
from __future__ import annotations

import logging
import threading
import time
from typing import Optional

import socketio

from bots.slurk.rest import SlurkAPIError
from bots.slurk.socket import InOrderClient, user_id_of

log = logging.getLogger("bots.concierge")

RECONNECT_DELAY_MAX = 5.0  # the socket reconnects after 0.5, 1, 2, 4, 5, 5, ... s (python-socketio, +-0.5 s)
RECONNECT_LIMIT = 720      # reconnection attempts (about an hour) before the concierge stops with an error


class ConciergeAuthError(RuntimeError):
    """Slurk did not log the concierge in (it accepts bad credentials silently)."""


class SocketEvents:
    """The socket side of Concierge (it uses the state Concierge.__init__ sets up)."""

    def _open_socket(self) -> InOrderClient:
        sio = InOrderClient(reconnection=True, reconnection_delay=0.5,
                            reconnection_delay_max=RECONNECT_DELAY_MAX, reconnection_attempts=RECONNECT_LIMIT,
                            logger=False, engineio_logger=False)
        sio.on("connect", self._on_connect)
        sio.on("disconnect", self._on_disconnect)
        sio.on("joined_room", self._on_joined_room)
        sio.on("status", self._on_status)
        sio.on("new_task_room", self._on_new_task_room)
        sio.on("__disconnect_final", self._on_reconnect_given_up)  # python-socketio: reconnection ended
        return sio

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
        room = room_of(data)
        if room is None:
            return
        if room == self.waiting_room:
            self._joined.set()
            self._events.put(("sweep",))

    def _on_status(self, data) -> None:
        room = room_of(data)
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
        room = room_of(data)
        if room is not None:
            self._events.put(("announced", room, data.get("task")))

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



def room_of(data) -> Optional[int]:
    """The room id of a Slurk event payload, or None when it has none."""
    try:
        return int(data["room"])
    except (KeyError, TypeError, ValueError):
        return None


