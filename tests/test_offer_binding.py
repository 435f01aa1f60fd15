"""Every answer to an offer is bound to the offer it answers (issue 27): in every task with offers, an offer replaced
between what a person saw and their click makes the old offer's accept (and reject) a refusal that names the current
offer and changes nothing; a typed /accept without an id answers the newest offer shown and says which one.

Tasks without offers: gnomes (moves only), asympuzl (edits of one's own row), matrix-games (/halt is a request to stop
talking, not an offer with contents: a halt that crosses the partner's talking just becomes a request of one's own).
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Callable

import pytest

from tasks.core.evaluation import LOCAL_TIMERS
from tasks import get_task
from tasks.core import Command, Join, Message, SeatInfo, build_match


def _match(task: str, seed: int = 3):
    spec = get_task(task)
    seats = {s: SeatInfo("person", s) for s in spec.seats}
    m, _ = build_match(spec, seed, seats, timers=LOCAL_TIMERS, with_brains=False, code_source=lambda: "CODE")
    m.open(0.0)
    for s in spec.seats:
        m.handle(Join(s, t=0.0))
    return m


def _cmd(m, seat, name, *args, t=1.0):
    out = m.handle(Command(seat, name, tuple(str(a) for a in args), t=t))
    errors = [e.text for e in out if isinstance(e, Message) and e.kind == "error"]
    return out, errors


@dataclass
class Case:
    task: str
    responder: str
    accept: str                       # the command that accepts ("accept" or "agree")
    first: Callable                   # m -> makes the first offer (the one the person sees)
    second: Callable                  # m -> replaces it with another
    shown_id: Callable                # responder's view -> the open offer's id, as the page reads it
    names_second: Callable            # m -> words that must appear where the current offer is named


def _names(*sites):
    return lambda m: list(sites)


def _dond_shown(v):
    return next(o["id"] for o in reversed(v["offers"]) if o["by"] == "partner" and o["status"] == "open")


def _mediation_second(m):
    return [f"flight {m.game.proposals.pending.value[1] + 1}"]  # user 2's own flight of the new proposal


def _assignment_matching(shift):
    from tasks.assignment.names import PAPERS, REVIEWERS
    return ", ".join(f"{PAPERS[(r + shift) % 8]}={REVIEWERS[r]}" for r in range(8))


def _planning_names(m, k):
    return m.game.names[k], m.game.names[k + 1], m.game.names[k + 2]


CASES = [
    Case("dond", "bob", "accept",
         lambda m: _cmd(m, "alice", "propose", "books=1"),
         lambda m: _cmd(m, "alice", "propose", "hats=1"),
         _dond_shown, lambda m: ["#2"]),
    Case("mediation", "user2", "accept",
         lambda m: _cmd(m, "assistant", "propose", 1, 1),
         lambda m: _cmd(m, "assistant", "propose", 2, 3),
         lambda v: v["pending"]["id"], _mediation_second),
    Case("assignment", "player2", "accept",
         lambda m: _cmd(m, "player1", "propose", _assignment_matching(0)),
         lambda m: _cmd(m, "player1", "propose", _assignment_matching(1)),
         lambda v: v["pending"]["id"], lambda m: ["#2"]),
    Case("planning", "user", "accept",
         lambda m: _cmd(m, "assistant", "propose", ", ".join(_planning_names(m, 0))),
         lambda m: _cmd(m, "assistant", "propose", ", ".join(_planning_names(m, 3))),
         lambda v: v["pending"]["id"], lambda m: ["#2", *_planning_names(m, 3)]),
    Case("travel", "ghost", "agree",
         lambda m: _cmd(m, "light", "propose", m.game.board.rooms[1]),
         lambda m: _cmd(m, "light", "propose", m.game.board.rooms[2]),
         lambda v: v["pending"]["id"], lambda m: ["#2", m.game.board.rooms[2]]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.task for c in CASES])
@pytest.mark.parametrize("answer", ["accept", "reject"])
def test_an_answer_to_a_replaced_offer_is_refused_naming_the_current_one(case, answer):
    m = _match(case.task)
    assert not case.first(m)[1]
    seen = case.shown_id(m.game.view(case.responder))  # what the person's page shows when they click
    assert not case.second(m)[1]
    assert case.shown_id(m.game.view(case.responder)) != seen
    before = pickle.dumps(m.game)
    name = case.accept if answer == "accept" else "reject"
    out, errors = _cmd(m, case.responder, name, seen, t=2.0)   # the page sends the id it showed
    assert len(errors) == 1, errors
    assert f"#{seen} is no longer" in errors[0]
    for word in case.names_second(m):
        assert word in errors[0], (word, errors[0])
    assert pickle.dumps(m.game) == before and not m.over
    assert not [e for e in out if isinstance(e, Message) and e.kind != "error"]  # nobody else heard a thing


@pytest.mark.parametrize("case", CASES, ids=[c.task for c in CASES])
def test_a_typed_accept_answers_the_newest_offer_shown_and_says_which(case):
    m = _match(case.task)
    case.first(m)
    case.second(m)
    current = case.shown_id(m.game.view(case.responder))
    out, errors = _cmd(m, case.responder, case.accept, t=2.0)   # typed: no id
    assert not errors
    seen = [e.text for e in out if isinstance(e, Message) and e.to in (None, case.responder)]
    assert any(f"#{current}" in t or f"proposal {current}" in t or "agreed path is now" in t for t in seen), seen


@pytest.mark.parametrize("case", CASES, ids=[c.task for c in CASES])
def test_the_id_the_page_shows_is_accepted(case):
    m = _match(case.task)
    case.first(m)
    case.second(m)
    current = case.shown_id(m.game.view(case.responder))
    _, errors = _cmd(m, case.responder, case.accept, f"{current}", t=2.0)
    assert not errors


def test_a_reason_with_numbers_is_no_offer_id():
    """Only the first argument can be an id: "/reject I need 2 hats" rejects the standing offer with that reason."""
    m = _match("dond")
    _cmd(m, "alice", "propose", "books=1")
    _cmd(m, "alice", "propose", "hats=1")
    _, errors = _cmd(m, "bob", "reject", "I", "need", "1", "hat", t=2.0)
    assert not errors and m.game.offers[-1]["reason"] == "I need 1 hat"


def test_a_travel_submit_carries_the_tour_shown():
    """The page's Submit sends the agreed tour it shows: a tour agreed meanwhile is not submitted in its place."""
    m = _match("travel")
    b = m.game.board
    rest = [r for r in b.rooms if r != b.start]
    shown = [b.start, *rest, b.start]
    other = [b.start, rest[1], rest[0], *rest[2:], b.start]  # another tour (every room pair has a hallway)
    for proposer, answerer, tour in (("light", "ghost", shown), ("ghost", "light", other)):
        assert not _cmd(m, proposer, "propose", *tour)[1]
        assert not _cmd(m, answerer, "agree")[1]
        if tour is shown:
            seen = list(m.game.view("light")["agreed"])
    out, errors = _cmd(m, "light", "submit", *seen, t=3.0)   # clicked while the agreed tour was still `shown`
    assert not errors and m.game.gate.submitted["light"] == shown
    assert any("not the agreed path yet" in e.text for e in out if isinstance(e, Message))
