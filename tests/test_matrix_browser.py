"""The negotiation-games page in headless Chromium on the Slurk page double (tests/browser/harness.py): the payoff
matrix from the seat's own perspective (Bob's rows are Bob's moves, his reward first), the negotiation status and
the Stop-talking button, move buttons sent privately to the bot, "sealed" without the partner's move, the reveal,
a game tree with the path, and people's lines inserted as text. Screenshots at 1366x768 and 1920x1080 go to
artifacts/screenshots/matrix-games-*.png."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tasks.core import Chat, Command, Match, SeatInfo  # noqa: E402
from tasks.matrix_games.game import MatrixGame  # noqa: E402
from tests.browser.harness import BOT  # noqa: E402

pytestmark = pytest.mark.browser
SIZES = [(1366, 768), (1920, 1080)]


def match_after(options, moves=()):
    game = MatrixGame(1, options)
    m = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    m.open(0.0)
    for inp in moves:
        m.handle(inp)
    return m


def show(bp, match, seat):
    data = dict(match.game.view(seat), core={"phase": match.phase, "seat": seat, "bot": BOT["id"], "chat": "relay"})
    assert bp.text_update("matrix-games-state", json.dumps(data)) >= 1


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_matrix_from_bobs_side_negotiation_and_sealed_move(browser_page, size):
    bp = browser_page("matrix-games", viewport=size)
    evil = "<img src=x onerror=alert(1)> let's both go Football"
    m = match_after({"game": "battle-of-sexes", "negotiation": 3},
                    [Chat("alice", evil, t=1.0), Command("bob", "halt", (), t=1.0)])
    show(bp, m, "bob")
    page = bp.page
    # Bob's perspective: his moves are rows and his reward comes first: (Opera, Opera) gives Bob 1, Alice 2
    assert page.inner_text('#matrix-games-board td[data-cell="0:0"]').replace(" ", "") == "1,2"
    assert page.inner_text('#matrix-games-board td[data-cell="1:1"]').replace(" ", "") == "2,1"
    text = page.inner_text("#matrix-games-board")
    assert "your turn to write" in text and evil in text  # shown as text, not markup
    assert page.locator("#matrix-games-board img").count() == 0
    assert page.is_hidden("#matrix-games-state")
    bp.screenshot(f"matrix-games-1-negotiation-{size[0]}x{size[1]}.png")
    m.handle(Command("alice", "halt", (), t=2.0))
    show(bp, m, "bob")
    page.click('#matrix-games-board button[data-move="Football"]')
    [sent] = bp.emitted()
    assert sent["receiver_id"] == bp.bot and sent["command"]["command"] == "move"
    assert sent["command"]["args"] == ["Football"]
    bp.assert_commands_private()
    m.handle(Command("alice", "move", ("Football",), t=3.0))  # Alice is in first: Bob's page says so, not what
    show(bp, m, "bob")
    text = page.inner_text("#matrix-games-board")
    assert "Alice has moved (sealed)" in text and page.locator("button.mg-move").count() == 2
    bp.assert_no_errors()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_reveal_and_the_outcome_cell(browser_page, size):
    bp = browser_page("matrix-games", viewport=size)
    m = match_after({"game": "duopoly"}, [Command("alice", "move", ("Q3",), t=1.0),
                                          Command("bob", "move", ("Q2",), t=1.0)])
    assert m.over
    show(bp, m, "alice")
    page = bp.page
    assert page.locator("#matrix-games-board td.mg-outcome").count() == 1
    assert page.inner_text("#matrix-games-board td.mg-outcome").replace(" ", "") == "10,5"
    assert "You played Q3, Bob played Q2" in page.inner_text("#matrix-games-board .mg-reveal")
    bp.screenshot(f"matrix-games-2-reveal-{size[0]}x{size[1]}.png")
    bp.assert_no_errors()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_game_tree_with_the_path_and_the_movers_buttons(browser_page, size):
    bp = browser_page("matrix-games", viewport=size)
    m = match_after({"game": "trigame"}, [Command("alice", "move", ("choice_2",), t=1.0)])
    show(bp, m, "bob")
    page = bp.page
    assert page.locator("#matrix-games-board li.mg-path").count() == 1
    assert page.locator("button.mg-move").count() == 2
    assert "Bob" not in page.inner_text("#matrix-games-board .mg-tree .mg-edge >> nth=0")  # "you" / "Alice"
    bp.screenshot(f"matrix-games-3-tree-{size[0]}x{size[1]}.png")
    page.click('#matrix-games-board button[data-move="choice_1"]')
    assert bp.emitted()[-1]["command"] == {"command": "move", "args": ["choice_1"]} or \
        bp.emitted()[-1]["command"].get("command") == "move"
    show(bp, m, "alice")
    assert page.locator("button.mg-move").count() == 0 and "Waiting for Bob" in page.inner_text("#matrix-games-board")
    bp.assert_no_errors()
