"""Negotiation games in real Chromium pages on a REAL Slurk server (opt-in: markers `conformance` and `browser`;
tests/real_room.py). Two people negotiate a stag hunt in turns and commit their moves with the buttons (the first
sealed move never reaches the other page before both are in), then the reveal; and a person plays the prisoner's
dilemma against the `workflow` agent. Screenshots at 1366x768 and 1920x1080: artifacts/screenshots/real-matrix-*."""
from __future__ import annotations

import json

from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS


def _talk_turn(rr, rp) -> bool:
    return ((rr.view(rp).get("negotiation") or {}).get("turn")) == "me"


def _page_text(rp) -> str:
    return rp.page.inner_text("#matrix-games-board") + json.dumps(rp.chat())


def test_two_people_negotiate_and_commit_sealed_moves(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "matrix-games", people=2,
                  task_options={"game": "stag-hunt", "negotiation": 1}) as rr:
        pages = [rr.login("Ann"), rr.login("Bo")]
        rr.announce()
        for rp in pages:
            rr.wait_phase(rp, "playing")
            rp.page.wait_for_selector("#matrix-games-board table", timeout=WAIT * 1000)
        seats = {rr.view(rp)["me"]: rp for rp in pages}
        alice, bob = seats["alice"], seats["bob"]
        first = alice if _talk_turn(rr, alice) else bob
        second = bob if first is alice else alice
        first.type("let's both go stag, ok?")
        wait_until(lambda: "both go stag" in _page_text(second), what="the other to read the line")
        wait_until(lambda: _talk_turn(rr, second), what="the reply turn")
        second.type("deal, stag it is")
        wait_until(lambda: "stag it is" in _page_text(first), what="the reply to arrive")
        rr.shots(first, "real-matrix-people-1-talk")
        for rp in pages:
            rp.page.wait_for_selector('#matrix-games-board button[data-move="Stag"]:enabled', timeout=WAIT * 1000)
        first.page.click('#matrix-games-board button[data-move="Stag"]')
        wait_until(lambda: (rr.view(first).get("commit") or {}).get("me"), what="the first move to be sealed")
        # sealed: the other page knows that a move is in, not which
        wait_until(lambda: (rr.view(second).get("commit") or {}).get("partner"), what="the other page to learn "
                   "that a move is in")
        v = rr.view(second)
        assert not v["outcomes"] and not v["commit"]["me"] and v["commit"]["sealed"] is None, v
        assert "their_move" not in json.dumps(v) and "my_move" not in json.dumps(v)
        rr.shots(second, "real-matrix-people-2-sealed")
        second.page.click('#matrix-games-board button[data-move="Stag"]')
        for rp in pages:
            rr.wait_phase(rp, "over", timeout=WAIT * 2)
        outcome = rr.view(first)["outcomes"][-1]
        assert outcome["my_move"] == outcome["their_move"] == "Stag"
        for rp, who in ((alice, "alice"), (bob, "bob")):
            rr.shots(rp, f"real-matrix-people-3-reveal-{who}")
            assert not rp.page_errors, rp.page_errors


def test_a_person_plays_the_prisoners_dilemma_against_the_workflow_agent(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "matrix-games", people=1, agents={"bob": "workflow"},
                  task_options={"game": "prisoners-dilemma", "negotiation": 1}) as rr:
        ann = rr.login("Ann")
        rr.announce()
        v = rr.wait_phase(ann, "playing")
        assert v["me"] == "alice"
        if _talk_turn(rr, ann):
            ann.type("lets both cooperate, deal?")
        wait_until(lambda: len((rr.view(ann).get("negotiation") or {}).get("messages") or []) >= 1 or
                   rr.view(ann).get("stage") != "negotiate", what="the agent's word")
        rr.shots(ann, "real-matrix-agent-1-talk")
        moves = rr.view(ann)["my_actions"]
        ann.page.wait_for_selector(f'#matrix-games-board button[data-move="{moves[0]}"]:enabled',
                                   timeout=WAIT * 2 * 1000)
        ann.page.click(f'#matrix-games-board button[data-move="{moves[0]}"]')
        rr.wait_phase(ann, "over", timeout=WAIT * 2)
        final = rr.view(ann)
        assert final["outcomes"] and final["outcomes"][-1]["my_move"] == moves[0]
        rr.shots(ann, "real-matrix-agent-2-reveal")
        assert not ann.page_errors, ann.page_errors
