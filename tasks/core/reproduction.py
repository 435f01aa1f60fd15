"""A paper's LLM table as a task declares it, so `./run_bot.sh reproduce TASK` can play the same conditions with the
configured model and print the paper's figures beside this run's (tasks/core/evaluation/reproduce.py)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .presets import check_sampling


@dataclass(frozen=True)
class ReproCondition:
    """One row of the paper's table: who sits where, the task and brain options of that condition (played with
    preset `paper` under them), and the paper's figures by column name (a column of the task's summary table).

    `batches`: when the paper played a condition in batches that differ in a brain option (e.g. one API `seed` per
    batch), one override per batch, e.g. ({"sampling": {"*": {"seed": 1011}}}, ...). The condition's games are
    split into consecutive batches (`batch_sizes`), each played with the condition's brain options and its override
    deep-merged into them (`merged`: a sampling override keeps the preset's other settings); every game keeps its
    seed, and the records of all batches make the row."""

    label: str                                  # e.g. "GPT-4 self-play"
    agents: tuple[str, ...]                     # brain name per seat
    options: dict = field(default_factory=dict)
    brain_options: dict = field(default_factory=dict)
    paper: dict = field(default_factory=dict)   # column -> the paper's value
    batches: tuple[dict, ...] = ()              # brain-option overrides, one per batch (none: one batch)

    def __post_init__(self) -> None:
        if not self.label or not self.agents:
            raise ValueError("a reproduction condition needs a label and one agent per seat")
        for override in self.batches:
            if not isinstance(override, dict) or not override:
                raise ValueError(f"{self.label}: a batch is a non-empty dict of brain options, got {override!r}")
            check_sampling(override.get("sampling"))


def batch_sizes(games: int, batches: int) -> list[int]:
    """`games` split into `batches` consecutive batches as evenly as possible, the earlier batches one game larger
    when it does not divide: 100/4 -> 25 each, 5/4 -> 2, 1, 1, 1, 2/4 -> 1, 1, 0, 0."""
    if batches < 1:
        raise ValueError("at least one batch")
    share, extra = divmod(games, batches)
    return [share + (k < extra) for k in range(batches)]


def merged(base: dict, override: dict) -> dict:
    """`base` with `override` deep-merged into it (nested dicts merge key by key; other values replace)."""
    out = dict(base)
    for key, value in override.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


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
