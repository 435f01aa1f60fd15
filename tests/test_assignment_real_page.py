"""A person plays DialOp Assignment in a real Chromium page served by a REAL Slurk server, against the task bot's
`optimizer` (opt-in: markers `conformance` and `browser`; helpers from tests/test_real_page.py). The person chats,
proposes by clicking cells, answers the optimizer's counter proposal with the Accept button and shows the best
matching. Screenshots at 1366x768 and 1920x1080: artifacts/screenshots/real-assignment-*.png."""
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


def test_person_plays_assignment_against_the_optimizer_in_a_real_slurk_page(chromium, tmp_path):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    showdown = showdown_js()
    spec = get_task("assignment")
    tag = f"{int(time.time())}"
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"assignment-page-{tag}", 1, layout)
    waiting = srv.create_room()
    bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
    herald_id, herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
    room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
    token = person_token(srv, person_permissions(spec), room, task)
    cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task,
                                     waiting_room=waiting, auth_timeout=5.0, etag="auto"),
                 state_db=str(tmp_path / "state.sqlite3"), person_seats=1, agents={"player2": "optimizer"})
    bot = SlurkBot(cfg, spec)
    bot.start()
    herald = SocketRecorder("concierge")
    rp = None
    try:
        herald.connect(srv.url, herald_id, herald_token)
        rp = open_page(chromium, srv, f"{srv.url}/login?name=Ann&token={token}", showdown)
        page = rp.page

        def view():
            text = page.evaluate("() => { const e = document.getElementById('assignment-state'); "
                                 "return e ? e.textContent : null; }")
            try:
                return json.loads(text) if text and text.strip() else {}
            except ValueError:
                return {}

        def shots(name):
            for w, h in SIZES:
                page.set_viewport_size({"width": w, "height": h})
                page.wait_for_timeout(200)
                rp.shot(f"real-assignment-{name}-{w}x{h}.png", full_page=False)

        page.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d" % room,
                               timeout=WAIT * 1000)
        page.wait_for_selector("#assignment-board", timeout=WAIT * 1000)
        assert herald.call("room_created", {"room": room, "task": task}, timeout=WAIT) is True
        wait_until(lambda: view().get("core", {}).get("phase") == "playing", what="the game to start")
        page.wait_for_selector("#assignment-board table", timeout=WAIT * 1000)
        v = view()
        assert v["core"]["seat"] == "player1"
        shots("1-start")
        r, p = next((r, p) for r in range(8) for p in range(8) if v["table"][r][p] is not None)
        rp.type(f"hi! {v['reviewers'][r].split()[0]} is good for {v['papers'][p]}, like {v['table'][r][p]}")
        wait_until(lambda: any("biggest number" in m for _, _, m in rp.chat()), what="the optimizer's opening")
        for i in range(8):  # a plain matching by clicks
            page.click(f'#assignment-board td[data-cell="{i}:{i}"]')
        shots("2-picked")
        if not view().get("must_respond"):  # the optimizer may have proposed already: then answer that first
            page.click("#assignment-board .as-propose")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            v = view()
            if v.get("core", {}).get("phase") == "over":
                break
            if v.get("must_respond"):
                shots("3-pending")
                page.click("#assignment-board .as-accept")
                wait_until(lambda: view().get("core", {}).get("phase") == "over", what="the end")
                break
            time.sleep(0.1)
        v = view()
        assert v["core"]["phase"] == "over" and v["result"]["accepted"], v.get("result")
        page.wait_for_selector("#assignment-board .as-toggle", timeout=WAIT * 1000)
        page.click("#assignment-board .as-toggle")
        shots("4-end-best")
        assert page.locator("#assignment-board td.as-best").count() == 8
        assert not rp.page_errors, rp.page_errors
    finally:
        if rp is not None:
            try:
                rp.page.context.close()
            except Exception:
                pass
        try:
            herald.disconnect()
        except Exception:
            pass
        bot.stop()
