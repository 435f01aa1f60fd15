"""Board, tour checks, percentile and parsing for TRAVELING ADVENTURERS."""
import itertools
import json

import pytest

from tasks.travel.board import ROOM_NAMES, Board, all_tours, edge, is_valid_tour, normalize_tour, percentile_rank
from tasks.travel.parse import parse_rooms
from tasks.travel.solver import optimality_ratio
from tasks.travel.generator import PRESET_BOARDS, generate_board

B1 = PRESET_BOARDS[0]


def small_board():
    rooms = ("L", "K", "B", "A")
    edges = [edge(u, v) for u, v in itertools.combinations(rooms, 2)]
    return Board(rooms=rooms, start="L", weights={"light": dict(zip(edges, [1, 2, 3, 4, 5, 6])),
                                                  "ghost": dict(zip(edges, [6, 5, 4, 3, 2, 1]))})


def test_room_names_cover_sixteen_distinct_letters():
    assert len(ROOM_NAMES) >= 16
    assert all(len(k) == 1 and k.isupper() for k in ROOM_NAMES)
    for letter, desc in {"L": "living room", "E": "empty room with no windows", "B": "bathroom", "K": "kitchen",
                         "C": "children's room", "A": "attic", "G": "garden", "P": "play room"}.items():
        assert ROOM_NAMES[letter] == desc


def test_edge_is_canonical():
    assert edge("E", "B") == edge("B", "E") == ("B", "E")
    with pytest.raises(ValueError):
        edge("L", "L")


def test_board_accessors():
    b = small_board()
    assert b.edges == (("K", "L"), ("B", "L"), ("A", "L"), ("B", "K"), ("A", "K"), ("A", "B"))
    assert b.own("light", ("L", "K")) == 1 and b.own("ghost", ("K", "L")) == 6
    assert b.joint(("B", "A")) == 7 and all(b.joint(e) == 7 for e in b.edges)
    assert b.budget("light") == 21 and b.budget("ghost") == 21
    assert b.weight_range == (1, 10)
    assert b.score("LKBAL") == 28 == b.score(["L", "K", "B", "A"])  # an unclosed permutation is closed
    assert b.own_score("light", "LKBAL") == 1 + 4 + 6 + 3


def test_board_accepts_reversed_and_string_keys_and_rejects_bad_weights():
    rooms = ("L", "K", "B")
    b = Board(rooms=rooms, start="L", weights={"light": {("L", "K"): 1, "B-L": 2, ("B", "K"): 3}})
    assert b.weights["light"] == {("K", "L"): 1, ("B", "L"): 2, ("B", "K"): 3}
    with pytest.raises(ValueError, match="outside"):
        Board(rooms=rooms, start="L", weights={"light": {("L", "K"): 11, ("B", "L"): 2, ("B", "K"): 3}})
    with pytest.raises(ValueError, match="missing"):
        Board(rooms=rooms, start="L", weights={"light": {("L", "K"): 1, ("B", "L"): 2}})
    with pytest.raises(ValueError, match="first"):
        Board(rooms=rooms, start="K", weights={"light": {("L", "K"): 1, ("B", "L"): 2, ("B", "K"): 3}})


def test_json_round_trip():
    for b in (B1, generate_board(7, 3)):
        d = b.to_json()
        json.dumps(d)  # JSON-able
        assert all("-" in k for k in d["weights"]["light"])
        again = Board.from_json(json.loads(json.dumps(d)))
        assert again == b and hash(again) == hash(b)
    assert B1.to_json()["wmax"] == 6


def test_normalize_tour_reversal_and_rotation():
    assert normalize_tour("LEKCBAL", "L") == normalize_tour("LABCKEL", "L")
    assert normalize_tour(["L", "E", "K", "C", "B", "A", "L"], "L") == ("L", "A", "B", "C", "K", "E", "L")
    assert normalize_tour("KCBALEK", "L") == normalize_tour("LEKCBAL", "L")  # same cycle written from K
    assert normalize_tour("LEKCBAL", "L") != normalize_tour("LEKCABL", "L")


@pytest.mark.parametrize("tour, reason", [
    ("LEKCBAL", ""),
    ("LABCKEL", ""),
    ("LEKCBQL", "room Q is not in this house"),
    ("LEKCBAA", "the tour must end back in L"),
    ("LEKCBA", "the tour must end back in L"),
    ("EKCBALE", "the tour must start in L"),
    ("LEKKCBAL", "room K visited twice"),
    ("LEKLCBAL", "room L visited twice"),
    ("LEKAL", "the tour skips B, C"),
    ("", "the tour is empty"),
])
def test_is_valid_tour_reasons(tour, reason):
    assert is_valid_tour(B1, tour) == (reason == "", reason)


def test_all_tours_counts():
    assert len(list(all_tours(B1))) == 60  # (6-1)!/2 undirected cycles
    assert len({normalize_tour(t, "L") for t in all_tours(B1)}) == 60
    assert len(list(all_tours(small_board()))) == 3


def test_percentile_board1():
    assert percentile_rank(B1, "LEABKCL") == 100.0  # the optimum (52) with the <= rule
    # A 51-coin tour: 58 of 60 cycles score <= 51 (the two 52-cycles do not).
    assert B1.score("LEAKCBL") == 51
    assert percentile_rank(B1, "LEAKCBL") == pytest.approx(96.6667, abs=1e-3)
    worst = min(all_tours(B1), key=B1.score)
    assert percentile_rank(B1, worst) == pytest.approx(100 / 60)
    with pytest.raises(ValueError):
        percentile_rank(B1, "LEKL")


def test_percentile_estimated_for_large_boards_is_seeded():
    b = generate_board(11, 5, require_distinct_optima=False)
    from tasks.travel.solver import best_tour
    opt, _ = best_tour(b.joint_weights, b.rooms, b.start)
    assert percentile_rank(b, opt) == 100.0
    t = list(b.rooms) + ["L"]
    p1, p2 = percentile_rank(b, t), percentile_rank(b, t)
    assert p1 == p2 and 0.0 <= p1 <= 100.0
    assert percentile_rank(b, t, seed=1) == pytest.approx(p1, abs=3.0)


def test_optimality_ratio():
    assert optimality_ratio(B1, "LEABKCL") == 1.0
    assert optimality_ratio(B1, "LEABCKL") == pytest.approx(50 / 52)


@pytest.mark.parametrize("text", ["L K B", "L-K-B", "LKB", "lkb", "l, k, b", "L -> K -> B", "L→K→B",
                                  "living room kitchen bathroom", "Living Room - Kitchen - Bath",
                                  "L then K then B", "['L', 'K', 'B']"])
def test_parse_rooms_variants(text):
    assert parse_rooms(text, B1) == ["L", "K", "B"]


def test_parse_rooms_lists_and_names():
    assert parse_rooms(["L", "kitchen", "b"], B1) == ["L", "K", "B"]
    assert parse_rooms("empty room with no windows, children's room, attic", B1) == ["E", "C", "A"]
    assert parse_rooms("the garden and the play room", ["L", "G", "P"]) == ["G", "P"]
    assert parse_rooms("LEKCBAL", B1) == list("LEKCBAL")
    assert parse_rooms("wine cellar", None) == ["W"]
    assert parse_rooms("a", B1) == ["A"]  # a single letter is a room, even "a"
    assert parse_rooms("L THE K", ["L", "T", "H", "E", "K"]) == ["L", "T", "H", "E", "K"]  # capitals are rooms
    assert parse_rooms("L then K", ["L", "T", "H", "E", "K"]) == ["L", "K"]


@pytest.mark.parametrize("text, message", [
    ("L Q B", "room Q is not in this house"),
    ("LKQ", "room Q is not in this house"),
    ("garden", "room G (garden) is not in this house"),
    ("bedroom", "unknown room 'bedroom'"),
    ("L 7", "unknown room '7'"),
])
def test_parse_rooms_errors(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_rooms(text, B1)
