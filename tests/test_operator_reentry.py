"""Operator rough edge (issue 18): a person who closes the tab cannot log in again with the same link. On a REAL Slurk
in Chromium (opt-in: markers `conformance` and `browser`; see tests/test_real_page.py for the set-up it shares).

What Slurk does (slurk/views/login/__init__.py): `/login?name=&token=` creates a new user and counts the token's
registration down, so a second use of a one-registration token says "The token is either expired, was already used,
or isn't correct at all". The user made at the first login keeps its session cookie in that browser, and the server's
root page `/` (slurk/views/chat) opens the user's rooms again. The bot keeps the seat for `partner_left_grace`. So the
task page says, while the game runs, "open <server>/ in this same browser to come back", and this test checks that
doing so puts the person back into the same game, in the same seat, still able to play.
"""
from __future__ import annotations

import json
import os
import time

import pytest

from bots.config import Config, SlurkSettings
from bots.layouts import build_layout
from bots.slurk.runtime import SlurkBot
from bots.study.provision import BOT_PERMISSIONS, person_permissions
from tasks import get_task
from tests.conftest import REAL_ETAG_ENV, REAL_TOKEN_ENV, REAL_URL_ENV, SlurkServer, _env_flag, _real_configured
from tests.slurk_double.recorder import SocketRecorder
from tests.test_real_page import PAGE_STATE_JS, WAIT, open_page, person_token, showdown_js, wait_until

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.browser,
    pytest.mark.skipif(not _real_configured(), reason=f"real Slurk not configured: set {REAL_URL_ENV} and "
                                                      f"{REAL_TOKEN_ENV} ({REAL_ETAG_ENV}=1 if it has ETags)"),
]

PLAYING = """() => { const s = window.SlurkTask && window.SlurkTask.state('travel-state');
    return !!(s && s.core && s.core.phase === 'playing'); }"""


def test_a_person_who_closed_the_tab_comes_back_to_the_same_seat(chromium, tmp_path):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    showdown = showdown_js()
    spec = get_task("travel")
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"travel-reentry-{int(time.time())}", 1, layout)
    waiting = srv.create_room()
    bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
    herald_id, herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
    room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
    token = person_token(srv, person_permissions(spec), room, task)
    cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task,
                                     waiting_room=waiting, auth_timeout=5.0, etag="auto"),
                 state_db=str(tmp_path / "state.sqlite3"), person_seats=1, agents={"ghost": "solver"},
                 task_options={"boards": "preset"})
    bot = SlurkBot(cfg, spec)
    bot.start()
    herald = SocketRecorder("concierge")
    pages = []
    try:
        herald.connect(srv.url, herald_id, herald_token)
        login = f"{srv.url}/login?name=Ann&token={token}"
        rp = open_page(chromium, srv, login, showdown)
        pages.append(rp)
        rp.page.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d" % room,
                                  timeout=WAIT * 1000)
        user_id = int(rp.page.evaluate("() => self_user.id"))
        assert herald.call("room_created", {"room": room, "task": task}, timeout=WAIT) is True
        rp.page.wait_for_function(PLAYING, timeout=WAIT * 1000)
        # the page says how to come back
        rp.page.wait_for_selector("#slurk-task-return", timeout=WAIT * 1000)
        note = rp.page.inner_text("#slurk-task-return")
        assert f"{srv.url}/" in note and "same browser" in note, note
        context = rp.page.context

        # --- the tab closes; the login link no longer works (Slurk's own message) ...
        rp.page.close()
        again = context.new_page()
        again.goto(login)
        assert "already used" in again.content()
        again.close()

        # --- ... and the server's root in the same browser brings the person back to the same game and seat
        back = context.new_page()
        back.goto(f"{srv.url}/")
        back.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d" % room,
                               timeout=WAIT * 1000)
        assert int(back.evaluate("() => self_user.id")) == user_id
        back.wait_for_function(PLAYING, timeout=WAIT * 1000)
        back.wait_for_selector("#travel-svg", timeout=WAIT * 1000)

        def view():
            text = back.evaluate(PAGE_STATE_JS, "travel-state")
            return json.loads(text) if text and text.strip() else {}

        assert view()["core"]["seat"] == "light"
        back.fill("#text", "/share all")
        back.press("#text", "Enter")
        wait_until(lambda: len(view().get("my_shared") or []) > 0, timeout=WAIT,
                   what="the bot handling the returning person's /share all")
        assert view()["core"]["phase"] == "playing"
        back.screenshot(path=str(tmp_path / "reentry.png"))
    finally:
        for p in pages:
            try:
                p.page.context.close()
            except Exception:
                pass
        try:
            herald.disconnect()
        except Exception:
            pass
        bot.stop()
