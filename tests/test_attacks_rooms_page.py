"""Attack (issue 28), page level: what a task page shows of chat lines it cannot trust, in headless Chromium on the
Slurk page double (tests/browser/harness.py) with the real layout and plugins.

Slurk lets anyone send a line in the name of any member of a room (`impersonate`; privately even from another
room) and log in under any display name; `typed_message` and `mouse` need no permission at all, and any member can
send a `command` to the partner. The page shows a line as the game master's only when it carries the bot's mark
(`html: true`, which only a bot may send); names that imitate the game master or a member, lines from outside the
game, private lines not sent through the game and lines in one's own name are shown with a warning mark; every
line is cut at the chat limit; the chat box refuses a line over the limit before sending anything.
"""
from __future__ import annotations

import json

import pytest

from tasks.core.limits import MAX_CHAT_CHARS
from tests.browser.harness import BOT, PARTNER
from tests.test_dond_browser import match_after

pytestmark = pytest.mark.browser

ME = {"id": 1, "name": "Alice"}
RELAY = {"send_command": True, "send_privately": True}


def dond_page(browser_page, chat="relay", **kw):
    bp = browser_page("dond", permissions=RELAY if chat == "relay" else None, **kw)
    m = match_after()
    data = dict(m.game.view("alice"), core={"phase": m.phase, "seat": "alice", "bot": BOT["id"], "chat": chat,
                                             "key": "seat-key", "users": {"alice": ME["id"], "bob": PARTNER["id"]},
                                             "status": m.status, "code": None})
    assert bp.text_update("dond-state", json.dumps(data)) >= 1
    return bp


def shown(bp) -> list[str]:
    return bp.chat_lines()


def suspects(bp) -> list[str]:
    return bp.page.eval_on_selector_all("#chat-area .slurk-task-suspect", "els => els.map(e => e.textContent)")


def test_a_line_in_the_game_masters_name_counts_only_with_the_bots_mark(browser_page):
    bp = dond_page(browser_page, chat="open")
    bp.deliver_text("Welcome to Deal or No Deal!", user=BOT, html=True)      # the bot's own line
    # another room's participant, privately, with `impersonate` = the bot (Slurk shows the bot as the sender)
    bp.deliver_text("Deal! Your completion code is K7PQ2MZX", user=BOT, private=True)
    lines = shown(bp)
    assert lines[0] == "TaskBot: Welcome to Deal or No Deal!"
    assert lines[1].startswith("\u26a0 TaskBot (not from the game master): Deal!")
    assert suspects(bp) == [lines[1]]
    bp.assert_no_errors()


@pytest.mark.parametrize("name", ["Game Master", "game master", "GAME_MASTER", "Game  Master", "G\u0430me M\u0430ster",
                                  "Gam\u0435 Ma5ter", "The Game-Master", "TaskBot", "Task Bot", "Ta\u0455kB\u043et"])
def test_a_partner_whose_name_imitates_the_game_master_is_marked(browser_page, name):
    bp = dond_page(browser_page, chat="open")
    bp.deliver_text("Please accept my offer now.", user={"id": PARTNER["id"], "name": name})
    assert shown(bp) == [f"\u26a0 {name} (a participant, not the game master): Please accept my offer now."]


def test_outsiders_private_lines_and_lines_in_ones_own_name_are_marked(browser_page):
    bp = dond_page(browser_page, chat="open")
    bp.deliver_text("hi, I am Bob")                                             # the partner, publicly: as is
    bp.deliver_text("I am your partner, my values are 0 0 5", user={"id": 999, "name": "Bob"}, private=True)
    bp.deliver_text("psst", user=PARTNER, private=True)                        # no page sends private text
    bp.deliver_text("I give up", user=ME, private=True)                        # someone else, in my name
    lines = shown(bp)
    assert lines[0] == "Bob: hi, I am Bob"
    assert lines[1].startswith("\u26a0 Bob (a private line, not through the game)")
    assert lines[2].startswith("\u26a0 Bob (a private line, not through the game)")
    assert lines[3].startswith("\u26a0 Alice (not typed on this page)")
    assert len(suspects(bp)) == 3


def test_in_a_relayed_room_only_lines_through_the_bot_are_plain(browser_page):
    bp = dond_page(browser_page, chat="relay")
    bp.deliver_text("my values are book 0", user=PARTNER, private=True, html=True)  # relayed by the bot
    bp.deliver_text("accept now!", user=PARTNER)                                     # not through the bot
    bp.deliver_text("from another room", user={"id": 999, "name": "Eve"})
    lines = shown(bp)
    assert lines[0] == "Bob: my values are book 0"
    assert lines[1].startswith("\u26a0 Bob (not sent through the game)")
    assert lines[2].startswith("\u26a0 Eve (not sent through the game)")


def test_every_shown_line_is_cut_at_the_chat_limit(browser_page):
    bp = dond_page(browser_page, chat="open")
    bp.deliver_text("x" * 900_000)
    bp.deliver_text("y" * MAX_CHAT_CHARS)
    big, exact = shown(bp)
    assert big == "Bob: " + "x" * MAX_CHAT_CHARS + f" \u2026 [{900_000 - MAX_CHAT_CHARS} more characters not shown]"
    assert exact == "Bob: " + "y" * MAX_CHAT_CHARS                                   # at the limit: whole
    assert bp.eval("() => window.SlurkTask.maxChat") == MAX_CHAT_CHARS


@pytest.mark.parametrize("chat", ["open", "relay"])
def test_the_chat_box_refuses_a_line_over_the_limit_before_sending(browser_page, chat):
    bp = dond_page(browser_page, chat=chat)
    bp.clear_emitted()
    bp.type_chat("z" * (MAX_CHAT_CHARS + 1))
    bp.type_chat("/propose books=1 " + "z" * MAX_CHAT_CHARS)
    bp.wait_idle()
    assert bp.emitted(None) == []                                # nothing left the page: no text, no command
    notes = bp.page.eval_on_selector_all("#chat-area .info", "els => els.map(e => e.textContent)")
    assert len(notes) == 2 and all("too long" in n and "4,000" in n for n in notes)
    assert bp.page.input_value("#text").startswith("/propose")   # given back to be shortened
    bp.page.fill("#text", "")
    bp.type_chat("z" * MAX_CHAT_CHARS)                           # at the limit: sent
    bp.wait_idle()
    assert len(bp.emitted("text" if chat == "open" else "message_command")) == 1


def test_typing_previews_mouse_events_and_commands_from_the_partner_show_nothing(browser_page):
    bp = dond_page(browser_page, chat="relay")
    bp.eval("() => { window.__got = []; window.SlurkTask.onCommand('probe', (c) => window.__got.push(c)); }")
    before = bp.page.inner_text("body")
    bp.deliver("typed_message", {"user": PARTNER, "text": "my values are book 0, hat 0, ball 5"})
    bp.deliver("mouse", {"user": PARTNER, "room": bp.room, "type": "click", "coordinates": {"x": 1, "y": 1},
                         "element_id": "dond-board"})
    bp.deliver_command({"key": "seat-key", "event": "deal", "text": "accept now"}, user=PARTNER)
    bp.deliver_command({"chat": "my values are book 0"}, user=PARTNER, private=True)
    bp.wait_idle()
    assert bp.page.inner_text("body") == before
    assert bp.eval("() => window.__got") == []
    bp.assert_no_errors()


def test_history_after_a_reload_follows_the_same_rules(browser_page):
    rows = [
        {"id": 1, "event": "text_message", "user_id": BOT["id"], "user": BOT, "receiver_id": None,
         "date_created": "2026-01-01T10:00:00", "date_modified": None,
         "data": {"message": "Welcome &amp; good luck", "html": True, "broadcast": False}},
        {"id": 2, "event": "text_message", "user_id": 999, "user": {"id": 999, "name": "Game Master"},
         "receiver_id": ME["id"], "date_created": "2026-01-01T10:00:01", "date_modified": None,
         "data": {"message": "Your completion code is K7PQ2MZX", "html": False, "broadcast": False}},
        {"id": 3, "event": "text_message", "user_id": PARTNER["id"], "user": PARTNER, "receiver_id": None,
         "date_created": "2026-01-01T10:00:02", "date_modified": None,
         "data": {"message": "q" * 5000, "html": False, "broadcast": False}},
    ]
    bp = browser_page("dond", history=rows)
    lines = shown(bp)
    assert lines[0].startswith("TaskBot: Welcome")  # (the harness shows markup as text; Slurk renders it)
    assert lines[1].startswith("\u26a0 Game Master (") and "K7PQ2MZX" in lines[1]
    assert lines[2].count("q") == MAX_CHAT_CHARS and "1000 more characters not shown" in lines[2]


def test_a_relayed_line_of_a_member_named_like_the_game_master_is_marked(browser_page):
    bp = dond_page(browser_page, chat="relay")
    bp.deliver_text("Deal! Your code is K7PQ2MZX", user={"id": PARTNER["id"], "name": "Game Master"}, private=True,
                    html=True)   # the bot relays it, so it carries the mark, but the name is the partner's own
    assert shown(bp) == ["\u26a0 Game Master (a participant, not the game master): Deal! Your code is K7PQ2MZX"]


# ----------------------------------------------------------------------------------------------------------------
# The same on a REAL Slurk page (opt-in: markers `conformance` and `browser`; tests/real_room.py)


@pytest.mark.conformance
def test_on_a_real_slurk_page_forged_lines_and_imitated_names_are_marked_and_long_lines_stay_home(chromium,
                                                                                                  tmp_path):
    from tests.conftest import REAL_TOKEN_ENV, REAL_URL_ENV, _real_configured
    if not _real_configured():
        pytest.skip(f"real Slurk not configured: set {REAL_URL_ENV} and {REAL_TOKEN_ENV}")
    from bots.study.provision import PERSON_PERMISSIONS
    from tests.real_room import RealRoom
    from tests.slurk_double.recorder import SocketRecorder
    from tests.test_real_page import WAIT, wait_until
    with RealRoom(chromium, tmp_path, "dond", people=2) as rr:
        ann, gm = rr.login("Ann"), rr.login("Game%20Master")      # Bo logged in as "Game Master"
        rr.announce()
        for rp in (ann, gm):
            rr.wait_phase(rp, "playing")
        wait_until(lambda: any("Your values" in m for _, _, m in ann.chat()), what="the bot's private line")
        bot = rr.bot.user_id
        # Eve, a participant of another (open-chat) room on the same server, writes to Ann in the bot's name
        other = rr.srv.expect_ok(rr.srv.api("POST", "rooms", json={"layout_id": rr.srv.create_layout(
            {"title": "other study", "html": [], "scripts": {}})}))["id"]
        eve_id, eve_token = rr.srv.provision_user("Eve", PERSON_PERMISSIONS, room_id=other)
        eve = SocketRecorder("Eve").connect(rr.srv.url, eve_id, eve_token)
        try:
            eve.wait_for("joined_room", timeout=WAIT)
            fake = "Deal! Your completion code is K7PQ2MZX"
            assert eve.call("text", {"room": rr.room, "message": fake, "receiver_id": rr.user_id(ann),
                                     "impersonate": bot}, timeout=WAIT) is True
            wait_until(lambda: any(fake in m for _, _, m in ann.chat()), what="the forged line on Ann's page")
        finally:
            eve.disconnect()
        lines = ann.chat()
        forged = [(c, u) for c, u, m in lines if fake in m]
        assert forged == [(forged[0][0], "\u26a0 TaskBot (not from the game master)")]
        assert "slurk-task-suspect" in forged[0][0]
        genuine = [u for _, u, m in lines if "Your values" in m]
        assert genuine == ["TaskBot"]                             # the bot's own line: as it is
        # the partner named "Game Master" chats (relayed by the bot): marked as a participant on Ann's page
        gm.type("I am the game master: accept now")
        wait_until(lambda: any("accept now" in m for _, _, m in ann.chat()), what="the relayed line")
        assert [u for _, u, m in ann.chat() if "accept now" in m] == \
            ["\u26a0 Game Master (a participant, not the game master)"]
        # 4,001 characters: the page refuses them before anything leaves it; the partner never sees them
        ann.type("my values are secret " + "x" * 4000)
        wait_until(lambda: any("too long" in m for _, _, m in ann.chat()), what="the page's refusal")
        ann.type("short line")
        wait_until(lambda: any("short line" in m for _, _, m in gm.chat()), what="the next line at the partner")
        assert not [m for _, _, m in gm.chat() if "x" * 100 in m]
        assert not ann.page_errors and not gm.page_errors
        rr.shots(ann, "real-attack-forged-lines")


@pytest.mark.parametrize("name", ["Alice", "alice ", "A1ice", "\u0410lice", "Al\u0456ce"])
def test_a_member_whose_name_imitates_another_member_is_marked(browser_page, name):
    """The partner logs in under (a look-alike of) this person's own name: their lines say they are not."""
    bp = dond_page(browser_page, chat="open")
    bp.deliver_text("I agree to give you everything", user={"id": PARTNER["id"], "name": name})
    assert shown(bp) == [f"\u26a0 {name} (not the real Alice): I agree to give you everything"]
