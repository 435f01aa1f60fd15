"""The rooms-per-minute cap, which protects a server that failed: for WINDOW seconds after a server error the
concierge creates at most `per_minute` rooms a minute, counted from the first error of that episode. A launch whose
rooms are created without errors is not capped."""
from __future__ import annotations

import collections
import threading
from typing import Callable, Optional

WINDOW = 60.0        # seconds of the cap (in force for this long after a server error)


class RoomCap:
    def __init__(self, per_minute: int, clock: Callable[[], float]):
        if int(per_minute) < 1:
            raise ValueError("rooms_per_minute must be 1 or more")
        self.per_minute = int(per_minute)
        self.clock = clock
        self.created: collections.deque = collections.deque()  # clock() of each room created in the last WINDOW
        self.trouble: Optional[tuple[float, float]] = None      # (first, last) clock() of server errors, this episode
        self._lock = threading.Lock()

    def room_created(self) -> None:
        with self._lock:
            self.created.append(self.clock())

    def server_error(self) -> None:
        """A server error (not a person who is gone): the cap is in force for the next WINDOW."""
        now = self.clock()
        with self._lock:
            if self.trouble is None or now - self.trouble[1] >= WINDOW:
                self.trouble = (now, now)
            else:
                self.trouble = (self.trouble[0], now)

    def in_force(self) -> bool:
        with self._lock:
            return self.trouble is not None and self.clock() - self.trouble[1] < WINDOW

    def wait(self) -> float:
        """0 when a room may be created now, else the seconds until the cap allows one."""
        now = self.clock()
        with self._lock:
            while self.created and now - self.created[0] >= WINDOW:
                self.created.popleft()
            if self.trouble is None or now - self.trouble[1] >= WINDOW:
                return 0.0
            recent = [t for t in self.created if t >= self.trouble[0]]
        if len(recent) < self.per_minute:
            return 0.0
        return max(0.01, WINDOW - (now - recent[0]))

    def spacing(self) -> float:
        """Seconds between two rooms while the cap holds rooms back (0 when it does not)."""
        return WINDOW / self.per_minute if self.wait() > 0 else 0.0
