"""A task room on a REAL Slurk server for browser tests: the task's real layout (plugins embedded), a task, a waiting
room, the task bot and a concierge user, one room, a token per person; people log in through Slurk's own login
page in Chromium. Used by the real-page tests of every task (opt-in: markers `conformance` and `browser`).

    with RealRoom(chromium, tmp_path, "assignment", people=2) as rr:
        ann, bo = rr.login("Ann"), rr.login("Bo")
        rr.announce()                       # what a concierge does: the bot joins and seats the people
        rr.wait_phase(ann, "playing")
"""
from __future__ import annotations

import json
import os
import time
from typing import Optional

import pytest

from bots.config import Config, SlurkSettings
from bots.layouts import build_layout
from bots.slurk.runtime import SlurkBot
from bots.study.provision import BOT_PERMISSIONS, person_permissions
from tasks import get_task
from tests.conftest import REAL_ETAG_ENV, REAL_TOKEN_ENV, REAL_URL_ENV, SlurkServer, _env_flag, _real_configured
from tests.slurk_double.recorder import SocketRecorder
from tests.test_real_page import PAGE_STATE_JS, WAIT, RealPage, open_page, person_token, showdown_js, wait_until

SIZES = ((1366, 768), (1920, 1080))

# pytestmark for a real-page test module
REAL_PAGE_MARKS = [
    pytest.mark.conformance,
    pytest.mark.browser,
    pytest.mark.skipif(not _real_configured(),
                       reason=f"real Slurk not configured: set {REAL_URL_ENV} and {REAL_TOKEN_ENV} "
                              f"({REAL_ETAG_ENV}=1 if it has ETags)"),
]


class RealRoom:
    def __init__(self, chromium, tmp_path, task: str, people: int, agents: Optional[dict] = None,
                 task_options: Optional[dict] = None, person_seats=None):
        self.chromium = chromium
        self.spec = get_task(task)
        self.srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                               is_real=True)
        self.showdown = showdown_js()
        srv = self.srv
        layout = srv.create_layout(build_layout(self.spec))
        self.task = srv.create_task(f"{task}-page-{int(time.time() * 1000)}", people, layout)
        waiting = srv.create_room()
        bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
        self.herald_id, self.herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
        self.room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
        self.tokens = [person_token(srv, person_permissions(self.spec), self.room, self.task) for _ in range(people)]
        cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=self.task,
                                         waiting_room=waiting, auth_timeout=5.0, etag="auto"),
                     state_db=str(tmp_path / "state.sqlite3"),
                     person_seats=person_seats if person_seats is not None else people,
                     agents=dict(agents or {}), task_options=dict(task_options or {}))
        self.bot = SlurkBot(cfg, self.spec)
        self.herald = SocketRecorder("concierge")
        self.pages: list[RealPage] = []

    def __enter__(self) -> "RealRoom":
        self.bot.start()
        self.herald.connect(self.srv.url, self.herald_id, self.herald_token)
        return self

    def __exit__(self, *exc) -> None:
        for rp in self.pages:
            try:
                rp.page.context.close()
            except Exception:
                pass
        try:
            self.herald.disconnect()
        except Exception:
            pass
        self.bot.stop()

    def login(self, name: str) -> RealPage:
        """The next person's token, through Slurk's login page; returns once the page is in the room."""
        token = self.tokens[len(self.pages)]
        rp = open_page(self.chromium, self.srv, f"{self.srv.url}/login?name={name}&token={token}", self.showdown)
        rp.page.wait_for_function("() => typeof self_user !== 'undefined' && self_user && self_room === %d"
                                  % self.room, timeout=WAIT * 1000)
        self.pages.append(rp)
        return rp

    def announce(self) -> None:
        assert self.herald.call("room_created", {"room": self.room, "task": self.task}, timeout=WAIT) is True

    def view(self, rp: RealPage) -> dict:
        """The seat's view as its page holds it (the task's state element)."""
        text = rp.page.evaluate(PAGE_STATE_JS, self.spec.state_element)
        try:
            return json.loads(text) if text and text.strip() else {}
        except ValueError:
            return {}

    def wait_phase(self, rp: RealPage, phase: str, timeout: float = WAIT) -> dict:
        wait_until(lambda: self.view(rp).get("core", {}).get("phase") == phase, timeout=timeout,
                   what=f"phase {phase}")
        return self.view(rp)

    def user_id(self, rp: RealPage) -> int:
        return int(rp.page.evaluate("() => self_user.id"))

    @staticmethod
    def shots(rp: RealPage, name: str) -> None:
        """Viewport screenshots at both sizes: artifacts/screenshots/<name>-<w>x<h>.png."""
        for w, h in SIZES:
            rp.page.set_viewport_size({"width": w, "height": h})
            rp.page.wait_for_timeout(200)
            rp.shot(f"{name}-{w}x{h}.png", full_page=False)
