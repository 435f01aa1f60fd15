"""Three people play DialOp Mediation in three real Chromium pages served by a REAL Slurk server (opt-in: markers
`conformance` and `browser`; helpers from tests/test_real_page.py): two users and a person as the assistant. The
assistant addresses user 1 with the To: switch and types; user 1 answers; only the addressee sees each line; the
assistant books one flight per user by clicking and proposes; both users accept with the buttons. Screenshots at
1366x768 and 1920x1080: artifacts/screenshots/real-mediation-*.png."""
from __future__ import annotations

from tests.real_room import REAL_PAGE_MARKS, SIZES, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS


def _said(rp, text: str) -> bool:
    return any(text in m for _, _, m in rp.chat())


def seated(rr: RealRoom) -> tuple[list, dict]:
    """Three people log in through the waiting room and the game starts: their pages, and the pages by seat."""
    pages = [rr.login(name) for name in ("Ann", "Ben", "Cy")]
    rr.announce()
    wait_until(lambda: all(rr.view(p).get("core", {}).get("phase") == "playing" for p in pages),
               what="the game to start")
    by = {rr.view(p)["core"]["seat"]: p for p in pages}
    assert set(by) == {"user1", "user2", "assistant"}
    return pages, by


def test_three_people_play_mediation_in_real_slurk_pages(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "mediation", people=3) as rr:
        _view = rr.view
        pages, by = seated(rr)
        a, u1, u2 = by["assistant"], by["user1"], by["user2"]

        def shots(step):
            for seat, rp in by.items():
                for w, h in SIZES:
                    rp.page.set_viewport_size({"width": w, "height": h})
                    rp.page.wait_for_timeout(150)
                    rp.shot(f"real-mediation-{step}-{seat}-{w}x{h}.png", full_page=False)

        a.page.wait_for_selector("#mediation-board .md-propose", timeout=WAIT * 1000)
        u1.page.wait_for_selector("#mediation-board .md-grid", timeout=WAIT * 1000)
        for u in (u1, u2):  # the goals, as the original's users saw them; never their price and arrival weights
            text = u.page.inner_text("#mediation-board")
            assert "Your goals" in text and "matters" not in text and "/20" not in text, text
            assert "prefs" not in _view(u) and "price_pref" not in u.page.content()
        a.page.click('#mediation-board button[data-to="user1"]')
        a.type("hi user one, which meetings matter to you?")
        wait_until(lambda: _said(u1, "which meetings matter"), what="user 1 to get the assistant's line")
        u1.type("thursday afternoon is important to me")
        wait_until(lambda: _said(a, "thursday afternoon is important"), what="the assistant to get user 1's line")
        wait_until(lambda: "thursday afternoon" in a.page.inner_text("#mediation-board .md-pane1"),
                   what="user 1's line in the assistant's pane for user 1")
        assert "thursday afternoon" not in a.page.inner_text("#mediation-board .md-pane2")
        a.page.click('#mediation-board button[data-to="both"]')
        a.type("thanks both, booking now")
        wait_until(lambda: _said(u2, "booking now"), what="user 2 to get the line to both")
        shots("1-chat")
        a.page.click('#mediation-board table.md-pick1 tr[data-flight="1"]')
        a.page.click('#mediation-board table.md-pick2 tr[data-flight="2"]')
        a.page.click("#mediation-board .md-propose")
        for u in (u1, u2):
            wait_until(lambda u=u: (_view(u).get("pending") or {}).get("id") is not None, what="the proposal")
            u.page.wait_for_selector("#mediation-board .md-accept", timeout=WAIT * 1000)
        shots("2-proposal")
        u1.page.click("#mediation-board .md-accept")
        u2.page.click("#mediation-board .md-accept")
        wait_until(lambda: all(_view(p).get("core", {}).get("phase") == "over" for p in pages), what="the end")
        assert _view(a)["result"]["pair"] == [1, 2]
        assert _view(u1)["result"]["flight"]["id"] == 1 and _view(u2)["result"]["flight"]["id"] == 2
        shots("3-booked")
        # the relay held on the real pages: user 2 never saw user 1's line or the line to user 1 alone
        assert not _said(u2, "thursday afternoon") and not _said(u2, "which meetings matter")
        assert _said(u1, "booking now")
        for p in pages:
            assert not p.page_errors, p.page_errors


def test_three_people_take_turns_in_the_papers_order_in_real_slurk_pages(chromium, tmp_path):
    """turns=round-robin (the paper preset's): the pages say whose turn it is, a line out of turn is refused with a
    message to its writer alone, and the cycle user 1, user 2, assistant runs to a booking."""
    with RealRoom(chromium, tmp_path, "mediation", people=3, task_options={"turns": "round-robin"}) as rr:
        _view = rr.view
        pages, by = seated(rr)
        a, u1, u2 = by["assistant"], by["user1"], by["user2"]
        u1.page.wait_for_selector("#mediation-board .md-turn.md-mine", timeout=WAIT * 1000)
        assert "waiting for User 1" in u2.page.inner_text("#mediation-board .md-turn")
        u2.type("am i first?")
        wait_until(lambda: _said(u2, "it is User 1's turn"), what="user 2's out-of-turn line to be refused")
        assert not _said(a, "am i first")
        u1.type("thursday afternoon matters to me")
        wait_until(lambda: _view(u2)["turn"]["mine"], what="user 2's turn")
        u2.type("friday morning is busy")
        wait_until(lambda: _view(a)["turn"]["mine"], what="the assistant's turn")
        a.page.wait_for_selector("#mediation-board .md-turn.md-mine", timeout=WAIT * 1000)
        assert "You may write to User 1 or User 2" in a.page.inner_text("#mediation-board .md-turn")
        for seat, rp in by.items():
            rp.shot(f"real-mediation-round-robin-{seat}-1366x768.png", full_page=False)
        a.page.click('#mediation-board table.md-pick1 tr[data-flight="1"]')
        a.page.click('#mediation-board table.md-pick2 tr[data-flight="2"]')
        a.page.click("#mediation-board .md-propose")
        u1.page.wait_for_selector("#mediation-board .md-accept", timeout=WAIT * 1000)
        u1.page.click("#mediation-board .md-accept")
        wait_until(lambda: _view(u2)["turn"]["mine"], what="user 2's turn to answer")
        u2.page.wait_for_selector("#mediation-board .md-accept", timeout=WAIT * 1000)
        u2.page.click("#mediation-board .md-accept")
        wait_until(lambda: all(_view(p).get("core", {}).get("phase") == "over" for p in pages), what="the end")
        assert _view(a)["result"]["pair"] == [1, 2]
        for p in pages:
            assert not p.page_errors, p.page_errors
