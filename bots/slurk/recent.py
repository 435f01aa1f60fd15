"""A map that remembers the rooms used most recently, up to a bound: per-room bookkeeping of a bot that runs for
weeks stays flat, while every room still in play (touched since) keeps its entry."""
from __future__ import annotations

import collections
from typing import Hashable, Optional

MAX_ROOMS = 10_000  # rooms remembered; a room idle while this many others were touched has long finished


class RecentMap(collections.OrderedDict):
    """`m[k] = v` makes k the newest entry and forgets the oldest one past `bound`. Not thread-safe on its own: the
    callers hold their lock."""

    def __init__(self, items=(), bound: Optional[int] = None):
        super().__init__()
        self.bound = MAX_ROOMS if bound is None else bound
        for k, v in dict(items).items():
            self[k] = v

    def __setitem__(self, key: Hashable, value) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.bound:
            self.popitem(last=False)
