"""TRAVELING ADVENTURERS as a task of the bot suite."""
from tasks.core import Benchmark, CliOption, Preset, TaskSpec
from tasks.core.reproduction import ReproCondition, Reproduction

from . import metrics, page
from .brains import BRAINS
from .brains.paper_release import release_files
from .brains.release_text import RELEASE
from .game import TravelGame

# The paper's LLM protocol (facts: ../shared/reference/traveling-adventurers.md §4.1, §6.1): gpt-4o-2024-08-06 at
# temperature 1 with the batch's `seed` for every call of both agents and the state tracker, max_tokens 1200 per
# agent answer and 600 per state-tracker reading. The paper ran 4 batches of 25 games, seeds 1011, 143, 9999, 8060:
# an ordinary run with the preset is one batch (seed 1011); `reproduce travel` plays the four (PAPER_BATCHES).
# The paper's calls had no deadline; ours: 300 s per call (1200 tokens of a slow endpoint fit).
PAPER_SAMPLING = {"*": {"temperature": 1.0, "seed": 1011, "deadline": 300}, "turn": {"max_tokens": 1200},
                  "grounding": {"max_tokens": 600}}
PAPER = Preset(
    "paper",
    "the paper's self-play protocol: its rules (no /share, independent submissions, 15 answers each), its six "
    "preset boards, its own prompts read from the release (free-text answers with its flags), the full history, "
    "temperature 1, seed 1011 (a reproduction plays the paper's four batch seeds), max_tokens 1200 per answer and "
    "600 per state-tracker reading",
    options={"rules": "paper", "boards": "preset", "turn_limit": 15},
    brain_options={"prompts": "paper", "sampling": PAPER_SAMPLING},
    release_files=release_files(),
    release=RELEASE,
)
PAPER_SEEDS = (1011, 143, 9999, 8060)
# One batch per seed, the seed merged into the preset's sampling (its temperature and max_tokens stay).
PAPER_BATCHES = tuple({"sampling": {"*": {"seed": seed}}} for seed in PAPER_SEEDS)
# Table 1 of the paper: 100 self-play games per agent (4 seeds x 25), the same agent in both seats; a reproduction
# splits its games into the same four batches (100 games: 25 per seed).
REPRODUCTION = Reproduction(
    conditions=tuple(ReproCondition(f"{name} self-play", (name, name), {"boards": "preset"},
                                    paper={"identical %": i, "correct %": c, "optimal %": o},
                                    batches=PAPER_BATCHES)
                     for name, (i, c, o) in (("baseline", (99, 71, 28)), ("grounding", (100, 65, 25)),
                                             ("state-tracking", (99, 86, 17)), ("problem-solving", (98, 98, 45)))),
    columns=("identical %", "correct %", "optimal %"),
    source="Traveling Adventurers (arXiv 2505.15490), Table 1: gpt-4o self-play, 100 games per agent",
    note="The paper's Correct is the release's check (identical and N+1 rooms long); ours also checks that the tour "
         "is a cycle through every room from the start. The human study (Table 3) needs people.",
)

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
    presets={"paper": PAPER},
    reproduction=REPRODUCTION,
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
