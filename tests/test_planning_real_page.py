"""A person plans a day out (DialOp Planning) as the user in a real Chromium page served by a REAL Slurk server,
with the task bot's `planner` as the assistant (opt-in: markers `conformance` and `browser`; helpers from
tests/test_real_page.py). The person only types plain English (lower case, a typo, "you choose") and presses the
page's Reject / Accept buttons: the planner asks, proposes a full itinerary, hears why the person rejects it and
proposes a different one, which the person accepts. The person's page shows the preference texts, never their
weights, and no search result. Screenshots at 1366x768 and 1920x1080: artifacts/screenshots/real-planning-*.png."""
from __future__ import annotations

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
from tests.test_planning_real_people import state_text, view_of
from tests.test_real_page import WAIT, open_page, person_token, showdown_js, wait_until

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.browser,
    pytest.mark.skipif(not _real_configured(),
                       reason=f"real Slurk not configured: set {REAL_URL_ENV} and {REAL_TOKEN_ENV} "
                              f"({REAL_ETAG_ENV}=1 if it has ETags)"),
]
SIZES = ((1366, 768), (1920, 1080))
REPLY = 60  # seconds: the planner answers at a person's typing pace


def test_person_plans_a_day_with_the_planner_in_a_real_slurk_page(chromium, tmp_path):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    showdown = showdown_js()
    spec = get_task("planning")
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"planning-page-{int(time.time())}", 1, layout)
    waiting = srv.create_room()
    bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
    herald_id, herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
    room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
    token = person_token(srv, person_permissions(spec), room, task)
    cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task,
                                     waiting_room=waiting, auth_timeout=5.0, etag="auto"),
                 state_db=str(tmp_path / "state.sqlite3"), person_seats=1, agents={"assistant": "planner"})
    bot = SlurkBot(cfg, spec)
    bot.start()
    herald = SocketRecorder("concierge")
    rp = None
    try:
        herald.connect(srv.url, herald_id, herald_token)
        rp = open_page(chromium, srv, f"{srv.url}/login?name=Ann&token={token}", showdown)
        page = rp.page

        def view():
            return view_of(rp)

        def shots(name):
            for w, h in SIZES:
                page.set_viewport_size({"width": w, "height": h})
                page.wait_for_timeout(200)
                rp.shot(f"real-planning-{name}-{w}x{h}.png", full_page=False)

        def others():
            """Lines the person did not type (the planner speaks through the task bot)."""
            return [m for _, u, m in rp.chat() if u.strip() not in ("Ann", "You")]

        page.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d" % room,
                               timeout=WAIT * 1000)
        assert herald.call("room_created", {"room": room, "task": task}, timeout=WAIT) is True
        wait_until(lambda: view().get("core", {}).get("phase") == "playing", what="the game to start")
        page.wait_for_selector("#planning-board .pl-prefs li", timeout=WAIT * 1000)
        v = view()
        assert v["core"]["seat"] == "user"
        assert page.locator("#planning-board .pl-prefs li").count() == len(v["preferences"])
        assert "weight" not in state_text(rp) and "sites" not in v and "searches" not in v
        shots("1-start")
        before = len(others())

        rp.type("hi! im on a tight budjet, nothing over $50 please, and i'd love somewhere with a nice view")
        wait_until(lambda: len(others()) > before, timeout=REPLY, what="the planner's first answer")
        shots("2-asked")
        rp.type("keep the travel short too. that's all, you choose")
        wait_until(lambda: view().get("must_respond"), timeout=REPLY, what="a full proposal from the planner")
        first = view()["pending"]["slots"]
        assert None not in first and len(set(first)) == 3
        page.wait_for_selector("#planning-board .pl-accept", timeout=WAIT * 1000)
        assert page.locator("#planning-board .pl-timeline li").count() == 5
        assert "Overall score:" in page.inner_text("#planning-board .pl-scorecard")
        # the scorecard as the original's: per stop and checklist, never a preference's own score (its weight)
        assert "per_pref" not in state_text(rp) and "weight" not in state_text(rp)
        shots("3-pending")
        page.click("#planning-board .pl-reject")
        # the planner may answer the rejection at once with a new proposal: wait for the status, not the buttons
        wait_until(lambda: [p["status"] for p in view().get("proposals", [])][:1] == ["rejected"],
                   what="the rejection")
        rp.type("no thanks, that's too far apart and a bit pricey")
        wait_until(lambda: view().get("must_respond") and len(view()["proposals"]) >= 2, timeout=REPLY,
                   what="a second proposal")
        second = view()["pending"]["slots"]
        assert sorted(second) != sorted(first)  # never the rejected itinerary again, in any order
        shots("4-second")
        page.click("#planning-board .pl-accept")
        wait_until(lambda: view().get("core", {}).get("phase") == "over", what="the end")
        res = view()["result"]
        assert res["accepted"] and res["itinerary"] == second
        page.wait_for_selector("#planning-board .pl-result", timeout=WAIT * 1000)
        assert "Agreed" in page.inner_text("#planning-board .pl-result")
        assert "Search Results" not in page.inner_text("body")
        shots("5-end")
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
