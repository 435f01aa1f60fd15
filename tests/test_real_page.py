"""A person plays Traveling Adventurers in a real Chromium page served by a REAL Slurk server, against the task bot's
`solver` agent (opt-in: markers `conformance` and `browser`).

    SLURK_TEST_URL=http://127.0.0.1:5056 SLURK_TEST_ETAG=1 SLURK_TEST_ADMIN_TOKEN=0000...0000 \
        pytest -q tests/test_real_page.py

Provisioning uses the project's own pieces: the layout is `bots.layouts.build_layout(get_task("travel"))` (the real
plugins slurk-task.js + travel.js embedded as data URLs), the participant's permissions are
`bots.study.provision.person_permissions(spec)`. The task bot (`SlurkBot`) runs in-process with person_seats=1 and
agents {"ghost": "solver"}. The person logs in through Slurk's own `/login?name=&token=` (which creates the user).
Slurk's page loads showdown from cdn.jsdelivr.net; this test serves showdown 1.9.0 from npm instead (`npm pack`, cached
in the temp dir) and aborts every other external request. Screenshots: artifacts/screenshots/real-travel-*.png.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from bots.config import Config, SlurkSettings
from tests.test_study_concierge import wait_until as _wait_until
from bots.layouts import build_layout
from bots.slurk.runtime import SlurkBot
from bots.study.provision import BOT_PERMISSIONS, person_permissions
from tasks import get_task
from tests.browser.harness import SCREENSHOTS
from tests.conftest import REAL_ETAG_ENV, REAL_TOKEN_ENV, REAL_URL_ENV, SlurkServer, _env_flag, _real_configured
from tests.slurk_double.recorder import SocketRecorder

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.browser,
    pytest.mark.skipif(not _real_configured(),
                       reason=f"real Slurk not configured: set {REAL_URL_ENV} and {REAL_TOKEN_ENV} "
                              f"({REAL_ETAG_ENV}=1 if it has ETags)"),
]

SHOWDOWN_VERSION = "1.9.0"
WAIT = 20          # seconds: one step of the game (the bot's answer, a page update)
GAME_WAIT = 120    # seconds: the whole game


# ----------------------------------------------------------------------------------------------------------------
# showdown from npm


def showdown_js() -> bytes:
    """showdown 1.9.0's dist/showdown.min.js, fetched once with `npm pack` into the temp dir (skip without npm)."""
    cache = Path(tempfile.gettempdir()) / "slurk-bot-suite-showdown"
    target = cache / f"showdown-{SHOWDOWN_VERSION}.min.js"
    if target.is_file() and target.stat().st_size > 0:
        return target.read_bytes()
    npm = shutil.which("npm")
    if not npm:
        pytest.skip("the real Slurk page needs showdown (normally from cdn.jsdelivr.net); this test serves it from "
                    "npm, which is not installed (apt-get install npm)")
    cache.mkdir(parents=True, exist_ok=True)
    try:
        out = subprocess.run([npm, "pack", f"showdown@{SHOWDOWN_VERSION}", "--silent"], cwd=cache,
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"npm pack showdown@{SHOWDOWN_VERSION} failed: {e}")
    tgz = cache / f"showdown-{SHOWDOWN_VERSION}.tgz"
    if out.returncode != 0 or not tgz.is_file():
        pytest.skip(f"npm pack showdown@{SHOWDOWN_VERSION} failed (no registry access?): {out.stderr.strip()[-300:]}")
    with tarfile.open(tgz) as tar:
        member = tar.extractfile("package/dist/showdown.min.js")
        assert member is not None
        body = member.read()
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(body)
    tmp.replace(target)
    return body


# ----------------------------------------------------------------------------------------------------------------
# Slurk provisioning (admin REST)


def person_token(srv, perms: dict, room: int, task: int) -> str:
    """A participant token with its own permissions row, one registration and NO user yet: Slurk's login page
    creates the user."""
    p = srv.expect_ok(srv.api("POST", "permissions", json=dict(perms)))
    t = srv.expect_ok(srv.api("POST", "tokens", json={"permissions_id": p["id"], "room_id": room, "task_id": task,
                                                       "registrations_left": 1}))
    return t["id"]


def wait_until(pred, timeout: float = WAIT, what: str = "condition", interval: float = 0.1):
    return _wait_until(pred, timeout=timeout, what=what)


# ----------------------------------------------------------------------------------------------------------------
# the page


# The view the page holds, as JSON: the state the page script put together (SlurkTask.state: a whole view, or the
# shared and own parts of a two-part page combined).
PAGE_STATE_JS = ("(id) => { const s = window.SlurkTask && window.SlurkTask.state(id); "
                 "return s ? JSON.stringify(s) : null; }")


class RealPage:
    def __init__(self, page, url: str):
        self.page = page
        self.url = url
        self.console: list[str] = []       # console errors and warnings
        self.page_errors: list[str] = []
        self.aborted: list[str] = []       # external requests we refused
        self.failed: list[str] = []        # same-origin requests that failed (4xx/5xx)
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning")
                else None)
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("response", lambda r: self.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)

    def view(self) -> dict | None:
        text = self.page.evaluate(PAGE_STATE_JS, "travel-state")
        if not text or not text.strip():
            return None
        try:
            return json.loads(text)
        except ValueError:
            return None

    def phase(self) -> str | None:
        v = self.view()
        return v.get("core", {}).get("phase") if v else None

    def chat(self) -> list[tuple[str, str, str]]:
        """(class, user, message) of every chat line, oldest first."""
        return self.page.evaluate("""() => Array.from(document.querySelectorAll('#chat-area li')).map(li => [
            li.className, (li.querySelector('.user') || {}).textContent || '',
            (li.querySelector('.message') || li).textContent || ''])""")

    def type(self, text: str) -> None:
        self.page.fill("#text", text)
        self.page.press("#text", "Enter")

    def shot(self, name: str, full_page: bool = True) -> Path:
        p = SCREENSHOTS / name
        p.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(p), full_page=full_page)
        return p


def open_page(browser, srv, login_url: str, showdown: bytes) -> RealPage:
    origin = urlparse(srv.url)
    context = browser.new_context(viewport={"width": 1400, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    rp = RealPage(page, login_url)

    def route(r):
        u = urlparse(r.request.url)
        if (u.hostname, u.port) == (origin.hostname, origin.port) or u.scheme in ("data", "blob"):
            r.continue_()
        elif u.hostname == "cdn.jsdelivr.net" and u.path.endswith("/showdown.min.js"):
            r.fulfill(status=200, body=showdown, headers={"Content-Type": "application/javascript"})
        else:
            rp.aborted.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page.goto(login_url)
    return rp


# ----------------------------------------------------------------------------------------------------------------
# the test


def test_person_plays_travel_against_the_solver_in_a_real_slurk_page(chromium, tmp_path):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    showdown = showdown_js()
    spec = get_task("travel")
    tag = f"{int(time.time())}"

    # --- provisioning: the real travel layout with embedded plugins, the task, a waiting room, the bot
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"travel-page-{tag}", 1, layout)
    waiting = srv.create_room()
    bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
    herald_id, herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
    room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
    perms = person_permissions(spec)
    token = person_token(srv, perms, room, task)

    cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task,
                                     waiting_room=waiting, auth_timeout=5.0, etag="auto"),
                 state_db=str(tmp_path / "state.sqlite3"), person_seats=1, agents={"ghost": "solver"},
                 task_options={"boards": "preset"})
    bot = SlurkBot(cfg, spec)
    bot.start()
    herald = SocketRecorder("concierge")
    rp = None
    try:
        herald.connect(srv.url, herald_id, herald_token)

        # --- the person logs in through Slurk's own login page (which creates the user)
        rp = open_page(chromium, srv, f"{srv.url}/login?name=Ann&token={token}", showdown)
        page = rp.page
        page.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d" % room,
                               timeout=WAIT * 1000)
        me = page.evaluate("() => self_user")
        user_id = int(me["id"])
        assert me["name"] == "Ann"
        page.wait_for_selector("#travel-board", timeout=WAIT * 1000)

        # --- announce the room (what a concierge does): the bot joins, seats Ann, the solver takes ghost
        assert herald.call("room_created", {"room": room, "task": task}, timeout=WAIT) is True
        page.wait_for_function("""() => { const s = window.SlurkTask && window.SlurkTask.state('travel-state');
            return !!(s && s.core && s.core.phase === 'playing'); }""", timeout=WAIT * 1000)
        page.wait_for_selector("#travel-svg", timeout=WAIT * 1000)
        v = rp.view()
        assert v["core"]["seat"] == "light" and int(v["core"]["bot"]) == bot.user_id, v["core"]
        rp.shot("real-travel-1-start.png")

        rooms = [r["id"] for r in v["rooms"]]
        start = v["start"]
        tour = [start] + [r for r in rooms if r != start] + [start]

        # --- typed commands: share one hallway, then everything, then propose a full tour
        hallway = f"{tour[0]}-{tour[1]}"
        rp.type(f"/share {hallway}")
        wait_until(lambda: any(sorted(k.split("-")) == sorted(tour[:2])
                               for k in (rp.view() or {}).get("my_shared") or []),
                   timeout=WAIT, what=f"the bot's answer to /share {hallway} (my_shared in the view)")
        rp.type("/share all")
        time.sleep(0.5)
        rp.type("/propose " + " ".join(tour))
        wait_until(lambda: (rp.view() or {}).get("pending") is not None or
                   len((rp.view() or {}).get("agreed") or []) > 1,
                   timeout=WAIT, what="the pending proposal or an agreement")
        rp.shot("real-travel-2-proposed.png")

        # --- play on: agree to the solver's proposals (button), submit an agreed tour (button), or submit what
        # the partner submitted; counter with the full tour again if nothing moves
        done: set = set()
        mid_shot = False
        deadline = time.monotonic() + GAME_WAIT
        last_change = time.monotonic()
        last_text = None
        while time.monotonic() < deadline:
            v = rp.view() or {}
            text = json.dumps(v, sort_keys=True)
            if text != last_text:
                last_text, last_change = text, time.monotonic()
            if v.get("core", {}).get("phase") == "over":
                break
            pending = v.get("pending")
            if not pending:  # a proposal answered and gone: the same tour proposed again is a new proposal
                done = {d for d in done if d[0] != "agree"}
            agreed = v.get("agreed") or []
            sub = v.get("submitted") or {}
            if pending and not pending.get("mine") and ("agree", tuple(pending.get("path") or ())) not in done:
                if not mid_shot:
                    rp.shot("real-travel-3-solver-proposal.png")
                    mid_shot = True
                done.add(("agree", tuple(pending.get("path") or ())))
                page.wait_for_selector("#travel-agree:enabled", timeout=WAIT * 1000)
                page.click("#travel-agree")
            elif len(agreed) == len(rooms) + 1 and not sub.get("me") and ("submit", tuple(agreed)) not in done:
                done.add(("submit", tuple(agreed)))
                page.wait_for_selector("#travel-submit:enabled", timeout=WAIT * 1000)
                rp.shot("real-travel-4-agreed.png")
                page.click("#travel-submit")
            elif v.get("partner_submitted") and not sub.get("me") \
                    and ("submit", tuple(v["partner_submitted"])) not in done:
                done.add(("submit", tuple(v["partner_submitted"])))
                rp.type("/submit " + " ".join(v["partner_submitted"]))
            elif time.monotonic() - last_change > 8 and ("repropose", len(done)) not in done:
                done.add(("repropose", len(done)))
                rp.type("/propose " + " ".join(tour))
            else:
                time.sleep(0.1)
        final = rp.view() or {}
        page.wait_for_timeout(500)
        shot = rp.shot("real-travel-5-end.png")
        rp.shot("real-travel-6-end-viewport.png", full_page=False)   # what the person sees without scrolling
        assert final.get("core", {}).get("phase") == "over", f"the game did not end; last view {final}"
        code = final["core"].get("code")
        assert code, final["core"]
        lines = rp.chat()
        assert any(str(code) in m for _, _, m in lines), f"completion code {code} not in the chat: {lines[-5:]}"
        assert page.is_visible("#travel-code-value")
        # each typed command is shown once, as the person's own private line; no chat line appears twice in a row
        for typed in (f"/share {hallway}", "/share all", "/propose " + " ".join(tour)):
            own = [m for c, u, m in lines if "self" in c.split() and m.strip() == typed]
            assert len(own) >= 1, f"own command {typed!r} not shown in the chat: {lines}"
        repeats = [a for a, b in zip(lines, lines[1:]) if a == b]
        assert not repeats, f"chat lines shown twice: {repeats}"
        assert shot.is_file()

        # --- the person's commands went privately to the bot
        cmd_logs = srv.expect_ok(srv.api("GET", "logs", params={"room_id": room, "event": "command"}))
        mine = [x for x in cmd_logs if x.get("user_id") == user_id]
        assert mine, f"no command logs of the person in room {room}"
        assert all(x.get("receiver_id") == bot.user_id for x in mine), \
            [(x["data"], x.get("receiver_id")) for x in mine if x.get("receiver_id") != bot.user_id]

        # --- what the person may read (through the page's own session cookie) holds no game_start
        readable = page.evaluate("""async ([r, u]) => {
            const resp = await fetch('/slurk/api/rooms/' + r + '/users/' + u + '/logs', {credentials: 'same-origin'});
            return {status: resp.status, body: resp.ok ? await resp.json() : await resp.text()}; }""", [room, user_id])
        assert readable["status"] == 200, readable
        events = [x["event"] for x in readable["body"]]
        assert events, "the person's readable log is empty"
        assert "game_start" not in events, [x for x in readable["body"] if x["event"] == "game_start"]

        # --- the page itself: no uncaught errors
        layout_box = page.evaluate("""() => { const r = e => { const x = document.querySelector(e);
            if (!x) return null; const b = x.getBoundingClientRect(); const cs = getComputedStyle(x);
            return {top: b.top, bottom: b.bottom, left: b.left, right: b.right, position: cs.position,
                    overflowY: cs.overflowY, scrollHeight: x.scrollHeight, clientHeight: x.clientHeight}; };
            return {viewport: [innerWidth, innerHeight], doc: document.documentElement.scrollHeight,
                    sidebar: r('#sidebar'), custom: r('#custom'), typeArea: r('#type-area'),
                    buttons: r('#travel-propose'), paths: r('#travel-paths')}; }""")
        report = {"layout_boxes": layout_box, "console": rp.console, "page_errors": rp.page_errors, "aborted": rp.aborted,
                  "failed": rp.failed, "chat": lines, "final_core": final.get("core"),
                  "person_commands": [x["data"]["command"] for x in sorted(mine, key=lambda x: x["id"])]}
        (SCREENSHOTS / "real-travel-report.json").write_text(json.dumps(report, indent=1, default=str))
        assert not rp.page_errors, rp.page_errors
    finally:
        if rp is not None:
            try:
                if rp.page_errors or rp.console:
                    print("page errors:", rp.page_errors, "\nconsole:", rp.console)
                rp.page.context.close()
            except Exception:
                pass
        try:
            herald.disconnect()
        except Exception:
            pass
        bot.stop()
