"""Chat messages of one room, in order, without blocking the room's worker (`Emitter`).

Slurk acknowledges a `text` event only after it has also sent `stop_typing` to *every* room the sender is in, which
for a bot serving many rooms takes long. The emitter keeps one message in flight per room (so the room's order is
kept); the next goes out when Slurk acknowledges the one before.
"""
from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Callable, Optional

from .metrics import Turn, mark, mark_done

log = logging.getLogger(__name__)


class Outgoing:
    __slots__ = ("payload", "turn", "seat", "item", "gen", "sends")

    def __init__(self, payload: dict, turn: Optional[Turn], seat: Optional[str], item: Optional[tuple], gen: int):
        self.payload, self.turn, self.seat, self.item, self.gen = payload, turn, seat, item, gen
        self.sends = 0  # how often it was emitted (a dropped connection sends it again, up to MAX_SENDS)


MAX_SENDS = 3  # a message caught by this many dropped connections is given up (a flapping socket cannot loop)


class Emitter:
    """Ordered, pipelined `text` emits for one room: at most one in flight; the next goes out when Slurk acks.

    A refused private message (receiver not logged in) is handed back through `on_refused(out, reason)`.
    When the socket drops, the message in flight is sent again after the reconnect (Slurk may then show it twice,
    which beats losing it); one that gets no acknowledgement within the timeout is given up.
    """

    def __init__(self, bot, room: int, on_refused: Callable[["Outgoing", str], None],
                 on_ack: Optional[Callable[[], None]] = None):
        self.bot = bot
        self.room = room
        self.on_refused = on_refused
        self.on_ack = on_ack  # after every acknowledgement (Delivery: the page updates held for a reply may go)
        self._lock = threading.RLock()  # an ack may arrive re-entrantly, e.g. from a synchronous test double
        self._queue: "collections.deque[Outgoing]" = collections.deque()
        self._inflight: Optional[tuple] = None  # (out, token, started, gen)
        self._token = 0

    def send(self, payload: dict, turn: Optional[Turn] = None, seat: Optional[str] = None,
             item: Optional[tuple] = None, gen: int = 0) -> None:
        with self._lock:
            self._queue.append(Outgoing(payload, turn, seat, item, gen))
            self._pump()

    def idle(self) -> bool:
        with self._lock:
            return self._inflight is None and not self._queue

    def __len__(self) -> int:
        with self._lock:
            return len(self._queue) + (self._inflight is not None)

    def _pump(self) -> None:  # holding the lock
        if self._inflight is not None or not self._queue or not self.bot.connected or self.bot.stopping:
            return
        out = self._queue.popleft()
        self._token += 1
        token = self._token
        self._inflight = (out, token, time.monotonic(), self.bot.gen)
        out.sends += 1
        try:
            self.bot.metrics.count_request("socket text")
            self.bot.sio.emit("text", out.payload, namespace="/", callback=lambda *args: self._ack(token, args))
        except Exception:  # the socket went away in between: keep it for the reconnect
            self._inflight = None
            out.sends -= 1
            self._queue.appendleft(out)
            return
        mark(out.turn)

    def _ack(self, token: int, args: tuple) -> None:
        refused = None
        with self._lock:
            if self._inflight is None or self._inflight[1] != token:
                return  # late ack of a message we gave up on
            out = self._inflight[0]
            self._inflight = None
            mark_done(out.turn)
            if not (args and args[0] is True):
                refused = (out, str(args[1]) if len(args) > 1 else str(args[0]) if args else "refused")
            self._pump()
        if self.on_ack is not None:
            self.on_ack()
        if refused:
            self.on_refused(*refused)

    def check(self, timeout: float) -> None:
        """Called periodically and on (re)connect: resend after a drop, give up after `timeout`, pump."""
        lost = None
        with self._lock:
            if self._inflight is not None:
                out, _token, started, gen = self._inflight
                if gen != self.bot.gen and out.sends < MAX_SENDS:
                    self._inflight = None
                    self._queue.appendleft(out)
                elif gen != self.bot.gen or time.monotonic() - started > timeout:
                    self._inflight = None
                    lost = out
            self._pump()
        if lost is not None and lost.sends >= MAX_SENDS:
            log.warning("room %s: a message was caught by %d dropped connections; given up (it may have been shown)",
                        self.room, lost.sends)
        elif lost is not None:
            log.warning("room %s: no acknowledgement for a message within %.0f s; it may not have been shown",
                        self.room, timeout)
