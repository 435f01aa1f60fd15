"""A person plays DialOp Assignment in a real Chromium page served by a REAL Slurk server, against the task bot's
`optimizer` (opt-in: markers `conformance` and `browser`; helpers from tests/test_real_page.py). The person chats,
proposes by clicking cells, answers the optimizer's counter proposal with the Accept button and shows the best
matching. Screenshots at 1366x768 and 1920x1080: artifacts/screenshots/real-assignment-*.png."""
from __future__ import annotations

import time

from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS


def test_person_plays_assignment_against_the_optimizer_in_a_real_slurk_page(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "assignment", people=1, agents={"player2": "optimizer"}) as rr:
        rp = rr.login("Ann")
        page = rp.page

        def view():
            return rr.view(rp)

        def shots(name):
            rr.shots(rp, f"real-assignment-{name}")

        page.wait_for_selector("#assignment-board", timeout=WAIT * 1000)
        rr.announce()
        rr.wait_phase(rp, "playing")
        page.wait_for_selector("#assignment-board table", timeout=WAIT * 1000)
        v = view()
        assert v["core"]["seat"] == "player1"
        shots("1-start")
        r, p = next((r, p) for r in range(8) for p in range(8) if v["table"][r][p] is not None)
        rp.type(f"hi! {v['reviewers'][r].split()[0]} is good for {v['papers'][p]}, like {v['table'][r][p]}")
        wait_until(lambda: any("biggest number" in m for _, _, m in rp.chat()), what="the optimizer's opening")
        for i in range(8):  # a plain matching by clicks
            page.click(f'#assignment-board td[data-cell="{i}:{i}"]')
        shots("2-picked")
        if not view().get("must_respond"):  # the optimizer may have proposed already: then answer that first
            page.click("#assignment-board .as-propose")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            v = view()
            if v.get("core", {}).get("phase") == "over":
                break
            if v.get("must_respond"):
                shots("3-pending")
                page.click("#assignment-board .as-accept")
                wait_until(lambda: view().get("core", {}).get("phase") == "over", what="the end")
                break
            time.sleep(0.1)
        v = view()
        assert v["core"]["phase"] == "over" and v["result"]["accepted"], v.get("result")
        page.wait_for_selector("#assignment-board .as-toggle", timeout=WAIT * 1000)
        page.click("#assignment-board .as-toggle")
        shots("4-end-best")
        assert page.locator("#assignment-board td.as-best").count() == 8
        assert not rp.page_errors, rp.page_errors
