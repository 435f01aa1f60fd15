"""Agents that answer like a person typing. A reply that comes 0.1 s after a person's message gives the bot away, so
on Slurk an agent's moves are held back until a person could have written them: at least `min_seconds` after the
agent started thinking, plus the time to type its chat lines at `chars_per_second`, at most `max_seconds` in all.
Time spent thinking counts (a slow LLM turn is not delayed further). Local self-play never paces.

Configured by the `pacing:` section of the config file (`enabled`, `chars_per_second`, `min_seconds`, `max_seconds`; `pacing: off`
turns it off) or `BOT_PACING=on|off` in the environment."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable

from tasks.core.protocol import Chat


def _enabled_by_default() -> bool:
    # The environment wins, also for settings built in code (tests set BOT_PACING=off to keep their waits short).
    return os.environ.get("BOT_PACING", "on").strip().lower() not in ("off", "0", "false", "no")


@dataclass
class Pacing:
    enabled: bool = field(default_factory=_enabled_by_default)
    chars_per_second: float = 8.0   # a fast typist; people read the reply at about the same pace
    min_seconds: float = 1.0        # no move sooner than this after the agent started on it
    max_seconds: float = 6.0        # long replies are not made to wait longer than this

    def seconds(self, moves: Iterable, thought_for: float) -> float:
        """How much longer to hold back `moves` that took `thought_for` seconds to decide (0: send now)."""
        moves = list(moves)
        if not self.enabled or not moves:
            return 0.0
        chars = sum(len(m.text) for m in moves if isinstance(m, Chat))
        target = min(self.max_seconds, self.min_seconds + chars / max(0.1, self.chars_per_second))
        return max(0.0, target - max(0.0, thought_for))

    @classmethod
    def from_section(cls, section, env_value=None) -> "Pacing":
        """From the config file's `pacing:` value (a mapping, or on/off) and BOT_PACING (which wins)."""
        p = cls(enabled=True)
        if isinstance(section, str) or isinstance(section, bool):
            p.enabled = str(section).strip().lower() not in ("off", "false", "0", "no")
        elif isinstance(section, dict):
            for key, value in section.items():
                if key == "enabled":
                    p.enabled = str(value).strip().lower() not in ("off", "false", "0", "no")
                elif key in ("chars_per_second", "min_seconds", "max_seconds"):
                    setattr(p, key, float(value))
                else:
                    raise ValueError(f"unknown pacing setting {key!r}; known: enabled, chars_per_second, "
                                     "min_seconds, max_seconds")
        if env_value:
            p.enabled = env_value.strip().lower() not in ("off", "false", "0", "no")
        return p
