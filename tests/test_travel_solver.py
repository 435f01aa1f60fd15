"""Exact solvers agree with brute force; the preset boards' facts from the paper's repository hold."""
import itertools
import random

import pytest

from tasks.travel import solver as solver_mod
from tasks.travel.board import ROOM_NAMES, edge, normalize_tour
from tasks.travel.generator import PRESET_BOARDS, PRESET_OPTIMA
from tasks.travel.solver import (DP_MAX_ROOMS, best_tour, best_tours, board_graph, choose_method, graph_weights,
                                 solve, tour_value)

LETTERS = list(ROOM_NAMES)


def random_case(seed):
    """A seeded complete graph with 5..8 rooms, int, dyadic-float or arbitrary-float weights, and a prefix."""
    rng = random.Random(seed)
    n = rng.randint(5, 8)
    rooms = LETTERS[:n]
    kind = ("int", "dyadic", "float")[seed % 3]
    weights = {}
    for u, v in itertools.combinations(rooms, 2):
        if kind == "int":
            weights[edge(u, v)] = rng.randint(2, 20)
        elif kind == "dyadic":
            weights[edge(u, v)] = rng.randint(0, 640) / 64  # exact in binary, so sums tie exactly
        else:
            weights[edge(u, v)] = rng.uniform(-2.0, 12.0)
    rest = rooms[1:]
    rng.shuffle(rest)
    prefix = ["L", *rest[:rng.randint(0, n - 1)]] if rng.random() < 0.8 else []
    return rooms, weights, prefix, kind


def check_tour(tour, value, rooms, weights, prefix):
    assert tour[0] == tour[-1] == "L"
    assert sorted(tour[:-1]) == sorted(rooms)
    assert tour[:len(prefix)] == list(prefix)
    assert value == tour_value(weights, tour)


@pytest.mark.parametrize("seed", range(60))
def test_dp_and_ilp_match_brute(seed):
    rooms, weights, prefix, kind = random_case(seed)
    results = {m: solve(weights, rooms, "L", prefix, method=m) for m in ("brute", "dp", "ilp")}
    for m, info in results.items():
        check_tour(info.tour, info.value, rooms, weights, prefix)
        assert info.method == m and info.optimal, info.status
    if kind == "float":  # distinct tours can tie only to within rounding
        assert results["dp"].value == pytest.approx(results["brute"].value, abs=1e-9)
        assert results["ilp"].value == pytest.approx(results["brute"].value, abs=1e-9)
    else:
        assert results["dp"].value == results["brute"].value == results["ilp"].value


@pytest.mark.parametrize("seed", range(40))
def test_best_tours_lists_exactly_the_brute_force_optima(seed):
    rooms, weights, prefix, kind = random_case(1000 + seed)
    if kind == "float":
        return
    tours, value = best_tours(weights, rooms, "L", prefix)
    pre = prefix or ["L"]
    rest = [r for r in rooms if r not in pre]
    all_vals = {tuple(pre + list(p) + ["L"]): tour_value(weights, pre + list(p) + ["L"])
                for p in itertools.permutations(rest)}
    top = max(all_vals.values())
    assert value == top
    assert sorted(map(tuple, tours)) == sorted(t for t, v in all_vals.items() if v == top)


def test_preset_optima_and_optimal_tours():
    for board, optimum in zip(PRESET_BOARDS, PRESET_OPTIMA):
        for method in ("dp", "brute", "ilp"):
            tour, value = best_tour(board.joint_weights, board.rooms, board.start, method=method)
            assert value == optimum and board.score(tour) == optimum
    # The directed optimal tours of the reference (board 5/6 has two more than the repository's JSON lists).
    tours, _ = best_tours(PRESET_BOARDS[0].joint_weights, PRESET_BOARDS[0].rooms, "L")
    assert {"".join(t) for t in tours} == {"LEKCBAL", "LABCKEL", "LEABKCL", "LCKBAEL"}
    tours, _ = best_tours(PRESET_BOARDS[2].joint_weights, PRESET_BOARDS[2].rooms, "L", distinct_cycles=True)
    assert [normalize_tour(t, "L") for t in tours] == [normalize_tour("LBKEACL", "L")]
    tours, _ = best_tours(PRESET_BOARDS[4].joint_weights, PRESET_BOARDS[4].rooms, "L")
    assert {"".join(t) for t in tours} == {"LBAEKCL", "LCKEABL", "LBKAECL", "LCEAKBL"}


@pytest.mark.parametrize("index, light_own, ghost_own, light_joint, ghost_joints", [
    (0, 32, 28, {49}, {42, 45, 51}),  # board 1: USER = light, BOT = ghost
    (2, 31, 32, {56}, {52}),
    (4, 28, 29, {53}, {46, 51}),
])
def test_own_optima_versus_joint(index, light_own, ghost_own, light_joint, ghost_joints):
    for board, swapped in ((PRESET_BOARDS[index], False), (PRESET_BOARDS[index + 1], True)):
        own = {}
        for seat in ("light", "ghost"):
            tours, value = best_tours(board.weights[seat], board.rooms, "L")
            own[seat] = (value, {board.score(t) for t in tours})
        user, bot = ("ghost", "light") if swapped else ("light", "ghost")
        assert own[user] == (light_own, light_joint)
        assert own[bot] == (ghost_own, ghost_joints)


def test_own_ibp_tours_from_the_reference():
    b1 = PRESET_BOARDS[0]
    assert b1.own_score("ghost", "LEAKCBL") == 28 and b1.own_score("light", "LEKABCL") == 32
    tours, _ = best_tours(b1.weights["light"], b1.rooms, "L")
    assert list("LEKABCL") in tours


def test_prefix_variants():
    b = PRESET_BOARDS[0]
    w, rooms = b.joint_weights, b.rooms
    assert best_tour(w, rooms, "L", []) == best_tour(w, rooms, "L", ["L"])
    tour, value = best_tour(w, rooms, "L", ["L", "E", "K"])
    assert tour[:3] == ["L", "E", "K"] and value == 52
    full = list("LEKCABL")
    assert best_tour(w, rooms, "L", full[:-1]) == (full, b.score(full))  # a full prefix is just closed
    assert best_tour(w, rooms, "L", full) == (full, b.score(full))
    assert best_tour(w, rooms, "L", full[:-2])[0] == full  # one room left: forced
    for bad in (["E", "K"], ["L", "K", "K"], ["L", "Q"]):
        with pytest.raises(ValueError):
            best_tour(w, rooms, "L", bad)


def test_missing_weights_and_default():
    rooms = ["L", "K", "B", "A"]
    w = {edge("L", "K"): 5, edge("K", "B"): 5}
    with pytest.raises(ValueError, match="no weight"):
        best_tour(w, rooms, "L")
    tour, value = best_tour(w, rooms, "L", default=0)
    assert value == 10 and normalize_tour(tour, "L") == normalize_tour("LKBAL", "L")


def test_auto_method_choice():
    assert choose_method(DP_MAX_ROOMS) == "dp" and choose_method(DP_MAX_ROOMS + 1) == "ilp"
    rng = random.Random(7)
    rooms = LETTERS[:17]
    w = {edge(u, v): rng.randint(2, 20) for u, v in itertools.combinations(rooms, 2)}
    # 17 rooms, but a prefix of 4 leaves 13 open rooms + the start: dp is exact and quick.
    info = solve(w, rooms, "L", rooms[:4])
    assert info.method == "dp" and info.requested == "auto" and info.optimal and info.n_free == 13


def test_heuristic_is_valid_and_usually_optimal():
    hits = 0
    for seed in range(20):
        rooms, weights, prefix, _ = random_case(500 + seed)
        info = solve(weights, rooms, "L", prefix, method="heuristic", time_limit=1.0)
        check_tour(info.tour, info.value, rooms, weights, prefix)
        best = solve(weights, rooms, "L", prefix, method="dp").value
        assert info.value <= best + 1e-9 and info.optimal == (info.n_free <= 1)
        hits += info.value >= best - 1e-9
    assert hits >= 18


def test_ilp_falls_back_to_heuristic_when_cbc_fails(monkeypatch):
    import pulp

    def broken(self, *a, **k):
        raise pulp.PulpSolverError("cbc missing")

    monkeypatch.setattr(pulp.PULP_CBC_CMD, "actualSolve", broken)
    b = PRESET_BOARDS[0]
    tour, value, info = best_tour(b.joint_weights, b.rooms, "L", ["L", "E"], method="ilp", return_info=True)
    assert info.method == "heuristic" and info.requested == "ilp" and not info.optimal
    assert "fallback" in info.status and tour[:2] == ["L", "E"] and value == b.score(tour)


@pytest.mark.slow
@pytest.mark.parametrize("n, seed", [(10, 1), (11, 2), (12, 3)])
def test_ilp_matches_dp_on_larger_boards(n, seed):
    rng = random.Random(seed)
    rooms = LETTERS[:n]
    w = {edge(u, v): rng.randint(2, 20) for u, v in itertools.combinations(rooms, 2)}
    prefix = ["L", *rooms[1:1 + seed]]
    dp = solve(w, rooms, "L", prefix, method="dp")
    ilp = solve(w, rooms, "L", prefix, method="ilp", time_limit=30)
    assert ilp.optimal and ilp.method == "ilp"
    assert ilp.value == dp.value and ilp.tour[:len(prefix)] == prefix


def test_board_graph():
    b = PRESET_BOARDS[0]
    g = board_graph(b)
    assert g.number_of_nodes() == 6 and g.number_of_edges() == 15
    assert g["L"]["E"]["weight"] == 11 and g["L"]["E"]["ghost"] == 6 and g["L"]["E"]["light"] == 5
    assert graph_weights(g) == b.joint_weights
    assert graph_weights(board_graph(b, "light")) == b.weights["light"]
    assert g.nodes["K"]["description"] == "kitchen"


def test_bad_method():
    with pytest.raises(ValueError):
        best_tour(PRESET_BOARDS[0].joint_weights, PRESET_BOARDS[0].rooms, "L", method="magic")
    with pytest.raises(ValueError):
        solver_mod.solve({}, ["L", "K", "B", "A", "C", "E", "G", "P", "D", "H"], "L", method="brute", default=1)
