"""What a local run was asked to do, as a task's own evaluator (`TaskSpec.evaluator`) receives it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class RunRequest:
    """The parsed command line of `./run_bot.sh <task> ...`. A task evaluator returns an exit code when it lays the
    run out itself (a paper's table), or None to leave it to the ordinary local run."""

    agents: dict                   # seat -> agent name
    options: dict                  # task options
    llm: Any = None                # the LLM client, or None (symbolic policies)
    games: int = 1
    seed: int = 0
    out: Optional[str] = None      # the run folder when given (--out)
    brain_options: dict = field(default_factory=dict)
    parallel: int = 1              # games in flight for evaluators that run games in threads
    play: Optional[str] = None     # --play: None, "" (the first person seat) or a seat
    population: bool = False       # --population
