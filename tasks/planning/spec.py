"""DialOp PLANNING as a task of the bot suite."""
from tasks.core import Benchmark, CliOption
from tasks.dialop.options import TURNS, dialop_spec

from . import metrics
from .brains import BRAINS, PEOPLE, USER_BRAINS
from .brains.paper import RELEASE_FILES
from .game import PlanningGame

SPEC = dialop_spec(
    name="planning",
    title="Travel Planning (DialOp)",
    game_class=PlanningGame,
    chat="relay",  # private preferences, released instances repeat: lines are not public rows (chat: open to undo)
    brains=dict(BRAINS),
    default_brains=("simuser", "planner"),
    # The LLM assistant with the simulated user: normalised reward.
    benchmark=(Benchmark("llm assistant, simulated user", ("simuser", "llm"), (), "reward", "fraction"),),
    seat_brains={"user": USER_BRAINS, "assistant": ("planner", "llm")},
    population=("user", tuple(PEOPLE)),  # scripted travellers (brains/people.py); the agent plans for them
    release_files=RELEASE_FILES,
    paper_options={"rules": "original", "catalogue": "released"},
    release_jsonl="itinerary.jsonl",
    # The paper's LLM self-play (preset paper; `./run_bot.sh reproduce planning`): generated instances.
    self_play=("llm", "llm"),
    humans="mean normalised reward 0.886 (the paper: about 90%)",
    summarize=metrics.summarize,
    per_game_columns=("score", "best", "worst", "normalized_score", "proposals", "searches", "words", "turns"),
    roles={"user": "the traveller, with private preferences (talks first)",
           "assistant": "the travel agent: sees every site, searches, proposes itineraries"},
    grid={"turns": ("alternate", "free")},
    condition_keys=("turns", "psp", "prefs"),
    cli_options=(
        TURNS,
        CliOption("--catalogue", "catalogue", str, "sites of generated games: this project's own (default) or "
                  "the release's planning.yaml + locations.geojson ($DIALOP_PLANNING_DIR)", ("own", "released")),
        CliOption("--prefs", "prefs", str, "preference sampling: as the released code (budget in ~90%% of games) "
                  "or as the paper (always a budget)", ("code", "paper")),
        CliOption("--rules", "rules", str, "scoring rules: fixed (default for generated games) or the original's "
                  "(default for released games, reproduces their stored scores)", ("fixed", "original")),
    ),
    description=(
        "A user with private travel preferences and an assistant who sees every site (features, prices, map, a "
        "private search tool) plan a 3-stop itinerary. Only the assistant proposes; the user sees a scorecard of "
        "each proposal and accepts or rejects full ones. Score: normalised between the worst and best itinerary."),
)
