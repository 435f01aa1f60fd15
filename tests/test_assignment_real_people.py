"""Two people play DialOp Assignment against each other in two real Chromium pages served by a REAL Slurk server
(opt-in: markers `conformance` and `browser`; helpers from tests/test_real_page.py). They chat (each sees the other's
line), the first proposes by clicking cells, the second rejects with the button, proposes another matching by clicking,
and the first accepts it. Screenshots of both pages at 1366x768 and 1920x1080:
artifacts/screenshots/real-assignment-people-*.png."""
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


def view_of(rp) -> dict:
    text = rp.page.evaluate("() => { const e = document.getElementById('assignment-state'); "
                            "return e ? e.textContent : null; }")
    try:
        return json.loads(text) if text and text.strip() else {}
    except ValueError:
        return {}


def shots(rp, name):
    for w, h in SIZES:
        rp.page.set_viewport_size({"width": w, "height": h})
        rp.page.wait_for_timeout(200)
        rp.shot(f"real-assignment-people-{name}-{w}x{h}.png", full_page=False)


def click_matching(rp, matching):
    """Click one cell per reviewer row: matching[r] = paper column."""
    for r, p in enumerate(matching):
        rp.page.click(f'#assignment-board td[data-cell="{r}:{p}"]')


def test_two_people_play_assignment_in_real_slurk_pages(chromium, tmp_path):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    showdown = showdown_js()
    spec = get_task("assignment")
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"assignment-people-{int(time.time())}", 2, layout)
    waiting = srv.create_room()
    bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
    herald_id, herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
    room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
    tokens = [person_token(srv, person_permissions(spec), room, task) for _ in range(2)]
    cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task,
                                     waiting_room=waiting, auth_timeout=5.0, etag="auto"),
                 state_db=str(tmp_path / "state.sqlite3"), person_seats=2, agents={})
    bot = SlurkBot(cfg, spec)
    bot.start()
    herald = SocketRecorder("concierge")
    pages = []
    try:
        herald.connect(srv.url, herald_id, herald_token)
        for name, token in zip(("Ann", "Bo"), tokens):
            rp = open_page(chromium, srv, f"{srv.url}/login?name={name}&token={token}", showdown)
            rp.page.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d"
                                      % room, timeout=WAIT * 1000)
            pages.append(rp)
        assert herald.call("room_created", {"room": room, "task": task}, timeout=WAIT) is True
        for rp in pages:
            wait_until(lambda rp=rp: view_of(rp).get("core", {}).get("phase") == "playing",
                       what="the game to start")
            rp.page.wait_for_selector("#assignment-board table", timeout=WAIT * 1000)
        seats = {view_of(rp)["core"]["seat"]: rp for rp in pages}
        assert set(seats) == {"player1", "player2"}
        a, b = seats["player1"], seats["player2"]
        # each person sees only their own cells: the two tables differ
        ta, tb = view_of(a)["table"], view_of(b)["table"]
        assert ta != tb

        a.type("hi, what do you have for the first paper?")
        wait_until(lambda: any("first paper" in m for _, _, m in b.chat()), what="Bo to see Ann's line")
        b.type("not much, you choose")
        wait_until(lambda: any("you choose" in m for _, _, m in a.chat()), what="Ann to see Bo's line")
        shots(a, "1-chat-ann")
        shots(b, "1-chat-bo")

        click_matching(a, list(range(8)))
        shots(a, "2-picked-ann")
        a.page.click("#assignment-board .as-propose")
        wait_until(lambda: view_of(b).get("must_respond"), what="Bo to be asked to answer")
        assert view_of(b)["pending"]["matching"] == list(range(8))
        shots(b, "3-pending-bo")
        b.page.click("#assignment-board .as-reject")
        wait_until(lambda: not view_of(a).get("pending") and not view_of(b).get("must_respond"),
                   what="the proposal to be cleared")

        second = [7 - r for r in range(8)]
        click_matching(b, second)
        b.page.click("#assignment-board .as-propose")
        wait_until(lambda: view_of(a).get("must_respond"), what="Ann to be asked to answer")
        shots(a, "4-pending-ann")
        a.page.click("#assignment-board .as-accept")
        for rp in (a, b):
            wait_until(lambda rp=rp: view_of(rp).get("core", {}).get("phase") == "over", what="the end")
        va, vb = view_of(a), view_of(b)
        assert va["result"]["accepted"] and vb["result"]["accepted"]
        assert va["result"]["normalized"] == vb["result"]["normalized"]
        for rp, who in ((a, "ann"), (b, "bo")):
            rp.page.wait_for_selector("#assignment-board .as-toggle", timeout=WAIT * 1000)
            rp.page.click("#assignment-board .as-toggle")
            assert rp.page.locator("#assignment-board td.as-best").count() == 8
            shots(rp, f"5-end-{who}")
            assert not rp.page_errors, rp.page_errors
    finally:
        for rp in pages:
            try:
                rp.page.context.close()
            except Exception:
                pass
        try:
            herald.disconnect()
        except Exception:
            pass
        bot.stop()
