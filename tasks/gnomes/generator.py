"""The instances of Gnomes at Night: the paper's fixed mazes and treasures (maze.py), shaped by the options that
change a game (who moves first, how many rounds, the turn cap)."""
from __future__ import annotations

from . import maze

SEATS = ("h", "e")
SIDE = {"h": 0, "e": 1}
DEFAULT_TURN_CAP = 60


def generate(seed: int, options: dict) -> dict:
    """The instance JSON; the seed changes nothing (the paper plays one maze), it is taken for the common signature."""
    first = options.get("first", "h")
    if isinstance(first, int) or (isinstance(first, str) and first.isdigit()):
        first = SEATS[int(first)]
    if first not in SEATS:
        raise ValueError(f"option first must be one of {SEATS} or 0/1, not {first!r}")
    n_rounds = int(options.get("rounds", len(maze.TREASURES)))
    if not 1 <= n_rounds <= len(maze.TREASURES):
        raise ValueError(f"option rounds must be 1..{len(maze.TREASURES)}")
    cap = options.get("turn_cap", DEFAULT_TURN_CAP)
    return {
        "size": maze.SIZE, "start": list(maze.START), "first": first, "rounds": n_rounds,
        "turn_cap": None if cap in (None, 0, "none") else int(cap),
        "treasures": [list(t) for t in maze.TREASURES[:n_rounds]],
        "visible_to": [SEATS[maze.treasure_side(r)] for r in range(1, n_rounds + 1)],
        "optimum": [maze.optimum_turns(maze.TREASURES[r - 1], SIDE[first]) for r in range(1, n_rounds + 1)],
        "walls": {s: {k: [list(p) for p in v] for k, v in maze.WALLS[SIDE[s]].items()} for s in SEATS},
    }
