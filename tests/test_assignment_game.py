"""DialOp Assignment: generator hardness and tries, the rules, proposals by command (forgiving names; the optimum
scores 1.0), plain-English reading, the optimizer that never stalls, and the word budget."""
from __future__ import annotations

import pytest

from tasks.core.evaluation import LOCAL_TIMERS, play_game
from tasks import get_task
from tasks.assignment import generator
from tasks.assignment.brains.optimizer import OptimizerBrain
from tasks.assignment.game import AssignmentGame
from tasks.assignment.names import PAPERS, REVIEWERS
from tasks.assignment.brains.english import read_message
from tasks.assignment.parse import ProposalError, format_proposal, parse_proposal
from tasks.core import Chat, ChatShown, Command, SeatInfo, View, WordBudget, build_match, RuleError

SPEC = get_task("assignment")


def _match(seed=1, **options):
    seats = {s: SeatInfo("person", s) for s in SPEC.seats}
    m, _ = build_match(SPEC, seed, seats, options=options, timers=LOCAL_TIMERS, with_brains=False)
    m.open(0.0)
    from tasks.core import Join
    for s in SPEC.seats:
        m.handle(Join(s))
    return m


def _errors(effects):
    return [e.text for e in effects if getattr(e, "kind", "") == "error"]


@pytest.mark.parametrize("seed", range(8))
def test_generated_instances_always_pass_the_hardness_test_and_record_tries(seed):
    inst = generator.generate(seed)
    h = generator.hardness(inst["table"], *inst["masks"])
    assert inst["hard"] and h["hard"] and inst["tries"] >= 1
    assert all(1.25 * s < inst["best"] for s in inst["solo"])
    assert inst["best"] == h["best"]
    union = [[a or b for a, b in zip(r1, r2)] for r1, r2 in zip(*inst["masks"])]
    assert all(v == 50 for r, row in enumerate(inst["table"]) for p, v in enumerate(row) if not union[r][p])
    assert all(1 <= s <= 10 for s in inst["scales"])
    assert generator.generate(seed) == inst  # seeded


def test_the_true_optimum_scores_one_by_command():
    m = _match(2)
    inst = m.game.inst
    text = format_proposal(inst["best_matching"])
    m.handle(Command("player1", "propose", tuple(text.split())))
    m.handle(Command("player2", "accept"))
    assert m.over and m.results["normalized_score"] == 1.0 and m.results["score"] == inst["best"]
    assert m.results["bonus"] == {"player1": 2.0, "player2": 2.0}


def test_the_released_proposal_format_and_short_names_parse():
    best = [3, 1, 7, 2, 5, 4, 6, 0]
    by_paper = {p: r for r, p in enumerate(best)}
    released = "Proposal:<br/>" + "<br/>".join(f"&emsp; - {PAPERS[p]}: {REVIEWERS[by_paper[p]]}" for p in range(8))
    assert parse_proposal(released) == best
    short = ", ".join(f"{PAPERS[p].lower()} = {REVIEWERS[by_paper[p]].split()[0].upper()}!" for p in range(8))
    assert parse_proposal(short) == best
    with pytest.raises(ProposalError, match="two papers"):
        parse_proposal("BLEU=Ava, Electra=Ava")
    with pytest.raises(ProposalError, match="two reviewers"):
        parse_proposal("BLEU=Ava, BLEU=Noah")
    with pytest.raises(ProposalError, match="Missing"):
        parse_proposal("BLEU=Ava Li")


def test_partner_must_answer_first_reject_clears_and_accept_ends():
    m = _match(3, turns="alternate")
    g = m.game
    text = format_proposal(g.inst["best_matching"])
    assert not _errors(m.handle(Chat("player1", "hello")))
    assert _errors(m.handle(Chat("player1", "again")))  # not its turn
    assert not _errors(m.handle(Command("player2", "propose", (text,))))
    assert "first" in _errors(m.handle(Chat("player1", "hmm")))[0]
    assert _errors(m.handle(Command("player2", "accept")))  # cannot accept its own
    assert not _errors(m.handle(Command("player1", "reject")))
    assert g.proposals.pending is None and not m.over
    m.handle(Command("player1", "propose", (text,)))
    m.handle(Command("player2", "accept"))
    assert m.over and m.status == "completed"


def test_views_hold_only_the_own_cells_in_the_own_scale():
    m = _match(4)
    g = m.game
    for k, seat in enumerate(g.seats):
        v = g.view(seat)
        for r in range(8):
            for p in range(8):
                known = g.masks[k][r][p]
                assert (v["table"][r][p] is None) == (not known)
                if known:
                    assert v["table"][r][p] == int(g.table[r][p] * g.scales[k])
        assert "scale" not in v and v["result"] is None


def test_word_budget_forces_the_final_proposal():
    b = WordBudget(30)
    b.spend("one two three four five six")
    assert b.final and b.left() == 24
    with pytest.raises(RuleError, match="final proposal"):
        b.spend("more")
    m = _match(5, word_budget=30)
    m.handle(Chat("player1", "one two three four five six"))
    assert _errors(m.handle(Chat("player2", "too late")))
    m.handle(Command("player2", "propose", (format_proposal(list(range(8))),)))
    assert m.over and m.results["forced_final"] is True


@pytest.mark.parametrize("text,want", [
    ("Ava is great for GloVe, like 80", {"values": {(0, 2): 80}}),
    ("I don't know BLEU", {"unknown": {(r, 0) for r in range(8)}}),
    ("my best for LLaMA is Noah", {"best_in_paper": {4: 7}}),
    ("Noha on Glvoe is 450 and ethan-quac 30", {"values": {(7, 2): 450, (6, 6): 30}}),
    ("my highest number is 873", {"top": 873}),
])
def test_plain_english_is_read(text, want):
    rd = read_message(text)
    for key, value in want.items():
        assert getattr(rd, key) == value


PLAIN = ["hi!", "Ava is great for GloVe, like 80", "I don't know BLEU", "my best for LLaMA is Noah",
         "what do you have for Ava?", "hmm", "Noah and QuAC?", "asdf qwerty", "ok", "do you know Sofia on SWAG?",
         "Ethen smiht is bad at robrta", "lol"]


@pytest.mark.parametrize("text", PLAIN)
def test_the_optimizer_answers_every_plain_english_message(text):
    m = _match(6)
    brain = OptimizerBrain("player2", 0)
    brain.observe(View("player2", m.game.view("player2")))
    brain.observe(ChatShown("player1", "hello there"))
    assert brain.act()  # opening
    brain.observe(ChatShown("player1", text))
    moves = brain.act()
    assert moves, f"no answer to {text!r}"


@pytest.mark.parametrize("agents", [("optimizer", "optimizer"), ("optimizer", "simuser"), ("simuser", "optimizer")])
def test_self_play_finishes_with_a_high_score(agents):
    res = [play_game(SPEC, s, dict(zip(SPEC.seats, agents)), {"turns": "alternate"}).results for s in range(6)]
    assert all(r["status"] == "completed" for r in res)
    assert sum(r["normalized_score"] for r in res) / len(res) >= 0.9


def test_unknown_value_option_paper_keeps_random_cells():
    inst = AssignmentGame.generate(3, {"unknown_value": "paper"})
    assert inst["unknown_value"] == "paper" and inst["hard"]
