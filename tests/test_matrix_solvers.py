"""The exact solvers against every equilibrium the reference states (game-theory-negotiation.md §2, §10), the game
files as data, and games of other sizes and depths."""
from __future__ import annotations

import os
from fractions import Fraction as F

import pytest
import yaml

from tasks.matrix_games import catalogue, solvers


def cells(game: str, names) -> list[tuple[int, int]]:
    g = catalogue.load(game)
    rows, cols = g["actions"]
    return [(rows.index(a), cols.index(b)) for a, b in names]


# reference §2: game -> (pure NE by action names, PO-NE, the cell's payoffs)
SIMULTANEOUS = {
    "prisoners-dilemma": ([("Defect", "Defect")], [("Defect", "Defect")]),
    "stag-hunt": ([("Stag", "Stag"), ("Hare", "Hare")], [("Stag", "Stag")]),
    "battle-of-sexes": ([("Opera", "Opera"), ("Football", "Football")], [("Opera", "Opera"), ("Football", "Football")]),
    "wait-go": ([("Wait", "Go"), ("Go", "Wait")], [("Wait", "Go"), ("Go", "Wait")]),
    "duopoly": ([("Q3", "Q3")], [("Q3", "Q3")]),
}
SEQUENTIAL = {  # reference §2: SPE path and payoff
    "escalation": (["choice_1"], [0, 0]),
    "monopoly": (["choice_2", "choice_1"], [2, 1]),
    "hot-cold": (["choice_1", "choice_2"], [2, 3]),
    "draco": (["choice_1", "choice_1"], [5, 5]),
    "trigame": (["choice_2", "choice_1", "choice_2"], [4, 10]),
}


def test_the_ten_games_ship_as_data_in_the_papers_order():
    assert list(catalogue.TESTBED) == [*SIMULTANEOUS, *SEQUENTIAL]
    for name in catalogue.TESTBED:
        g = catalogue.load(name)
        assert g["kind"] == ("matrix" if name in SIMULTANEOUS else "tree")


def test_exact_payoffs_of_the_reference():
    assert catalogue.load("prisoners-dilemma")["payoffs"] == [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]
    assert catalogue.load("stag-hunt")["payoffs"] == [[[3, 3], [0, 1]], [[1, 0], [1, 1]]]
    assert catalogue.load("battle-of-sexes")["payoffs"] == [[[2, 1], [0, 0]], [[0, 0], [1, 2]]]
    assert catalogue.load("wait-go")["payoffs"] == [[[0, 0], [0, 2]], [[2, 0], [-4, -4]]]
    duo = catalogue.load("duopoly")["payoffs"]
    assert duo[0] == [[0, 0], [0, 9], [0, 14], [0, 15], [0, 12], [0, 5]]
    assert duo[3][2] == [3, 2] and duo[1][5] == [-1, -5] and duo[5][5] == [-5, -5] and duo[2][2] == [6, 6]
    assert catalogue.load("monopoly")["tree"] == {"player": "alice", "moves": {
        "choice_1": [0, 2], "choice_2": {"player": "bob", "moves": {"choice_1": [2, 1], "choice_2": [-1, -1]}}}}


@pytest.mark.parametrize("game", SIMULTANEOUS)
def test_pure_and_pareto_optimal_equilibria_of_the_simultaneous_games(game):
    ne, pone = SIMULTANEOUS[game]
    p = catalogue.load(game)["payoffs"]
    assert sorted(solvers.pure_nash(p)) == sorted(cells(game, ne))
    assert sorted(solvers.po_nash(p)) == sorted(cells(game, pone))


def test_pareto_facts_of_the_reference():
    pd = catalogue.load("prisoners-dilemma")["payoffs"]
    assert (1, 1) not in solvers.pareto_optimal(pd) and (0, 0) in solvers.pareto_optimal(pd)
    duo = catalogue.load("duopoly")["payoffs"]
    assert (2, 2) not in solvers.pareto_optimal(duo) and solvers.dominates(duo[1][1], duo[2][2])
    for game in ("battle-of-sexes", "wait-go"):
        p = catalogue.load(game)["payoffs"]
        assert set(solvers.pure_nash(p)) <= set(solvers.pareto_optimal(p))


@pytest.mark.parametrize("game", SEQUENTIAL)
def test_backward_induction_gives_the_spe_of_the_sequential_games(game):
    path, value = SEQUENTIAL[game]
    strategy, got_path, got_value = solvers.backward_induction(catalogue.load(game)["tree"])
    assert list(got_path) == path and got_value == value


def test_backward_induction_covers_every_decision_node_off_the_path():
    strategy, _, _ = solvers.backward_induction(catalogue.load("escalation")["tree"])
    # reference: after choice_2 Bob plays choice_2; after choice_2, choice_2 Alice plays choice_2
    assert strategy == {(): "choice_1", ("choice_2",): "choice_2", ("choice_2", "choice_2"): "choice_2"}
    strategy, _, _ = solvers.backward_induction(catalogue.load("trigame")["tree"])
    assert len(strategy) == 7  # the root, two Bob nodes, four Alice nodes
    assert strategy[("choice_1", "choice_1")] == "choice_1"  # (20, 3) off the path


def test_best_response_tables_and_dominance():
    pd = catalogue.load("prisoners-dilemma")["payoffs"]
    assert solvers.best_responses(pd, 0) == [[1], [1]] and solvers.best_responses(pd, 1) == [[1], [1]]
    assert solvers.dominant_action(pd, 0) == 1 and solvers.dominant_action(pd, 1) == 1
    bos = catalogue.load("battle-of-sexes")["payoffs"]
    assert solvers.best_responses(bos, 1) == [[0], [1]] and solvers.dominant_action(bos, 0) is None
    duo = catalogue.load("duopoly")["payoffs"]
    assert solvers.best_responses(duo, 0)[0] == [3] and solvers.best_responses(duo, 0)[2] == [2]


def test_mixed_equilibria_by_support_enumeration():
    bos = solvers.mixed_nash(catalogue.load("battle-of-sexes")["payoffs"])
    assert ([F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]) in bos and len(bos) == 3
    rps = solvers.mixed_nash(catalogue.load("rock-paper-scissors")["payoffs"])
    assert rps == [([F(1, 3)] * 3, [F(1, 3)] * 3)]
    assert solvers.pure_nash(catalogue.load("rock-paper-scissors")["payoffs"]) == []
    sh = solvers.mixed_nash(catalogue.load("stag-hunt")["payoffs"])
    assert ([F(1, 3), F(2, 3)], [F(1, 3), F(2, 3)]) in sh


@pytest.mark.parametrize("variant", ["prisoners-dilemma-large", "prisoners-dilemma-very-large",
                                     "prisoners-dilemma-small", "prisoners-dilemma-very-small"])
def test_probe_variants_keep_the_prisoners_dilemma_equilibrium(variant):
    assert solvers.pure_nash(catalogue.load(variant)["payoffs"]) == [(1, 1)]


@pytest.mark.parametrize("variant", ["stag-hunt-large", "stag-hunt-very-large", "stag-hunt-small",
                                     "stag-hunt-very-small"])
def test_probe_variants_keep_the_stag_hunt_equilibria(variant):
    p = catalogue.load(variant)["payoffs"]
    assert solvers.pure_nash(p) == [(0, 0), (1, 1)] and solvers.po_nash(p) == [(0, 0)]


def test_golden_balls_and_chicken():
    gb = catalogue.load("golden-balls")["payoffs"]
    assert gb == [[[5000, 5000], [0, 10000]], [[10000, 0], [0, 0]]]
    assert solvers.pure_nash(gb) == [(0, 1), (1, 0), (1, 1)]  # weak equilibria: stealing never loses
    assert sorted(solvers.pure_nash(catalogue.load("chicken")["payoffs"])) == [(0, 1), (1, 0)]


def release_matrix(alice, bob):
    """The original release's encoding (configuration.py): alice[i][j] is Alice's reward for (choice_i+1,
    Bob's choice_j+1), bob[j][i] Bob's for (his choice_j+1, Alice's choice_i+1), as cells (u_Alice, u_Bob)."""
    return [[[alice[i][j], bob[j][i]] for j in range(len(bob))] for i in range(len(alice))]


# The further games of the original configuration (Wenyueh/game_theory src/configuration.py, the code's values):
# game -> (Alice's dict as rows, Bob's dict as rows, pure NE, PO-NE)
FURTHER = {
    "radio-station": ([[25, 50, 50], [30, 15, 30], [20, 20, 10]], [[25, 50, 50], [30, 15, 30], [20, 20, 10]],
                      [(0, 1), (1, 0)], [(0, 1), (1, 0)]),
    "iesds": ([[13, 1, 7], [4, 3, 6], [-1, 2, 8]], [[3, 1, 9], [4, 3, 8], [3, 2, -1]], [(1, 1)], [(1, 1)]),
    "imbalanced-actions": ([[1, -1, 5, 1], [2, 1, 3, 5], [1, 0, 1, 0]], [[1, 3, 1], [2, 2, 5], [0, 0, 7], [1, 1, 1]],
                           [(1, 0)], [(1, 0)]),
    "weakly-dominated": ([[5, 4], [6, 3], [6, 4]], [[1, 0, 4], [0, 1, 4]], [(2, 0), (2, 1)], [(2, 0)]),
    "odd-even": ([[-2, 3], [3, -4]], [[2, -3], [-3, 4]], [], []),
}


@pytest.mark.parametrize("game", FURTHER)
def test_the_further_games_of_the_original_configuration(game):
    alice, bob, ne, pone = FURTHER[game]
    g = catalogue.load(game)
    assert g["payoffs"] == release_matrix(alice, bob)
    names = lambda n: [f"choice_{k + 1}" for k in range(n)]  # noqa: E731
    assert g["actions"] == [names(len(alice)), names(len(bob))]
    assert solvers.pure_nash(g["payoffs"]) == ne and solvers.po_nash(g["payoffs"]) == pone
    assert "configuration.py" in yaml.safe_load(open(os.path.join(catalogue.GAMES_DIR, game + ".yaml")))["source"]


def test_the_further_games_mixed_equilibria():
    assert solvers.mixed_nash(catalogue.load("odd-even")["payoffs"]) == [([F(7, 12), F(5, 12)], [F(7, 12), F(5, 12)])]
    radio = solvers.mixed_nash(catalogue.load("radio-station")["payoffs"])
    assert ([F(7, 8), F(1, 8), 0], [F(7, 8), F(1, 8), 0]) in radio
    assert solvers.dominant_action(catalogue.load("weakly-dominated")["payoffs"], 0) is None  # only weakly dominant


def test_the_golden_balls_jackpot_sweep():
    assert catalogue.GOLDEN_BALLS_JACKPOTS[0] == 250 and catalogue.GOLDEN_BALLS_JACKPOTS[-1] == 100150
    assert len(catalogue.GOLDEN_BALLS_JACKPOTS) == 13  # human_verification.py's money_rewards
    for jackpot in catalogue.GOLDEN_BALLS_JACKPOTS:
        g = catalogue.load(f"golden-balls-{jackpot}")
        assert g["payoffs"] == [[[jackpot // 2, jackpot // 2], [0, jackpot]], [[jackpot, 0], [0, 0]]]
        assert solvers.pure_nash(g["payoffs"]) == [(0, 1), (1, 0), (1, 1)]
    assert catalogue.load("golden-balls-10000")["payoffs"] == catalogue.load("golden-balls")["payoffs"]
    with pytest.raises(catalogue.GameFileError, match="golden-balls-N"):
        catalogue.load("golden-balls-x")


def test_neutral_labels_name_every_action_choice_k_and_no_game():
    pd = catalogue.neutral(catalogue.load("prisoners-dilemma"), 2)
    assert pd["actions"] == [["choice_1", "choice_2"]] * 2 and pd["title"] == "Game 2" and not pd["description"]
    assert pd["payoffs"] == catalogue.load("prisoners-dilemma")["payoffs"] and pd["name"] == "prisoners-dilemma"
    duo = catalogue.neutral(catalogue.load("duopoly"))
    assert duo["actions"][1] == [f"choice_{k}" for k in range(1, 7)]
    tree = catalogue.neutral({"kind": "tree", "name": "t", "title": "Escalation", "tree": {"player": "alice", "moves": {
        "Stop": [0, 0], "Go": {"player": "bob", "moves": {"Yield": [1, -2], "Fight": [-1, -1]}}}}})
    assert tree["tree"] == {"player": "alice", "moves": {"choice_1": [0, 0], "choice_2": {"player": "bob", "moves": {
        "choice_1": [1, -2], "choice_2": [-1, -1]}}}}


def test_a_yaml_game_of_any_size_and_depth(tmp_path):
    big = tmp_path / "three.yaml"
    big.write_text("name: three\nkind: matrix\nactions: [[a, b, c], [x, y, z, w]]\npayoffs:\n"
                   "  - [[1, 1], [0, 0], [0, 0], [0, 0]]\n  - [[0, 0], [2, 2], [0, 0], [0, 0]]\n"
                   "  - [[0, 0], [0, 0], [3, 3], [-1, 4]]\n")
    g = catalogue.load(path=str(big))
    assert solvers.pure_nash(g["payoffs"]) == [(0, 0), (1, 1)] and solvers.po_nash(g["payoffs"]) == [(1, 1)]
    assert (2, 2) in solvers.pareto_optimal(g["payoffs"])  # (3, 3) is no equilibrium: Bob gains 4 with w
    deep = tmp_path / "deep.yaml"
    deep.write_text("kind: tree\ntree:\n  player: alice\n  moves:\n    l: [1, 0]\n    r:\n      player: bob\n"
                    "      moves:\n        l: [0, 1]\n        r:\n          player: alice\n          moves:\n"
                    "            l: [3, 0]\n            r:\n              player: bob\n"
                    "              moves: {l: [2, 2], r: [0, 3]}\n")
    t = catalogue.load(path=str(deep))["tree"]
    assert solvers.tree_depth(t) == 4
    strategy, path, value = solvers.backward_induction(t)
    # depth 4: Bob takes r (3); so Alice takes l (3) at depth 3; so Bob takes l (1) at depth 2; Alice takes l (1)
    assert path == ("l",) and value == [1, 0] and strategy[("r", "r", "r")] == "r"


@pytest.mark.parametrize("text, problem", [
    ("kind: matrix\nactions: [[a, b], [x]]\npayoffs: [[[1, 1]], [[1]]]", "two numbers"),
    ("kind: matrix\nactions: [[a, a], [x]]\npayoffs: [[[1, 1]], [[1, 1]]]", "distinct"),
    ("kind: matrix\nactions: [[a, b], [x]]\npayoffs: [[[1, 1]]]", "2 rows"),
    ("kind: tree\ntree: {player: carol, moves: {a: [1, 1]}}", "alice or bob"),
    ("kind: cube", "matrix or tree"),
])
def test_a_malformed_game_file_says_what_is_wrong(tmp_path, text, problem):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(catalogue.GameFileError, match=problem):
        catalogue.load(path=str(f))
