"""Three people play DialOp Mediation in three real Chromium pages served by a REAL Slurk server (opt-in: markers
`conformance` and `browser`; helpers from tests/test_real_page.py): two users and a person as the assistant. The
assistant addresses user 1 with the To: switch and types; user 1 answers; only the addressee sees each line; the
assistant books one flight per user by clicking and proposes; both users accept with the buttons. Screenshots at
1366x768 and 1920x1080: artifacts/screenshots/real-mediation-*.png."""
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
from tests.test_real_page import WAIT, open_page, person_token, showdown_js, wait_until

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.browser,
    pytest.mark.skipif(not _real_configured(),
                       reason=f"real Slurk not configured: set {REAL_URL_ENV} and {REAL_TOKEN_ENV} "
                              f"({REAL_ETAG_ENV}=1 if it has ETags)"),
]
SIZES = ((1366, 768), (1920, 1080))


def _view(rp) -> dict:
    text = rp.page.evaluate("() => { const e = document.getElementById('mediation-state'); "
                            "return e ? e.textContent : null; }")
    try:
        return json.loads(text) if text and text.strip() else {}
    except ValueError:
        return {}


def _said(rp, text: str) -> bool:
    return any(text in m for _, _, m in rp.chat())


def test_three_people_play_mediation_in_real_slurk_pages(chromium, tmp_path):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    showdown = showdown_js()
    spec = get_task("mediation")
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"mediation-page-{int(time.time())}", 3, layout)
    waiting = srv.create_room()
    bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
    herald_id, herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
    room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
    cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task,
                                     waiting_room=waiting, auth_timeout=5.0, etag="auto"),
                 state_db=str(tmp_path / "state.sqlite3"), person_seats=3)
    bot = SlurkBot(cfg, spec)
    bot.start()
    herald = SocketRecorder("concierge")
    pages = []
    try:
        herald.connect(srv.url, herald_id, herald_token)
        for name in ("Ann", "Ben", "Cy"):
            token = person_token(srv, person_permissions(spec), room, task)
            rp = open_page(chromium, srv, f"{srv.url}/login?name={name}&token={token}", showdown)
            rp.page.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d"
                                      % room, timeout=WAIT * 1000)
            pages.append(rp)
        assert herald.call("room_created", {"room": room, "task": task}, timeout=WAIT) is True
        wait_until(lambda: all(_view(p).get("core", {}).get("phase") == "playing" for p in pages),
                   what="the game to start")
        by = {_view(p)["core"]["seat"]: p for p in pages}
        assert set(by) == {"user1", "user2", "assistant"}
        a, u1, u2 = by["assistant"], by["user1"], by["user2"]

        def shots(step):
            for seat, rp in by.items():
                for w, h in SIZES:
                    rp.page.set_viewport_size({"width": w, "height": h})
                    rp.page.wait_for_timeout(150)
                    rp.shot(f"real-mediation-{step}-{seat}-{w}x{h}.png", full_page=False)

        a.page.wait_for_selector("#mediation-board .md-propose", timeout=WAIT * 1000)
        u1.page.wait_for_selector("#mediation-board .md-grid", timeout=WAIT * 1000)
        a.page.click('#mediation-board button[data-to="user1"]')
        a.type("hi user one, which meetings matter to you?")
        wait_until(lambda: _said(u1, "which meetings matter"), what="user 1 to get the assistant's line")
        u1.type("thursday afternoon is important to me")
        wait_until(lambda: _said(a, "thursday afternoon is important"), what="the assistant to get user 1's line")
        a.page.click('#mediation-board button[data-to="both"]')
        a.type("thanks both, booking now")
        wait_until(lambda: _said(u2, "booking now"), what="user 2 to get the line to both")
        shots("1-chat")
        a.page.click('#mediation-board table.md-pick1 tr[data-flight="1"]')
        a.page.click('#mediation-board table.md-pick2 tr[data-flight="2"]')
        a.page.click("#mediation-board .md-propose")
        for u in (u1, u2):
            wait_until(lambda u=u: (_view(u).get("pending") or {}).get("id") is not None, what="the proposal")
            u.page.wait_for_selector("#mediation-board .md-accept", timeout=WAIT * 1000)
        shots("2-proposal")
        u1.page.click("#mediation-board .md-accept")
        u2.page.click("#mediation-board .md-accept")
        wait_until(lambda: all(_view(p).get("core", {}).get("phase") == "over" for p in pages), what="the end")
        assert _view(a)["result"]["pair"] == [1, 2]
        assert _view(u1)["result"]["flight"]["id"] == 1 and _view(u2)["result"]["flight"]["id"] == 2
        shots("3-booked")
        # the relay held on the real pages: user 2 never saw user 1's line or the line to user 1 alone
        assert not _said(u2, "thursday afternoon") and not _said(u2, "which meetings matter")
        assert _said(u1, "booking now")
        for p in pages:
            assert not p.page_errors, p.page_errors
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
