"""Two people play DialOp Assignment against each other in two real Chromium pages served by a REAL Slurk server
(opt-in: markers `conformance` and `browser`; tests/real_room.py). They chat (each sees the other's line), the first
proposes by clicking cells, the second rejects with the button, proposes another matching by clicking, and the first
accepts it. Screenshots of both pages at 1366x768 and 1920x1080: artifacts/screenshots/real-assignment-people-*.png."""
from __future__ import annotations

from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS


def click_matching(rp, matching):
    """Click one cell per reviewer row: matching[r] = paper column."""
    for r, p in enumerate(matching):
        rp.page.click(f'#assignment-board td[data-cell="{r}:{p}"]')


def test_two_people_play_assignment_in_real_slurk_pages(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "assignment", people=2) as rr:
        pages = [rr.login("Ann"), rr.login("Bo")]
        rr.announce()
        for rp in pages:
            rr.wait_phase(rp, "playing")
            rp.page.wait_for_selector("#assignment-board table", timeout=WAIT * 1000)
        seats = {rr.view(rp)["core"]["seat"]: rp for rp in pages}
        assert set(seats) == {"player1", "player2"}
        a, b = seats["player1"], seats["player2"]
        view = rr.view
        assert view(a)["table"] != view(b)["table"]  # each person sees only their own cells

        a.type("hi, what do you have for the first paper?")
        wait_until(lambda: any("first paper" in m for _, _, m in b.chat()), what="Bo to see Ann's line")
        b.type("not much, you choose")
        wait_until(lambda: any("you choose" in m for _, _, m in a.chat()), what="Ann to see Bo's line")
        rr.shots(a, "real-assignment-people-1-chat-ann")
        rr.shots(b, "real-assignment-people-1-chat-bo")

        click_matching(a, list(range(8)))
        rr.shots(a, "real-assignment-people-2-picked-ann")
        a.page.click("#assignment-board .as-propose")
        wait_until(lambda: view(b).get("must_respond"), what="Bo to be asked to answer")
        assert view(b)["pending"]["matching"] == list(range(8))
        rr.shots(b, "real-assignment-people-3-pending-bo")
        b.page.click("#assignment-board .as-reject")
        wait_until(lambda: not view(a).get("pending") and not view(b).get("must_respond"),
                   what="the proposal to be cleared")

        click_matching(b, [7 - r for r in range(8)])
        b.page.click("#assignment-board .as-propose")
        wait_until(lambda: view(a).get("must_respond"), what="Ann to be asked to answer")
        rr.shots(a, "real-assignment-people-4-pending-ann")
        a.page.click("#assignment-board .as-accept")
        for rp in (a, b):
            rr.wait_phase(rp, "over")
        va, vb = view(a), view(b)
        assert va["result"]["accepted"] and vb["result"]["accepted"]
        assert va["result"]["normalized"] == vb["result"]["normalized"]
        for rp, who in ((a, "ann"), (b, "bo")):
            rp.page.wait_for_selector("#assignment-board .as-toggle", timeout=WAIT * 1000)
            rp.page.click("#assignment-board .as-toggle")
            assert rp.page.locator("#assignment-board td.as-best").count() == 8
            rr.shots(rp, f"real-assignment-people-5-end-{who}")
            assert not rp.page_errors, rp.page_errors
