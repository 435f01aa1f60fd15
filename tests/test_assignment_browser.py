"""The DialOp Assignment page in headless Chromium, on the Slurk page double (tests/browser/harness.py): the table
with the own scaled values (blank where unknown), cell clicks that build a matching (one per row and column,
clicking again removes), Propose / Accept / Reject sent privately to the bot, the partner's pending proposal
highlighted, the result with the best matching outlined, and names inserted as text. Screenshots go to
artifacts/screenshots/assignment-*.png."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tasks.assignment.game import AssignmentGame  # noqa: E402
from tasks.assignment.parse import format_proposal, parse_proposal  # noqa: E402
from tasks.core import Command, Match, SeatInfo  # noqa: E402
from tests.browser.harness import BOT  # noqa: E402

pytestmark = pytest.mark.browser


def match_after(moves=()):
    game = AssignmentGame(1, {})
    m = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    m.open(0.0)
    for seat, name, args in moves:
        m.handle(Command(seat, name, args, t=1.0))
    return m


def show(bp, match, seat):
    data = dict(match.game.view(seat), core={"phase": match.phase, "seat": seat, "bot": BOT["id"], "chat": "open"})
    assert bp.text_update("assignment-state", json.dumps(data)) >= 1


def cell(r, p):
    return f'#assignment-board td[data-cell="{r}:{p}"]'


def test_table_shows_own_values_and_clicks_build_a_matching(browser_page):
    bp = browser_page("assignment")
    m = match_after()
    show(bp, m, "player1")
    page = bp.page
    table = m.game.view("player1")["table"]
    for r in range(8):
        for p in range(8):
            assert page.inner_text(cell(r, p)).strip() == ("" if table[r][p] is None else str(table[r][p]))
    assert page.is_hidden("#assignment-state")
    page.click(cell(0, 0))
    page.click(cell(1, 0))                       # same paper: moves the pick
    assert page.locator("#assignment-board td.as-picked").count() == 1
    page.click(cell(1, 0))                       # clicking again removes
    assert page.locator("#assignment-board td.as-picked").count() == 0
    assert not page.is_enabled("#assignment-board .as-propose")
    for r in range(8):
        page.click(cell(r, (r + 3) % 8))
    bp.screenshot("assignment-1-picked.png")
    page.click("#assignment-board .as-propose")
    [sent] = bp.emitted()
    assert sent["receiver_id"] == bp.bot and sent["command"]["command"] == "propose"
    assert parse_proposal(sent["command"]["args"][0]) == [(r + 3) % 8 for r in range(8)]
    bp.assert_commands_private()
    bp.assert_no_errors()


def test_pending_proposal_is_highlighted_with_accept_and_reject(browser_page):
    bp = browser_page("assignment")
    matching = [(r + 1) % 8 for r in range(8)]
    m = match_after([("player1", "propose", (format_proposal(matching),))])
    show(bp, m, "player2")
    page = bp.page
    assert page.locator("#assignment-board td.as-pending").count() == 8
    bp.screenshot("assignment-2-pending.png")
    page.click("#assignment-board .as-reject")
    page.click("#assignment-board .as-accept")
    assert [e["command"]["command"] for e in bp.emitted()] == ["reject", "accept"]
    shown = str(m.game.view("player2")["pending"]["id"])
    assert [e["command"]["args"] for e in bp.emitted()] == [[shown], [shown]]  # bound to the proposal shown
    bp.assert_no_errors()


def test_result_shows_the_score_and_outlines_the_best_matching(browser_page):
    bp = browser_page("assignment")
    g = AssignmentGame(1, {})
    m = match_after([("player1", "propose", (format_proposal(g.inst["best_matching"]),)),
                     ("player2", "accept", ())])
    assert m.over
    show(bp, m, "player2")
    page = bp.page
    assert "100%" in page.inner_text("#assignment-board")
    page.click("#assignment-board .as-toggle")
    assert page.locator("#assignment-board td.as-best").count() == 8
    bp.screenshot("assignment-3-result.png")
    bp.assert_no_errors()
