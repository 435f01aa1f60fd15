"""Rules of TRAVELING ADVENTURERS, driven through the core Match and MatchDriver (no brains unless stated)."""
from __future__ import annotations

import json

import pytest

from tasks.core import Action, Chat, Command, Context, GameOver, LogEvent, Match, MatchDriver, Message, SeatInfo, View
from tasks.travel.board import Board, edge, is_valid_tour
from tasks.travel.brains import SolverBrain
from tasks.travel.game import TravelGame, edge_key
from tasks.travel.generator import PRESET_BOARDS, PRESET_OPTIMA

# Preset board 1 (rooms L E B K C A): the optimum 52 is the cycle L-A-B-C-K-E-L (or L-C-K-B-A-E-L).
OPT = ["L", "A", "B", "C", "K", "E", "L"]
OPT2 = ["L", "C", "K", "B", "A", "E", "L"]
OTHER = ["L", "E", "B", "K", "C", "A", "L"]


class Room:
    """A match with two seats and no brains: feed inputs, read effects and views."""

    def __init__(self, seed=0, brains=None, **options):
        options.setdefault("boards", "preset")
        options.setdefault("index", 0)
        self.game = TravelGame(seed, options)
        self.match = Match(self.game, {"light": SeatInfo("agent"), "ghost": SeatInfo("agent")})
        self.driver = MatchDriver(self.match, brains or {}, clock=lambda: 0.0)
        self.effects = []
        for batch in self.driver.open():
            self.effects += batch

    def cmd(self, seat, name, *args, turn=True):
        return self.feed(Command(seat, name, tuple(args), turn=turn))

    def chat(self, seat, text):
        return self.feed(Chat(seat, text))

    def feed(self, inp):
        out = []
        for batch in self.driver.feed(inp):
            out += batch
        self.effects += out
        return out

    def view(self, seat):
        return next(v.data for v in self.match.views() if v.seat == seat)

    @property
    def game_now(self) -> TravelGame:
        return self.match.game  # the match swaps in a copy on rollback


def errors(effects, seat=None):
    return [e.text for e in effects if isinstance(e, Message) and e.kind == "error" and (seat is None or e.to == seat)]


def public(effects):
    return [e.text for e in effects if isinstance(e, Message) and e.to is None]


def over(effects):
    return next((e for e in effects if isinstance(e, GameOver)), None)


def logged(effects, event):
    return [e.data for e in effects if isinstance(e, LogEvent) and e.event == event]


# ----------------------------------------------------------------------------------------------------------------
# set-up, options, instance, view schema


def test_view_schema_and_start_state():
    room = Room()
    v = room.view("light")
    assert [r["id"] for r in v["rooms"]] == ["L", "E", "B", "K", "C", "A"]
    assert v["rooms"][0] == {"id": "L", "name": "living room"}
    assert v["start"] == "L" and v["world"] == "light"
    board = PRESET_BOARDS[0]
    assert len(v["my_coins"]) == 15
    for k, w in v["my_coins"].items():
        u, x = k.split("-")
        assert u < x and w == board.own("light", (u, x))  # keys "A-B", letters sorted
    assert v["partner_coins"] == {}
    assert v["agreed"] == ["L"] and v["pending"] is None
    assert v["submitted"] == {"me": None, "partner": False}
    assert v["turns_left"] == {"me": 15, "partner": 15}
    assert v["result"] is None
    assert room.view("ghost")["world"] == "ghost"
    # every seat got its own coins in a private message, and nobody else's
    privates = [e for e in room.effects if isinstance(e, Message) and e.to]
    assert {e.to for e in privates} == {"light", "ghost"}
    assert all(not e.html for e in room.effects if isinstance(e, Message))


@pytest.mark.parametrize("options, rooms, board_id", [
    ({"boards": "preset", "index": 7}, 6, "preset-2"),
    ({"boards": "generated", "rooms": 8}, 8, "generated-8-5"),
    ({"boards": "human"}, 6, "human-5"),
    ({"boards": "tutorial"}, 4, "tutorial-5"),
])
def test_board_options(options, rooms, board_id):
    g = TravelGame(5, options)
    assert g.board.n == rooms and g.board_id == board_id
    inst = g.instance()
    assert Board.from_json(inst["board"]) == g.board
    assert inst["optimum"] == max(g.board.score(t) for t in [inst["optimal_tours"][0]])
    for t in inst["optimal_tours"]:
        assert is_valid_tour(g.board, t)[0] and g.board.score(t) == inst["optimum"]
    if options["boards"] == "human":
        assert g.board.rooms == ("L", "K", "B", "A", "G", "P")


def test_generated_boards_follow_the_seed_and_presets_their_optima():
    assert TravelGame(3, {"boards": "generated"}).board == TravelGame(3, {"boards": "generated"}).board
    assert TravelGame(3, {"boards": "generated"}).board != TravelGame(4, {"boards": "generated"}).board
    for i in range(6):
        assert TravelGame(0, {"boards": "preset", "index": i}).optimum == PRESET_OPTIMA[i]
    b = PRESET_BOARDS[2]
    assert TravelGame(0, {"board": b.to_json()}).board == b


# ----------------------------------------------------------------------------------------------------------------
# proposals


def test_propose_extend_agree_and_pending_in_both_views():
    room = Room()
    room.cmd("light", "propose", "K")
    assert room.view("light")["pending"] == {"id": 1, "by": "light", "mine": True, "path": ["L", "K"],
                                             "kind": "extend"}
    assert room.view("ghost")["pending"] == {"id": 1, "by": "light", "mine": False, "path": ["L", "K"],
                                             "kind": "extend"}
    out = room.cmd("ghost", "agree")
    assert room.view("light")["agreed"] == ["L", "K"] and room.view("ghost")["pending"] is None
    assert logged(out, "agreed_path")[0]["path"] == ["L", "K"]
    room.cmd("ghost", "propose", "B", "A")  # several rooms extend the agreed path
    assert room.view("light")["pending"]["path"] == ["L", "K", "B", "A"]


def test_full_tour_proposal_is_closed_and_counter_proposal_replaces():
    room = Room()
    room.cmd("light", "propose", "L", "E", "B", "K", "C", "A")  # every room: the return to L is implied
    assert room.view("ghost")["pending"]["path"] == OTHER and room.view("ghost")["pending"]["kind"] == "tour"
    room.cmd("ghost", "propose", *OPT)
    p = room.view("light")["pending"]
    assert p["by"] == "ghost" and p["path"] == OPT and not p["mine"]
    room.cmd("light", "agree")
    assert room.view("ghost")["agreed"] == OPT
    out = room.cmd("light", "propose", "K")
    assert "already a complete tour" in errors(out, "light")[0]


def test_reject_and_withdraw():
    room = Room()
    room.cmd("light", "propose", "K")
    out = room.cmd("ghost", "reject")
    assert room.view("light")["pending"] is None and room.view("light")["agreed"] == ["L"]
    assert logged(out, "response")[0]["answer"] == "reject"
    assert errors(room.cmd("ghost", "reject"), "ghost")  # nothing to reject
    room.cmd("ghost", "propose", "E")
    assert errors(room.cmd("ghost", "agree"), "ghost")  # not one's own proposal
    room.cmd("ghost", "withdraw")
    assert room.view("light")["pending"] is None
    assert errors(room.cmd("ghost", "withdraw"), "ghost")


def test_undo_and_backtrack_need_the_partners_agreement():
    room = Room()
    room.cmd("light", "propose", "K", "B", "A")
    room.cmd("ghost", "agree")
    room.cmd("ghost", "undo")
    assert room.view("light")["pending"] == {"id": 2, "by": "ghost", "mine": False, "path": ["L", "K", "B"],
                                             "kind": "revise"}
    assert room.view("light")["agreed"] == ["L", "K", "B", "A"]  # not before the partner agrees
    room.cmd("light", "agree")
    assert room.view("ghost")["agreed"] == ["L", "K", "B"]
    room.cmd("light", "undo", "K")
    room.cmd("ghost", "agree")
    assert room.view("ghost")["agreed"] == ["L", "K"]
    # a path from the start that leaves the agreed path is a revision
    room.cmd("ghost", "propose", "L", "E", "A")
    assert room.view("light")["pending"]["kind"] == "revise"
    room.cmd("light", "agree")
    assert room.view("light")["agreed"] == ["L", "E", "A"]


@pytest.mark.parametrize("name, args, fragment", [
    ("propose", ("Z",), "not in this house"),
    ("propose", ("L", "bathroom", "B"), "named twice"),
    ("propose", ("L", "K", "L"), "skips"),
    ("propose", ("L", "K", "L", "B"), "returns to L"),
    ("propose", (), "Usage"),
    ("undo", ("A",), "not on the agreed path"),
    ("undo", ("K",), "already ends in K"),
    ("share", ("L-Q",), "not in this house"),
    ("share", ("LKB",), "not a hallway"),
    ("submit", (), "not a complete tour"),
    ("submit", ("L", "K", "B", "L"), "skips"),
    ("submit", ("K", "L", "E", "B", "C", "A", "K"), "start in L"),
    ("dance", (), "Unknown command"),
])
def test_bad_arguments_are_refused_without_any_state_change(name, args, fragment):
    room = Room()
    room.cmd("light", "propose", "K")
    room.cmd("ghost", "agree")
    before = {s: room.view(s) for s in ("light", "ghost")}
    out = room.cmd("light", name, *args)
    errs = errors(out, "light")
    assert errs and fragment in errs[0], errs
    assert {s: room.view(s) for s in ("light", "ghost")} == before
    assert not [e for e in out if isinstance(e, View)]


def test_room_already_on_the_agreed_path_is_refused():
    room = Room()
    assert "Nothing to undo" in errors(room.cmd("light", "undo"), "light")[0]
    room.cmd("light", "propose", "K")
    room.cmd("ghost", "agree")
    errs = errors(room.cmd("ghost", "propose", "kitchen"), "ghost")
    assert errs and "already on the agreed path" in errs[0]
    assert room.view("ghost")["pending"] is None


def test_page_actions_use_the_same_commands():
    room = Room()
    room.feed(Action("light", {"command": "propose", "args": ["K", "B"]}))
    assert room.view("ghost")["pending"]["path"] == ["L", "K", "B"]
    out = room.feed(Action("light", {"command": "propose", "args": [{"x": 1}]}))
    assert errors(out, "light")


# ----------------------------------------------------------------------------------------------------------------
# sharing and privacy


def test_share_reveals_own_coins_publicly_and_on_both_pages():
    room = Room()
    board = PRESET_BOARDS[0]
    out = room.cmd("light", "share", "L-K", "A-B")
    assert room.view("ghost")["partner_coins"] == {"K-L": board.own("light", ("L", "K")), "A-B": board.own("light", ("A", "B"))}
    assert room.view("light")["partner_coins"] == {}  # the ghost shared nothing
    assert room.view("light")["my_shared"] == ["K-L", "A-B"]
    assert any("Light shares their coins: K-L" in t for t in public(out))
    assert logged(out, "share")[0]["coins"] == {"K-L": board.own("light", ("L", "K")), "A-B": board.own("light", ("A", "B"))}
    assert errors(room.cmd("light", "share", "K-L"), "light")  # already shared
    room.cmd("ghost", "share", "all")
    assert room.view("light")["partner_coins"] == {edge_key(e): w for e, w in board.weights["ghost"].items()}
    # sharing is free: no turn spent
    assert room.view("light")["turns_left"] == {"me": 15, "partner": 15}


def test_views_never_contain_unshared_partner_coins_in_a_whole_game():
    board = PRESET_BOARDS[0]
    brains = {s: SolverBrain(s, 0) for s in ("light", "ghost")}
    room = Room(brains=brains)
    views = [e for e in room.effects if isinstance(e, View)]
    assert over(room.effects).status == "completed"
    assert len(views) > 6
    shared = {"light": set(), "ghost": set()}
    for e in room.effects:
        if isinstance(e, LogEvent) and e.event == "share":
            shared[e.data["seat"]].update(e.data["coins"])
        if isinstance(e, View) and "rooms" in e.data:
            seat, other = e.seat, ("ghost" if e.seat == "light" else "light")
            v = e.data
            assert set(v["partner_coins"]) <= shared[other]
            for k, w in v["partner_coins"].items():
                assert w == board.weights[other][edge(*k.split("-"))]
            assert v["my_coins"] == {edge_key(x): w for x, w in board.weights[seat].items()}
            assert "weights" not in json.dumps(v)


# ----------------------------------------------------------------------------------------------------------------
# submitting


def test_submit_identical_tours_in_either_direction_completes():
    room = Room()
    room.cmd("light", "propose", *OPT)
    room.cmd("ghost", "agree")
    out = room.cmd("ghost", "submit")
    assert room.view("light")["submitted"] == {"me": None, "partner": True}
    assert room.view("light")["partner_submitted"] == OPT
    assert any("Ghost submitted the tour" in t and "submit the same" in t for t in public(out))
    out = room.cmd("light", "submit", *OPT[::-1])
    end = over(out)
    assert end and end.status == "completed"
    r = end.results
    assert r["identical"] and r["correct"] and r["optimal"]
    assert r["score"] == r["optimum"] == 52 and r["ratio"] == 1.0 and r["percentile"] == 100.0
    assert r["bonus"] == {"light": 0.5, "ghost": 0.5} and r["tokens"] == 0
    assert r["turns"] == 2 and r["turns_by_seat"] == {"light": 1, "ghost": 1}
    assert logged(out, "score")[0]["score"] == 52
    final = room.view("light")["result"]
    assert final["status"] == "completed" and final["identical"] and final["optimal"] and final["score"] == 52
    assert final["optimal_tour"] in (OPT, OPT2)


def test_premature_submit_waits_for_the_partner_then_completes_non_optimal():
    room = Room()
    out = room.cmd("ghost", "submit", *OTHER)
    assert any("not the agreed path" in t for t in public(out))
    assert room.view("light")["submitted"]["partner"] and room.view("light")["result"] is None
    out = room.cmd("light", "submit", "L", "A", "C", "K", "B", "E")  # = OTHER reversed, return implied
    r = over(out).results
    assert r["identical"] and r["correct"] and not r["optimal"]
    assert r["score"] == PRESET_BOARDS[0].score(OTHER) < 52 and r["bonus"] == {}
    assert 0 < r["percentile"] < 100


def test_mismatching_submissions_stay_open_until_one_resubmits():
    room = Room()
    room.cmd("light", "submit", *OPT)
    out = room.cmd("ghost", "submit", *OTHER)
    assert any("differ" in t for t in public(out)) and not over(out)
    assert errors(room.cmd("ghost", "submit", *OTHER), "ghost")  # the same again: refused
    out = room.cmd("ghost", "submit", *OPT)
    assert over(out).status == "completed" and over(out).results["optimal"]


def test_a_new_agreement_withdraws_contradicting_submissions():
    room = Room()
    room.cmd("light", "submit", *OTHER)
    room.cmd("ghost", "propose", *OPT)
    out = room.cmd("light", "agree")
    assert any("withdrawn" in t for t in public(out))
    assert room.view("light")["submitted"]["me"] is None
    room.cmd("light", "submit")
    assert over(room.cmd("ghost", "submit")).results["optimal"]


# ----------------------------------------------------------------------------------------------------------------
# turns


def test_turn_limit_counts_chat_and_moves_but_not_share_or_submit_then_times_out():
    room = Room(turn_limit=2)
    room.chat("light", "hello")
    room.cmd("light", "share", "all")
    room.cmd("light", "propose", "K")
    assert room.view("light")["turns_left"] == {"me": 0, "partner": 2}
    out = room.cmd("light", "propose", "E")
    assert "used all 2" in errors(out, "light")[0]
    out = room.chat("light", "still there?")
    assert errors(out, "light")
    room.cmd("ghost", "reject")
    out = room.chat("ghost", "sorry")
    end = over(out)
    assert end and end.status == "timeout"
    assert not end.results["identical"] and end.results["score"] == 0
    assert end.results["turns"] == 4 and end.results["messages"] == 2
    assert room.view("ghost")["result"]["status"] == "timeout"


def test_without_turns_an_agreed_tour_can_still_be_submitted():
    room = Room(turn_limit=1)
    room.cmd("light", "propose", *OPT)
    out = room.cmd("ghost", "agree")
    assert not over(out) and any("/submit the agreed tour" in t for t in public(out))
    room.cmd("ghost", "submit")
    assert over(room.cmd("light", "submit")).status == "completed"


def test_the_moves_of_one_agent_turn_cost_one_turn():
    # The rules read an optional `turn` flag from the context (False for the 2nd..nth move of one agent turn).
    game = TravelGame(0, {"boards": "preset", "index": 0})
    first, rest = Context(0.0, "light"), Context(0.0, "light")
    first.turn, rest.turn = True, False
    game.on_chat(first, "light", "hi")
    game.cmd_propose(rest, "light", ("K",))
    assert game.budget.used["light"] == 1
    nxt = Context(0.0, "light")
    game.cmd_share(nxt, "light", ("all",))  # a free move opens the turn ...
    game.cmd_withdraw(rest, "light", ())
    game.cmd_propose(rest, "light", ("E",))  # ... and the first costly move of that turn pays for it
    assert game.budget.used["light"] == 2
