"""Boards: the paper's six self-play boards and a seeded generator after the paper's Appendix B.

Generator (per seat, independently): the seat's coins sum exactly to T = floor((wmin + wmax) * |E| / 2) (82 for 6
rooms and 1..10, 33 for 4 rooms). Hallways are filled one by one in a seeded shuffled order; each draw is uniform
over a window around the running target (remaining budget / hallways left) of half-width
    dev = (wmax - wmin) / 2,
clipped to the feasible range that still lets the remaining hallways stay within [wmin, wmax]. The paper leaves dev
unspecified; this choice lets early hallways use the whole scale while the window follows the remaining budget, so
the last hallways are rarely forced to extremes. The last hallway takes whatever is left.

Rejection filters on the finished board (all seeded; attempt i uses its own derived seed):
- require_distinct_optima: every optimal tour of each seat's own coins scores strictly below the joint optimum
  (so neither player can find the best tour alone; checked exactly with lexicographic weights, see
  best_joint_among_own_optima); implies the canonical tours differ.
- require_greedy_fails: nearest-neighbour on joint coins from the start (ties alphabetical) misses the optimum.
- require_unique_optimum: the joint optimum is a single undirected cycle.
"""
from __future__ import annotations

import itertools
import math
import random
from typing import Mapping, Optional, Sequence

from .board import ROOM_NAMES, Board, edge, normalize_tour
from .solver import DP_HARD_MAX_FREE, best_tour, best_tours

# -- the paper's self-play boards (GAME/supplementary/boards/boards_6.json, Table 7), re-typed as data ------------

_PRESET_ROOMS = ("L", "E", "B", "K", "C", "A")
_PRESET_EDGES = [edge(u, v) for u, v in itertools.combinations(_PRESET_ROOMS, 2)]  # L-E, L-B, ..., C-A
# Columns per edge in the order above: board 1 BOT, board 1 USER, board 3 BOT, board 3 USER, board 5 BOT, 5 USER.
_PRESET_COLUMNS = {
    "1 BOT": [6, 4, 2, 1, 5, 3, 1, 2, 6, 5, 4, 3, 6, 2, 1],
    "1 USER": [5, 3, 1, 6, 2, 4, 6, 1, 3, 2, 5, 6, 3, 4, 1],
    "3 BOT": [4, 6, 1, 3, 5, 2, 3, 5, 6, 4, 1, 2, 6, 5, 3],
    "3 USER": [1, 6, 5, 4, 3, 2, 6, 1, 5, 4, 2, 3, 1, 2, 6],
    "5 BOT": [3, 5, 6, 4, 2, 1, 3, 5, 6, 2, 1, 4, 3, 6, 5],
    "5 USER": [2, 5, 3, 6, 1, 4, 5, 2, 3, 6, 1, 4, 5, 3, 2],
}


def _preset(number: int, ghost: str, light: str) -> Board:
    # The BOT always plays the ghost world and the USER the light world.
    return Board(rooms=_PRESET_ROOMS, start="L", wmin=1, wmax=6, name=f"self-play board {number}",
                 weights={"light": dict(zip(_PRESET_EDGES, _PRESET_COLUMNS[light])),
                          "ghost": dict(zip(_PRESET_EDGES, _PRESET_COLUMNS[ghost]))})


# Boards 2, 4, 6 are boards 1, 3, 5 with the two worlds swapped.
PRESET_BOARDS: list[Board] = [
    _preset(1, ghost="1 BOT", light="1 USER"),
    _preset(2, ghost="1 USER", light="1 BOT"),
    _preset(3, ghost="3 BOT", light="3 USER"),
    _preset(4, ghost="3 USER", light="3 BOT"),
    _preset(5, ghost="5 BOT", light="5 USER"),
    _preset(6, ghost="5 USER", light="5 BOT"),
]
PRESET_OPTIMA = [52, 52, 56, 56, 53, 53]

HUMAN_TUTORIAL_ROOMS = ("L", "K", "B", "A")
HUMAN_GAME_ROOMS = ("L", "K", "B", "A", "G", "P")


# -- helpers ----------------------------------------------------------------------------------------------------


def budget_total(n_edges: int, wmin: int, wmax: int) -> int:
    """The per-seat coin sum T = floor((wmin + wmax) * |E| / 2)."""
    return (wmin + wmax) * n_edges // 2


def default_rooms(n_rooms: int) -> tuple[str, ...]:
    """L,K,B,A,G,P for 6 rooms (the human study); otherwise L and then the next letters of ROOM_NAMES."""
    if n_rooms == 6:
        return HUMAN_GAME_ROOMS
    letters = [r for r in ROOM_NAMES if r != "L"]
    if n_rooms - 1 > len(letters):
        raise ValueError(f"at most {len(letters) + 1} rooms have names")
    return ("L", *letters[:n_rooms - 1])


def budgeted_weights(edges: Sequence[tuple[str, str]], total: int, wmin: int, wmax: int,
                     rng: random.Random) -> dict[tuple[str, str], int]:
    """One seat's coins: integers in [wmin, wmax] summing exactly to `total` (Appendix B; see module doc)."""
    k_all = len(edges)
    if not wmin * k_all <= total <= wmax * k_all:
        raise ValueError(f"a sum of {total} is impossible for {k_all} hallways with coins {wmin}..{wmax}")
    order = list(edges)
    rng.shuffle(order)
    dev = (wmax - wmin) / 2
    remaining = total
    out: dict[tuple[str, str], int] = {}
    for i, e in enumerate(order):
        left = k_all - i  # hallways still to fill, this one included
        lo_feas = max(wmin, remaining - wmax * (left - 1))
        hi_feas = min(wmax, remaining - wmin * (left - 1))
        target = remaining / left
        # target lies in [lo_feas, hi_feas], so the clipped window is never empty.
        lo = max(lo_feas, math.ceil(target - dev))
        hi = min(hi_feas, math.floor(target + dev))
        if lo > hi:  # only when wmin == wmax (dev 0 and a fractional target cannot happen then)
            lo, hi = lo_feas, hi_feas
        w = rng.randint(lo, hi)
        out[e] = w
        remaining -= w
    assert remaining == 0
    return {e: out[e] for e in edges}


def greedy_tour(board: Board, weights: Optional[Mapping[tuple[str, str], int]] = None,
                prefix: Sequence[str] = ()) -> list[str]:
    """Nearest neighbour by the largest weight (joint coins by default) from the start or the end of `prefix`;
    ties go to the alphabetically first room."""
    w = board.joint_weights if weights is None else weights
    tour = list(prefix) or [board.start]
    left = sorted(set(board.rooms) - set(tour))
    while left:
        cur = tour[-1]
        nxt = max(left, key=lambda r: w[edge(cur, r)])  # max keeps the first (alphabetical) of equal weights
        tour.append(nxt)
        left.remove(nxt)
    tour.append(board.start)
    return tour


def board_report(board: Board) -> dict:
    """Joint optimum, each seat's own optima and greedy, as used by the filters (handy for logs and tests)."""
    joint_tours, joint_best = best_tours(board.joint_weights, board.rooms, board.start, distinct_cycles=True)
    report = {"joint_optimum": joint_best, "joint_tours": joint_tours, "own": {}}
    for seat in board.seats:
        tours, value = best_tours(board.weights[seat], board.rooms, board.start, distinct_cycles=True)
        report["own"][seat] = {"value": value, "tours": tours, "joint_values": [board.score(t) for t in tours]}
    g = greedy_tour(board)
    report["greedy"] = {"tour": g, "value": board.score(g)}
    return report


def best_joint_among_own_optima(board: Board, seat: str) -> tuple[list[str], int, int]:
    """(tour, own value, joint value) of the seat's own-optimal tour that scores the most joint coins.

    One exact solve with lexicographic weights own * BIG + joint (BIG exceeds any tour's joint value), so ties
    among the seat's own optima are settled in favour of the joint score without enumerating them."""
    big = board.n * max(board.joint_weights.values()) + 1
    lex = {e: board.weights[seat][e] * big + board.joint_weights[e] for e in board.edges}
    tour, _ = best_tour(lex, board.rooms, board.start, method="dp")
    return tour, board.own_score(seat, tour), board.score(tour)


def _passes(board: Board, require_distinct_optima: bool, require_greedy_fails: bool,
            require_unique_optimum: bool) -> bool:
    if not (require_distinct_optima or require_greedy_fails or require_unique_optimum):
        return True
    joint_tour, joint_best = best_tour(board.joint_weights, board.rooms, board.start, method="dp")
    if require_greedy_fails and board.score(greedy_tour(board)) >= joint_best:
        return False
    if require_distinct_optima:
        for seat in board.seats:
            own_tour, _, own_joint = best_joint_among_own_optima(board, seat)
            # Even the jointly best of this seat's own optima must fall short, so no own optimum is jointly
            # optimal; the canonical-tour comparison is implied, and kept as a cheap explicit check.
            if own_joint >= joint_best or normalize_tour(own_tour, board.start) == normalize_tour(joint_tour,
                                                                                                   board.start):
                return False
    if require_unique_optimum:
        tours, _ = best_tours(board.joint_weights, board.rooms, board.start, distinct_cycles=True, limit=4)
        if len(tours) != 1:
            return False
    return True


def generate_board(n_rooms: int, seed: int, wmin: int = 1, wmax: int = 10, rooms: Optional[Sequence[str]] = None,
                   require_distinct_optima: bool = True, require_greedy_fails: bool = False, max_tries: int = 2000,
                   *, require_unique_optimum: bool = False, seats: Sequence[str] = ("light", "ghost")) -> Board:
    """A seeded random board (see the module doc). Deterministic for a given seed and arguments; raises
    RuntimeError when no board passes the filters within `max_tries` attempts."""
    if rooms is None:
        rooms = default_rooms(n_rooms)
    rooms = tuple(str(r).upper() for r in rooms)
    if len(rooms) != n_rooms:
        raise ValueError(f"{n_rooms} rooms asked for but {len(rooms)} given: {rooms}")
    if len(set(rooms)) != n_rooms:
        raise ValueError(f"rooms repeat: {rooms}")
    unknown = [r for r in rooms if r not in ROOM_NAMES]
    if unknown:
        raise ValueError(f"rooms without a name in ROOM_NAMES: {unknown}")
    edges = [edge(u, v) for u, v in itertools.combinations(rooms, 2)]
    total = budget_total(len(edges), wmin, wmax)
    for attempt in range(max_tries):
        weights = {}
        for seat in seats:
            # A string seed is hashed with SHA-512 by random.Random, so it is stable across runs and platforms.
            rng = random.Random(f"travel/{n_rooms}/{wmin}-{wmax}/{''.join(rooms)}/{seed}/{attempt}/{seat}")
            weights[seat] = budgeted_weights(edges, total, wmin, wmax, rng)
        board = Board(rooms=rooms, start=rooms[0], weights=weights, wmin=wmin, wmax=wmax,
                      name=f"generated {n_rooms} rooms, seed {seed}", seed=seed)
        if _passes(board, require_distinct_optima, require_greedy_fails, require_unique_optimum):
            return board
    raise RuntimeError(f"no {n_rooms}-room board passed the filters in {max_tries} tries (seed {seed})")


def human_study_sequence(seed: int) -> list[Board]:
    """The human study's two boards: a 4-room solo tutorial (L,K,B,A; coins 1..10, 33 per seat) and the 6-room
    game (L,K,B,A,G,P; 1..10, 82 per seat). Both need distinct optima; the game also defeats greedy play, so a
    pair cannot win by walking to the richest next hallway."""
    tutorial = generate_board(4, seed, 1, 10, rooms=HUMAN_TUTORIAL_ROOMS, require_distinct_optima=True)
    game = generate_board(6, seed, 1, 10, rooms=HUMAN_GAME_ROOMS, require_distinct_optima=True,
                          require_greedy_fails=True)
    return [tutorial, game]


# -- a game's instance ------------------------------------------------------------------------------------------

def _make_board(seed: int, o: dict) -> tuple[Board, str]:
    if o.get("board"):
        board = Board.from_json(o["board"])
        return board, board.name or "custom"
    kind = o.get("boards", "preset")
    if kind == "preset":
        index = o.get("index")
        i = (seed if index is None else int(index)) % len(PRESET_BOARDS)
        return PRESET_BOARDS[i], f"preset-{i + 1}"
    if kind == "generated":
        n = int(o.get("rooms", 6))
        board = generate_board(n, seed, wmin=int(o.get("wmin", 1)), wmax=int(o.get("wmax", 10)),
                               require_greedy_fails=bool(o.get("greedy_fails", False)))
        return board, f"generated-{n}-{seed}"
    if kind in ("human", "tutorial"):
        tutorial, game = human_study_sequence(seed)
        return (game, f"human-{seed}") if kind == "human" else (tutorial, f"tutorial-{seed}")
    raise ValueError(f"unknown boards option {kind!r}; use preset, generated, human or tutorial")


def generate_instance(seed: int, options: dict) -> dict:
    """The board (from the options) with its optimum: computed once here, so a logged instance carries it."""
    board, board_id = _make_board(seed, options)
    b = board
    if b.n - 1 <= DP_HARD_MAX_FREE:
        tours, value = best_tours(b.joint_weights, b.rooms, b.start, distinct_cycles=True, limit=20)
    else:
        tour, value = best_tour(b.joint_weights, b.rooms, b.start)
        tours = [tour]
    return {"board": board.to_json(), "board_id": board_id, "optimum": int(round(value)),
            "optimal_tours": [list(t) for t in tours], "turn_limit": options.get("turn_limit", 15)}
