"""Deal or No Deal's rules: offers in each player's own frame, accept / reject / counter-offers / matching offers,
stale offer ids, bad input that changes nothing, the round limit, walking away, the metrics as the paper defines
them, the seeded generator, and the leak test: nothing a seat receives depends on the partner's values."""
from __future__ import annotations

import pickle

import pytest

from tasks.core.evaluation import LOCAL_TIMERS, play_game
from tasks import get_task
from tasks.core import (
    Chat, Command, GameOver, Join, LogEvent, SeatInfo, addressed_to, build_match, effect_to_json,
)
from tasks.dond import generator, items, metrics
from tasks.dond.generator import make_instance
from tasks.dond.parse import SplitError, parse_hard, parse_split
from tests.leaks import find_leaks

SPEC = get_task("dond")
# 1 book, 2 hats, 3 balls; Alice: book 4, hat 0, ball 2; Bob: book 1, hat 3, ball 1 (L1 = 3 + 3 + 1 = 7)
INST = make_instance((1, 2, 3), (4, 0, 2), (1, 3, 1))


def _match(inst=INST, **options):
    seats = {s: SeatInfo("person", s.title()) for s in SPEC.seats}
    m, _ = build_match(SPEC, 1, seats, options=options, instance=inst, timers=LOCAL_TIMERS, with_brains=False,
                       code_source=lambda: "CODE")
    effects = m.open(0.0)
    for s in SPEC.seats:
        effects += m.handle(Join(s, t=0.0))
    return m, effects


def _errors(effects, seat=None):
    return [e.text for e in effects if getattr(e, "kind", "") == "error" and (seat is None or e.to == seat)]


def _to(effects, seat):
    """What a person in `seat` receives: messages, views and log rows addressed to them (rows addressed to nobody
    and the results of GameOver stay with the researcher; tests/test_dond_slurk.py checks the wire)."""
    return [effect_to_json(e) for e in effects if addressed_to(e, seat) and not isinstance(e, GameOver)
            and not (isinstance(e, LogEvent) and e.to is None)]


def test_parse_split_forms_and_refusals():
    c = (1, 2, 3)
    for args in (("books=1", "hats=2", "balls=0"), ("1 2 0",), ("book:1, hat:2",), ("1 book 2 hats",),
                 ("one", "book", "two", "hats", "no", "balls"), ("bk=1", "h=2")):
        assert parse_split(args, c) == (1, 2, 0), args
    assert parse_split(("all", "balls"), c) == (0, 0, 3)
    assert parse_split(("I get the book and 2 hats",), c) == (1, 2, 0)   # the only book; number-first pairs
    assert parse_split(("book 1 hat 2 ball 0",), c) == (1, 2, 0)          # name-first pairs
    assert parse_split(("2 balls and the book",), c) == (1, 0, 2)
    for bad in (("books=2",), ("b=1",), ("1", "2"), ("hats",), ("%%", "@@"), (), ("hats=1", "hats=2"),
                ("you get 2 books",), ("the balls",)):
        with pytest.raises(SplitError):
            parse_split(bad, c)
    assert parse_hard("L1<=4") == parse_hard("l1 <= 4") == parse_hard("4") == 4 and parse_hard(None) is None


def test_offers_are_seen_in_each_players_own_frame_and_accept_ends_with_the_deal():
    m, _ = _match()
    m.handle(Chat("alice", "hi! I want the book", t=1.0))
    eff = m.handle(Command("alice", "propose", ("books=1", "hats=0", "balls=1"), t=2.0))
    assert not _errors(eff)
    a, b = m.game.view("alice"), m.game.view("bob")
    assert a["offers"][0]["by"] == "me" and a["offers"][0]["mine"] == [1, 0, 1] and a["offers"][0]["my_value"] == 6
    assert b["offers"][0]["by"] == "partner" and b["offers"][0]["mine"] == [0, 2, 2]
    assert b["offers"][0]["my_value"] == 8 and b["can_accept"] == 1 and a["can_accept"] is None
    told = [e.text for e in eff if getattr(e, "to", None) == "bob" and hasattr(e, "text")]
    assert any("you get no books, 2 hats and 2 balls (worth 8 to you)" in t for t in told)
    assert _errors(m.handle(Command("alice", "accept", t=3.0)), "alice")  # her own offer is not hers to accept
    m.handle(Command("bob", "accept", ("1",), t=4.0))
    assert m.over and m.results["deal"] and m.results["split"] == {"alice": [1, 0, 1], "bob": [0, 2, 2]}
    assert (m.results["alice_score"], m.results["bob_score"], m.results["total"]) == (6, 8, 14)
    assert m.results["rounds"] == 1 and m.results["end"] == "accepted"
    assert m.game.view("bob")["result"] == {"deal": True, "mine": [0, 2, 2], "theirs": [1, 0, 1], "my_score": 8,
                                            "reason": "accepted"}


def test_reject_with_reason_counter_offer_stale_id_and_matching_offer():
    m, _ = _match()
    m.handle(Command("alice", "propose", ("1", "2", "3"), t=1.0))
    eff = m.handle(Command("bob", "reject", ("1", "I", "need", "the", "hats"), t=2.0))
    assert [o["status"] for o in m.game.view("alice")["offers"]] == ["rejected"]
    assert m.game.view("alice")["offers"][0]["reason"] == "I need the hats"
    assert any("rejected your offer #1: I need the hats" in e.text for e in eff if getattr(e, "to", "") == "alice")
    m.handle(Command("bob", "propose", ("hats=2",), t=3.0))          # Bob: 2 hats; Alice would get book + 3 balls
    m.handle(Command("alice", "propose", ("books=1", "balls=2"), t=4.0))
    before = pickle.dumps(m.game)
    assert "no longer standing" in _errors(m.handle(Command("bob", "accept", ("2",), t=5.0)), "bob")[0]
    assert pickle.dumps(m.game) == before
    assert [o["status"] for o in m.game.view("bob")["offers"]] == ["rejected", "open", "open"]
    # Alice re-proposes what Bob's standing offer gives her: the same split, so that is the deal
    m.handle(Command("alice", "propose", ("books=1", "hats=0", "balls=3"), t=6.0))
    assert m.over and m.results["end"] == "matched" and m.results["split"]["bob"] == [0, 2, 0]


def test_bad_moves_get_a_private_message_and_change_nothing():
    m, _ = _match()
    bad = [Command("bob", "accept"), Command("bob", "reject"), Command("alice", "propose", ("books=4",)),
           Command("alice", "propose", ()), Command("alice", "propose", ("apples=1",)),
           Command("alice", "nodeal", ("now",))]
    for inp in bad:
        before = pickle.dumps(m.game)
        errs = _errors(m.handle(inp))
        assert errs and pickle.dumps(m.game) == before, inp
    assert not m.over


def test_the_round_limit_allows_only_a_closing_accept():
    m, _ = _match(max_rounds=2)
    m.handle(Command("alice", "propose", ("1", "0", "0"), t=1.0))
    m.handle(Chat("alice", "that is my offer", t=1.5))      # the same turn
    assert m.game.view("alice")["round"] == 1
    m.handle(Command("bob", "propose", ("0", "2", "0"), t=2.0))
    m.handle(Chat("alice", "no way", t=3.0))
    assert m.game.view("bob")["round"] == 2 and m.game.view("bob")["last_round"]
    m.handle(Command("bob", "propose", ("0", "2", "1"), t=4.0))  # the 4th turn: the last
    assert not m.over
    m.handle(Command("alice", "accept", t=5.0))              # a closing accept still counts
    assert m.over and m.results["deal"] and m.results["rounds"] == 2
    m2, _ = _match(max_rounds=1)
    m2.handle(Command("alice", "propose", ("1", "0", "0"), t=1.0))
    m2.handle(Chat("bob", "hmm", t=2.0))
    m2.handle(Chat("alice", "well?", t=3.0))                  # anything but /accept now ends it
    assert m2.over and not m2.results["deal"] and m2.results["end"] == "rounds"
    assert (m2.results["alice_score"], m2.results["bob_score"], m2.results["pareto_optimal"]) == (0, 0, False)


def test_walking_away_ends_without_a_deal():
    m, _ = _match()
    m.handle(Command("bob", "nodeal", t=1.0))
    assert m.over and m.results["end"] == "walked_away" and m.results["total"] == 0
    assert m.game.view("alice")["result"]["deal"] is False


def test_metrics_follow_the_papers_definitions():
    c, va, vb = (1, 2, 3), (4, 0, 2), (1, 3, 1)
    # Alice takes the book and the balls (10), Bob the hats (6): EF for both, and PO
    o = metrics.outcome(c, va, vb, (1, 0, 3))
    assert (o["alice_score"], o["bob_score"], o["envy_free"], o["pareto_optimal"], o["ef_po"]) == (10, 6, True, True, True)
    # Alice takes everything: Bob envies her, and the hats (worth 0 to her) would make Bob better off: not PO
    o = metrics.outcome(c, va, vb, (1, 2, 3))
    assert (o["envy_free"], o["pareto_optimal"]) == (False, False)
    # Alice takes the hats (worth 0 to her): dominated
    assert metrics.outcome(c, va, vb, (0, 2, 0))["pareto_optimal"] is False
    # selections that do not form one split are never EF
    assert metrics.outcome(c, va, vb, (1, 0, 3), (0, 1, 0))["envy_free"] is False
    ref = metrics.reference(c, va, vb)
    assert ref["best_split"] == list(items.best_split(c, va, vb)) and ref["best_total"] >= 16 and ref["has_ef"]


@pytest.mark.parametrize("seed", range(40))
def test_generated_instances_satisfy_the_constraints(seed):
    inst = SPEC.generate(seed, {})
    c = inst["counts"]
    assert all(1 <= n <= 4 for n in c) and 5 <= sum(c) <= 7
    for s in SPEC.seats:
        v = inst["values"][s]
        assert all(0 <= x <= 10 for x in v) and items.utility(c, v) == 10
    assert inst["has_ef"] and items.ef_splits(c, inst["values"]["alice"], inst["values"]["bob"])
    assert SPEC.generate(seed, {}) == inst  # seeded
    hard = SPEC.generate(seed, {"hard": "L1<=4"})
    assert generator.is_hard(hard["counts"], hard["values"]["alice"], hard["values"]["bob"], 4) and hard["l1"] <= 4


def test_the_generator_samples_values_uniformly_over_omega():
    """Over many seeds every valuation of a count triple turns up (no valuation is favoured or missing)."""
    seen: dict = {}
    for seed in range(3000):
        inst = generator.generate(seed, {"ef": False})
        seen.setdefault(tuple(inst["counts"]), set()).add(tuple(inst["values"]["alice"]))
    common = max(seen, key=lambda c: len(seen[c]))
    assert seen[common] == set(items.valuations(common))
    assert len(seen) == len(generator.COUNT_TRIPLES)


def test_the_instance_option_fixes_the_instance_whatever_the_seed():
    assert SPEC.generate(3, {"instance": 11}) == SPEC.generate(99, {"instance": 11}) == SPEC.generate(11, {})


def _play(values_alice):
    inst = make_instance((1, 2, 3), values_alice, (1, 3, 1))
    m, effects = _match(inst)
    for inp in [Chat("alice", "hello", t=1.0), Command("alice", "propose", ("1", "0", "2"), t=1.1),
                Command("bob", "reject", ("1", "not", "enough"), t=2.0), Command("bob", "propose", ("0", "2", "1"), t=2.1),
                Command("alice", "propose", ("0", "1", "0"), t=3.0), Command("alice", "accept", ("9",), t=3.5),
                Command("bob", "accept", t=4.0)]:
        effects += m.handle(inp)
    assert m.over
    return m, effects


def test_nothing_bob_receives_depends_on_alices_values():
    """The leak test: the same moves with different values for Alice give Bob exactly the same messages, pages and
    readable log rows; and neither seat ever receives the other's tagged values."""
    m1, e1 = _play((4, 0, 2))
    m2, e2 = _play((0, 2, 2))
    assert _to(e1, "bob") == _to(e2, "bob") and _to(e1, "bob")
    assert _to(e1, "alice") != _to(e2, "alice")  # Alice's own page does show her values
    for m, e in ((m1, e1), (m2, e2)):
        for seat in SPEC.seats:
            other = "bob" if seat == "alice" else "alice"
            assert find_leaks(_to(e, seat), m.game.private_parts(other)) == []
            assert find_leaks(_to(e, seat), m.game.private_parts(seat))  # the detector finds the own values


def test_self_play_finishes_and_scores(tmp_path):
    agents = {"alice": "greedy", "bob": "fair-split"}
    rec = play_game(SPEC, 4, agents, log_path=str(tmp_path / "g.jsonl"))
    r = rec.results
    assert r["status"] == "completed" and r["total"] == r["alice_score"] + r["bob_score"]
    assert r["best_total"] is not None and 1 <= r["rounds"] <= 20
    assert (tmp_path / "g.jsonl").read_text().count('"game_start"') == 1


def test_the_cli_table_has_ours_and_best_rows_and_per_game_rows(tmp_path, capsys):
    from bots.local import main
    assert main(["dond", "--games", "3", "--agents", "greedy,fair-split", "--hard", "L1<=4",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "3 instances (generated, hard L1<=4)" in out and "seeds 0..2" in out
    rows = [ln.split()[0:2] for ln in out.splitlines()]
    assert ["this", "run:", "greedy,fair-split"] in [ln.split()[0:3] for ln in out.splitlines()]
    assert ["best", "(EF+PO,"] in rows and "(preset ours)" in out
    assert "humans (data file)" not in out  # generated instances have no outcomes of people
    assert (tmp_path / "games.csv").read_text().count("\n") == 4 and len(list((tmp_path / "logs").iterdir())) == 3
