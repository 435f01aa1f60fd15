"""Which instance each open room of this bot plays, so that no two rooms open at once play the same one.

Slurk answers `GET /rooms/{any room}/users/{own id}/logs` for any room (it checks the user, not the membership;
slurk-protocol.md §8): a participant can read every room's public chat. If two rooms played the same private
instance at once, one room's people could read the other's lines about their own partner's values. A new room
therefore gets an instance no open room has (`TaskSpec.fresh_instance`: other seeds, a pinned instance unpinned),
unless the researcher sets task option `shared_instance: true` (the bot then warns at start).
"""
from __future__ import annotations

import logging
import secrets
import threading
from typing import Optional

from tasks.core.spec import instance_fingerprint

log = logging.getLogger(__name__)

SHARED_WARNING = ("task option shared_instance is on: rooms open at the same time may play the same instance, and "
                  "Slurk lets any participant read every room's public chat (GET /rooms/{room}/users/{own id}/logs "
                  "checks the user, not the room). With open chat a line about one's private values can then be "
                  "read by people who play the same instance in another room.")


class OpenInstances:
    """room -> fingerprint of the instance it plays, for the rooms of this bot that are open."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rooms: dict[int, str] = {}

    def claim(self, room: int, spec, seed: int, options: dict):
        """(seed, options, instance) for a new room: an instance no other open room plays (see the module doc)."""
        for attempt in range(3):  # generated outside the lock (it can take a fraction of a second)
            with self._lock:
                taken = self._taken(room)
            seed, options, instance, fp = spec.fresh_instance(seed, options, taken,
                                                              lambda: secrets.randbelow(2 ** 31))
            with self._lock:
                clash = fp in self._taken(room) and not _shared(options)
                if clash and fp not in taken and attempt < 2:
                    continue  # another room took it meanwhile: try again
                if clash:
                    log.warning("room %s: every instance tried is being played in another open room (a small "
                                "instance pool?); this room plays one of them too", room)
                elif "pin_dropped" in options:
                    log.warning("room %s: the pinned instance %r is being played in another open room; this room "
                                "plays another one (task option shared_instance: true allows the same one)", room,
                                options["pin_dropped"])
                self._rooms[room] = fp
                return seed, options, instance
        raise AssertionError("unreachable")  # the last attempt always returns

    def _taken(self, room: int) -> set:
        return {fp for r, fp in self._rooms.items() if r != room}

    def restore(self, room: int, instance: Optional[dict]) -> None:
        """A room resumed after a restart keeps its instance (and keeps others from getting it)."""
        if instance is not None:
            with self._lock:
                self._rooms[room] = instance_fingerprint(instance)

    def release(self, room: int) -> None:
        with self._lock:
            self._rooms.pop(room, None)

    def __len__(self) -> int:
        return len(self._rooms)


def _shared(options: dict) -> bool:
    value = options.get("shared_instance")
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")
