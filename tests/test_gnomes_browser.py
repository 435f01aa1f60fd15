"""The Gnomes at Night page in headless Chromium, on the Slurk page double (tests/browser/harness.py).

The test plays the bot: it writes a seat's real view (from GnomesGame) into #gnomes-state, with the bot's user id
and chat mode in `core` as the Slurk runtime adds them, and checks the board and the `message_command` payloads
(moves go privately to the bot). Screenshots go to artifacts/screenshots/gnomes-*.png.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tasks.core import Command, Match, SeatInfo  # noqa: E402
from tasks.gnomes import maze  # noqa: E402
from tasks.gnomes.game import GnomesGame  # noqa: E402
from tests.browser.harness import BOT  # noqa: E402

pytestmark = pytest.mark.browser


def match_after(moves=()):
    game = GnomesGame(1, {})
    m = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    m.open(0.0)
    for seat, d in moves:
        m.handle(Command(seat, "move", (d,), t=1.0))
    return m


def show(bp, match, seat, chat="open"):
    data = dict(match.game.view(seat), core={"phase": match.phase, "seat": seat, "bot": BOT["id"], "chat": chat})
    assert bp.text_update("gnomes-state", json.dumps(data)) >= 1


def cmd(bp, d):
    return {"command": {"command": "move", "args": [d]}, "room": bp.room, "receiver_id": bp.bot}


def test_board_shows_own_walls_token_and_visible_treasure(browser_page):
    bp = browser_page("gnomes")
    m = match_after()
    show(bp, m, "h")
    page = bp.page
    walls = maze.WALLS[0]
    assert page.locator("#gnomes-board .gnomes-wall").count() == len(walls["right"]) + len(walls["below"])
    assert page.locator("#gnomes-board .gnomes-token").count() == 1
    assert page.locator("#gnomes-board .gnomes-treasure").count() == 1      # round 1: side 0 sees it
    text = page.inner_text("#gnomes-board")
    assert "Round 1 of 5" in text and "Your turn" in text
    assert page.is_hidden("#gnomes-state")
    bp.screenshot("gnomes-1-person-side.png")
    bp.assert_no_errors()


def test_partner_side_never_draws_the_hidden_treasure(browser_page):
    bp = browser_page("gnomes")
    m = match_after()
    show(bp, m, "e")
    walls = maze.WALLS[1]
    assert bp.page.locator("#gnomes-board .gnomes-wall").count() == len(walls["right"]) + len(walls["below"])
    assert bp.page.locator("#gnomes-board .gnomes-treasure").count() == 0
    assert "Partner's turn" in bp.page.inner_text("#gnomes-board")
    bp.screenshot("gnomes-2-agent-side.png")


def test_buttons_and_arrow_keys_send_moves_only_on_your_turn(browser_page):
    bp = browser_page("gnomes")
    m = match_after()
    show(bp, m, "e")                                     # not e's turn: buttons disabled, keys ignored
    assert not bp.page.is_enabled("#gnomes-board .gnomes-right")
    bp.page.keyboard.press("ArrowRight")
    assert bp.emitted() == []
    show(bp, m, "h")
    bp.page.click("#gnomes-board .gnomes-right")
    bp.page.click("#gnomes-board .gnomes-stay")
    bp.page.keyboard.press("ArrowDown")
    assert bp.emitted() == [cmd(bp, "right"), cmd(bp, "stay"), cmd(bp, "down")]
    bp.clear_emitted()
    bp.page.focus("#text")                               # arrows in the chat box move the cursor, not the token
    bp.page.keyboard.press("ArrowLeft")
    assert bp.emitted() == []


def test_moves_typed_commands_and_relayed_chat_reach_only_the_bot(browser_page):
    bp = browser_page("gnomes")
    m = match_after()
    show(bp, m, "h", chat="relay")
    bp.page.click("#gnomes-board .gnomes-up")
    bp.type_chat("/move right")
    bp.type_chat("go right twice")
    assert bp.emitted() == [cmd(bp, "up"),
                            {"command": "move right", "room": bp.room, "receiver_id": bp.bot},
                            {"command": {"chat": "go right twice"}, "room": bp.room, "receiver_id": bp.bot}]
    bp.assert_commands_private()
    assert bp.emitted("text") == []
    bp.wait_idle()
    assert bp.chat_lines() == ["You: /move right"]      # the relayed line comes back from the bot, not echoed here
    bp.assert_no_errors()


def test_round_results_and_blocked_move_note(browser_page):
    bp = browser_page("gnomes")
    moves = [("h", "right"), ("e", "right"), ("h", "stay"), ("e", "right"), ("h", "right")]   # round 1 found
    m = match_after(moves + [("h", "stay"), ("e", "up")])                                    # e bumps the edge
    show(bp, m, "e")
    text = bp.page.inner_text("#gnomes-board")
    assert "Round 2 of 5" in text and "found in 5 turns" in text and "hit a wall" in text
    assert bp.page.locator("#gnomes-board .gnomes-treasure").count() == 1                    # round 2: side 1
    bp.screenshot("gnomes-3-round-2.png")
