"""Maze facts for Gnomes at Night: the wall data of both sides and the joint-knowledge optimum."""
from collections import deque

import pytest

from tasks.gnomes import maze


def test_wall_counts_and_bounds():
    assert (len(maze.WALLS[0]["right"]), len(maze.WALLS[0]["below"])) == (23, 24)
    assert (len(maze.WALLS[1]["right"]), len(maze.WALLS[1]["below"])) == (23, 26)
    for side in (0, 1):
        right, below = maze.WALLS[side]["right"], maze.WALLS[side]["below"]
        assert len(set(right)) == len(right) and len(set(below)) == len(below)
        assert all(0 <= x <= 7 and 0 <= y <= 8 for x, y in right)  # a wall right of column 8 is the border
        assert all(0 <= x <= 8 and 0 <= y <= 7 for x, y in below)


def test_walls_match_the_reference_in_0_indexed_form():
    r0 = {(1, 0), (1, 1), (1, 3), (1, 4), (1, 7), (2, 5), (2, 6), (3, 2), (3, 3), (3, 4), (3, 7), (3, 8), (4, 0),
          (4, 2), (4, 5), (4, 6), (5, 4), (5, 7), (6, 0), (6, 2), (6, 3), (6, 4), (6, 6)}
    b0 = {(2, 1), (3, 1), (5, 1), (6, 1), (8, 1), (0, 2), (1, 2), (5, 3), (7, 3), (8, 3), (1, 4), (2, 4), (3, 4),
          (5, 4), (6, 4)} | {(x, 6) for x in range(9)}
    r1 = {(1, 1), (1, 2), (1, 4), (1, 5), (1, 6), (2, 4), (2, 7), (2, 8), (3, 0), (3, 1), (3, 2), (3, 3), (3, 5),
          (4, 2), (4, 4), (4, 8), (5, 5), (5, 6), (6, 1), (6, 2), (6, 3), (6, 7), (6, 8)}
    b1 = ({(x, 1) for x in range(7)} | {(7, 2), (8, 2), (0, 3), (1, 3), (3, 3)} | {(x, 4) for x in range(2, 9)}
          | {(x, 6) for x in range(1, 8)})
    assert set(maze.WALLS[0]["right"]) == r0 and set(maze.WALLS[0]["below"]) == b0
    assert set(maze.WALLS[1]["right"]) == r1 and set(maze.WALLS[1]["below"]) == b1


def test_side_0_has_the_spanning_wall_and_side_1_leaves_both_ends_open():
    assert all(maze.blocked(0, (x, 6), maze.DOWN) for x in range(9))
    assert not maze.blocked(1, (0, 6), maze.DOWN) and not maze.blocked(1, (8, 6), maze.DOWN)
    assert all(maze.blocked(1, (x, 6), maze.DOWN) for x in range(1, 8))


@pytest.mark.parametrize("side", [0, 1])
def test_walls_block_both_ways_and_the_board_edge(side):
    for y in range(9):
        for x in range(9):
            for a in range(1, 5):
                (nx, ny), hit = maze.step(side, (x, y), a)
                if hit:
                    assert (nx, ny) == (x, y)
                    dx, dy = maze.DELTA[a]
                    if 0 <= x + dx < 9 and 0 <= y + dy < 9:  # an inner wall: blocked from the other side too
                        assert maze.blocked(side, (x + dx, y + dy), maze.OPPOSITE[a])
                else:
                    assert (nx, ny) == (x + maze.DELTA[a][0], y + maze.DELTA[a][1])
            assert not maze.blocked(side, (x, y), maze.STAY)
    assert maze.blocked(side, (0, 0), maze.LEFT) and maze.blocked(side, (0, 0), maze.UP)
    assert maze.blocked(side, (8, 8), maze.RIGHT) and maze.blocked(side, (8, 8), maze.DOWN)


def test_rounds_and_visibility():
    assert maze.TREASURES == ((4, 0), (6, 2), (3, 3), (4, 5), (3, 7))
    assert [maze.treasure_side(r) for r in range(1, 6)] == [0, 1, 0, 1, 0]


def test_joint_optimum_side_0_first():
    assert [maze.optimum_turns(t, first=0) for t in maze.TREASURES] == [5, 11, 7, 9, 11]


def test_joint_optimum_side_1_first():
    assert [maze.optimum_turns(t, first=1) for t in maze.TREASURES] == [6, 12, 6, 10, 10]


def _alone(side, target):
    """Moves needed by one side alone (no partner turns), or None."""
    goal = maze.cell(*target)
    seen, frontier = {0: 0}, deque([0])
    while frontier:
        c = frontier.popleft()
        for a in range(1, 5):
            n = maze.MOVES[side][c * 5 + a]
            if n >= 0 and n not in seen:
                seen[n] = seen[c] + 1
                frontier.append(n)
    return seen.get(goal)


def test_every_round_needs_both_sides_except_round_3_on_side_0():
    alone = [[_alone(side, t) for t in maze.TREASURES] for side in (0, 1)]
    assert alone[0] == [None, None, 6, None, None]
    assert alone[1] == [None] * 5
