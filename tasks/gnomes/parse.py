"""What a person might type or a page might send for a move: `/move <direction>` words to maze actions."""
from __future__ import annotations

from typing import Optional

from . import maze

_DIRECTION_WORDS = {
    maze.STAY: ("stay", "s", "wait", "noop", "pass", "stay_put", "·", "0"),
    maze.RIGHT: ("right", "r", "→", "arrowright", "east"),
    maze.UP: ("up", "u", "↑", "arrowup", "north"),
    maze.LEFT: ("left", "l", "←", "arrowleft", "west"),
    maze.DOWN: ("down", "d", "↓", "arrowdown", "south"),
}
DIRECTIONS = {word: a for a, words in _DIRECTION_WORDS.items() for word in words}


def parse_direction(word: str) -> Optional[int]:
    return DIRECTIONS.get(word.strip().lower())
