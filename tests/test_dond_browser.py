"""The Deal or No Deal page in headless Chromium on the Slurk page double (tests/browser/harness.py): the item table
with the seat's own values only, the -/+ counters and Propose (sent privately to the bot), the partner's standing
offer with Accept / Reject-with-reason carrying its id, the offer history in the seat's own frame, people's reasons
inserted as text, the No-deal confirmation, and the ending box with the completion code. Screenshots at 1366x768
and 1920x1080 go to artifacts/screenshots/dond-*.png."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tasks.core import Command, Join, Match, SeatInfo  # noqa: E402
from tasks.dond.game import DondGame  # noqa: E402
from tasks.dond.generator import make_instance  # noqa: E402
from tests.browser.harness import BOT  # noqa: E402

pytestmark = pytest.mark.browser
SIZES = [(1366, 768), (1920, 1080)]
INST = make_instance((1, 2, 3), (4, 0, 2), (1, 3, 1))  # Alice: book 4, hat 0, ball 2; Bob: book 1, hat 3, ball 1


def match_after(moves=()):
    game = DondGame(1, {}, INST)
    m = Match(game, {s: SeatInfo("person", s) for s in game.seats}, code_source=lambda: "K7Q2ZX9P")
    m.open(0.0)
    for s in game.seats:
        m.handle(Join(s, t=0.0))
    for inp in moves:
        m.handle(inp)
    return m


def show(bp, match, seat):
    data = dict(match.game.view(seat), core={"phase": match.phase, "seat": seat, "bot": BOT["id"], "chat": "open",
                                             "status": match.status, "code": match.codes.get(seat)})
    assert bp.text_update("dond-state", json.dumps(data)) >= 1


def sent(bp):
    return [d["command"] for d in bp.emitted()]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_counters_and_propose_with_only_my_values(browser_page, size):
    bp = browser_page("dond", viewport=size)
    m = match_after()
    show(bp, m, "bob")
    page = bp.page
    values = page.eval_on_selector_all("#dond-board td.dond-value", "els => els.map(e => e.textContent)")
    assert values == ["1", "3", "1"]  # Bob's own values; Alice's (4, 0, 2) are nowhere on his page
    assert "4" not in values and page.is_hidden("#dond-state")
    for _ in range(2):
        page.click('#dond-board tr[data-item="hat"] button.dond-plus')
    page.click('#dond-board tr[data-item="ball"] button.dond-plus')
    assert page.inner_text("#dond-board td.dond-total") == "7 of 10"
    assert page.is_disabled('#dond-board tr[data-item="hat"] button.dond-plus')  # there are only 2 hats
    assert page.is_disabled("#dond-accept") and page.is_disabled("#dond-reject")
    bp.screenshot(f"dond-1-counters-{size[0]}x{size[1]}.png")
    page.click("#dond-propose")
    [cmd] = sent(bp)
    assert cmd["command"] == "propose" and cmd["args"] == ["books=0", "hats=2", "balls=1"]
    bp.assert_commands_private()
    bp.assert_no_errors()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_standing_offer_reject_with_reason_history_and_accept(browser_page, size):
    bp = browser_page("dond", viewport=size)
    evil = "<img src=x onerror=alert(1)> no way"
    m = match_after([Command("alice", "propose", ("1", "0", "3"), t=1.0),
                     Command("bob", "reject", tuple(evil.split()), t=2.0),
                     Command("bob", "propose", ("0", "2", "1"), t=3.0)])
    show(bp, m, "alice")
    page = bp.page
    standing = page.inner_text("#dond-board .dond-standing")
    assert "Bob's offer #2: you get 1 book, no hats, 2 balls (worth 8 to you)" in standing
    history = page.inner_text("#dond-board .dond-history")
    assert "#1 (round 1) You: you get 1 book, no hats, 3 balls (worth 10 to you)" in history
    assert evil in history and page.locator("#dond-board img").count() == 0  # text, not markup
    bp.screenshot(f"dond-2-offer-{size[0]}x{size[1]}.png")
    page.click('#dond-board tr[data-item="book"] button.dond-plus')
    for _ in range(2):
        page.click('#dond-board tr[data-item="ball"] button.dond-plus')
    assert "that makes the deal" in page.inner_text("#dond-propose")  # the counters now equal Bob's offer
    page.fill("#dond-reason", "I need the balls")
    page.click("#dond-reject")
    page.click("#dond-accept")
    cmds = sent(bp)
    assert cmds[0]["command"] == "reject" and cmds[0]["args"] == ["2", "I need the balls"]
    assert cmds[1]["command"] == "accept" and cmds[1]["args"] == ["2"]
    page.click("#dond-nodeal")
    assert len(sent(bp)) == 2 and "Really" in page.inner_text("#dond-nodeal")  # asks first
    page.click("#dond-nodeal")
    assert sent(bp)[-1]["command"] == "nodeal"
    bp.assert_commands_private()
    bp.assert_no_errors()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_result_and_the_ending_box_with_the_code(browser_page, size):
    bp = browser_page("dond", viewport=size)
    m = match_after([Command("alice", "propose", ("1", "0", "2"), t=1.0), Command("bob", "accept", t=2.0)])
    assert m.over
    show(bp, m, "bob")
    page = bp.page
    result = page.inner_text("#dond-board .dond-result")
    assert "You get no books, 2 hats, 1 ball" in result and "Your score: 7 of 10" in result
    assert page.locator("#dond-propose").count() == 0
    assert page.is_visible("#dond-ending") and "K7Q2ZX9P" in page.inner_text("#dond-ending")
    assert "Thank you for playing" in page.inner_text("#dond-ending")
    bp.screenshot(f"dond-3-result-{size[0]}x{size[1]}.png")
    bp.assert_no_errors()
