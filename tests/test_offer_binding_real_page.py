"""A stale Accept on a real page (issue 27, item 2): three people in real Chromium pages on a REAL Slurk (opt-in:
markers `conformance` and `browser`). The assistant proposes; user 2's page keeps showing that proposal while the
assistant replaces it (the page's drawing is held, as when the click crosses the new offer in flight); user 2 clicks
Accept on the old one: the bot refuses it with a message naming the current proposal, nothing is booked and nobody
has accepted; the users then accept the current proposal and exactly that pair is booked."""
from __future__ import annotations

from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_mediation_real_page import seated
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS


def _said(rp, text: str) -> bool:
    return any(text in m for _, _, m in rp.chat())


def _propose(a, one: int, two: int) -> None:
    a.page.click(f'#mediation-board table.md-pick1 tr[data-flight="{one}"]')
    a.page.click(f'#mediation-board table.md-pick2 tr[data-flight="{two}"]')
    a.page.click("#mediation-board .md-propose")


def test_an_accept_clicked_on_a_replaced_proposal_is_refused_on_a_real_page(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "mediation", people=3) as rr:
        view = rr.view
        pages, by = seated(rr)
        a, u1, u2 = by["assistant"], by["user1"], by["user2"]
        a.page.wait_for_selector("#mediation-board .md-propose", timeout=WAIT * 1000)

        _propose(a, 1, 2)
        wait_until(lambda: (view(u2).get("pending") or {}).get("id") is not None, what="the first proposal")
        u2.page.wait_for_selector("#mediation-board .md-accept", timeout=WAIT * 1000)
        old = view(u2)["pending"]["id"]
        # user 2's page goes on showing the first proposal (its Accept button is bound to it)
        u2.page.evaluate("() => { window.MED.heldRender = window.MED.render; window.MED.render = function () {}; }")
        _propose(a, 3, 4)
        wait_until(lambda: (view(u2).get("pending") or {}).get("id") not in (None, old), what="the new proposal")
        new = view(u2)["pending"]["id"]
        assert "flight 2 " in u2.page.inner_text("#mediation-board .md-card")  # still the old one on screen

        u2.page.click("#mediation-board .md-accept")
        wait_until(lambda: _said(u2, f"#{old} is no longer open"), what="the refusal of the stale accept")
        refusal = next(m for _, _, m in u2.chat() if f"#{old} is no longer open" in m)
        assert f"#{new}" in refusal and "flight 4 " in refusal
        assert view(a)["pending"] == {"id": new, "pair": [3, 4], "accepted": []}
        assert view(u2)["result"] is None and view(u2)["pending"]["mine_accepted"] is False

        u2.page.evaluate("() => { window.MED.render = window.MED.heldRender; window.MED.render(window.SlurkTask.state('mediation-state')); }")
        u2.page.wait_for_function("() => (document.querySelector('#mediation-board .md-card') || {}).innerText"
                                  ".indexOf('flight 4 ') >= 0", timeout=WAIT * 1000)
        for u in (u1, u2):
            u.page.click("#mediation-board .md-accept")
        wait_until(lambda: all(view(p).get("core", {}).get("phase") == "over" for p in pages), what="the end")
        assert view(a)["result"]["pair"] == [3, 4]
        for p in pages:
            assert not p.page_errors, p.page_errors
