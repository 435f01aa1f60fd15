"""Operator rough edges (issue 18) on the task pages, in headless Chromium on the Slurk page double.

Every ending comes from a real Match (a timeout, a partner who left and did not come back, a finished game), and its
real per-seat view (core.phase/status/code) is written into the page as the bot does. Every task page must then say
the game is over, why, and show the completion code in the shared ending box (plugins/slurk-task.js); gnomes must
not say "Your turn" any more, travel must not show "Your score: 0 / 100" as a success when the partner left.
"""
from __future__ import annotations

import json

import pytest

from tasks import get_task
from tasks.core import Match, SeatInfo
from tasks.core.protocol import Join, Leave, TimerFired
from tests.browser.harness import BOT

pytestmark = pytest.mark.browser

CODE = "OPS-4242"
STATE = {"travel": "travel-state", "gnomes": "gnomes-state", "assignment": "assignment-state",
         "mediation": "mediation-state"}


def ended_match(task: str, status: str) -> Match:
    game = get_task(task).game_class(3, {})
    m = Match(game, {s: SeatInfo("person", s) for s in game.seats}, code_source=lambda: CODE)
    m.open(0.0)
    for s in game.seats:
        m.handle(Join(s, t=0.1))
    assert m.phase == "playing"
    first, *others = game.seats
    if status == "timeout":
        m.handle(TimerFired("core:inactivity", m.pending_timers()["core:inactivity"], t=400.0))
    elif status == "partner_left":
        m.handle(Leave(others[0], t=1.0))
        m.handle(TimerFired(f"core:left:{others[0]}", m.pending_timers()[f"core:left:{others[0]}"], t=200.0))
    assert m.phase == "over" and m.status == status, (m.phase, m.status)
    return m


def show(bp, task: str, m: Match, seat: str) -> dict:
    view = m._view(seat)
    view["core"].update(bot=BOT["id"], key="k")
    assert bp.text_update(STATE[task], json.dumps(view)) >= 1
    return view


def banner_ending(bp) -> str:
    """The ending box: in the task area under "You are ..." (never a fixed overlay over Slurk's header)."""
    bp.page.wait_for_selector("#slurk-task-ending-box .slurk-task-ending")
    assert not bp.page.query_selector("#slurk-task-banner .slurk-task-ending")
    return bp.page.inner_text("#slurk-task-ending-box .slurk-task-ending")


@pytest.mark.parametrize("status,why", [("timeout", "nobody moved"), ("partner_left", "your partner left")])
def test_gnomes_page_shows_game_over_and_the_code(browser_page, status, why):
    bp = browser_page("gnomes")
    m = ended_match("gnomes", status)
    seat = m.game.seats[0]
    view = show(bp, "gnomes", m, seat)
    assert view["your_turn"] is True          # the game's own view still says it is this seat's turn ...
    board = bp.page.inner_text("#gnomes-board")
    assert "Game over" in board and "Your turn" not in board          # ... the page does not
    assert why in board
    assert all(b.is_disabled() for b in bp.page.query_selector_all("#gnomes-board .gnomes-btn"))
    text = banner_ending(bp)
    assert why in text and CODE in text
    bp.page.keyboard.press("ArrowRight")
    assert bp.emitted("message_command") == []
    bp.screenshot(f"operator-gnomes-{status}.png")


def test_travel_page_partner_left_is_not_a_score(browser_page):
    bp = browser_page("travel")
    m = ended_match("travel", "partner_left")
    show(bp, "travel", m, "light")
    page = bp.page
    assert page.query_selector("#travel-percentile") is None
    assert "Your score" not in page.inner_text("#travel-result")
    assert "No tour was scored" in page.inner_text("#travel-stopped")
    assert "Game over: your partner left" in page.inner_text("#travel-info")
    assert "travel-result-stopped" in (page.get_attribute("#travel-result", "class") or "")
    assert page.inner_text("#travel-code-value") == CODE
    assert "your partner left" in page.inner_text("#travel-code")      # the same ending box, in the page's place
    bp.screenshot("operator-travel-partner-left.png")


@pytest.mark.parametrize("task", ["assignment", "mediation"])
def test_other_task_pages_show_the_same_ending_box(browser_page, task):
    bp = browser_page(task)
    m = ended_match(task, "timeout")
    show(bp, task, m, m.game.seats[0])
    text = banner_ending(bp)
    assert "nobody moved" in text and CODE in text
    assert bp.page.inner_text("#slurk-task-ending-box .slurk-task-code-value") == CODE


def test_a_finished_game_says_thank_you(browser_page):
    bp = browser_page("gnomes")
    m = ended_match("gnomes", "partner_left")
    m.status = "completed"                    # the same view with the status of a finished game
    m._last_views.clear()
    show(bp, "gnomes", m, m.game.seats[0])
    assert "Thank you" in banner_ending(bp)


def test_gnomes_stay_button_is_labelled_and_the_arrow_keys_are_explained(browser_page):
    bp = browser_page("gnomes")
    game = get_task("gnomes").game_class(1, {})
    m = Match(game, {s: SeatInfo("person", s) for s in game.seats}, code_source=lambda: CODE)
    m.open(0.0)
    for s in game.seats:
        m.handle(Join(s, t=0.1))
    seat = next(s for s in game.seats if m.game.view(s)["your_turn"])
    show(bp, "gnomes", m, seat)
    page = bp.page
    stay = page.query_selector("#gnomes-board .gnomes-stay")
    assert stay.inner_text().strip().lower() == "stay" and "Stay" in stay.get_attribute("aria-label")
    assert "arrow keys" in page.inner_text("#gnomes-board .gnomes-keys")
    page.focus("#text")
    page.wait_for_function("() => document.querySelector('#gnomes-board .gnomes-keys').textContent"
                           ".includes('chat box')")
    page.keyboard.press("ArrowUp")
    assert bp.emitted("message_command") == []          # the chat box keeps its arrows, and the page says so
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('#gnomes-board .gnomes-keys').textContent"
                           ".includes('chat box')")
    page.keyboard.press("ArrowUp")
    sent = bp.emitted("message_command")
    assert len(sent) == 1 and sent[0]["command"]["command"] == "move"
    assert not any(t in page.inner_text("#gnomes-board") for t in ("side h", "side e", "seat h", "seat e"))


def test_mediation_page_ended_without_a_booking_offers_nothing_to_press(browser_page):
    bp = browser_page("mediation")
    m = ended_match("mediation", "timeout")
    for seat in ("assistant", "user1"):
        show(bp, "mediation", m, seat)
        page = bp.page
        assert "nobody moved" in page.inner_text("#mediation-board .md-ended")
        buttons = page.query_selector_all("#mediation-board button")
        assert all(b.is_disabled() for b in buttons)
        assert buttons or seat != "assistant"  # the assistant's switches and Propose are there, and disabled
    bp.assert_no_errors()
