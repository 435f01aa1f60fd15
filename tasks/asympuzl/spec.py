"""AsymPuzl as a task of the bot suite."""
from tasks.core import Benchmark, CliOption, TaskSpec

from . import metrics
from .brains import BRAINS, PEOPLE
from .game import AsymPuzlGame
from .generator import FEEDBACK_MODES
from .paper import PRESETS, REPRODUCTION


def int_list(text: str):
    """`5` -> 5, `3,5,10` -> [3, 5, 10] (one condition per value)."""
    vals = [int(x) for x in str(text).split(",") if x.strip()]
    return vals[0] if len(vals) == 1 else vals


def float_list(text: str):
    vals = [float(x) for x in str(text).split(",") if x.strip()]
    return vals[0] if len(vals) == 1 else vals


def mode_list(text: str):
    vals = [x.strip() for x in str(text).split(",") if x.strip()]
    bad = [v for v in vals if v not in FEEDBACK_MODES]
    if bad:
        raise ValueError(f"unknown feedback mode(s) {bad}; choose from {', '.join(FEEDBACK_MODES)}")
    return vals[0] if len(vals) == 1 else vals


SPEC = TaskSpec(
    name="asympuzl",
    title="AsymPuzl",
    game_class=AsymPuzlGame,
    brains=dict(BRAINS),
    default_brains=("share-all", "share-all"),
    # Two LLM agents on the smallest puzzle of the paper's grid: success rate.
    benchmark=(Benchmark("llm pair, size 3", ("llm", "llm"), (("size", 3),), "success %", "percent"),),
    population=("a", tuple(PEOPLE)),  # scripted people take seat a; the evaluated agent reads them as B
    summarize=metrics.summarize,
    per_game_columns=("success", "turns_to_success", "moves", "messages", "message_words", "actions_per_position"),
    roles={"a": "Player A: positions and shapes (moves first)", "b": "Player B: shape-colour pairs, random order"},
    grid={"size": (3, 5, 10, 20), "feedback": FEEDBACK_MODES},
    condition_keys=("size", "feedback", "distractors", "noise", "single_agent"),
    cli_options=(
        CliOption("--size", "size", int_list, "positions N (comma list: one condition each)"),
        CliOption("--feedback", "feedback", mode_list, "feedback mode(s): " + ", ".join(FEEDBACK_MODES)),
        CliOption("--distractors", "distractors", int_list, "distractor shapes in each seat's clues"),
        CliOption("--noise", "noise", float_list, "noisy channel: inserted characters per character (e.g. 0.05)"),
        CliOption("--history", "history", int, "messages of each side an LLM agent sees (paper: 1)"),
        CliOption("--instances", "instances", str, "an evaluation set file (JSON lines): seed s plays its puzzle s"),
    ),
    presets=PRESETS,
    reproduction=REPRODUCTION,
    evaluator="tasks.asympuzl.evaluate:evaluate",  # --preset paper: the set's counts, the control row, tokens/turn
    renderer="tasks.asympuzl.render:render_view",
    layout="asympuzl.json",
    state_element="asympuzl-state",
    description=(
        "Two players rebuild a hidden row of coloured shapes: A knows the shape at each position, B the colour of "
        "each shape (in a random order). Each edits only their own answer row (/replace 3 circle red, or by "
        "clicking); only messages reach the partner. Turns alternate, A first; both rows right wins."),
)
