"""The one place where a match and its brains are built: the local runtime, the Slurk runtime and the replay all
call `build_match`, so every game follows the same seeding rule and keeps task options apart from brain options.

Seeding: the game's seed picks the instance (unless an instance is given) and, through `brain_seed`, each brain's
seed. Completion codes are the only thing never seeded (`codes.new_code`).
"""
from __future__ import annotations

from typing import Callable, Optional

from .brain import Brain
from .codes import CompletionConfig, new_code
from .match import Match, SeatInfo, TimerConfig
from .presets import resolve_preset
from .spec import TaskSpec


def brain_seed(seed: int, seat_index: int) -> int:
    """The seed of the brain in seat number `seat_index` (order of `spec.seats`) of a game with seed `seed`."""
    return int(seed) * 31 + seat_index


def build_match(
    spec: TaskSpec,
    seed: int,
    seats: dict[str, SeatInfo],
    *,
    options: Optional[dict] = None,
    instance: Optional[dict] = None,
    brain_options: Optional[dict] = None,
    llm=None,
    timers: Optional[TimerConfig] = None,
    completion: Optional[CompletionConfig] = None,
    code_source: Callable[[], str] = new_code,
    with_brains: bool = True,
) -> tuple[Match, dict[str, Brain]]:
    """A match of `spec` and a brain for every agent seat (`SeatInfo.agent` names it).

    `instance`: the logged instance to play (replay, resume, prompted self-play); None generates it from the seed.
    `brain_options` go to the brains only; `options` to the game only. A preset named in the options
    (`resolve_preset`) is applied here too, so every runtime's brains get its brain options (the runtimes resolve
    it before the first game, where a missing release file stops the run).
    """
    options = dict(options or {})
    if with_brains:
        options, brain_options = resolve_preset(spec, options, brain_options or {})
    missing = [s for s in spec.seats if s not in seats]
    if missing:
        raise ValueError(f"seats not assigned: {missing}")
    if with_brains:
        for seat in spec.seats:
            if seats[seat].kind == "agent":
                spec.check_brain(seats[seat].agent, seat)
    game = spec.game_class(seed, options, instance)
    match = Match(game, seats, timers=timers, completion=completion, code_source=code_source,
                  brain_options=brain_options if with_brains else None)
    brains: dict[str, Brain] = {}
    if with_brains:
        for i, seat in enumerate(spec.seats):
            if seats[seat].kind == "agent":
                brains[seat] = spec.make_brain(seats[seat].agent, seat, brain_seed(seed, i), llm,
                                               dict(brain_options or {}))
                brains[seat].briefing = match.game.agent_briefing(seat)
    return match, brains
