"""What a task declares so that every runtime (local, Slurk, replay, setup) can serve it without special cases."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from .brain import Brain
from .game import Game


@dataclass
class TaskSpec:
    name: str                                   # CLI name, e.g. "travel"
    title: str                                  # shown to people
    game_class: type[Game]
    # brain name -> factory(seat, seed, llm, options) -> Brain
    brains: dict[str, Callable[..., Brain]] = field(default_factory=dict)
    default_brains: tuple[str, ...] = ()        # one per seat, for the embedded default game
    # Summarise finished games' results (one dict per game) into named columns for the metrics table.
    summarize: Optional[Callable[[list[dict]], dict]] = None
    # Columns printed per game in --games runs (keys of Game.results()).
    per_game_columns: tuple[str, ...] = ()
    layout: str = ""                            # file name under layouts/
    plugins: tuple[str, ...] = ()               # file names under plugins/, embedded into the layout
    state_element: str = ""                     # page element whose text carries the seat's view as JSON
    description: str = ""

    @property
    def seats(self) -> tuple[str, ...]:
        return self.game_class.seats

    def make_brain(self, name: str, seat: str, seed: int, llm=None, options: Optional[dict] = None) -> Brain:
        try:
            factory = self.brains[name]
        except KeyError:
            raise ValueError(f"unknown agent {name!r} for {self.name}; choose from {', '.join(self.brains)}") from None
        return factory(seat, seed, llm, options or {})
