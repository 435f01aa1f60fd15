"""The task declaration that every runtime (local, Slurk, replay) uses to serve Gnomes at Night."""
from __future__ import annotations

from tasks.core import Benchmark, CliOption, Preset, TaskSpec
from tasks.core.reproduction import ReproCondition, Reproduction

from . import metrics
from .brains import BRAINS, PEOPLE
from .brains.paper_language import RELEASE, RELEASE_FILE
from .game import GnomesGame

# The paper's protocol (facts: ../shared/reference/gnomes-at-night.md): AISMCTS-F with n = 100 iterations and random
# roll-outs (planner=paper), its messages read into flags and its inquiries answered by gpt-3.5-turbo (reader=llm)
# with the release's own prompts (read from --paper-prompts) at the API's default temperature: none is sent. The
# paper's calls had no deadline; ours: 120 s per call (a free-text answer of a slow endpoint fits).
PAPER = Preset(
    "paper",
    "the paper's agent: AISMCTS-F with n = 100 iterations and random roll-outs, chat read into flags and "
    "inquiries answered by the LLM with the release's own prompts (its answer's last line read as the release "
    "does), no temperature and no token limit sent (the API's defaults, as the release's calls)",
    brain_options={"planner": "paper", "reader": "llm",
                   "sampling": {"*": {"temperature": "default", "max_tokens": "default", "deadline": 120}}},
    release_files=(RELEASE_FILE,),
    release=RELEASE,
)
# Table 1 of the paper: messages per round and their length, player H / player E, with people in seat h (here our
# simulated partner); A-Mute has no row there. Its turn figures (Fig. 5) are a plot only: round_ratio is ours.
REPRODUCTION = Reproduction(
    conditions=(
        ReproCondition("H + A-Comm (simulated H)", ("partner", "aismcts"),
                       paper={"messages/round h": 9.24, "messages/round e": 17.57, "words/message h": 11.81,
                              "words/message e": 25.41}),
        ReproCondition("H + A-Mute (simulated H)", ("partner", "mute")),
    ),
    columns=("messages/round h", "messages/round e", "words/message h", "words/message e", "round_ratio"),
    source="Chen, Fried & Topcu (IJCAI-24), Table 1: messages per round and message length with people",
    note="The paper's H is a person (150 Prolific workers) and does not name the length's unit (words assumed); "
         "here H is the scripted partner, so its columns describe our partner. round_ratio: turns over the joint "
         "optimum (the paper plots its turns, Fig. 5).",
)

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
    presets={"paper": PAPER},
    reproduction=REPRODUCTION,
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
