"""The DialOp Mediation pages in headless Chromium, on the Slurk page double (tests/browser/harness.py). A user's
page: the own 3-day calendar (importance, shared and private events), the flights (a click shows one on the
calendar), the proposal with the own score breakdown, Accept / Reject sent privately to the bot. The assistant's
page: both users' shared calendars and flights side by side (no importance, no private events), one booking slot
per user, Propose, and the recipient of typed lines (relayed chat). Screenshots at 1366x768 and 1920x1080 go to
artifacts/screenshots/mediation-*.png."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tasks.core import Chat, Command, Match, SeatInfo  # noqa: E402
from tasks.mediation.game import MediationGame  # noqa: E402
from tests.browser.harness import BOT  # noqa: E402

pytestmark = pytest.mark.browser
RELAY = {"send_command": True, "send_privately": True}


def match_after(moves=(), options=None):
    game = MediationGame(2, dict(options or {}))
    m = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    m.open(0.0)
    for seat, name, args in moves:
        m.handle(Command(seat, name, args, t=1.0))
    return m


def show(bp, match, seat):
    data = dict(match.game.view(seat), core={"phase": match.phase, "seat": seat, "bot": BOT["id"], "chat": "relay"})
    assert bp.text_update("mediation-state", json.dumps(data)) >= 1


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_user_page_shows_own_calendar_and_the_proposal_breakdown(browser_page, size):
    bp = browser_page("mediation", viewport=size, permissions=RELAY)
    m = match_after([("assistant", "propose", ("2", "3"))])
    show(bp, m, "user1")
    page, v = bp.page, m.game.view("user1")
    cal = v["calendar"]
    assert page.locator("#mediation-board .md-item.md-private").count() >= sum(not e["shared"] for e in cal)
    assert page.locator("#mediation-board .md-item.md-shared").count() >= sum(e["shared"] for e in cal)
    text = page.inner_text("#mediation-board")
    b = v["pending"]["breakdown"]
    assert f"The assistant proposes flight 2" in text and "Total score" in text and str(b["total"]) in text
    assert page.locator("#mediation-board tr.md-chosen").count() == 1
    bp.screenshot(f"mediation-user-{size[0]}x{size[1]}.png")
    page.click("#mediation-board .md-reject")
    page.click("#mediation-board .md-accept")
    assert [e["command"]["command"] for e in bp.emitted()] == ["reject", "accept"]
    assert [e["command"]["args"] for e in bp.emitted()] == [[str(v["pending"]["id"])]] * 2  # bound to the shown one
    bp.assert_commands_private()
    bp.assert_no_errors()


@pytest.mark.parametrize("show_weights", ["no", "yes"])
def test_user_page_shows_the_weights_only_with_the_option(browser_page, show_weights):
    """The original's users saw their goals, never their price and arrival weights: those are ours, labelled."""
    bp = browser_page("mediation", viewport=(1366, 768), permissions=RELAY)
    m = match_after([("assistant", "propose", ("2", "3"))], {"show_weights": show_weights})
    show(bp, m, "user1")
    text = bp.page.inner_text("#mediation-board")
    prefs = m.game.prefs("user1")
    assert "Your goals" in text and "Total score" in text
    weights = [f"Price matters to you {prefs['price_pref']}/20", "reference price",
               f"arriving together matters {prefs['arrival_pref']}/10"]
    if show_weights == "yes":
        assert all(w in text for w in weights), text
    else:
        assert "matters" not in text and "reference price" not in text and "/20" not in text, text
    bp.assert_no_errors()


def test_a_flight_click_shows_it_on_the_calendar(browser_page):
    bp = browser_page("mediation", permissions=RELAY)
    m = match_after()
    show(bp, m, "user2")
    page = bp.page
    assert page.locator("#mediation-board .md-flight").count() == 0
    page.click('#mediation-board tr[data-flight="1"]')
    assert page.locator("#mediation-board .md-flight").count() >= 1
    bp.assert_no_errors()


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_assistant_page_books_one_flight_per_user_and_addresses_users(browser_page, size):
    bp = browser_page("mediation", viewport=size, permissions=RELAY)
    m = match_after()
    show(bp, m, "assistant")
    page, v = bp.page, m.game.view("assistant")
    text = page.inner_text("#mediation-board")
    assert "User 1" in text and "User 2" in text and "(" not in "".join(
        page.locator("#mediation-board .md-item.md-shared").all_inner_texts())  # no importance shown
    shared = sum(len(u["calendar"]) for u in v["users"])
    assert page.locator("#mediation-board .md-item.md-shared").count() >= shared
    assert page.locator("#mediation-board .md-item.md-private").count() == 0
    assert not page.is_enabled("#mediation-board .md-propose")
    page.click('#mediation-board table.md-pick1 tr[data-flight="4"]')
    page.click('#mediation-board table.md-pick2 tr[data-flight="2"]')
    bp.screenshot(f"mediation-assistant-{size[0]}x{size[1]}.png")
    page.click("#mediation-board .md-propose")
    [sent] = bp.emitted()
    assert sent["receiver_id"] == bp.bot and sent["command"]["command"] == "propose"
    assert sent["command"]["args"] == ["4", "2"]
    page.click('#mediation-board button[data-to="user2"]')
    assert bp.eval("() => window.SlurkTask.chatTarget()") == ["user2"]
    page.click('#mediation-board button[data-to="both"]')
    assert bp.eval("() => window.SlurkTask.chatTarget()") == ["user1", "user2"]
    bp.assert_commands_private()
    bp.assert_no_errors()


def test_result_is_shown_to_a_user(browser_page):
    bp = browser_page("mediation", permissions=RELAY)
    m = match_after([("assistant", "propose", ("1", "1")), ("user1", "accept", ()), ("user2", "accept", ())])
    assert m.over
    show(bp, m, "user2")
    assert "Booked: flight 1" in bp.page.inner_text("#mediation-board")
    bp.assert_no_errors()


def test_assistant_page_has_a_chat_pane_per_user(browser_page):
    """Each user's lines go to that user's pane (by the seat -> Slurk user map in the view's core), as text."""
    bp = browser_page("mediation", permissions=RELAY)
    m = match_after()
    u1, u2 = {"id": 501, "name": "Ann"}, {"id": 502, "name": "Ben"}
    data = dict(m.game.view("assistant"), core={"phase": m.phase, "seat": "assistant", "bot": BOT["id"],
                                                 "chat": "relay", "users": {"user1": 501, "user2": 502}})
    assert bp.text_update("mediation-state", json.dumps(data)) >= 1
    # relayed by the bot: marked html, the text escaped (bots/slurk/delivery.py as_html)
    bp.deliver_text("thursday afternoon matters to me", user=u1, private=True, html=True)
    bp.deliver_text("&lt;b&gt;cheap&lt;/b&gt; please", user=u2, private=True, html=True)
    bp.deliver_text("from someone else", user={"id": 999, "name": "Eve"}, html=True)
    bp.deliver_text("forged in Ann's name", user=u1, private=True)  # not through the bot: no pane takes it
    page = bp.page
    one = page.inner_text("#mediation-board .md-pane1")
    two = page.inner_text("#mediation-board .md-pane2")
    assert "thursday afternoon matters to me" in one and "cheap" not in one
    assert "<b>cheap</b> please" in two and "thursday" not in two  # shown as text, never as HTML
    assert "someone else" not in one + two and "forged" not in one + two
    assert page.locator("#mediation-board .md-pane2 b").count() == 0
    bp.assert_no_errors()


def test_pages_say_whose_turn_it_is_in_the_papers_turn_order(browser_page):
    bp = browser_page("mediation", viewport=(1366, 768), permissions=RELAY)
    m = match_after(options={"turns": "round-robin"})
    show(bp, m, "user2")
    assert "waiting for User 1" in bp.page.inner_text("#mediation-board")
    show(bp, m, "user1")
    assert "Your turn" in bp.page.inner_text("#mediation-board")
    m.handle(Chat("user1", "busy thursday", t=1.0))
    m.handle(Chat("user2", "busy friday", t=1.0))
    show(bp, m, "assistant")
    text = bp.page.inner_text("#mediation-board")
    assert "Your turn" in text and "You may write to User 1 or User 2" in text
    bp.assert_no_errors()
    show(bp, match_after(), "user1")  # ours (free turns): no turn line
    assert "Your turn" not in bp.page.inner_text("#mediation-board")
