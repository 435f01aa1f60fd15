"""Prompted self-play of DialOp Assignment with the optimizer in both seats: every released game finishes in every
cut (no stall), the human prefix is replayed as it happened (the budget neither refuses its lines nor accepts its
proposals), the final proposal under a spent budget comes from exactly one player, and the optimizer reads the
human prefix (proposals and rejections included).
Skips without the released data (../shared/data/dialop/data.zip or $DIALOP_DATA)."""
from __future__ import annotations

import os

import pytest

from tasks import get_task
from tasks.assignment import released
from tasks.core import MatchDriver, SeatInfo, build_match
from tasks.dialop import psp
from tasks.dialop.data import default_path
from tasks.dialop.runner import NO_TIMERS, play_released

PATH = default_path()
pytestmark = pytest.mark.skipif(not os.path.exists(PATH),
                                reason=f"released DialOp data not found at {PATH} (set DIALOP_DATA to data.zip)")
SPEC = get_task("assignment")
AGENTS = {"player1": "optimizer", "player2": "optimizer"}


@pytest.fixture(scope="module")
def games():
    return list(released.load(PATH))


@pytest.mark.parametrize("mode", psp.MODES)
def test_every_released_game_finishes_in_prompted_self_play(games, mode):
    # the protocol, not the final proposal's quality (tests/test_assignment_final_proposal.py): plain estimates
    results = [play_released(SPEC, g, AGENTS, mode, brain_options={"final_tables": 0}) for g in games]
    stalled = [r["human_index"] for r in results if r["status"] != "completed"]
    assert stalled == []
    assert all(r["words"] <= r["word_budget"] for r in results)


def _replayed(game, mode, brain_options=None):
    n = psp.cut_index(game.record, mode)
    prefix = game.inputs[:n]
    opts = {"turns": "free", "word_budget": sum(psp.message_words(game.record)), "psp": mode,
            "budget_after": max([getattr(i, "t", 0.0) for i in prefix] or [0.0])}  # as the runner does
    seats = {s: SeatInfo("agent", s, "optimizer") for s in SPEC.seats}
    match, brains = build_match(SPEC, game.index, seats, options=opts, instance=game.instance, timers=NO_TIMERS,
                                brain_options=brain_options)
    driver = MatchDriver(match, brains)
    driver.replay(prefix)
    return match, brains, driver


def test_the_human_prefix_is_replayed_as_it_happened(games):
    for g in games:  # the longest prefixes: everything before the final proposal
        match, _, _ = _replayed(g, "proposal")
        assert not match.over and not match.game.forced, g.index
        assert match.game.words.used == psp.prefix_words(g.record, psp.cut_index(g.record, "proposal"))


def test_a_spent_budget_gets_exactly_one_final_proposal(games):
    """Chat is spent at the cut: the player who heard more about the partner's table proposes (on a tie the one who
    did not write the last line), the other waits, and the game ends with that one proposal (two would mean both
    proposed; none would be a stall)."""
    seen = 0
    for g in games:
        match, brains, driver = _replayed(g, "proposal", {"final_tables": 0})  # who proposes, not what
        if match.over or not match.game.words.final or match.game.proposals.pending is not None:
            continue  # (a pending human proposal gets an answer, not a proposal)
        before = match.game.counts["proposals"].copy()
        p1 = brains["player1"]
        assert p1._facts["mine"] == brains["player2"]._facts["theirs"]  # both count the same lines alike
        mine, theirs = p1._facts["mine"], p1._facts["theirs"]
        proposer = "player1" if mine > theirs or (mine == theirs and p1.last_speaker != "player1") else "player2"
        driver.wake()
        for _ in driver.resume():
            pass
        made = {s: match.game.counts["proposals"][s] - before[s] for s in before}
        assert match.over and made == {s: int(s == proposer) for s in made}, (g.index, made, proposer)
        seen += 1
    assert seen >= 50


def test_the_prefix_proposals_are_read_as_evidence(games):
    """A proposal the partner rejected in the prefix is not proposed again as it is; the partner's own proposals
    count as pairs it put forward."""
    checked = 0
    for g in games:
        match, brains, _ = _replayed(g, "proposal")
        if match.over:
            continue
        for seat, b in brains.items():
            for m in b.k.rejected:
                assert b.k.best()[0] != m
                checked += 1
            mine = [a for a in g.inputs[:psp.cut_index(g.record, "proposal")]
                    if getattr(a, "name", "") == "propose" and a.seat != seat]
            if mine:
                assert b.k.p_suggested or b.k.told or all(v is not None for row in b.k.own for v in row)
    assert checked >= 20
