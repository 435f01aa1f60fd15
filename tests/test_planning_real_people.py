"""Two people plan a day out (DialOp Planning) in two real Chromium pages served by a REAL Slurk server (opt-in:
markers `conformance` and `browser`; helpers from tests/test_real_page.py). The user types plain English
preferences; the assistant searches privately, builds a 3-stop itinerary by clicking the site table and the
builder, and proposes; the user rejects it with the button and says why, the assistant swaps a stop by clicks and
proposes again, and the user accepts. Each page shows only its own seat's private data: the user's preferences
(texts only, never their weights) are on no other page, and the assistant's search results on no other page.
Screenshots at 1366x768 and 1920x1080: artifacts/screenshots/real-planning-people-*.png."""
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


def state_text(rp) -> str:
    return rp.page.evaluate("() => { const e = document.getElementById('planning-state'); "
                            "return e ? e.textContent : ''; }") or ""


def view_of(rp) -> dict:
    text = state_text(rp)
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return {}


def board_text(rp) -> str:
    return rp.page.inner_text("#planning-board")


def shots(rp, name):
    for w, h in SIZES:
        rp.page.set_viewport_size({"width": w, "height": h})
        rp.page.wait_for_timeout(200)
        rp.shot(f"real-planning-people-{name}-{w}x{h}.png", full_page=False)


def pick(rp, site: int):
    """Select a site in the table and add it to the first free builder slot."""
    rp.page.click(f'#planning-board table.pl-sites tr[data-site="{site}"]')
    rp.page.click("#planning-board .pl-add")


def test_two_people_plan_a_day_in_real_slurk_pages(chromium, tmp_path):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    showdown = showdown_js()
    spec = get_task("planning")
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"planning-people-{int(time.time())}", 2, layout)
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
        seats = {view_of(rp)["core"]["seat"]: rp for rp in pages}
        assert set(seats) == {"user", "assistant"}
        user, assistant = seats["user"], seats["assistant"]
        user.page.wait_for_selector("#planning-board .pl-prefs li", timeout=WAIT * 1000)
        assistant.page.wait_for_selector("#planning-board table.pl-sites tr[data-site]", timeout=WAIT * 1000)
        uv, av = view_of(user), view_of(assistant)
        prefs = uv["preferences"]
        sites = av["sites"]
        # the preferences are texts on the user's page only; their weights reach no page at all
        assert user.page.locator("#planning-board .pl-prefs li").count() == len(prefs)
        assert "weight" not in state_text(user) and "weight" not in state_text(assistant)
        assert "preferences" not in av and not any(p in board_text(assistant) for p in prefs)
        assert "sites" not in uv

        user.type("hi! i'd like to see a park and grab some food, nothing too pricey, maybe $60 in all")
        wait_until(lambda: any("grab some food" in m for _, _, m in assistant.chat()),
                   what="the assistant to see the user's line")
        query = "type == park, sort_by=price, limit=3"
        assistant.page.fill("#planning-board .pl-query", query)
        assistant.page.press("#planning-board .pl-query", "Enter")
        wait_until(lambda: any(s["query"] == query for s in view_of(assistant).get("searches", [])),
                   what="the assistant's private search result")
        found = next(s for s in view_of(assistant)["searches"] if s["query"] == query)
        assert found["matched"] >= 1 and "Search Results" in board_text(assistant)
        assistant.type("found a few parks, let me put a plan together")
        wait_until(lambda: any("a few parks" in m for _, _, m in user.chat()), what="the user to see the reply")
        assert "Search Results" not in board_text(user) and "searches" not in view_of(user)
        shots(user, "1-chat-user")
        shots(assistant, "1-search-assistant")

        park = next(i for i, s in enumerate(sites) if s["etype"] == "park")
        food = [i for i, s in enumerate(sites) if s["etype"] in ("restaurant", "cafe")]
        first = [park, food[0], food[1]]
        for i in first:
            pick(assistant, i)
        assert assistant.page.locator("#planning-board .pl-route").count() == 2
        shots(assistant, "2-built-assistant")
        assistant.page.click("#planning-board .pl-propose")
        wait_until(lambda: view_of(user).get("must_respond"), what="the user to be asked to answer")
        assert view_of(user)["pending"]["slots"] == first
        user.page.wait_for_selector("#planning-board .pl-timeline li", timeout=WAIT * 1000)
        assert user.page.locator("#planning-board .pl-timeline li").count() == 5
        assert sites[food[1]]["name"] in user.page.inner_text("#planning-board .pl-timeline")
        assert "Overall score:" in user.page.inner_text("#planning-board .pl-scorecard")
        shots(user, "3-pending-user")
        user.page.click("#planning-board .pl-reject")
        wait_until(lambda: not view_of(assistant).get("pending") and not view_of(user).get("must_respond"),
                   what="the proposal to be cleared")
        user.type("hmm the last stop is too far, something closer please")
        wait_until(lambda: any("too far" in m for _, _, m in assistant.chat()), what="the reason to arrive")

        # swap the third stop by clicks: clear it, pick another place
        assistant.page.click('#planning-board .pl-slot[data-slot="2"] .pl-clear')
        third = food[2]
        pick(assistant, third)
        second = [park, food[0], third]
        assistant.page.click("#planning-board .pl-propose")
        wait_until(lambda: (view_of(user).get("pending") or {}).get("slots") == second,
                   what="the second proposal to reach the user")
        shots(user, "4-second-user")
        user.page.click("#planning-board .pl-accept")
        for rp in (user, assistant):
            wait_until(lambda rp=rp: view_of(rp).get("core", {}).get("phase") == "over", what="the end")
        ur, ar = view_of(user)["result"], view_of(assistant)["result"]
        assert ur["accepted"] and ar["accepted"] and ur["itinerary"] == second == ar["itinerary"]
        assert ur["normalized"] == ar["normalized"] and "score" in ur and "score" not in ar
        user.page.wait_for_selector("#planning-board .pl-result", timeout=WAIT * 1000)
        assert "Agreed" in user.page.inner_text("#planning-board .pl-result")
        shots(user, "5-end-user")
        shots(assistant, "5-end-assistant")
        for rp in (user, assistant):
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
