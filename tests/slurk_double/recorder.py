"""A real python-socketio ``Client`` that records every event it receives, for tests."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

import socketio

Predicate = Callable[[Any], bool]


class SocketRecorder:
    """Records ``(event, data)`` pairs; ``wait_for`` polls until they arrive.

    Handlers are registered before connecting (``joined_room`` arrives before the
    client's own ``connect`` event). Returning from the ``joined_room`` handler is the
    ack Slurk waits for; ``joined_room_hook`` runs inside that handler, so a hook that
    blocks delays the ack.
    """

    def __init__(self, name: str = "client", joined_room_hook: Callable[[dict], None] | None = None):
        self.name = name
        self.joined_room_hook = joined_room_hook
        self.events: list[tuple[str, Any]] = []
        self._cond = threading.Condition()
        self.sio = socketio.Client(reconnection=False, logger=False, engineio_logger=False)
        self.sio.on("*", self._any)
        self.sio.on("joined_room", self._joined_room)

    # -- recording
    def _record(self, event: str, data: Any) -> None:
        with self._cond:
            self.events.append((event, data))
            self._cond.notify_all()

    def _any(self, event: str, *args: Any) -> None:
        self._record(event, args[0] if len(args) == 1 else (list(args) if args else None))

    def _joined_room(self, data: Any) -> None:
        self._record("joined_room", data)
        if self.joined_room_hook is not None:
            self.joined_room_hook(data)

    # -- connection
    def connect(
        self,
        url: str,
        user_id: int | None = None,
        token: str | None = None,
        *,
        via: str = "header",
        headers: dict | None = None,
        auth: dict | None = None,
    ) -> "SocketRecorder":
        """``via``: "header" (Bearer), "plain-header" (no Bearer prefix), "query" (?token=&user=), "none"."""
        all_headers = dict(headers or {})
        if via == "header":
            all_headers.update({"Authorization": f"Bearer {token}", "user": str(user_id)})
        elif via == "plain-header":
            all_headers.update({"Authorization": str(token), "user": str(user_id)})
        elif via == "query":
            url = f"{url}?token={token}&user={user_id}"
        elif via != "none":
            raise ValueError(via)
        self.sio.connect(url, headers=all_headers, auth=auth, namespaces=["/"], wait_timeout=10)
        return self

    def disconnect(self) -> None:
        if self.sio.connected:
            self.sio.disconnect()

    @property
    def sid(self) -> str | None:
        return self.sio.get_sid("/")

    def call(self, event: str, data: Any = None, timeout: float = 5) -> Any:
        return self.sio.call(event, data, namespace="/", timeout=timeout)

    def emit(self, event: str, data: Any = None) -> None:
        self.sio.emit(event, data, namespace="/")

    # -- queries
    def of(self, event: str, predicate: Predicate | None = None) -> list:
        with self._cond:
            return [d for e, d in self.events if e == event and (predicate is None or predicate(d))]

    def names(self) -> list[str]:
        with self._cond:
            return [e for e, _ in self.events]

    def index_of(self, event: str, predicate: Predicate | None = None) -> int:
        with self._cond:
            for i, (e, d) in enumerate(self.events):
                if e == event and (predicate is None or predicate(d)):
                    return i
        return -1

    def wait_for(self, event: str, predicate: Predicate | None = None, count: int = 1, timeout: float = 5) -> list:
        """Block until ``count`` matching events were received; returns them (AssertionError on timeout)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [d for e, d in self.events if e == event and (predicate is None or predicate(d))]
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"{self.name}: expected {count}x {event!r}, got {len(found)}; received: {self.events!r}"
                    )
                self._cond.wait(remaining)

    def assert_no(self, event: str, predicate: Predicate | None = None, within: float = 1.0) -> None:
        """Wait ``within`` seconds and fail if a matching event arrived (a negative check, not a timing check)."""
        deadline = time.monotonic() + within
        with self._cond:
            while True:
                found = [d for e, d in self.events if e == event and (predicate is None or predicate(d))]
                assert not found, f"{self.name}: unexpected {event!r}: {found!r}"
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._cond.wait(remaining)
