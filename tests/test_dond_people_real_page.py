"""Issue 30 on a REAL Slurk in Chromium (opt-in: markers `conformance` and `browser`; tests/real_room.py): a person
who states a wish once and then only clicks Accept / Reject, and a person who asks "why this one?", each play the
`bayes` agent. Every game ends in an envy-free deal, the question is answered on the page, no agent line repeats.
Screenshots: artifacts/screenshots/real-dond-people-*."""
from __future__ import annotations

import time

from tasks.dond import items as I
from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_dond_real_page import OPTIONS
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS


def agent_lines(rp) -> list[str]:
    return [m.split(": ", 1)[1] for _c, _u, m in rp.chat() if m.startswith("Bob: ")]


def wish_text(v) -> str:
    top = max(range(3), key=lambda k: v["values"][k])
    return f"i'd like the {I.PLURALS[top]}, you can have the rest"


def click_until_over(rr, rp, name: str) -> dict:
    """Only clicks: accept an offer worth 5 or more to me (envy-free for me), reject any other."""
    deadline = time.monotonic() + WAIT * 4
    answered = set()
    while time.monotonic() < deadline and rr.view(rp)["core"]["phase"] != "over":
        v = rr.view(rp)
        offer = v.get("can_accept")
        if offer is not None and offer not in answered:
            mine = next(o["mine"] for o in v["offers"] if o.get("id") == offer)
            answered.add(offer)
            if I.utility(mine, v["values"]) >= 5:
                rp.page.click("#dond-accept")
            else:
                rp.page.click("#dond-reject")
        time.sleep(0.3)
    rr.wait_phase(rp, "over", timeout=WAIT * 2)
    rp.page.wait_for_selector("#dond-ending .slurk-task-code-value", timeout=WAIT * 1000)
    rr.shots(rp, f"{name}-2-end")
    lines = agent_lines(rp)
    assert len(lines) == len(set(lines)), lines
    assert not rp.page_errors, rp.page_errors
    return rr.view(rp)["result"]


def test_a_person_who_states_a_wish_once_then_only_clicks(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "dond", people=1, agents={"bob": "bayes"}, task_options=OPTIONS) as rr:
        ann = rr.login("Ann")
        rr.announce()
        v = rr.wait_phase(ann, "playing")
        ann.page.wait_for_selector("#dond-board table.dond-items", timeout=WAIT * 1000)
        ann.type(wish_text(v))
        wait_until(lambda: rr.view(ann).get("can_accept") is not None, what="the agent's offer", timeout=WAIT * 2)
        rr.shots(ann, "real-dond-people-once-1-offer")
        res = click_until_over(rr, ann, "real-dond-people-once")
        assert res["deal"] and res["my_score"] >= 5


def test_a_person_who_asks_why_this_one(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "dond", people=1, agents={"bob": "bayes"}, task_options=OPTIONS) as rr:
        ann = rr.login("Ann")
        rr.announce()
        rr.wait_phase(ann, "playing")
        ann.page.wait_for_selector("#dond-board table.dond-items", timeout=WAIT * 1000)
        ann.type("what do you want?")
        wait_until(lambda: rr.view(ann).get("can_accept") is not None and agent_lines(ann), what="the agent's offer",
                   timeout=WAIT * 2)
        n = len(agent_lines(ann))
        ann.type("why this one?")
        wait_until(lambda: len(agent_lines(ann)) > n, what="the answer to why", timeout=WAIT * 2)
        assert "Because" in agent_lines(ann)[-1], agent_lines(ann)
        rr.shots(ann, "real-dond-people-asker-1-why")
        res = click_until_over(rr, ann, "real-dond-people-asker")
        assert res["deal"] and res["my_score"] >= 5
