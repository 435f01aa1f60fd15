"""Presets: named sets of task and brain options a task declares (`TaskSpec.presets`), chosen with task option
`preset` (CLI `--preset NAME`). A task declares at least "paper" (its paper's protocol); "ours" is implicit and
means the defaults.

A preset's options go under the explicit ones: an explicit `--option` / `--brain-option` wins. A preset that needs
text from a paper's original release (prompts, few-shot dialogues: never bundled, the wording is the paper's) names
those files in `release_files`, relative to a checkout of the release given as task option `paper_prompts` (CLI
`--paper-prompts PATH`, also copied into the brain options). Both keys stay in the game's options, so every game's
log records them.

Brain option `sampling` = {use: {temperature, top_p, max_tokens, seed, deadline, stop}}, use "*" the default for
every use; `Brain.sampling(use)` merges them for one LLM call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_PRESET = "ours"
SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "seed", "deadline", "stop")


class PresetError(ValueError):
    """An unknown preset, a release file that is missing, or a malformed `sampling` option: one line that says
    what is wrong and what to do."""


@dataclass(frozen=True)
class Preset:
    name: str                                   # "paper"
    describe: str                               # one line for people: what the preset sets
    options: dict = field(default_factory=dict)         # task options (under the explicit ones)
    brain_options: dict = field(default_factory=dict)   # brain options (under the explicit ones)
    release_files: tuple[str, ...] = ()         # paths under `paper_prompts` the preset reads at run time
    release: str = ""                           # where to get the release (e.g. a repository URL)


def resolve_preset(spec: Any, options: dict, brain_options: dict) -> tuple[dict, dict]:
    """(options, brain_options) with the preset named by task option `preset` applied under the explicit ones.
    Raises PresetError for an unknown preset or a missing release file. Without a preset (or "ours") the options
    are returned as given (copies)."""
    options, brain_options = dict(options or {}), dict(brain_options or {})
    name = options.get("preset") or DEFAULT_PRESET
    presets = dict(getattr(spec, "presets", None) or {})
    if name != DEFAULT_PRESET and name not in presets:
        known = ", ".join([DEFAULT_PRESET, *sorted(presets)])
        raise PresetError(f"{getattr(spec, 'name', 'the task')} has no preset {name!r}; choose from {known}")
    if options.get("paper_prompts"):
        brain_options.setdefault("paper_prompts", options["paper_prompts"])
    preset = presets.get(name)
    if preset is not None:
        options = {**preset.options, **options}
        brain_options = {**preset.brain_options, **brain_options}
        _check_release(spec, preset, options.get("paper_prompts"))
    check_sampling(brain_options.get("sampling"))
    return options, brain_options


def _check_release(spec: Any, preset: Preset, root: Any) -> None:
    if not preset.release_files:
        return
    where = f" (get it from {preset.release})" if preset.release else ""
    files = ", ".join(preset.release_files)
    if not root:
        raise PresetError(f"preset {preset.name!r} of {spec.name} reads the paper's original release: pass "
                          f"--paper-prompts PATH, a checkout holding {files}{where}")
    missing = [f for f in preset.release_files if not (Path(str(root)) / f).is_file()]
    if missing:
        raise PresetError(f"preset {preset.name!r} of {spec.name}: {root} lacks {', '.join(missing)} of the "
                          f"paper's original release{where}")


def check_sampling(sampling: Any) -> None:
    """A `sampling` brain option is {use: {key: value}} with keys from SAMPLING_KEYS; else PresetError."""
    if sampling is None:
        return
    if not isinstance(sampling, dict) or not all(isinstance(v, dict) for v in sampling.values()):
        raise PresetError(f"brain option sampling must map a use (\"*\" for every use) to settings, got {sampling!r}")
    for use, settings in sampling.items():
        unknown = sorted(set(settings) - set(SAMPLING_KEYS))
        if unknown:
            raise PresetError(f"brain option sampling[{use!r}]: unknown {', '.join(unknown)}; "
                              f"allowed: {', '.join(SAMPLING_KEYS)}")


def sampling_for(brain_options: dict, use: str) -> dict:
    """The sampling settings of one use: "*" merged with the use's own (None values left out)."""
    sampling = (brain_options or {}).get("sampling") or {}
    merged = {**(sampling.get("*") or {}), **(sampling.get(use) or {})}
    return {k: v for k, v in merged.items() if k in SAMPLING_KEYS and v is not None}
