"""What every DialOp task declares alike, written once: the command-line options for its released games (prompted
self-play, the released instances, the data path; each task names its own file in the release), its `paper`
preset (each task names the release's prompt files and any rule of its own), its reproduction row and the parts of
its TaskSpec that follow from its name (`dialop_spec`)."""
from __future__ import annotations

from typing import Optional

from tasks.core import CliOption, TaskSpec
from tasks.core.presets import Preset
from tasks.core.reproduction import ReproCondition, Reproduction

from .paper_agent import RELEASE

TURNS = CliOption("--turns", "turns", str, "free chat (people) or strict alternation (agents)", ("free", "alternate"))


def released_options(jsonl: str) -> tuple[CliOption, ...]:
    """--psp, --human-instances and --data for a task whose released games are `jsonl` inside data.zip."""
    return (
        CliOption("--psp", "psp", str, "prompted self-play on the released dialogues: cut at 50%% / 75%% of the "
                  "words or just before the final proposal", ("50", "75", "proposal")),
        CliOption("--human-instances", "human_instances", str, "play the released instances (path to data.zip or "
                  f"{jsonl}; 'default' = ../shared/data/dialop/data.zip)"),
        CliOption("--data", "data", str, f"path of the released data (data.zip or {jsonl}) for --psp"),
    )


# The paper's sampling for its LLM players (players.py): text-davinci-003 at temperature 0.1, top_p 0.95, at most 128
# answer tokens (the brain lowers it to what the 4096-token window leaves); stop words are the brain's, per role. The
# deadline is ours: a hosted model answers one line in seconds, a small local server needs minutes for a 4k prompt.
PAPER_SAMPLING = {"turn": {"temperature": 0.1, "top_p": 0.95, "max_tokens": 128, "deadline": 300}}


def paper_preset(release_files: tuple[str, ...], options: Optional[dict] = None, describe: str = "") -> Preset:
    """A DialOp task's `paper` preset: the paper's LLM agent (tasks/dialop/paper_agent.py) for every `llm` seat,
    reading `release_files` from --paper-prompts; its sampling; strictly alternating turns (the release's text games
    took turns) unless `options` say otherwise; at most 15 lines a seat (the release stopped a game after 30 model
    lines, 45 in Mediation: 15 a seat); an act without a protocol line ends the game invalid (the release re-ran
    such games), never a fallback."""
    options = {"turns": "alternate", **(options or {})}
    return Preset(
        "paper",
        describe or "the DialOp paper's LLM agents: the release's few-shot prompts, one [message]/[propose]/[accept]/"
                    "[reject] line a turn, temperature 0.1, top_p 0.95, max_tokens min(4096 - prompt, 128), "
                    "3 samples a turn" + "".join(f"; {k} {v}" for k, v in options.items()),
        options=options,
        brain_options={"protocol": "paper", "sampling": PAPER_SAMPLING, "strict_llm": True, "max_steps": 15},
        release_files=tuple(release_files),
        release=RELEASE,
    )


def self_play_reproduction(agents: tuple[str, ...], humans: str) -> Reproduction:
    """A DialOp task's `reproduction`: the paper's LLM self-play row, played on generated instances with preset
    `paper`. `humans`: the humans' figure on the released instances, for the table's note."""
    return Reproduction(
        conditions=(ReproCondition("LLM self-play", tuple(agents)),),
        columns=("reward", "completed %", "proposals", "words"),
        source="Lin et al. 2023 (DialOp), LLM self-play",
        note=("The paper's LLM self-play figures are not transcribed in the project's reference file "
              f"(../shared/reference/dialop.md), so its column stays empty; humans on the released instances: "
              f"{humans}."),
    )


def dialop_spec(*, name: str, release_jsonl: str, release_files: tuple[str, ...], self_play: tuple[str, ...],
                humans: str, paper_options: Optional[dict] = None, cli_options: tuple[CliOption, ...] = (),
                **fields) -> TaskSpec:
    """A DialOp task's TaskSpec: `fields` as any task gives them, plus what every DialOp task has alike: the
    `paper` preset (`release_files`, `paper_options`), the LLM self-play reproduction (`self_play` agents; `humans`
    the humans' figure for its note), the released-games options after the task's own `cli_options`, the shared
    evaluator of the released games, and the renderer, layout and page element named after the task."""
    return TaskSpec(
        name=name,
        presets={"paper": paper_preset(release_files, paper_options)},
        reproduction=self_play_reproduction(self_play, humans),
        cli_options=(*cli_options, *released_options(release_jsonl)),
        evaluator="tasks.dialop.runner:evaluate",  # --psp / --human-instances: the released games
        renderer=f"tasks.{name}.render:render_view",
        layout=f"{name}.json",
        state_element=f"{name}-state",
        **fields,
    )
