"""A study's task options: what a task declares, the `--option KEY=VALUE` items, and the checked set (the task's
study defaults, then the researcher's)."""
from __future__ import annotations

import difflib
import json

from bots.config import ConfigError
from tasks.core.presets import resolve_preset


def parse_option_args(items: list[str]) -> dict:
    """`--option KEY=VALUE` items: JSON values (4, true, "x") or plain text."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option needs KEY=VALUE, got {item!r}.")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def option_keys(spec) -> list[str]:
    """The task options a task declares: its command-line options, experiment grid and conditions, study defaults,
    and the core's chat / instance options where the task has them."""
    keys = {o.key for o in spec.cli_options} | set(spec.grid) | set(spec.condition_keys)
    keys |= set(getattr(spec, "study_options", {}) or {})
    if hasattr(spec, "chat_mode"):
        keys |= {"chat", "shared_instance"}  # TaskSpec.chat_mode / fresh_instance (bots/slurk/instances.py)
    if getattr(spec, "instance_option", ""):
        keys.add(spec.instance_option)
    keys |= {"preset", "paper_prompts"}  # TaskSpec.presets (tasks/core/presets.py)
    return sorted(keys)


def study_options(spec, given: dict) -> dict:
    """The study's task options: the task's study defaults (its paper's set-up, TaskSpec.study_options), then the
    researcher's. A key like a declared one (a typo), a value outside a declared choice, or a value the game refuses
    is a ConfigError that says which and what is allowed."""
    known = option_keys(spec)
    for key in sorted(k for k in given if k not in known):
        # A key like a declared one is a typo; other keys are options the game reads without declaring them
        # (e.g. a game's number of rounds): passed on, and setup's output lists them as undeclared.
        near = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
        if near or not key.replace("_", "").isalnum():
            raise ConfigError(f"{spec.name} has no task option {key!r}" + (f" (did you mean {near[0]!r}?)" if near
                                                                            else "") +
                              f"; its declared options are {', '.join(known) or '(none)'} (see the task's page "
                              f"docs/tasks/{spec.name}.md).")
    # The study defaults, then the preset's task options, then the researcher's (a missing release file stops
    # here); the preset's brain options are applied when each game's brains are built (build_match).
    given, _ = resolve_preset(spec, given, {})
    options = {**(getattr(spec, "study_options", {}) or {}), **given}
    for o in spec.cli_options:
        if o.key in options and o.choices and str(options[o.key]) not in o.choices:
            raise ConfigError(f"task option {o.key} of {spec.name} must be one of {', '.join(o.choices)}; "
                              f"got {options[o.key]!r}.")
    try:
        spec.game_class(0, dict(options))  # builds an instance: the game checks every value it reads
    except Exception as exc:  # the game's own message says what is wrong
        raise ConfigError(f"task options {json.dumps(options, sort_keys=True)} do not work for {spec.name}: "
                          f"{exc}") from None
    return options
