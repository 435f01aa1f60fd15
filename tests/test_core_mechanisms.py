"""The shared mechanisms (tasks/core/mechanisms.py) and the wording helpers (tasks/core/wording.py), on their own.

Every refusal is checked to leave the mechanism exactly as it was (the match relies on it only through rollback,
but tasks call mechanisms before other changes too), and every mechanism is checked to deep-copy independently.
"""
import copy
import dataclasses
import json

import pytest

from tasks.core.mechanisms import ADVISORY_NEEDS_NO_ANSWER, CommitReveal, ProposalCycle, RuleError, SubmitGate
from tasks.core.turns import ChatTurns, Phases, TurnBudget, TurnOrder
from tasks.core.wording import join_names, name_of, others, plural, waiting_text, who_to_wait_for

NAMES = {"u1": "Alice", "u2": "Bob", "asst": "Carol", "a": "Ann", "b": "Ben", "c": "Cy"}


def refused(obj, fn, *args, match=None, **kwargs):
    """fn(*args) raises RuleError (matching `match`) and leaves obj's state exactly as it was."""
    before = copy.deepcopy(vars(obj))
    with pytest.raises(RuleError, match=match) as info:
        fn(*args, **kwargs)
    assert vars(obj) == before
    return str(info.value)


def copies_independently(obj, mutate):
    """A deep copy equals the original, and changing the original afterwards leaves the copy alone."""
    dup = copy.deepcopy(obj)
    assert vars(dup) == vars(obj)
    before = copy.deepcopy(vars(dup))
    mutate(obj)
    assert vars(obj) != before and vars(dup) == before


# --- wording ----------------------------------------------------------------------------------------------------

def test_wording_two_and_three_seats():
    assert join_names([]) == "" and join_names(["A"]) == "A" and join_names(["A", "B"]) == "A and B"
    assert join_names(["A", "B", "C"]) == "A, B and C"
    assert name_of("u1", NAMES) == "Alice" and name_of("zz", NAMES) == "zz" and name_of("u1") == "u1"
    assert name_of("u1", str.upper) == "U1"
    assert others("a", ["a", "b"]) == "your partner"
    assert others("a", ["a", "b"], NAMES) == "your partner"
    assert others("asst", ["u1", "u2", "asst"], NAMES) == "Alice and Bob"
    assert others("asst", ["u1", "u2", "asst"]) == "the others"
    assert others(None, ["a", "b"], NAMES) == "Ann and Ben"
    assert waiting_text(["u2"], NAMES) == "Waiting for Bob."
    assert waiting_text(["u1", "u2"], NAMES) == "Waiting for Alice and Bob."
    assert waiting_text([], NAMES) == ""
    assert plural(1, "has", "have") == "has" and plural(2, "has", "have") == "have"
    seats3 = ["u1", "u2", "asst"]
    assert who_to_wait_for("a", ["b"], ["a", "b"]) == "your partner"
    assert who_to_wait_for("a", ["b"], ["a", "b"], NAMES) == "Ben"
    assert who_to_wait_for("asst", ["u1", "u2"], seats3, NAMES) == "Alice and Bob"
    assert who_to_wait_for("asst", ["u1", "u2"], seats3) == "the others"
    assert who_to_wait_for("asst", ["u2"], seats3, NAMES) == "Bob"


# --- proposals --------------------------------------------------------------------------------------------------

def mediation():
    """DialOp Mediation: two users and an assistant; only the assistant proposes; both users must accept."""
    return ProposalCycle(["u1", "u2", "asst"], proposers=["asst"], responders=("u1", "u2"), names=NAMES)


def test_explicit_responders_all_must_accept():
    pc = mediation()
    refused(pc, pc.propose, "u1", "plan", match="cannot make proposals")
    p, replaced = pc.propose("asst", "plan A")
    assert replaced is None and pc.waiting_for() == ["u1", "u2"]
    msg = refused(pc, pc.agree, "asst", match="own proposal")
    assert "wait for Alice and Bob" in msg
    assert pc.agree("u1") is None and pc.pending is p and pc.waiting_for() == ["u2"]
    refused(pc, pc.agree, "u1", match="already agreed")
    assert "wait for Bob," in refused(pc, pc.agree, "asst")
    assert pc.agree("u2") is p and pc.pending is None and p.accepted_by == ["u1", "u2"]
    assert pc.waiting_for() == []


def test_explicit_responders_any_reject_clears():
    pc = mediation()
    p, _ = pc.propose("asst", "plan B")
    pc.agree("u2")
    assert pc.reject("u1") is p and p.rejected_by == "u1" and pc.pending is None
    refused(pc, pc.agree, "u2", match="no open proposal")
    # a seat that is not a responder may not answer, even in a three-seat game where it is not the proposer
    pc2 = ProposalCycle(["a", "b", "c"], proposers=["a"], responders=["b"])
    pc2.propose("a", 1)
    refused(pc2, pc2.agree, "c", match="not for you")
    refused(pc2, pc2.reject, "c", match="not for you")
    assert pc2.agree("b").value == 1


def test_explicit_responders_proposer_among_them_and_bad_configs():
    pc = ProposalCycle(["a", "b", "c"], responders=("a", "b"))
    pc.propose("a", 1)
    assert pc.waiting_for() == ["b"]  # the proposer's own agreement is implied
    assert pc.agree("b").value == 1
    pc.propose("c", 2)
    assert pc.waiting_for() == ["a", "b"]
    with pytest.raises(ValueError):
        ProposalCycle(["a", "b"], responders=("a", "x"))
    with pytest.raises(ValueError):
        ProposalCycle(["a", "b"], responders=("a",))  # nobody would answer a's proposals
    with pytest.raises(ValueError):
        ProposalCycle(["a", "b"], responders="everyone")
    assert ProposalCycle(["a", "b"], proposers=["b"], responders=("a",)).responders == ("a",)


def test_waiting_for_in_each_mode_and_any_decides():
    pc = ProposalCycle(["a", "b", "c"])
    pc.propose("b", 1)
    assert pc.waiting_for() == ["a", "c"]
    pc.agree("c")
    assert pc.waiting_for() == ["a"]
    pc.reject("a")
    assert pc.pending is None and pc.waiting_for() == []
    two = ProposalCycle(["a", "b"])
    two.propose("a", 1)
    assert "wait for your partner" in refused(two, two.agree, "a")
    anyone = ProposalCycle(["a", "b", "c"], responders="any")
    p, _ = anyone.propose("a", 1)
    assert anyone.waiting_for() == ["b", "c"]
    assert anyone.agree("c") is p and anyone.pending is None


def test_advisory_proposals_need_no_answer():
    """DialOp Planning: the assistant's partial proposals are shown; only a full (binding) one is answered."""
    pc = ProposalCycle(["user", "asst"], proposers=["asst"])
    a1, replaced = pc.propose("asst", ["museum"], kind="partial", advisory=True)
    assert replaced is None and a1.advisory and pc.advisory is a1 and pc.pending is None
    assert pc.waiting_for() == []
    assert refused(pc, pc.agree, "user") == ADVISORY_NEEDS_NO_ANSWER
    refused(pc, pc.reject, "user", match="only a suggestion")
    a2, replaced = pc.propose("asst", ["museum", "park"], kind="partial", advisory=True)
    assert replaced is a1 and pc.advisory is a2 and a2.id != a1.id
    full, replaced = pc.propose("asst", ["museum", "park", "cafe"])
    assert replaced is None and pc.pending is full and pc.advisory is a2  # the suggestion stays shown
    a3, replaced = pc.propose("asst", ["zoo"], advisory=True)
    assert replaced is a2 and pc.pending is full  # a suggestion does not replace or clear the binding proposal
    refused(pc, pc.agree, "user", id=a3.id, match="only a suggestion")
    refused(pc, pc.agree, "user", id=a1.id, match="no longer open")
    assert pc.waiting_for() == ["user"]
    assert pc.agree("user", id=full.id) is full and pc.pending is None and pc.advisory is a3
    refused(pc, pc.withdraw, "asst", match="no open proposal")  # no pending binding one
    assert pc.withdraw("asst", advisory=True) is a3 and pc.advisory is None
    pc.propose("asst", 1)
    pc.propose("asst", 2, advisory=True)
    pc.clear()
    assert pc.pending is None and pc.advisory is None


def test_proposal_cycle_copies_and_json():
    pc = mediation()
    pc.propose("asst", {"flight": 3})
    pc.agree("u1")
    pc.propose("asst", {"flight": 1}, advisory=True)
    copies_independently(pc, lambda o: o.agree("u2"))
    copies_independently(pc, lambda o: o.advisory.accepted_by.append("u1"))  # nested objects are copied too
    data = json.loads(json.dumps({"pending": dataclasses.asdict(pc.advisory), "seats": pc.seats}))
    assert data["pending"]["advisory"] is True and data["pending"]["value"] == {"flight": 1}


# --- submissions ------------------------------------------------------------------------------------------------

TOTAL = {"books": 3, "hats": 2, "balls": 1}


def deal_canon(seat, value):
    """Deal or No Deal: a seat submits what it gets; the deal is what seat "a" gets."""
    mine = {k: int(value.get(k, 0)) for k in TOTAL}
    if any(not 0 <= n <= TOTAL[k] for k, n in mine.items()):
        raise RuleError("There are not that many items.")
    a_gets = mine if seat == "a" else {k: TOTAL[k] - n for k, n in mine.items()}
    return tuple(sorted(a_gets.items()))


def test_submit_gate_seat_canonical_forms():
    gate = SubmitGate(["a", "b"], seat_canon=deal_canon)
    assert gate.submit("a", {"books": 1, "hats": 2}) == "waiting"
    assert gate.submit("b", {"books": 2, "balls": 1}) == "complete"
    gate.reset()
    assert gate.submit("a", {"books": 1, "hats": 2}) == "waiting"
    assert gate.submit("b", {"books": 1, "hats": 2}) == "mismatch"  # both want the same share: no deal
    assert gate.key("b", {"books": 2, "balls": 1}) == gate.key("a", {"books": 1, "hats": 2})
    refused(gate, gate.submit, "b", {"books": 9}, match="not that many")  # a canonical form that refuses
    refused(gate, gate.submit, "x", {}, match="do not submit")
    with pytest.raises(ValueError):
        SubmitGate(["a", "b"], canon=str, seat_canon=deal_canon)


def test_submit_gate_plain_canon_three_seats_and_copy():
    gate = SubmitGate(["a", "b", "c"], canon=lambda v: v.strip().lower())
    assert gate.submit("a", "Paris ") == "waiting"
    assert gate.submit("b", "paris") == "waiting" and gate.waiting_for() == ["c"]
    assert gate.submit("c", "Rome") == "mismatch"
    assert gate.submit("c", "PARIS") == "complete"
    plain = SubmitGate(["a", "b"])
    plain.submit("a", 1)
    assert plain.submit("b", 1.0) == "complete"
    copies_independently(gate, lambda g: g.withdraw("a"))
    assert json.loads(json.dumps(gate.submitted)) == {"b": "paris", "c": "PARIS"}


# --- simultaneous moves -----------------------------------------------------------------------------------------

def test_commit_reveal_round():
    cr = CommitReveal(["a", "b"], names=NAMES)
    refused(cr, cr.commit, "a", "cooperate", 0, match="no move to make")
    refused(cr, cr.reveal, match="no round")
    assert cr.open(5.0) == 1 and cr.waiting_for() == ["a", "b"]
    cr.commit("a", "SECRET-defect", 6.0)
    assert cr.committed("a") and not cr.committed("b") and not cr.all_committed()
    refused(cr, cr.commit, "a", "cooperate", 7.0, match="already made your move")
    refused(cr, cr.commit, "zed", "cooperate", 7.0, match="do not make a move")
    assert "waiting for Ben" in refused(cr, cr.reveal)
    seen_by_b = cr.public_state("b")
    assert "SECRET" not in json.dumps(seen_by_b)
    assert seen_by_b["committed"] == {"a": True, "b": False} and seen_by_b["my_move"] is None
    assert seen_by_b["moves"] is None and cr.public_state("a")["my_move"] == "SECRET-defect"
    assert "SECRET" not in json.dumps(cr.public_state(None))
    cr.commit("b", "cooperate", 8.0)
    assert cr.all_committed() and cr.waiting_for() == []
    assert cr.reveal() == {"a": "SECRET-defect", "b": "cooperate"}
    assert cr.public_state("b")["moves"] == {"a": "SECRET-defect", "b": "cooperate"}
    refused(cr, cr.reveal, match="already been revealed")
    refused(cr, cr.commit, "b", "defect", 9.0, match="no move to make")
    assert cr.history == [{"round": 1, "opened_at": 5.0, "moves": {"a": "SECRET-defect", "b": "cooperate"},
                           "defaulted": [], "times": {"a": 6.0, "b": 8.0}}]
    assert cr.open(10.0) == 2 and not cr.committed("a") and cr.public_state("a")["moves"] is None
    assert json.loads(json.dumps(vars(cr))) == json.loads(json.dumps(copy.deepcopy(vars(cr))))


def test_commit_reveal_recommit_and_unrevealed_round_discarded():
    cr = CommitReveal(["a", "b"], recommit=True)
    cr.open(0)
    cr.commit("a", 1, 1)
    cr.commit("a", 2, 2)
    assert cr.public_state("a")["my_move"] == 2 and cr.times["a"] == 2
    cr.open(3)  # the unrevealed round is dropped
    assert cr.round == 2 and not cr.committed("a") and cr.history == []


def test_commit_reveal_deadline_fills_defaults():
    cr = CommitReveal(["a", "b"], deadline=30, default="defect")
    assert cr.closes_at() is None and cr.expire(1000) == []  # no open round
    cr.open(100)
    assert cr.closes_at() == 130
    cr.commit("a", "cooperate", 110)
    assert cr.expire(129.9) == [] and not cr.committed("b")
    refused(cr, cr.commit, "b", "cooperate", 130, match="Too late")
    assert cr.expire(130) == ["b"] and cr.all_committed()
    assert cr.expire(131) == []
    assert "defect" not in json.dumps(cr.public_state("a"))  # still secret until revealed
    assert cr.reveal() == {"a": "cooperate", "b": "defect"}
    assert cr.history[-1]["defaulted"] == ["b"] and cr.public_state("a")["defaulted"] == ["b"]
    no_deadline = CommitReveal(["a", "b"], default="x")
    no_deadline.open(0)
    assert no_deadline.expire(10 ** 9) == [] and no_deadline.waiting_for() == ["a", "b"]
    with pytest.raises(ValueError):
        CommitReveal(["a"], deadline=0)


def test_commit_reveal_three_seats_per_seat_defaults():
    cr = CommitReveal(["a", "b", "c"], deadline=10, default={"a": "A0", "b": "B0", "c": "C0"})
    cr.open(0)
    cr.commit("b", "mine", 1)
    assert sorted(cr.expire(10)) == ["a", "c"]
    assert cr.reveal() == {"a": "A0", "b": "mine", "c": "C0"}
    # a dict that is not keyed by the seats is one default move for everyone, copied for each
    shared = CommitReveal(["a", "b"], deadline=1, default={"bid": 0})
    shared.open(0)
    shared.expire(1)
    moves = shared.reveal()
    moves["a"]["bid"] = 5
    assert moves["b"] == {"bid": 0} and shared.default == {"bid": 0}


def test_commit_reveal_copies_independently():
    cr = CommitReveal(["a", "b"], deadline=5, default=0)
    cr.open(0)
    cr.commit("a", [1], 1)
    copies_independently(cr, lambda o: o.moves["a"].append(2))
    copies_independently(cr, lambda o: o.commit("b", 3, 2))


# --- turns and phases -------------------------------------------------------------------------------------------

def test_turn_order_wording_two_and_three_seats():
    two = TurnOrder(["a", "b"])
    assert "please wait for your partner" in refused(two, two.check, "b")
    three = TurnOrder(["u1", "u2", "asst"], first="asst", names=NAMES)
    assert "please wait for Carol" in refused(three, three.check, "u1", "move")
    copies_independently(three, lambda o: o.advance())


def test_chat_turns_alternate_and_name_who_is_due():
    ct = ChatTurns(["a", "b"], first="b", names=NAMES)
    assert refused(ct, ct.check, "a") == "It is not your turn to talk; wait for Ben."
    refused(ct, ct.spoke, "a", match="wait for Ben")
    assert ct.spoke("b") == "a" and ct.spoke("a") == "b" and ct.said == 2
    no_names = ChatTurns(["a", "b"])
    assert refused(no_names, no_names.spoke, "b") == "It is not your turn to talk; wait for a."


def test_chat_turns_halt_by_agreement_fires():
    ct = ChatTurns(["a", "b"], names=NAMES)
    ct.spoke("a")
    assert ct.halt("a") is False and not ct.halted and not ct.over
    assert "waiting for Ben to agree" in refused(ct, ct.halt, "a")
    refused(ct, ct.halt, "zed", match="not part")
    assert ct.halt("b") is True and ct.halted and ct.over  # out of turn: asking to stop uses no turn
    refused(ct, ct.spoke, "b", match="everyone agreed to stop")
    refused(ct, ct.halt, "a", match="already over")
    refused(ct, ct.cancel_halt, "a")
    ct.restart()
    assert not ct.halted and ct.halt_requests == [] and ct.current == "a" and ct.said == 0


def test_chat_turns_halt_request_lapses_and_can_be_cancelled():
    ct = ChatTurns(["a", "b", "c"])
    ct.halt("a")
    ct.spoke("a")  # a goes on talking: its request lapses
    assert ct.halt_requests == []
    ct.halt("b")
    ct.halt("c")
    assert not ct.halted and ct.halt_requests == ["b", "c"]
    ct.cancel_halt("c")
    refused(ct, ct.cancel_halt, "c", match="no request")
    ct.halt("c")
    assert ct.halt("a") is True  # three seats: all three must ask


def test_chat_turns_rounds_limit():
    ct = ChatTurns(["a", "b"], rounds=2)
    for seat in "abab":
        assert not ct.over
        ct.spoke(seat)
    assert ct.over and not ct.halted
    refused(ct, ct.spoke, "a", match="all 2 rounds")
    ct.restart(first="b")
    assert not ct.over and ct.current == "b"
    with pytest.raises(ValueError):
        ct.restart(first="x")
    with pytest.raises(ValueError):
        ChatTurns(["a", "b"], rounds=0)
    copies_independently(ct, lambda o: o.halt("a"))
    assert json.loads(json.dumps(vars(ct)))["halt_requests"] == ["a"]


def test_phases_cycle_and_done():
    ph = Phases(["negotiate", "move"], rounds=2)
    seen = [ph.phase]
    while not ph.done:
        seen.append(ph.advance())
    assert seen == ["negotiate", "move", "negotiate", "move", None]
    assert ph.round == 2 and ph.rounds_left() == 0
    refused(ph, ph.advance, match="no more rounds")
    refused(ph, ph.skip_to, "move", match="no more rounds")
    endless = Phases(["talk"])
    for _ in range(10):
        endless.advance()
    assert endless.round == 10 and not endless.done and endless.rounds_left() is None
    with pytest.raises(ValueError):
        Phases([])
    with pytest.raises(ValueError):
        Phases(["a"], rounds=0)


def test_phases_skip_to():
    ph = Phases(["negotiate", "move", "score"], rounds=2)
    assert ph.skip_to("move") == "move" and ph.round == 0
    assert ph.skip_to("move") == "move"  # already there
    assert ph.skip_to("negotiate") == "negotiate" and ph.round == 1
    assert ph.skip_to("score") == "score"
    assert ph.skip_to("move") is None and ph.done  # the last round ended on the way
    with pytest.raises(ValueError):
        Phases(["a"]).skip_to("b")
    st = Phases(["a", "b"], rounds=3)
    st.advance()
    assert json.loads(json.dumps(st.state())) == {"phase": "b", "round": 0, "rounds": 3, "done": False}
    copies_independently(st, lambda o: o.advance())


def test_matrix_game_loop_halt_moves_to_the_move_phase():
    """k talk rounds in strict turn, then simultaneous moves, repeated; the halt ends a talk phase early."""
    seats = ["a", "b"]
    phases = Phases(["negotiate", "move"], rounds=2)
    talk = ChatTurns(seats, rounds=3)
    moves = CommitReveal(seats, deadline=60, default="defect")
    t = 0.0
    # round 1: one exchange, then both ask to stop
    talk.spoke("a")
    talk.spoke("b")
    talk.halt("b")
    if talk.halt("a"):
        phases.skip_to("move")
        moves.open(t)
    assert phases.phase == "move" and moves.is_open
    moves.commit("a", "cooperate", t + 1)
    moves.expire(t + 60)
    assert moves.reveal() == {"a": "cooperate", "b": "defect"}
    phases.advance()
    talk.restart()
    # round 2: the talk runs out of rounds
    for seat in seats * 3:
        talk.spoke(seat)
    assert talk.over and not talk.halted
    assert phases.skip_to("move") == "move"
    moves.open(100)
    moves.commit("b", "cooperate", 101)
    moves.commit("a", "cooperate", 102)
    moves.reveal()
    assert phases.advance() is None and phases.done and len(moves.history) == 2


def test_asympuzl_alternating_turns_limit_2n():
    n = 2
    order, budget = TurnOrder(["a", "b"]), TurnBudget(["a", "b"], n)
    for _ in range(2 * n):
        seat = order.current
        order.check(seat)
        budget.spend(seat)
        order.advance()
    assert budget.exhausted()
    refused(budget, budget.spend, "a", match="all 2")
