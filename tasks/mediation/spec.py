"""DialOp MEDIATION as a task of the bot suite."""
from tasks.core import Benchmark, CliOption
from tasks.dialop.options import dialop_spec

from . import metrics
from .brains import BRAINS, PEOPLE, USER_BRAINS
from .brains.paper import RELEASE_FILES
from .game import MediationGame

SPEC = dialop_spec(
    name="mediation",
    title="Flight Mediation (DialOp)",
    game_class=MediationGame,
    brains=dict(BRAINS),
    default_brains=("simuser", "simuser", "mediator"),
    # The LLM assistant between two simulated users: normalised reward.
    benchmark=(Benchmark("llm assistant, two simulated users", ("simuser", "simuser", "llm"), (), "reward",
                         "fraction"),),
    seat_brains={"user1": USER_BRAINS, "user2": USER_BRAINS, "assistant": ("mediator", "llm")},
    population=(("user1", "user2"), tuple(PEOPLE)),  # scripted travellers in both user seats (brains/people.py)
    # the paper: round-robin turns (rooms.py), the released game's scoring quirks; users never see their weights
    release_files=RELEASE_FILES,
    paper_options={"turns": "round-robin", "rules": "original"},
    release_jsonl="mediation.jsonl",
    # The paper's LLM self-play (preset paper; `./run_bot.sh reproduce mediation`): generated instances.
    self_play=("llm", "llm", "llm"),
    humans="mean normalised reward 0.970 (the paper: about 100%)",
    summarize=metrics.summarize,
    per_game_columns=("score", "best", "worst", "normalized_score", "proposals", "words", "turns"),
    roles={"user1": "a traveller with a private calendar and flights (talks only with the assistant)",
           "user2": "a second traveller with a private calendar and flights (talks only with the assistant)",
           "assistant": "books one flight per user: chats with each, proposes the pair"},
    grid={"rules": ("fixed", "original")},
    condition_keys=("rules", "turns", "psp"),
    cli_options=(
        CliOption("--turns", "turns", str, "free: everyone acts when they like (ours, default); round-robin: the "
                  "paper's turn order (user 1, user 2, assistant, one move a turn)", ("free", "round-robin")),
        CliOption("--rules", "rules", str, "scoring rules of new instances: the fixes (default) or the released "
                  "game's quirks", ("fixed", "original")),
        CliOption("--show-weights", "show_weights", str, "ours: show each user their price and arrival weights "
                  "(the original's users never saw them)", ("no", "yes")),
    ),
    description=(
        "An assistant books one flight for each of two users. Each user has a private 3-day calendar (some events "
        "shared with the assistant) and a flight list; each talks only with the assistant, who proposes one flight "
        "per user; both must accept. Score: missed meetings, prices and arrival gap, normalised by the best and "
        "worst flight pairs."),
)
