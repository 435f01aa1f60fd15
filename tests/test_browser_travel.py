"""The Traveling Adventurers page in headless Chromium, on the Slurk page double (tests/browser/harness.py).

The bot's side is played by the test: it delivers the seat's view as a `text_update` of #travel-state and checks the
`message_command` payloads the page emits. Screenshots go to artifacts/screenshots/travel-*.png.
"""
from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


pytestmark = pytest.mark.browser

ROOMS = [("L", "living room"), ("K", "kitchen"), ("B", "bathroom"), ("A", "attic"), ("G", "garden"),
         ("P", "play room")]
# The light seat's coins on all 15 hallways (1-10).
MY_COINS = {"K-L": 5, "B-L": 2, "A-L": 7, "G-L": 1, "L-P": 9, "B-K": 8, "A-K": 3, "G-K": 6, "K-P": 4, "A-B": 10,
            "B-G": 2, "B-P": 5, "A-G": 9, "A-P": 1, "G-P": 7}
FULL_TOUR = ["L", "K", "B", "A", "G", "P", "L"]


def make_view(**over):
    view = {
        "rooms": [{"id": i, "name": n} for i, n in ROOMS],
        "start": "L",
        "world": "light",
        "my_coins": dict(MY_COINS),
        "partner_coins": {"K-L": 3},
        "agreed": ["L"],
        "pending": None,
        "submitted": {"me": None, "partner": False},
        "turns_left": {"me": 15, "partner": 14},
        "result": None,
        "core": {"phase": "playing", "seat": "light", "task": "travel", "status": None, "code": None},
    }
    view.update(over)
    return view


def show(bp, view):
    assert bp.text_update("travel-state", json.dumps(view)) >= 1


def command(bp, name, args):
    return {"command": {"command": name, "args": args}, "room": bp.room}


def enabled(bp, button_id):
    return bp.page.is_enabled(f"#{button_id}")


def click_rooms(bp, *rooms, force=False):
    for r in rooms:
        bp.page.click(f".travel-room[data-room='{r}'] .travel-room-ring", force=force)


def controls_in_view(bp):
    box = bp.page.locator("#travel-controls").bounding_box()
    chat_box = bp.page.locator("#text").bounding_box()
    return box["y"] >= 80 and box["y"] + box["height"] <= chat_box["y"]


BUTTONS = ["travel-propose", "travel-clear", "travel-agree", "travel-reject", "travel-undo", "travel-share",
           "travel-submit"]


# ----------------------------------------------------------------------------------------------------------------


def test_board_draws_rooms_own_coins_and_only_shared_partner_coins(browser_page):
    bp = browser_page("travel")
    show(bp, make_view())
    page = bp.page
    rooms = page.eval_on_selector_all(".travel-room", "els => els.map(e => e.getAttribute('data-room'))")
    assert sorted(rooms) == sorted(i for i, _ in ROOMS)
    names = page.eval_on_selector_all(".travel-room-name", "els => els.map(e => e.textContent)")
    assert "living room (start)" in names and "play room" in names
    coins = page.eval_on_selector_all(
        ".travel-coin", "els => els.map(e => [e.getAttribute('data-edge'), e.querySelector('text').textContent])")
    labels = dict(coins)
    assert len(labels) == 15
    assert labels["K-L"] == "5 | 3"                      # own coins | the partner's shared coins
    for edge, mine in MY_COINS.items():
        if edge != "K-L":
            assert labels[edge] == f"{mine} | ?", edge  # the partner's unshared coins are not drawn
    # the legend explains the numbers; the start room is marked; nothing can be agreed or submitted yet
    assert "partner's coins" in page.inner_text("#travel-legend")
    assert "start room" in page.get_attribute(".travel-room[data-room='L']", "aria-label")
    assert not enabled(bp, "travel-agree") and not enabled(bp, "travel-reject")
    assert not enabled(bp, "travel-submit") and not enabled(bp, "travel-propose") and not enabled(bp, "travel-undo")
    assert enabled(bp, "travel-share")
    assert "15" in page.inner_text("#travel-turns") and "14" in page.inner_text("#travel-turns")
    # at 1280x800 the board and the buttons are in view, above Slurk's message box
    assert controls_in_view(bp)
    bp.screenshot("travel-1-board.png")


def test_clicking_rooms_builds_a_draft_and_propose_sends_it(browser_page):
    bp = browser_page("travel")
    show(bp, make_view())
    click_rooms(bp, "K", "B")
    assert bp.page.get_attribute(".travel-draft-path", "data-path") == "L K B"
    assert "L \u2192 K \u2192 B" in bp.page.inner_text("#travel-draft-text")
    assert enabled(bp, "travel-propose") and enabled(bp, "travel-clear")
    bp.screenshot("travel-2-draft.png")
    bp.page.click("#travel-propose")
    assert bp.emitted() == [command(bp, "propose", ["K", "B"])]
    assert not enabled(bp, "travel-propose")              # the draft was sent
    assert bp.page.query_selector(".travel-draft-path") is None


def test_clicking_a_drafted_room_shortens_the_draft_and_clear_empties_it(browser_page):
    bp = browser_page("travel")
    show(bp, make_view())
    click_rooms(bp, "K", "B", "A")
    click_rooms(bp, "B")                                   # back to ... K B
    assert bp.page.get_attribute(".travel-draft-path", "data-path") == "L K B"
    click_rooms(bp, "B")                                   # the last one is removed
    assert bp.page.get_attribute(".travel-draft-path", "data-path") == "L K"
    bp.page.click("#travel-clear")
    assert bp.page.query_selector(".travel-draft-path") is None
    assert not enabled(bp, "travel-propose")
    assert bp.emitted() == []


def test_closing_the_tour_by_clicking_the_start_room(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=["L", "K", "B", "A", "G"]))
    click_rooms(bp, "L")                                   # not every room visited yet: refused with a hint
    assert bp.page.query_selector(".travel-draft-path") is None
    assert "every room" in bp.page.inner_text("#travel-hint")
    click_rooms(bp, "P", "L")
    bp.page.click("#travel-propose")
    assert bp.emitted() == [command(bp, "propose", ["P", "L"])]


def test_revising_from_an_earlier_agreed_room_proposes_the_whole_path(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=["L", "K", "B"]))
    click_rooms(bp, "K", "A")
    assert bp.page.get_attribute(".travel-draft-path", "data-path") == "L K A"
    bp.page.click("#travel-propose")
    assert bp.emitted() == [command(bp, "propose", ["L", "K", "A"])]


def test_a_complete_agreed_tour_can_still_be_changed(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=FULL_TOUR))
    click_rooms(bp, "B", "G", "A", "P", "L")
    assert bp.page.get_attribute(".travel-draft-path", "data-path") == "L K B G A P L"
    bp.page.click("#travel-propose")
    assert bp.emitted() == [command(bp, "propose", ["L", "K", "B", "G", "A", "P", "L"])]


def test_partner_proposal_can_be_agreed_or_rejected(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=["L", "K"]))
    assert not enabled(bp, "travel-agree")
    show(bp, make_view(agreed=["L", "K"], pending={"by": "ghost", "mine": False, "path": ["B", "A"], "kind": "extend"}))
    assert enabled(bp, "travel-agree") and enabled(bp, "travel-reject")
    assert bp.page.get_attribute(".travel-pending-path", "data-path") == "K B A"
    assert bp.page.get_attribute(".travel-pending-path", "data-by") == "partner"
    assert controls_in_view(bp)                            # also with the proposal notice shown
    pending = bp.page.inner_text("#travel-pending")
    assert "Your partner (ghost) proposes" in pending and "B \u2192 A" in pending
    bp.screenshot("travel-3-pending.png")
    bp.page.click("#travel-agree")
    bp.page.click("#travel-reject")
    assert bp.emitted() == [command(bp, "agree", []), command(bp, "reject", [])]


def test_own_pending_proposal_cannot_be_agreed_by_oneself(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(pending={"by": "light", "mine": True, "path": ["K"], "kind": "extend"}))
    assert not enabled(bp, "travel-agree") and not enabled(bp, "travel-reject")
    assert "You proposed" in bp.page.inner_text("#travel-pending")
    assert bp.page.get_attribute(".travel-pending-path", "data-by") == "me"


EIGHT = [("L", "living room"), ("E", "empty room with no windows"), ("B", "bathroom"), ("K", "kitchen"),
         ("C", "children's room"), ("A", "attic"), ("G", "garden"), ("P", "play room")]


def geometry(bp):
    """Boxes (in SVG user units) of the coin labels, room circles and room names, and the viewBox."""
    return bp.eval("""() => {
        const svg = document.getElementById('travel-svg');
        const box = (e) => { const b = e.getBBox(); return [b.x, b.y, b.width, b.height]; };
        return {
            view: svg.viewBox.baseVal ? [0, 0, svg.viewBox.baseVal.width, svg.viewBox.baseVal.height] : null,
            labels: Array.from(svg.querySelectorAll('.travel-coin rect')).map(box),
            rooms: Array.from(svg.querySelectorAll('.travel-room-ring')).map(box),
            names: Array.from(svg.querySelectorAll('.travel-room-name')).map(box),
        };
    }""")


def overlap(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("rooms", [ROOMS, EIGHT], ids=["6-rooms", "8-rooms"])
def test_labels_and_names_are_readable(browser_page, rooms):
    ids = [i for i, _ in rooms]
    coins = {"-".join(sorted((a, b))): (i * 7 + j * 3) % 10 + 1 for i, a in enumerate(ids) for j, b in
             enumerate(ids) if i < j}
    bp = browser_page("travel")
    show(bp, make_view(rooms=[{"id": i, "name": n} for i, n in rooms], my_coins=coins, partner_coins={}))
    g = geometry(bp)
    n = len(ids)
    assert len(g["labels"]) == n * (n - 1) // 2 and len(g["rooms"]) == n
    for i, a in enumerate(g["labels"]):                   # no coin label covers another label or a room
        for b in g["labels"][i + 1:] + g["rooms"]:
            assert not overlap(a, b), (a, b)  # noqa
    vx, vy, vw, vh = g["view"]
    for b in g["labels"] + g["rooms"] + g["names"]:       # and nothing sticks out of the board
        assert b[0] >= vx and b[1] >= vy and b[0] + b[2] <= vw and b[1] + b[3] <= vh, b
    names = bp.page.eval_on_selector_all(".travel-room-name", "els => els.map(e => e.textContent)")
    assert "empty room with no windows" in names or n == 6
    bp.screenshot(f"travel-layout-{n}-rooms.png")


def test_undo_and_share(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=["L", "K", "B"]))
    assert bp.page.get_attribute(".travel-agreed", "data-path") == "L K B"
    assert enabled(bp, "travel-undo")
    bp.page.click("#travel-undo")
    bp.page.click("#travel-share")
    assert bp.emitted() == [command(bp, "undo", []), command(bp, "share", ["all"])]
    show(bp, make_view(agreed=["L", "K", "B"], my_shared=sorted(MY_COINS)))
    assert not enabled(bp, "travel-share")                # nothing left to share


def test_submit_only_for_a_full_agreed_tour(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=["L", "K", "B", "A", "G"]))
    assert not enabled(bp, "travel-submit")
    show(bp, make_view(agreed=FULL_TOUR, partner_coins={"K-L": 3, "B-K": 4, "A-B": 6}))
    assert enabled(bp, "travel-submit")
    assert "full tour" in bp.page.inner_text("#travel-agreed-text")
    bp.screenshot("travel-4-tour.png")
    bp.page.click("#travel-submit")
    assert bp.emitted() == [command(bp, "submit", [])]
    show(bp, make_view(agreed=FULL_TOUR, submitted={"me": FULL_TOUR, "partner": False}))
    assert not enabled(bp, "travel-submit")                # already submitted
    assert "waiting for your partner" in bp.page.inner_text("#travel-my-submission")
    other = ["L", "P", "G", "A", "B", "K", "L"]
    show(bp, make_view(agreed=FULL_TOUR, submitted={"me": FULL_TOUR, "partner": True}, partner_submitted=other))
    assert "L \u2192 P \u2192 G" in bp.page.inner_text("#travel-partner-submission")


def test_game_over_shows_percentile_optimal_tour_and_locks_the_page(browser_page):
    bp = browser_page("travel")
    optimal = ["L", "A", "B", "K", "G", "P", "L"]
    show(bp, make_view(
        agreed=FULL_TOUR, submitted={"me": FULL_TOUR, "partner": True}, turns_left={"me": 9, "partner": 10},
        result={"status": "completed", "score": 66, "optimum": 72, "percentile": 87.5, "optimal_tour": optimal,
                "identical": True, "correct": True, "optimal": False},
        core={"phase": "over", "seat": "light", "task": "travel", "status": "completed", "code": "TA-7F3K-92QX"}))
    page = bp.page
    assert page.inner_text("#travel-percentile") == "Your score: 88 / 100"
    assert "66 of the best possible 72" in page.inner_text("#travel-coins-total")
    assert "L \u2192 A \u2192 B \u2192 K \u2192 G \u2192 P \u2192 L" in page.inner_text("#travel-optimal-text")
    assert page.get_attribute(".travel-optimal", "data-path") == " ".join(optimal)
    assert page.inner_text("#travel-code-value") == "TA-7F3K-92QX"
    for b in BUTTONS:
        assert not enabled(bp, b), b
    assert page.get_attribute(".travel-room[data-room='K']", "aria-disabled") == "true"
    click_rooms(bp, "K", force=True)                       # the map is read-only now
    assert page.query_selector(".travel-draft-path") is None
    assert bp.emitted() == []
    assert "you can submit" not in page.inner_text("#travel-agreed-text")
    bp.screenshot("travel-5-over.png")


def test_room_names_are_text_not_html(browser_page):
    bp = browser_page("travel")
    evil = "<img src=x onerror=\"window.__pwned=1\">"
    rooms = [{"id": i, "name": n} for i, n in ROOMS]
    rooms[1]["name"] = evil
    show(bp, make_view(rooms=rooms, pending={"by": "<b>ghost</b>", "mine": False, "path": ["K"], "kind": "extend"}))
    assert bp.page.query_selector("#custom img") is None
    assert bp.page.query_selector("#travel-pending b") is None
    names = bp.page.eval_on_selector_all(".travel-room-name", "els => els.map(e => e.textContent)")
    assert evil in names
    assert "<b>ghost</b>" in bp.page.inner_text("#travel-pending")
    assert bp.eval("() => window.__pwned === undefined")


def test_view_on_the_page_before_the_plugin_runs_is_drawn(browser_page):
    # Slurk can replay the state element's text (attribute-history) before the plugin reads it.
    bp = browser_page("travel")
    bp.eval("""([html, script, text]) => {
        document.getElementById('custom').innerHTML = html;
        document.getElementById('travel-state').textContent = text;
        window.eval(script);
    }""", [bp.layout["html"], bp.layout["script"], json.dumps(make_view(agreed=["L", "B"]))])
    assert bp.page.get_attribute(".travel-agreed", "data-path") == "L B"


def test_layout_evaluated_again_on_rejoin_binds_one_handler(browser_page):
    # Slurk re-applies the layout (html and script) on every joined_room.
    bp = browser_page("travel")
    assert bp.handler_count("text_update") == 2            # Slurk's text_update + the plugin's
    show(bp, make_view(agreed=["L", "K"]))
    bp.eval("([html, script]) => { document.getElementById('custom').innerHTML = html; window.eval(script); }",
            [bp.layout["html"], bp.layout["script"]])
    assert bp.handler_count("text_update") == 2
    assert bp.page.get_attribute(".travel-agreed", "data-path") == "L K"   # redrawn from the last view
    show(bp, make_view(agreed=["L", "K", "B"]))
    assert bp.page.get_attribute(".travel-agreed", "data-path") == "L K B"
    bp.page.click("#travel-undo")
    assert bp.emitted() == [command(bp, "undo", [])]      # one listener per button, one emit


def test_refused_command_is_reported_on_the_page(browser_page):
    bp = browser_page("travel")
    bp.set_ack("message_command", False, "It is not your turn.")
    show(bp, make_view(agreed=["L", "K"]))
    bp.page.click("#travel-undo")
    bp.page.wait_for_function("() => document.getElementById('travel-hint').textContent.includes('not your turn')")


def test_keyboard_can_pick_rooms(browser_page):
    bp = browser_page("travel")
    show(bp, make_view())
    bp.page.focus(".travel-room[data-room='G']")
    bp.page.keyboard.press("Enter")
    assert bp.page.get_attribute(".travel-draft-path", "data-path") == "L G"


def test_waiting_phase_locks_controls(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(core={"phase": "waiting", "seat": "light", "task": "travel", "status": None, "code": None}))
    for b in BUTTONS:
        assert not enabled(bp, b), b
    assert "Waiting for your partner" in bp.page.inner_text("#travel-info")


# ----------------------------------------------------------------------------------------------------------------
# The harness reproduces Slurk's script concatenation: a plugin starting with '(' breaks the page.


def _layout_with_plugin(code: str) -> dict:
    return {
        "title": "t",
        "html": [{"layout-type": "div", "id": "probe"}],
        "scripts": {"incoming-text": "markdown", "submit-message": "send-message", "print-history": "markdown-history",
                    "plain": "data:text/javascript;base64," + base64.b64encode(code.encode()).decode()},
    }


def test_harness_reproduces_the_leading_parenthesis_bug(browser_page):
    body = "(function () { document.getElementById('probe').textContent = 'ran'; })();"
    broken = browser_page(_layout_with_plugin(body), build=False, allow_errors=True)
    assert broken.errors, "a plugin starting with '(' must break the page as it does on Slurk"
    assert broken.page.inner_text("#probe") == ""
    fixed = browser_page(_layout_with_plugin(";" + body), build=False)
    assert fixed.page.inner_text("#probe") == "ran"
