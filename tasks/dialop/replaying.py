"""Replaying a released human dialogue through a task's rules: every seat a person, no timers (the record has its
own times), joins first, then the logged inputs in order. Shared by the three DialOp tasks' `released` adapters
and by prompted self-play (`runner.py`)."""
from __future__ import annotations

from typing import Optional, Sequence

from tasks.core import Join, SeatInfo, TimerConfig, build_match

NO_TIMERS = TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None)


def replay_people(spec, index: int, instance: dict, inputs: Sequence, seats: Sequence[str],
                  options: Optional[dict] = None):
    """The match after the human record's `inputs` (finished, or not when the humans never agreed)."""
    match, _ = build_match(spec, index, {s: SeatInfo("person", s) for s in seats}, options=dict(options or {}),
                           instance=instance, timers=NO_TIMERS, with_brains=False)
    match.open(0.0)
    for s in seats:
        match.handle(Join(s, 0.0))
    for inp in inputs:
        match.handle(inp)
    return match
