"""The paper's ending (task option protocol=paper, reference §7) as rules of the game: halting under the release's two
rules, proposals that settle pairwise, the round limit, and the present-deal step (claims that fit make the deal,
leftovers allowed; claims that do not are no deal); bad /present input changes nothing; symbolic agents play it."""
from __future__ import annotations

import pytest

from tasks.core import Chat, Command
from tasks.core.evaluation import play_game
from tasks.dond import paper_rules
from tests.test_dond_game import SPEC, _errors, _match

H = "halt negotiation"


def say(m, seat, text, t=1.0):
    return m.handle(Chat(seat, text, t=t))


def cmd(m, seat, name, *args, t=1.0):
    return m.handle(Command(seat, name, tuple(args), t=t))


@pytest.mark.parametrize("alice, bob, rule, stops", [
    (H, H, "both", True), (f"ok, {H}", f"fine. {H}", "both", True), (H, "no way", "both", False),
    (H, "no way", "either", True), ("no", f"{H} now", "either", True), ("no", f"ok {H}", "either", False),
])
def test_the_releases_halting_rules(alice, bob, rule, stops):
    assert paper_rules.halted(alice, bob, rule) is stops


def test_halting_ends_the_talk_then_fitting_claims_make_the_deal():
    m, _ = _match(protocol="paper")
    say(m, "alice", "I would like the balls.")
    say(m, "bob", H)
    assert m.game.phase == "negotiating"  # rule "both": Bob alone does not halt
    say(m, "alice", H)
    assert m.game.phase == "negotiating"  # checked after Bob's message of the round
    effects = say(m, "bob", H)
    assert m.game.phase == "presenting" and m.game.negotiation_end == "halted"
    assert any("present" in getattr(e, "text", "") for e in effects)
    assert _errors(cmd(m, "alice", "propose", "books=1", "hats=0", "balls=0"), "alice")  # talk is over
    assert _errors(say(m, "alice", "wait")) == [] and m.game.phase == "presenting"  # chat changes nothing
    cmd(m, "alice", "present", "books=1", "hats=0", "balls=2")
    assert _errors(cmd(m, "alice", "present", "books=0", "hats=0", "balls=0"), "alice")  # once only
    assert _errors(cmd(m, "bob", "present", "books=5"), "bob") and not m.over  # a bad claim changes nothing
    cmd(m, "bob", "present", "books=0", "hats=2", "balls=0")  # one ball left over: still a deal
    r = m.game.results()
    assert m.over and r["deal"] and r["end"] == "presented" and r["split"] == {"alice": [1, 0, 2], "bob": [0, 2, 0]}
    assert (r["alice_score"], r["bob_score"], r["envy_free"]) == (8, 6, False)  # not an exact split: not EF
    assert r["rounds"] == 2 and r["negotiation_end"] == "halted"


def test_claims_that_do_not_fit_are_no_deal_and_either_rule_halts_on_alice_alone():
    m, opening = _match(protocol="paper", halt="either")
    welcome = [e.text for e in opening if getattr(e, "to", "") is None and hasattr(e, "text")][0]
    assert "/present" in welcome and "halt negotiation" in welcome and "/accept" not in welcome  # a person is told
    say(m, "alice", H)
    assert m.game.negotiation_end == "halted" and m.game.round == 1
    cmd(m, "alice", "present", "books=1", "hats=0", "balls=3")
    cmd(m, "bob", "present", "books=1", "hats=2", "balls=0")
    r = m.game.results()
    assert m.over and not r["deal"] and r["end"] == "claims_differ" and r["total"] == 0


def test_proposals_that_settle_pairwise_and_the_round_limit_end_the_talk():
    m, _ = _match(protocol="paper")
    for _ in range(2):
        cmd(m, "alice", "propose", "books=1", "hats=0", "balls=2")
        say(m, "alice", "I take the book and two balls.")
        assert m.game.phase == "negotiating"
        cmd(m, "bob", "propose", "books=0", "hats=2", "balls=1")  # the same split in Bob's frame
        say(m, "bob", "Agreed: I take the hats and a ball.")
    assert m.game.negotiation_end == "proposals settled" and m.game.round == 2
    m, _ = _match(protocol="paper", max_rounds=2)
    for text in ("a", "b", "c", "d"):
        say(m, "alice" if text in "ac" else "bob", text)
    assert m.game.negotiation_end == "rounds"
    m, _ = _match(protocol="paper")
    cmd(m, "alice", "propose", "books=1", "hats=0", "balls=2")
    cmd(m, "bob", "accept")
    assert m.game.negotiation_end == "accepted" and not m.over  # an /accept ends the talk, not the game


def test_symbolic_agents_play_the_papers_ending():
    rec = play_game(SPEC, 3, {"alice": "bayes", "bob": "greedy"}, {"protocol": "paper"})
    r = rec.results
    assert r["status"] == "completed" and r["protocol"] == "paper" and r["end"] in ("presented", "claims_differ")
    assert set(r["presented"]) == {"alice", "bob"} and r["negotiation_end"]
