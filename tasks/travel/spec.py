"""TRAVELING ADVENTURERS as a task of the bot suite."""
from tasks.core import CliOption, TaskSpec

from . import metrics
from .brains import BRAINS
from .game import TravelGame

SPEC = TaskSpec(
    name="travel",
    title="Traveling Adventurers",
    game_class=TravelGame,
    brains=dict(BRAINS),  # solver, baseline, grounding, state-tracking, problem-solving
    default_brains=("solver", "solver"),
    summarize=metrics.summarize,
    per_game_columns=("identical", "correct", "optimal", "score", "optimum", "turns"),
    roles={"light": "the light world (moves first)", "ghost": "the ghost world"},
    grid={"boards": ("generated",), "rooms": (6, 8, 10, 12)},
    condition_keys=("boards", "rooms"),
    cli_options=(
        CliOption("--rooms", "rooms", int, "rooms in the house (generated boards)"),
        CliOption("--boards", "boards", str, "which instances: preset, generated, human, tutorial",
                  ("preset", "generated", "human", "tutorial")),
    ),
    renderer="tasks.travel.render:render_view",
    layout="travel.json",
    plugins=("travel.js", "travel.css"),
    state_element="travel-state",
    description=(
        "Two players plan one round trip through a house together. Each sees only their own coins on the "
        "hallways; the pair earns the coins of both worlds along the tour, so they must share what matters, "
        "agree on a tour (/propose, /agree, /reject, /undo, /share) and both /submit the same tour."),
)
