"""The Traveling Adventurers page in headless Chromium, on the Slurk page double (tests/browser/harness.py).

The bot's side is played by the test: it delivers the seat's view as a `text_update` of #travel-state and checks the
`message_command` payloads the page emits: every command goes to the bot alone (`receiver_id` = core.bot of the
view, plugins/slurk-task.js), never to the whole room. Screenshots go to artifacts/screenshots/travel-*.png.
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


from tests.browser.harness import BOT, PARTNER  # noqa: E402

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
        "core": {"phase": "playing", "seat": "light", "task": "travel", "status": None, "code": None,
                 "bot": BOT["id"], "chat": "open"},
    }
    view.update(over)
    return view


def show(bp, view):
    assert bp.text_update("travel-state", json.dumps(view)) >= 1


def core(**over):
    c = {"phase": "playing", "seat": "light", "task": "travel", "status": None, "code": None, "bot": BOT["id"],
         "chat": "open"}
    c.update(over)
    return c


def command(bp, name, args):
    """What a button sends: a dict command, privately to the bot."""
    return {"command": {"command": name, "args": args}, "room": bp.room, "receiver_id": bp.bot}


def typed(bp, text):
    """What a typed `/command` sends: the line without the slash, privately to the bot."""
    return {"command": text, "room": bp.room, "receiver_id": bp.bot}


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
    show(bp, make_view(agreed=["L", "K"], pending={"id": 4, "by": "ghost", "mine": False, "path": ["B", "A"],
                                                   "kind": "extend"}))
    assert enabled(bp, "travel-agree") and enabled(bp, "travel-reject")
    assert bp.page.get_attribute(".travel-pending-path", "data-path") == "K B A"
    assert bp.page.get_attribute(".travel-pending-path", "data-by") == "partner"
    assert controls_in_view(bp)                            # also with the proposal notice shown
    pending = bp.page.inner_text("#travel-pending")
    assert "Your partner (ghost) proposes" in pending and "B \u2192 A" in pending
    bp.screenshot("travel-3-pending.png")
    bp.page.click("#travel-agree")
    bp.page.click("#travel-reject")
    # the id of the proposal shown goes with the answer (a replaced one is refused by the bot)
    assert bp.emitted() == [command(bp, "agree", ["4"]), command(bp, "reject", ["4"])]


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
    assert bp.emitted() == [command(bp, "submit", list(FULL_TOUR))]  # the tour shown, not "whatever is agreed"
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
        core=core(phase="over", status="completed", code="TA-7F3K-92QX")))
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
    assert bp.handler_count("text_update") == 2            # Slurk's text_update + SlurkTask's
    assert bp.handler_count("command") == 1 and bp.handler_count("text_message") == 2
    show(bp, make_view(agreed=["L", "K"]))
    bp.eval("([html, script]) => { document.getElementById('custom').innerHTML = html; window.eval(script); }",
            [bp.layout["html"], bp.layout["script"]])
    assert bp.handler_count("text_update") == 2
    assert bp.handler_count("command") == 1 and bp.handler_count("text_message") == 2
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
    show(bp, make_view(core=core(phase="waiting")))
    for b in BUTTONS:
        assert not enabled(bp, b), b
    assert "Waiting for your partner" in bp.page.inner_text("#travel-info")


# ----------------------------------------------------------------------------------------------------------------
# Privacy on the wire (plugins/slurk-task.js): commands and relayed chat go to the bot alone.


def lines(bp):
    return bp.chat_lines()


def test_typed_command_and_button_go_privately_to_the_bot(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=["L", "K"]))
    bp.type_chat("/propose L K B")
    click_rooms(bp, "A")
    bp.page.click("#travel-propose")
    bp.page.click("#travel-undo")
    assert bp.emitted() == [typed(bp, "propose L K B"), command(bp, "propose", ["A"]), command(bp, "undo", [])]
    bp.assert_commands_private()
    assert bp.emitted("text") == []                        # a command is never chat
    assert lines(bp) == ["You: /propose L K B"]            # the person sees what they typed ...
    assert bp.page.get_attribute("#chat-area .msg", "class") == "msg self private"   # ... marked private
    bp.wait_idle()
    assert len(lines(bp)) == 1                             # Slurk accepted all three: no refusal note
    bp.screenshot("travel-6-private-command.png")


def test_commands_before_the_first_view_wait_for_the_bot(browser_page):
    bp = browser_page("travel")
    bp.type_chat("/share all")
    bp.type_chat("hello partner")
    bp.eval("() => window.SlurkTask.send({command: 'agree', args: []})")
    assert bp.emitted(None) == []                          # the bot is not known yet: nothing leaves the page
    assert bp.eval("() => window.SlurkTask.pending()") == 3
    assert lines(bp)[0] == "You: /share all"
    show(bp, make_view())                                  # the first view names the bot: the queue goes out
    assert bp.emitted() == [typed(bp, "share all"), command(bp, "agree", [])]
    assert bp.emitted("text") == [{"room": bp.room, "message": "hello partner"}]   # open chat: to the room
    bp.assert_commands_private()
    bp.wait_idle()
    assert lines(bp)[-1] == "You: hello partner"          # shown once Slurk accepted it
    assert bp.eval("() => window.SlurkTask.pending()") == 0


def test_a_view_replayed_into_the_element_also_names_the_bot(browser_page):
    # History replay (or Slurk's own handler) sets the element's text without our text_update handler seeing it.
    bp = browser_page("travel")
    bp.type_chat("/undo")
    bp.eval("(t) => { document.getElementById('travel-state').textContent = t; }",
            json.dumps(make_view(agreed=["L", "G"])))
    bp.page.wait_for_function("() => window.SlurkTask.pending() === 0")
    assert bp.emitted() == [typed(bp, "undo")]
    assert bp.page.get_attribute(".travel-agreed", "data-path") == "L G"


def test_open_chat_goes_to_the_room_and_is_shown(browser_page):
    bp = browser_page("travel")
    show(bp, make_view())
    bp.type_chat("which room first?")
    assert bp.emitted("text") == [{"room": bp.room, "message": "which room first?"}]
    assert bp.emitted() == []
    bp.wait_idle()
    assert lines(bp) == ["You: which room first?"]
    assert bp.page.get_attribute("#chat-area .msg", "class") == "msg self"


def test_relay_chat_goes_to_the_bot_and_is_not_echoed(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(core=core(chat="relay")))
    bp.deliver_text("hi, I am Bob", private=True, html=True)  # relayed by the bot (marked)
    bp.type_chat("the kitchen has 5 coins")
    bp.wait_idle()  # the page sends once the bot is known (a callback), not inside the key press
    assert bp.emitted() == [{"command": {"chat": "the kitchen has 5 coins"}, "room": bp.room, "receiver_id": bp.bot}]
    assert bp.emitted("text") == []
    bp.wait_idle()
    assert lines(bp) == ["Bob: hi, I am Bob"]              # not echoed: the bot hands accepted lines back
    bp.eval("() => window.SlurkTask.setChatTarget(['ghost'])")
    bp.type_chat("only for you")
    bp.wait_idle()
    assert bp.emitted()[-1] == {"command": {"chat": "only for you", "to": ["ghost"]}, "room": bp.room,
                                "receiver_id": bp.bot}
    bp.eval("() => window.SlurkTask.setChatTarget(null)")
    bp.type_chat("/agree")                                 # commands stay commands in relay mode
    assert bp.emitted()[-1] == typed(bp, "agree")
    bp.assert_commands_private()
    # the bot's showing of the person's own lines in their name (Slurk's page drops own messages): privately
    # (a line to some seats) or publicly (a line to everyone); the page itself never sent public text here
    bp.deliver_text("only for you", user=bp.user, private=True, html=True)
    bp.deliver_text("the kitchen has 5 coins", user=bp.user, private=True, html=True)
    assert lines(bp) == ["Bob: hi, I am Bob", "You: /agree", "You: only for you", "You: the kitchen has 5 coins"]
    bp.screenshot("travel-7-relay-chat.png")


def test_in_an_open_room_an_own_public_echo_stays_dropped(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(core=core(chat="open")))
    bp.type_chat("the kitchen has 5 coins")      # shown by the page when sent
    bp.wait_idle()
    n = len(lines(bp))
    bp.deliver_text("the kitchen has 5 coins", user=bp.user, private=False)    # Slurk's copy: not shown twice
    bp.wait_idle()
    assert len(lines(bp)) == n


def test_commands_from_anyone_but_the_bot_are_ignored(browser_page):
    bp = browser_page("travel")
    bp.eval("""() => { window.__got = [];
                       window.SlurkTask.onCommand('probe', (c, d) => window.__got.push([c, d.user.id])); }""")
    bp.deliver_command({"event": "early"})                 # the bot is not known yet
    show(bp, make_view(core=core(key="seat-key")))
    bp.deliver_command({"command": "agree"}, user=PARTNER)   # a person's command to their partner
    bp.deliver_command("propose L K", user=PARTNER, private=False)
    bp.deliver_command({"event": "forged"})                # in the bot's name (impersonate), without the key
    bp.deliver_command({"event": "from-bot", "key": "seat-key"})
    assert bp.eval("() => window.__got") == [[{"event": "from-bot", "key": "seat-key"}, BOT["id"]]]
    assert bp.emitted(None) == []                          # nothing was sent in answer
    assert bp.page.get_attribute(".travel-agreed", "data-path") == "L"


def test_without_send_privately_slurk_refuses_and_the_page_says_so(browser_page):
    # The participant permissions before this change: a private command is refused by Slurk (§2.3).
    bp = browser_page("travel", permissions={"send_message": True, "send_command": True})
    show(bp, make_view(agreed=["L", "K"]))
    bp.page.click("#travel-undo")
    bp.page.wait_for_function("() => document.getElementById('travel-hint').textContent"
                              ".includes('You are not allowed to send privately')")
    bp.type_chat("/agree")
    bp.page.wait_for_function("() => document.getElementById('chat-area').textContent"
                              ".includes('The command was not sent: You are not allowed to send privately')")
    bp.assert_commands_private()                           # refused, but never broadcast instead


def test_stock_send_message_would_broadcast_commands(browser_page):
    # Why the task layouts do not use Slurk's send-message: its '/cmd' has no receiver, so everyone gets it.
    bp = browser_page(_layout_with_plugin(";window.probe = 1;"), build=False)
    bp.type_chat("/propose L K")
    assert bp.broadcast_commands() == [{"room": bp.room, "command": "propose L K"}]


def test_task_layouts_use_the_shared_script_for_the_chat_box():
    for name, plugin in (("travel", "travel.js"), ("gnomes", "gnomes.js")):
        scripts = json.loads((ROOT / "layouts" / f"{name}.json").read_text())["scripts"]
        assert scripts["submit-message"] == "slurk-task-submit.js"
        assert scripts["plain"] == ["slurk-task.js", plugin]
        assert scripts["incoming-text"] == "slurk-task-incoming.js"  # chat lines too: the game master's mark
        assert scripts["print-history"] == "slurk-task-history.js"
    for f in ("travel.js", "gnomes.js"):                  # the plumbing lives in slurk-task.js only
        js = (ROOT / "plugins" / f).read_text()
        assert "socket.emit" not in js and 'socket.on("text_update"' not in js and ".innerHTML" not in js


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


def test_commands_carry_the_seat_key_and_wait_for_the_bots_acknowledgement(browser_page):
    bp = browser_page("travel")
    show(bp, make_view(agreed=["L", "K"], core=core(key="seat-key")))
    bp.type_chat("/agree")
    bp.page.click("#travel-share")
    sent = [c["command"] for c in bp.emitted()]
    assert len(sent) == 2 and all(c["key"] == "seat-key" and c["n"] for c in sent)
    assert sent[0]["typed"] == "agree" and (sent[1]["command"], sent[1]["args"]) == ("share", ["all"])
    assert sent[0]["n"] != sent[1]["n"]
    bp.assert_commands_private()
    # not acknowledged: the page does not claim the coins went, and soon says the game master is reconnecting
    assert "Sending your coins" in bp.page.inner_text("#travel-hint")
    bp.page.wait_for_selector("#slurk-task-banner .slurk-task-reconnecting", timeout=10_000)
    # the bot's view acknowledges the second (so both were handled): the notice goes, the hint says it went
    show(bp, make_view(agreed=["L", "K"], core=core(key="seat-key", ack=sent[1]["n"])))
    bp.page.wait_for_function("() => !document.querySelector('#slurk-task-banner .slurk-task-reconnecting')")
    assert bp.page.inner_text("#travel-hint") == "Your coins were sent to your partner."


def test_the_page_shows_a_thinking_partner_and_the_code_only_from_the_view(browser_page):
    bp = browser_page("gnomes")
    show_gnomes = {"core": {"phase": "playing", "seat": "light", "task": "gnomes", "status": None, "code": None,
                            "bot": BOT["id"], "chat": "open", "key": "k", "thinking": ["ghost"]}}
    bp.text_update("gnomes-state", json.dumps(show_gnomes))
    bp.page.wait_for_selector("#slurk-task-banner .slurk-task-thinking")
    # a completion code in the chat, in the game master's name, is only chat: the code box shows the view's code
    bp.deliver_text("Your completion code is FAKE1234.")
    assert not bp.page.query_selector(".slurk-task-code")
    show_gnomes["core"].update(phase="over", code="REAL5678", thinking=[])
    bp.text_update("gnomes-state", json.dumps(show_gnomes))
    bp.page.wait_for_selector("#slurk-task-ending-box .slurk-task-code")  # in the page, not over the header
    assert "REAL5678" in bp.page.inner_text("#slurk-task-ending-box")
    assert not bp.page.query_selector("#slurk-task-banner .slurk-task-thinking")


def test_a_page_in_two_parts_is_combined_and_acknowledged_through_the_shared_part(browser_page):
    """While the game plays the bot sends the shared part room-wide and each seat its own part: the page draws
    combine(shared, own) (the same view as a whole one), keeps drawing when only one part changes, never shows the
    JSON, and takes a move's acknowledgement from core.acks of the shared part."""
    from tasks import get_task
    from tasks.core import Command, Join, Match, SeatInfo
    from tasks.travel.game import TravelGame

    spec = get_task("travel")
    match = Match(TravelGame(0, {"boards": "preset", "index": 0}), {"light": SeatInfo("person"),
                                                                   "ghost": SeatInfo("person")})
    match.open()
    for seat in ("light", "ghost"):
        match.handle(Join(seat, 0.0))
    shared, own = match.page_parts("light")
    shared["core"]["bot"] = own["core"]["bot"] = BOT["id"]
    own["core"]["key"] = "seat-key"
    bp = browser_page("travel")
    assert bp.text_update("travel-state", json.dumps(own)) >= 1
    assert bp.eval("() => window.SlurkTask.state('travel-state').core.key") == "seat-key"  # known before the shared
    assert bp.text_update("travel-shared", json.dumps(shared)) >= 1
    shown = bp.eval("() => window.SlurkTask.state('travel-state')")
    assert {k: v for k, v in shown.items() if k != "core"} == {
        k: v for k, v in match._view("light").items() if k != "core"}
    assert shown["core"]["seat"] == "light" and shown["core"]["phase"] == "playing"
    assert not bp.page.is_visible("#travel-shared") and not bp.page.is_visible("#travel-state")
    # a move goes out, then only the shared part changes (the partner's page gets the same update) with the ack
    bp.page.click("#travel-share")
    sent = bp.emitted()[-1]["command"]
    assert "Sending your coins" in bp.page.inner_text("#travel-hint")
    match.handle(Command("light", "propose", ("K",)))
    shared2, _own2 = match.page_parts("light")
    shared2["core"].update(bot=BOT["id"], acks={"light": sent["n"]})
    assert bp.text_update("travel-shared", json.dumps(shared2)) >= 1
    assert bp.page.get_attribute(".travel-pending-path", "data-by") == "me"
    assert bp.page.inner_text("#travel-hint") == "Your coins were sent to your partner."
    assert spec.combine_page is not None
