"""Game-theoretic negotiation (Hua et al., "Game-theoretic LLM") as a task of the bot suite."""
from tasks.core import Benchmark, CliOption, TaskSpec

from . import metrics
from .brains import BRAINS
from .catalogue import TESTBED
from .game import MatrixGame
from .paper import PRESETS, REPRODUCTION

SPEC = TaskSpec(
    name="matrix-games",
    title="Negotiation Games (game theory)",
    game_class=MatrixGame,
    brains=dict(BRAINS),
    default_brains=("workflow", "workflow"),
    population=("alice", tuple(n for n in BRAINS if n.startswith("person-"))),  # scripted people, brains/people.py
    # Two LLM agents with negotiation rounds: share of outcomes that are a Nash equilibrium.
    benchmark=(Benchmark("llm pair, prisoner's dilemma, 4 negotiation rounds", ("llm", "llm"),
                         (("game", "prisoners-dilemma"), ("negotiation", 4)), "NE", "fraction"),
               Benchmark("llm-workflow pair, battle of the sexes, 4 negotiation rounds", ("llm-workflow", "llm-workflow"),
                         (("game", "battle-of-sexes"), ("negotiation", 4)), "NE", "fraction")),
    summarize=metrics.summarize,
    per_game_columns=("game", "negotiation", "first", "outcome", "payoffs", "is_ne", "po_ne", "pareto_optimal",
                      "spe_path", "messages", "halts"),
    roles={"alice": "Alice (the row player; moves first in sequential games)", "bob": "Bob (the column player)"},
    grid={"game": TESTBED, "negotiation": (0, 4)},
    # A study plays the paper's negotiation set-up (4 rounds before every move, Tables 6 and 8), not the one-shot k=0.
    study_options={"negotiation": 4, "game": "prisoners-dilemma"},
    condition_keys=("game", "negotiation", "first"),
    cli_options=(
        CliOption("--game", "game", str, "which game (a name from tasks/matrix_games/games)"),
        CliOption("--game-file", "game_file", str, "a YAML game file: a payoff matrix of any size or a tree"),
        CliOption("--negotiation", "negotiation", str, "negotiation rounds before every move, 0..10; a list such "
                  "as 0,4 with --trials gives the paper's table"),
        CliOption("--first", "first", str, "who speaks first", ("alice", "bob")),
        CliOption("--trials", "trials", int, "the paper's table: this many trials of every game (or --game) in "
                  "every --negotiation condition"),
        CliOption("--labels", "labels", str, "action names in prompts and pages: named (ours, e.g. Defect) or "
                  "neutral (the paper's choice_1..k)", ("named", "neutral")),
        CliOption("--halt", "halt", str, "the talk stops when both halt (ours) or when either does (the paper's)",
                  ("both", "either")),
    ),
    presets=PRESETS,  # paper: Hua et al.'s protocol (paper.py)
    reproduction=REPRODUCTION,  # Tables 5-8 and the §6 probes beside this run's figures
    renderer="tasks.matrix_games.render:render_view",
    evaluator="tasks.matrix_games.evaluate:evaluate",  # --trials: the paper's Tables 5-8 layout
    layout="matrix-games.json",
    state_element="matrix-games-state",
    description=(
        "Two players, Alice and Bob, play a classic game (prisoner's dilemma, stag hunt, battle of the sexes, "
        "wait-go, a Cournot duopoly, or a sequential game tree) after up to k rounds of negotiation in chat. "
        "Simultaneous moves are sealed until both are in."),
)
