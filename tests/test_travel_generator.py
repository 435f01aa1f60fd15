"""Preset boards and the seeded Appendix-B generator."""
import pytest

from tasks.travel.board import normalize_tour
from tasks.travel.generator import (HUMAN_GAME_ROOMS, PRESET_BOARDS, PRESET_OPTIMA, best_joint_among_own_optima,
                                    board_report, budget_total, default_rooms, generate_board, greedy_tour,
                                    human_study_sequence)
from tasks.travel.solver import best_tour, best_tours


def test_presets_shape_and_budgets():
    assert len(PRESET_BOARDS) == 6 and PRESET_OPTIMA == [52, 52, 56, 56, 53, 53]
    budgets = [(b.budget("ghost"), b.budget("light")) for b in PRESET_BOARDS]
    assert budgets == [(51, 52), (52, 51), (56, 51), (51, 56), (56, 52), (52, 56)]
    for b in PRESET_BOARDS:
        assert b.rooms == ("L", "E", "B", "K", "C", "A") and b.start == "L" and b.weight_range == (1, 6)
    b1 = PRESET_BOARDS[0]
    assert b1.own("ghost", ("L", "E")) == 6 and b1.own("light", ("L", "E")) == 5  # BOT = ghost, USER = light
    assert b1.own("ghost", ("C", "A")) == 1 and b1.own("light", ("K", "A")) == 4


def test_even_presets_are_odd_ones_with_roles_swapped():
    for odd, even in zip(PRESET_BOARDS[0::2], PRESET_BOARDS[1::2]):
        assert odd.weights["light"] == even.weights["ghost"] and odd.weights["ghost"] == even.weights["light"]


def test_solver_reproduces_preset_optima():
    for b, optimum in zip(PRESET_BOARDS, PRESET_OPTIMA):
        assert best_tour(b.joint_weights, b.rooms, b.start)[1] == optimum


@pytest.mark.parametrize("index, tour, value", [(0, "LEABCKL", 50), (2, "LBKEACL", 56), (4, "LBAEKCL", 53)])
def test_greedy_on_joint_weights(index, tour, value):
    for b in PRESET_BOARDS[index:index + 2]:
        g = greedy_tour(b)
        assert "".join(g) == tour and b.score(g) == value
    assert "".join(greedy_tour(PRESET_BOARDS[0], prefix=["L", "K"])).startswith("LK")


def test_only_boards_1_and_2_need_both_players():
    report = board_report(PRESET_BOARDS[0])
    assert report["joint_optimum"] == 52 and report["greedy"]["value"] == 50
    assert all(v < 52 for seat in ("light", "ghost") for v in report["own"][seat]["joint_values"])
    report = board_report(PRESET_BOARDS[2])
    assert report["own"]["light"]["joint_values"] == [56]  # USER alone already finds the optimum


def test_best_joint_among_own_optima():
    b1 = PRESET_BOARDS[0]
    tour, own, joint = best_joint_among_own_optima(b1, "ghost")  # BOT's own optima score 42, 45 or 51 jointly
    assert (own, joint) == (28, 51) and b1.own_score("ghost", tour) == 28
    assert best_joint_among_own_optima(b1, "light")[1:] == (32, 49)
    assert best_joint_among_own_optima(PRESET_BOARDS[2], "light")[1:] == (31, 56)


def test_budget_totals():
    assert budget_total(15, 1, 10) == 82 and budget_total(6, 1, 10) == 33
    assert default_rooms(6) == HUMAN_GAME_ROOMS and default_rooms(4) == ("L", "E", "B", "K")
    assert default_rooms(16)[0] == "L" and len(set(default_rooms(16))) == 16


@pytest.mark.parametrize("n, total", [(4, 33), (5, 55), (6, 82), (8, 154), (10, 247)])
def test_generated_sums_and_ranges(n, total):
    for seed in range(5):
        b = generate_board(n, seed)
        assert b.n == n and b.start == "L" and b.weight_range == (1, 10)
        for seat in ("light", "ghost"):
            assert b.budget(seat) == total
            assert all(1 <= w <= 10 for w in b.weights[seat].values())


def test_other_weight_ranges():
    b = generate_board(6, 3, wmin=2, wmax=7)
    assert b.budget("light") == b.budget("ghost") == (2 + 7) * 15 // 2
    assert all(2 <= w <= 7 for s in b.seats for w in b.weights[s].values())


def test_generator_is_deterministic_and_seed_sensitive():
    assert generate_board(6, 42) == generate_board(6, 42)
    assert generate_board(6, 42).to_json() == generate_board(6, 42).to_json()
    boards = [generate_board(6, s) for s in range(10)]
    assert len({tuple(b.weights["light"].values()) for b in boards}) == 10
    b = boards[0]
    assert b.weights["light"] != b.weights["ghost"]  # seats are drawn independently
    assert b.rooms == HUMAN_GAME_ROOMS


def test_distinct_optima_filter_holds():
    for seed in range(15):
        b = generate_board(6, seed)
        joint_tours, joint_best = best_tours(b.joint_weights, b.rooms, "L", distinct_cycles=True)
        joint_set = {normalize_tour(t, "L") for t in joint_tours}
        for seat in ("light", "ghost"):
            own_tours, _ = best_tours(b.weights[seat], b.rooms, "L")
            for t in own_tours:
                assert normalize_tour(t, "L") not in joint_set
                assert b.score(t) < joint_best


def test_greedy_fails_filter_holds():
    for seed in range(15):
        b = generate_board(6, seed, require_greedy_fails=True)
        assert b.score(greedy_tour(b)) < best_tour(b.joint_weights, b.rooms, "L")[1]


def test_unique_optimum_filter():
    b = generate_board(6, 1, require_unique_optimum=True)
    assert len(best_tours(b.joint_weights, b.rooms, "L", distinct_cycles=True)[0]) == 1


def test_filters_can_be_switched_off_and_impossible_filters_raise():
    generate_board(6, 0, require_distinct_optima=False)
    # Equal coins everywhere: every tour ties, so no own optimum is ever strictly worse.
    with pytest.raises(RuntimeError):
        generate_board(5, 0, wmin=3, wmax=3, max_tries=5)
    with pytest.raises(ValueError):
        generate_board(6, 0, rooms=["L", "K", "B"])


def test_custom_rooms_and_larger_boards():
    b = generate_board(5, 9, rooms=["l", "d", "h", "s", "t"], require_greedy_fails=True)
    assert b.rooms == ("L", "D", "H", "S", "T") and b.start == "L"
    b = generate_board(12, 1)
    assert b.budget("ghost") == 11 * 66 // 2


def test_human_study_sequence():
    tutorial, game = human_study_sequence(7)
    assert tutorial.rooms == ("L", "K", "B", "A") and game.rooms == ("L", "K", "B", "A", "G", "P")
    assert tutorial.budget("light") == tutorial.budget("ghost") == 33
    assert game.budget("light") == game.budget("ghost") == 82
    assert game.score(greedy_tour(game)) < best_tour(game.joint_weights, game.rooms, "L")[1]
    assert human_study_sequence(7) == [tutorial, game]
    assert human_study_sequence(8) != [tutorial, game]
