"""The task declaration that every runtime (local, Slurk, replay) uses to serve Gnomes at Night."""
from __future__ import annotations

from tasks.core import Benchmark, CliOption, TaskSpec

from . import metrics
from .brains import BRAINS, PEOPLE
from .game import GnomesGame

SPEC = TaskSpec(
    name="gnomes",
    title="Gnomes at Night",
    game_class=GnomesGame,
    brains={**BRAINS, **PEOPLE},
    # Seat "h" (side 0, the person's side) gets the simulated partner, seat "e" (side 1) the agent.
    default_brains=("partner", "aismcts"),
    # AISMCTS-F with the LLM reading and writing its intent flags, with the scripted partner: turns over the optimum.
    benchmark=(Benchmark("aismcts with LLM flags, scripted partner", ("partner", "aismcts"), (), "round_ratio",
                         "inverse"),),
    # Scripted people for `--population`: they take seat "h", the evaluated agent seat "e".
    population=("h", ("partner", *PEOPLE)),
    summarize=metrics.summarize,
    per_game_columns=("turns_r1", "turns_r2", "turns_r3", "turns_r4", "turns_r5", "turns_total",
                      "optimum_total", "turn_ratio", "blocked_total", "found", "messages_h", "messages_e"),
    roles={"h": "side 0 (the paper's person side)", "e": "side 1 (the paper's agent side)"},
    grid={"first": ("h", "e")},
    condition_keys=("first",),
    cli_options=(CliOption("--first", "first", str, "seat that moves first in every round", ("h", "e")),),
    renderer="tasks.gnomes.render:render_view",
    layout="gnomes.json",
    state_element="gnomes-state",
    description="Two players move one token through a maze whose walls differ per side; five rounds, the "
                "treasure visible to one side each round (Chen, Fried & Topcu, IJCAI-24).",
)
