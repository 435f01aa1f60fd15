"""The command-line options every DialOp task has for its released games (prompted self-play, the released
instances, the data path): written once, each task names its own file in the release."""
from __future__ import annotations

from tasks.core import CliOption

TURNS = CliOption("--turns", "turns", str, "free chat (people) or strict alternation (agents)", ("free", "alternate"))


def released_options(jsonl: str) -> tuple[CliOption, ...]:
    """--psp, --human-instances and --data for a task whose released games are `jsonl` inside data.zip."""
    return (
        CliOption("--psp", "psp", str, "prompted self-play on the released dialogues: cut at 50%% / 75%% of the "
                  "words or just before the final proposal", ("50", "75", "proposal")),
        CliOption("--human-instances", "human_instances", str, "play the released instances (path to data.zip or "
                  f"{jsonl}; 'default' = ../shared/data/dialop/data.zip)"),
        CliOption("--data", "data", str, f"path of the released data (data.zip or {jsonl}) for --psp"),
    )
