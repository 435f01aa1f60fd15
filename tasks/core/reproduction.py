"""A paper's LLM table as a task declares it, so `./run_bot.sh reproduce TASK` can play the same conditions with the
configured model and print the paper's figures beside this run's (tasks/core/evaluation/reproduce.py)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ReproCondition:
    """One row of the paper's table: who sits where, the task and brain options of that condition (played with
    preset `paper` under them), and the paper's figures by column name (a column of the task's summary table)."""

    label: str                                  # e.g. "GPT-4 self-play"
    agents: tuple[str, ...]                     # brain name per seat
    options: dict = field(default_factory=dict)
    brain_options: dict = field(default_factory=dict)
    paper: dict = field(default_factory=dict)   # column -> the paper's value

    def __post_init__(self) -> None:
        if not self.label or not self.agents:
            raise ValueError("a reproduction condition needs a label and one agent per seat")


@dataclass(frozen=True)
class Reproduction:
    """The paper's table: its conditions (rows), the columns compared (names of the task's summary columns), and
    where the figures come from ("Lin et al. 2024, Table 2")."""

    conditions: tuple[ReproCondition, ...]
    columns: tuple[str, ...]
    source: str
    note: str = ""

    def __post_init__(self) -> None:
        labels = [c.label for c in self.conditions]
        if not labels or len(set(labels)) != len(labels):
            raise ValueError(f"{self.source}: a reproduction needs conditions with distinct labels")
        for c in self.conditions:
            stray = set(c.paper) - set(self.columns)
            if stray:
                raise ValueError(f"{self.source}, {c.label}: paper figures for undeclared columns {sorted(stray)}")

    def check(self, spec) -> None:
        """Raises ValueError unless every condition seats one brain `spec` allows per seat of its game."""
        for c in self.conditions:
            if len(c.agents) != len(spec.seats):
                raise ValueError(f"{spec.name} reproduction {c.label!r}: {len(c.agents)} agents for "
                                 f"{len(spec.seats)} seats")
            for name, seat in zip(c.agents, spec.seats):
                spec.check_brain(name, seat)

    def condition(self, label: str) -> ReproCondition:
        for c in self.conditions:
            if c.label == label:
                return c
        raise KeyError(f"no condition {label!r}; choose from {', '.join(c.label for c in self.conditions)}")
