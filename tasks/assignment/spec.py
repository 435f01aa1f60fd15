"""DialOp ASSIGNMENT as a task of the bot suite."""
from tasks.core import Benchmark
from tasks.dialop.options import TURNS, dialop_spec

from . import metrics
from .brains import BRAINS
from .brains.paper import RELEASE_FILES
from .game import AssignmentGame

SPEC = dialop_spec(
    name="assignment",
    title="Reviewer Assignment (DialOp)",
    game_class=AssignmentGame,
    chat="relay",  # private tables, released instances repeat: lines are not public Slurk rows (chat: open to undo)
    brains=dict(BRAINS),
    default_brains=("optimizer", "optimizer"),
    # The paper's LLM self-play (alternating turns): normalised reward.
    benchmark=(Benchmark("llm pair, alternating turns", ("llm", "llm"), (("turns", "alternate"),), "reward",
                         "fraction"),),
    release_files=RELEASE_FILES,
    release_jsonl="optimization.jsonl",
    # The paper's LLM self-play (preset paper; `./run_bot.sh reproduce assignment`): generated instances.
    self_play=("llm", "llm"),
    humans="mean normalised reward 0.921 (the paper: about 90%)",
    summarize=metrics.summarize,
    per_game_columns=("score", "best", "normalized_score", "proposals", "words", "turns"),
    roles={"player1": "area chair 1 (moves first when turns alternate)", "player2": "area chair 2"},
    grid={"turns": ("alternate", "free")},
    condition_keys=("turns", "psp"),
    cli_options=(TURNS,),
    description=(
        "Two area chairs match 8 reviewers to 8 papers. Each sees part of the affinity table in a private scale; "
        "they talk, then one proposes a full matching (/propose or by clicking cells) and the other must accept "
        "or reject it. Score: the matching's true affinity over the best possible with pooled knowledge."),
)
