"""A condition: one row of a sweep's table (its own module so the dry run and the runner both use it)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Condition:
    """One row of a sweep's table: the agents and task options its games use, and where they go."""
    agents: dict
    options: dict
    sub: str = ""              # sub-folder of the run directory ("" = the run directory itself)
    suffix: str = ""           # what the LLM use table adds to the agents' label
    columns: dict = field(default_factory=dict)  # columns before the summary (condition keys, partner)
