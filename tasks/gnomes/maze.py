"""The Gnomes at Night maze: both sides' walls, moves, and the joint-knowledge optimum.

Coordinates are 0-indexed (x, y): x is the column (grows to the right), y the row (grows downward), (0, 0) is the
top-left cell. Cells are also numbered `y * 9 + x` inside the hot loops. Actions follow the paper's environment:
0 stay, 1 right, 2 up (y - 1), 3 left, 4 down (y + 1).

Side 0 ("zero_walls") is the person's side H, which sees the treasures of rounds 1, 3 and 5; side 1 ("one_walls")
is the agent's side E, which sees rounds 2 and 4.
"""
from __future__ import annotations

from collections import deque
from typing import Iterable, Optional

SIZE = 9
CELLS = SIZE * SIZE
START = (0, 0)
ACTIONS = ("stay", "right", "up", "left", "down")
STAY, RIGHT, UP, LEFT, DOWN = range(5)
DELTA = ((0, 0), (1, 0), (0, -1), (-1, 0), (0, 1))
OPPOSITE = (STAY, LEFT, DOWN, RIGHT, UP)

# The paper's fixed treasures for rounds 1..5 (the released environment overwrites them at random on reset;
# the paper's study used these).
TREASURES = ((4, 0), (6, 2), (3, 3), (4, 5), (3, 7))


def treasure_side(round_no: int) -> int:
    """Rounds 1, 3, 5 are visible to side 0, rounds 2 and 4 to side 1."""
    return (round_no - 1) % 2


# --- Wall data, re-typed from the paper's environment: 1-indexed `from` cells. A wall whose `to` cell is in the
# same row is vertical, between (x, y) and (x + 1, y); otherwise it is horizontal, between (x, y) and (x, y + 1).
_RAW = {
    0: {
        "vertical": [(2, 1), (2, 2), (2, 4), (2, 5), (2, 8), (3, 6), (3, 7), (4, 3), (4, 4), (4, 5), (4, 8), (4, 9),
                     (5, 1), (5, 3), (5, 6), (5, 7), (6, 5), (6, 8), (7, 1), (7, 3), (7, 4), (7, 5), (7, 7)],
        "horizontal": [(3, 2), (4, 2), (6, 2), (7, 2), (9, 2), (1, 3), (2, 3), (6, 4), (8, 4), (9, 4), (2, 5),
                       (3, 5), (4, 5), (6, 5), (7, 5), (1, 7), (2, 7), (3, 7), (4, 7), (5, 7), (6, 7), (7, 7),
                       (8, 7), (9, 7)],
    },
    1: {
        "vertical": [(2, 2), (2, 3), (2, 5), (2, 6), (2, 7), (3, 5), (3, 8), (3, 9), (4, 1), (4, 2), (4, 3), (4, 4),
                     (4, 6), (5, 3), (5, 5), (5, 9), (6, 6), (6, 7), (7, 2), (7, 3), (7, 4), (7, 8), (7, 9)],
        "horizontal": [(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2), (8, 3), (9, 3), (1, 4), (2, 4),
                       (4, 4), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5), (8, 5), (9, 5), (2, 7), (3, 7), (4, 7),
                       (5, 7), (6, 7), (7, 7), (8, 7)],
    },
}


def side_walls(side: int) -> dict[str, list[tuple[int, int]]]:
    """0-indexed walls of one side: "right" = wall on the right of (x, y), "below" = wall below (x, y)."""
    raw = _RAW[side]
    return {
        "right": sorted((x - 1, y - 1) for x, y in raw["vertical"]),
        "below": sorted((x - 1, y - 1) for x, y in raw["horizontal"]),
    }


WALLS = {0: side_walls(0), 1: side_walls(1)}


def cell(x: int, y: int) -> int:
    return y * SIZE + x


def xy(c: int) -> tuple[int, int]:
    return c % SIZE, c // SIZE


def _inbound_table() -> list[int]:
    """Flat table [c * 5 + a] -> target cell, or -1 off the board (walls ignored)."""
    out = []
    for c in range(CELLS):
        x, y = xy(c)
        for dx, dy in DELTA:
            nx, ny = x + dx, y + dy
            out.append(cell(nx, ny) if 0 <= nx < SIZE and 0 <= ny < SIZE else -1)
    return out


INBOUND = _inbound_table()


def move_table(right: Iterable, below: Iterable) -> list[int]:
    """Flat table [c * 5 + a] -> target cell, or -1 when the move is blocked by the edge or a wall.

    `right`/`below` are (x, y) pairs (lists from JSON are fine), so brains build it from what their view shows.
    """
    right = {tuple(p) for p in right}
    below = {tuple(p) for p in below}
    out = list(INBOUND)
    for c in range(CELLS):
        x, y = xy(c)
        if (x, y) in right:
            out[c * 5 + RIGHT] = -1
        if (x - 1, y) in right:
            out[c * 5 + LEFT] = -1
        if (x, y) in below:
            out[c * 5 + DOWN] = -1
        if (x, y - 1) in below:
            out[c * 5 + UP] = -1
    return out


MOVES = {s: move_table(WALLS[s]["right"], WALLS[s]["below"]) for s in (0, 1)}


def blocked(side: int, pos: tuple[int, int], action: int) -> bool:
    return MOVES[side][cell(*pos) * 5 + action] < 0


def step(side: int, pos: tuple[int, int], action: int) -> tuple[tuple[int, int], bool]:
    """The token after `side` tries `action` at `pos`, and whether the move was blocked (token unchanged)."""
    nxt = MOVES[side][cell(*pos) * 5 + action]
    return (pos, True) if nxt < 0 else (xy(nxt), False)


def optimum_turns(treasure: tuple[int, int], first: int = 0, start: tuple[int, int] = START,
                  moves: Optional[dict] = None) -> Optional[int]:
    """Fewest turns to bring the token to the treasure when both players know both sides (a lower bound).

    Breadth-first search over (cell, side to move); stays are allowed and players strictly alternate.
    """
    moves = moves or MOVES
    goal = cell(*treasure)
    s0 = (cell(*start), first)
    if s0[0] == goal:
        return 0
    seen = {s0}
    frontier = deque([(s0, 0)])
    while frontier:
        (c, p), d = frontier.popleft()
        table = moves[p]
        for a in range(5):
            n = table[c * 5 + a]
            if n < 0:
                continue
            if n == goal:
                return d + 1
            state = (n, 1 - p)
            if state not in seen:
                seen.add(state)
                frontier.append((state, d + 1))
    return None


def render(side: int, marks: Optional[dict] = None) -> str:
    """ASCII picture of one side (for debugging and docs). `marks` maps (x, y) -> a one-character label."""
    marks = marks or {}
    right = set(WALLS[side]["right"])
    below = set(WALLS[side]["below"])
    lines = ["+" + "---+" * SIZE]
    for y in range(SIZE):
        row = "|"
        for x in range(SIZE):
            row += f" {marks.get((x, y), ' ')} " + ("|" if x == SIZE - 1 or (x, y) in right else " ")
        lines.append(row)
        bottom = "+"
        for x in range(SIZE):
            bottom += ("---" if y == SIZE - 1 or (x, y) in below else "   ") + "+"
        lines.append(bottom)
    return "\n".join(lines)
