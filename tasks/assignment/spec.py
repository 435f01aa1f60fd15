"""DialOp ASSIGNMENT as a task of the bot suite."""
from tasks.core import Benchmark, CliOption, TaskSpec

from . import metrics
from .brains import BRAINS
from .game import AssignmentGame

SPEC = TaskSpec(
    name="assignment",
    title="Reviewer Assignment (DialOp)",
    game_class=AssignmentGame,
    chat="relay",  # private tables, released instances repeat: lines are not public Slurk rows (chat: open to undo)
    brains=dict(BRAINS),
    default_brains=("optimizer", "optimizer"),
    # The paper's LLM self-play (alternating turns): normalised reward.
    benchmark=(Benchmark("llm pair, alternating turns", ("llm", "llm"), (("turns", "alternate"),), "reward",
                         "fraction"),),
    summarize=metrics.summarize,
    per_game_columns=("score", "best", "normalized_score", "proposals", "words", "turns"),
    roles={"player1": "area chair 1 (moves first when turns alternate)", "player2": "area chair 2"},
    grid={"turns": ("alternate", "free")},
    condition_keys=("turns", "psp"),
    cli_options=(
        CliOption("--turns", "turns", str, "free chat (people) or strict alternation (agents)", ("free", "alternate")),
        CliOption("--psp", "psp", str, "prompted self-play on the released dialogues: cut at 50%% / 75%% of the "
                  "words or just before the final proposal", ("50", "75", "proposal")),
        CliOption("--human-instances", "human_instances", str, "play the released instances (path to data.zip or "
                  "optimization.jsonl; 'default' = ../shared/data/dialop/data.zip)"),
        CliOption("--data", "data", str, "path of the released data (data.zip or optimization.jsonl) for --psp"),
    ),
    renderer="tasks.assignment.render:render_view",
    evaluator="tasks.dialop.runner:evaluate",  # --psp / --human-instances: the released games
    layout="assignment.json",
    state_element="assignment-state",
    description=(
        "Two area chairs match 8 reviewers to 8 papers. Each sees part of the affinity table in a private scale; "
        "they talk, then one proposes a full matching (/propose or by clicking cells) and the other must accept "
        "or reject it. Score: the matching's true affinity over the best possible with pooled knowledge."),
)
