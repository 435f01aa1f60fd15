"""The AsymPuzl page in headless Chromium, on the Slurk page double (tests/browser/harness.py): the seat's clues and
answer row drawn as shapes in colour (SVG), a position click that opens the shape and colour picker and sends
`replace` privately to the bot, End turn, the feedback its mode allows (wrong positions marked), the result with the
hidden row, and text from the view inserted as text only. Screenshots at 1366x768 and 1920x1080 go to
artifacts/screenshots/asympuzl-*.png."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tasks.asympuzl.game import AsymPuzlGame  # noqa: E402
from tasks.core import Chat, Command, Match, SeatInfo  # noqa: E402
from tests.browser.harness import BOT  # noqa: E402

pytestmark = pytest.mark.browser
RELAY = {"send_command": True, "send_privately": True}


def match_after(moves=(), **options):
    game = AsymPuzlGame(2, {"size": 6, "distractors": 1, **options})
    m = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    m.open(0.0)
    for inp in moves:
        m.handle(inp)
    return m


def show(bp, match, seat, data=None):
    data = data or dict(match.game.view(seat), core={"phase": match.phase, "seat": seat, "bot": BOT["id"],
                                                     "chat": "relay"})
    assert bp.text_update("asympuzl-state", json.dumps(data)) >= 1


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_a_page_draws_clues_and_sends_a_replacement(browser_page, size):
    bp = browser_page("asympuzl", viewport=size, permissions=RELAY)
    m = match_after()
    show(bp, m, "a")
    page, v = bp.page, m.game.view("a")
    assert page.locator("#asympuzl-board .ap-clues .ap-tile").count() == 6
    assert page.locator("#asympuzl-board .ap-clues svg").count() == 7  # one position lists two shapes
    assert page.locator("#asympuzl-board .ap-hyp .ap-cell").count() == 6
    text = page.inner_text("#asympuzl-board")
    assert "You are Player A" in text and "Your turn" in text and "Round 1 of 12" in text
    assert page.is_hidden("#asympuzl-state")
    page.click('#asympuzl-board .ap-hyp [data-pos="2"]')
    assert page.locator("#asympuzl-board .ap-picker").count() == 1
    shape = v["clue_shapes"][1][0]
    page.click(f'#asympuzl-board .ap-shape[data-shape="{shape}"]')
    page.click('#asympuzl-board .ap-colour[data-colour="red"]')
    bp.screenshot(f"asympuzl-a-picker-{size[0]}x{size[1]}.png")
    page.click("#asympuzl-board .ap-replace")
    page.click("#asympuzl-board .ap-done")
    sent = bp.emitted()
    assert [s["command"] for s in sent] == [{"command": "replace", "args": ["2", shape, "red"]},
                                           {"command": "done", "args": []}]
    assert all(s["receiver_id"] == bp.bot for s in sent)
    bp.assert_commands_private()
    bp.assert_no_errors()


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_b_page_shows_pairs_and_detailed_feedback_off_turn(browser_page, size):
    bp = browser_page("asympuzl", viewport=size, permissions=RELAY)
    m = match_after([Chat("a", "position 1 is the circle"), Command("b", "done"), Command("a", "done")],
                    feedback="both-detailed")
    m.handle(Chat("b", "hello"))  # B's turn is over now: the page shows the partner's turn
    show(bp, m, "b")
    page, v = bp.page, m.game.view("b")
    assert page.locator("#asympuzl-board .ap-clues .ap-tile").count() == 7  # 6 pairs + 1 decoy
    wrong = v["feedback"]["own_wrong"]
    assert page.locator("#asympuzl-board .ap-hyp .ap-wrong").count() == len(wrong) > 0
    text = page.inner_text("#asympuzl-board")
    assert "random order" in text and "Wrong positions in your row: " + ", ".join(map(str, wrong)) in text
    assert "Your partner's turn" in text and not page.is_enabled("#asympuzl-board .ap-done")
    page.click('#asympuzl-board .ap-hyp [data-pos="1"]')
    assert not page.is_enabled("#asympuzl-board .ap-replace")
    bp.screenshot(f"asympuzl-b-feedback-{size[0]}x{size[1]}.png")
    assert bp.emitted() == []
    bp.assert_no_errors()


def test_the_result_shows_the_hidden_row_and_view_text_stays_text(browser_page):
    bp = browser_page("asympuzl", permissions=RELAY)
    m = match_after(size=3)
    for _ in range(12):
        m.handle(Command(m.game.current, "done"))
    assert m.over
    show(bp, m, "a")
    page = bp.page
    assert "Not solved" in page.inner_text("#asympuzl-board")
    assert page.locator("#asympuzl-board .ap-truth .ap-tile").count() == 3
    bp.screenshot("asympuzl-result.png")
    evil = dict(m.game.view("a"), core={"phase": "playing", "seat": "a", "bot": BOT["id"], "chat": "relay"})
    evil["result"] = None
    evil["hypothesis"] = [["<img src=x onerror=window.__pwned=1>", "red"]] + evil["hypothesis"][1:]
    show(bp, m, "a", evil)
    assert page.locator("#asympuzl-board img").count() == 0
    assert "<img src=x" in page.inner_text("#asympuzl-board")
    assert bp.eval("() => window.__pwned === undefined")
    bp.assert_no_errors()
