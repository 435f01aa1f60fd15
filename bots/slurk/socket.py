"""The socket.io client every bot process uses, and small helpers for Slurk event payloads."""
from __future__ import annotations

import threading
import time
from typing import Any, Optional

import engineio
import socketio

# Events a bot never handles. Slurk sends `stop_typing` to every room of a sender after each message, so a bot in
# N rooms receives N of them per message it sends; they are dropped before they are decoded.
_IGNORED_PACKETS = tuple(f'42["{name}",' for name in ("stop_typing", "start_typing", "typed_message", "mouse"))


class _InOrderEngineIO(engineio.Client):
    """Runs the message handler in the reading thread, so socket.io events are dispatched in arrival order.

    python-engineio normally starts a thread per message. Our handlers only enqueue (they never block or wait for
    an ack), so dispatching in the reading thread cannot stall the connection.
    """

    last_packet = 0.0  # time.monotonic() of the newest packet from the server, pings included (guard.py)

    def _receive_packet(self, pkt):
        self.last_packet = time.monotonic()
        return super()._receive_packet(pkt)

    def disconnect(self, abort=False, reason=None):
        # Handlers run in the reading thread, so a disconnect they cause (the server closing the namespace) must not
        # wait for that thread to end: it is this thread, and python-engineio would raise "cannot join current
        # thread", leaving the transport open without a namespace.
        if threading.current_thread() is self.read_loop_task:
            abort = True
        return super().disconnect(abort=abort, reason=reason)

    def _trigger_event(self, event, *args, **kwargs):
        if event == "connect":
            self.last_packet = time.monotonic()
        if event == "message":
            if args and isinstance(args[0], str) and args[0].startswith(_IGNORED_PACKETS):
                return None
            kwargs["run_async"] = False
        return super()._trigger_event(event, *args, **kwargs)


class InOrderClient(socketio.Client):
    """A `socketio.Client` whose events arrive in order, one at a time (one instance per bot, never shared)."""

    closed = False

    def close(self) -> None:
        """No connection from now on: the current one ends, and so does a reconnection under way, even one that
        python-socketio starts just after this (it decides to reconnect before it reports the drop)."""
        self.closed = True
        self.reconnection = False
        if self._reconnect_abort is not None:
            self._reconnect_abort.set()
        self.shutdown()

    def connect(self, *args, **kwargs):
        if self.closed:
            if self._reconnect_abort is not None:
                self._reconnect_abort.set()  # ends python-socketio's reconnection loop at its next wait
            raise socketio.exceptions.ConnectionError("the client was closed")
        return super().connect(*args, **kwargs)

    def _engineio_client_class(self):
        return _InOrderEngineIO


def user_id_of(user: Any) -> Optional[int]:
    """The int id of a Slurk user payload ({"id": ..}) or id; None when there is none (ids arrive as int or str)."""
    try:
        return int(user["id"] if isinstance(user, dict) else user)
    except (KeyError, TypeError, ValueError):
        return None
