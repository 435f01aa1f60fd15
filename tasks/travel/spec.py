"""TRAVELING ADVENTURERS as a task of the bot suite."""
from tasks.core import Benchmark, CliOption, TaskSpec

from . import metrics, page
from .brains import BRAINS
from .game import TravelGame

SPEC = TaskSpec(
    name="travel",
    title="Traveling Adventurers",
    game_class=TravelGame,
    brains=dict(BRAINS),  # solver, baseline, grounding, state-tracking, problem-solving
    default_brains=("solver", "solver"),
    # The paper's LLM self-play (one agent in both seats) on its six preset boards; Optimal % is its main metric.
    benchmark=(Benchmark("problem-solving pair, preset boards", ("problem-solving", "problem-solving"),
                         (("boards", "preset"),), "optimal %", "percent"),
               Benchmark("baseline pair, preset boards", ("baseline", "baseline"), (("boards", "preset"),),
                         "optimal %", "percent")),
    population=("light", tuple(n for n in BRAINS if n.startswith("person-"))),  # scripted people (brains/people.py)
    summarize=metrics.summarize,
    per_game_columns=("identical", "correct", "optimal", "s90", "score", "optimum", "percentile", "turns",
                      "turns_by_seat", "rules"),
    roles={"light": "the light world (the person's in the paper; either seat may start)", "ghost": "the ghost world"},
    grid={"boards": ("generated",), "rooms": (6, 8, 10, 12)},
    condition_keys=("boards", "rooms", "rules"),
    cli_options=(
        CliOption("--rooms", "rooms", int, "rooms in the house (generated boards)"),
        CliOption("--boards", "boards", str, "which instances: preset, generated, human, tutorial",
                  ("preset", "generated", "human", "tutorial")),
        CliOption("--rules", "rules", str, "ours (default) or paper: no /share, independent submissions "
                  "(recorded in every log)", ("ours", "paper")),
    ),
    renderer="tasks.travel.render:render_view",
    layout="travel.json",
    state_element="travel-state",
    shared_element="travel-shared",
    combine_page=page.combine,
    description=(
        "Two players plan one round trip through a house together. Each sees only their own coins on the "
        "hallways; the pair earns the coins of both worlds along the tour, so they must share what matters, "
        "agree on a tour (/propose, /agree, /reject, /undo, /share) and both /submit the same tour. --rules "
        "paper plays the paper's rules: no /share (coins only through chat), each player submits their own tour."),
)
