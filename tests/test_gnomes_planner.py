"""AISMCTS-F planner: Omega, the time budget, the input-flag tie-break, the output flag, beliefs."""
import pytest

from tasks.gnomes import maze
from tasks.gnomes.maze import DOWN, LEFT, RIGHT, STAY, UP, cell
from tasks.gnomes.brains.planner import Belief, Model, Planner, greedy_action


def agent_model():
    return Model(maze.MOVES[1])  # the agent's side; the partner's walls unknown


def test_time_budget_returns_a_legal_action():
    model = agent_model()
    planner = Planner(model, seed=3)
    for root in (cell(0, 0), cell(4, 4), cell(8, 8)):
        d = planner.search(root, treasure=cell(6, 2), budget=0.02)
        assert d.iterations > 0
        assert maze.MOVES[1][root * 5 + d.action] >= 0
        d = planner.search(root, belief=Belief(exclude=(root,)), budget=0.02)
        assert maze.MOVES[1][root * 5 + d.action] >= 0


def test_fixed_iterations_are_reproducible():
    a = Planner(agent_model(), seed=5).search(0, belief=Belief(exclude=(0,)), iterations=400)
    b = Planner(agent_model(), seed=5).search(0, belief=Belief(exclude=(0,)), iterations=400)
    assert (a.action, a.flag_out, a.visits) == (b.action, b.flag_out, b.visits) and a.iterations == 400


def test_output_flag_is_the_partners_best_next_move():
    # From (0,0) with the treasure at (1,1): we go down to (0,1) and the partner right onto the treasure
    # (both assumed open), or we go right and the partner down.
    model = agent_model()
    d = Planner(model, seed=1).search(0, treasure=cell(1, 1), iterations=3000)
    expect = {DOWN: RIGHT, RIGHT: DOWN}
    assert d.action in expect and d.flag_out == expect[d.action]


def test_omega_is_respected():
    model = agent_model()
    assert model.add_rejection(cell(0, 1), RIGHT)
    assert not model.add_rejection(cell(0, 1), RIGHT)      # nothing new
    assert not model.add_rejection(cell(0, 1), STAY)       # a rejected stay is ignored
    table = model.partner_moves()
    assert table[cell(0, 1) * 5 + RIGHT] == -1
    assert table[cell(1, 1) * 5 + LEFT] == -1              # the mirror entry: a wall blocks both ways
    assert RIGHT not in model.legal[1][cell(0, 1)]
    model.add_rejection(cell(1, 0), DOWN)
    for seed in range(5):
        d = Planner(model, seed=seed).search(0, treasure=cell(1, 1), iterations=2000)
        nxt = maze.MOVES[1][d.action]
        assert d.flag_out not in model.omega.get(nxt, ())
    # Seeing the partner make a move clears a mistaken rejection.
    model.saw_partner_move(cell(0, 1), RIGHT)
    assert model.partner_moves()[cell(0, 1) * 5 + RIGHT] == cell(1, 1)


def test_input_flag_breaks_ties():
    model = agent_model()
    # With every child counted as tied, a legal flag is adopted ...
    for flag in (STAY, RIGHT, DOWN):
        d = Planner(model, seed=2, tie_tolerance=1.0).search(0, treasure=cell(6, 2), flag=flag, iterations=500)
        assert d.used_flag and d.action == flag
    # ... but a legal flag outside the tied set is not (up reaches the treasure at once; staying does not),
    # and a blocked move is never a child at all.
    d = Planner(model, seed=2, tie_tolerance=0.1).search(cell(1, 1), treasure=cell(1, 0), flag=STAY,
                                                         iterations=3000)
    assert STAY in d.visits and not d.used_flag and d.action == UP
    d = Planner(model, seed=2, tie_tolerance=1.0).search(0, treasure=cell(6, 2), flag=LEFT, iterations=300)
    assert not d.used_flag and d.action != LEFT


def test_distances_with_full_knowledge_equal_the_joint_optimum():
    model = agent_model()
    for c in range(maze.CELLS):   # tell the model every partner wall: it must agree with the BFS optimum
        for a in range(1, 5):
            if maze.MOVES[0][c * 5 + a] < 0:
                model.add_rejection(c, a)
    for t in maze.TREASURES:
        d = model.distances(cell(*t))
        assert d[0 * 2 + 1] == maze.optimum_turns(t, first=0)   # partner (side 0) to move first
        assert d[0 * 2 + 0] == maze.optimum_turns(t, first=1)


def test_belief_updates():
    b = Belief(exclude=(0,))
    assert b.w[0] == 0 and sum(b.w) == pytest.approx(1.0)
    b.eliminate(cell(1, 0))
    assert b.w[cell(1, 0)] == 0
    b.hint(0, {RIGHT, DOWN})                    # "down and to the right" of (0,0)
    top, p = b.top()
    assert p > 1 / 81
    assert b.w[cell(3, 3)] > 10 * b.w[cell(3, 0)]  # not level with the token
    b.hint(cell(3, 0), {DOWN}, straight=True)   # "straight down" from (3,0)
    assert b.top()[0] in {cell(3, y) for y in range(1, 9)}
    model = agent_model()
    b2 = Belief(exclude=(0,))
    b2.rational(model, 0, 1, RIGHT, beta=2.0)   # a knowing partner moved right from (0,0)
    assert b2.w[cell(8, 0)] > b2.w[cell(0, 8)]
    assert 0.0 <= b2.optimal_share(model, 0, 1, RIGHT) <= 1.0


def test_greedy_action_heads_for_the_target():
    model = agent_model()
    a = greedy_action(model, cell(5, 2), 0, cell(6, 2), __import__("random").Random(0))
    assert a == RIGHT
