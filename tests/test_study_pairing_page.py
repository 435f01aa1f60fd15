"""Pairing leaves the chat alive in a REAL Slurk page, whichever order Slurk delivers the move's events in (issue 27
item 1). Opt-in: markers `conformance` and `browser` (see tests/test_real_page.py for the Chromium set-up).

Slurk's page (connection.js `left_room`) makes the chat box read-only with "Disconnected!" on ANY `left_room`. Two
people log in with participant tokens whose room is a waiting room (the waiting-room layout), then each is moved
into a game room by REST in the given order:
  * "join_first": added to the game room, and only once its page shows that room, removed from the waiting room;
    the stray `left_room` of the waiting room reaches a page that is already in the game room (what the concierge
    used to do; plugins/slurk-task.js now recovers);
  * "leave_first": removed from the waiting room, then added (what the concierge does now).
The task bot then starts the game; both chat boxes are writable and a line typed by one reaches the other in 2 s.
"""
from __future__ import annotations

import os
import time

import pytest

from bots.config import Config, SlurkSettings
from bots.layouts import build_layout
from bots.slurk.rest import SlurkREST
from bots.slurk.runtime import SlurkBot
from bots.study.provision import BOT_PERMISSIONS, person_permissions
from tasks import get_task
from tests.conftest import REAL_TOKEN_ENV, REAL_URL_ENV, SlurkServer, _env_flag, REAL_ETAG_ENV
from tests.real_room import REAL_PAGE_MARKS
from tests.slurk_double.recorder import SocketRecorder
from tests.test_real_page import WAIT, open_page, person_token, showdown_js, wait_until

pytestmark = REAL_PAGE_MARKS

TEXT_STATE = "() => { const t = document.getElementById('text'); return t ? [t.readOnly, t.placeholder] : null; }"


def _in_room(rp, room: int) -> None:
    rp.page.wait_for_function("(r) => typeof self_room !== 'undefined' && self_room === r && typeof self_user "
                              "!== 'undefined' && !!self_user", arg=room,
                              timeout=WAIT * 1000)


@pytest.mark.parametrize("order", ["join_first", "leave_first"])
def test_the_chat_stays_live_after_a_move_in_either_order(chromium, tmp_path, order):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    spec = get_task("dond")  # open chat between two people: chat is the game
    layout = srv.create_layout(build_layout(spec))
    task = srv.create_task(f"pairing-{order}-{int(time.time() * 1000)}", 2, layout)
    waiting = srv.expect_ok(srv.api("POST", "rooms", json={
        "layout_id": srv.create_layout(build_layout("waiting_room"))}))["id"]
    room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": layout}))["id"]
    bot_id, bot_token = srv.provision_user("TaskBot", BOT_PERMISSIONS, room_id=waiting)
    herald_id, herald_token = srv.provision_user("Concierge", BOT_PERMISSIONS, room_id=waiting)
    tokens = [person_token(srv, person_permissions(spec), waiting, task) for _ in range(2)]
    cfg = Config(slurk=SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task, waiting_room=waiting,
                                     auth_timeout=5.0, etag="auto"),
                 state_db=str(tmp_path / "state.sqlite3"), person_seats=2)
    bot = SlurkBot(cfg, spec)
    herald = SocketRecorder("concierge")
    rest = SlurkREST(srv.url, srv.admin_token, etag="auto")
    pages = []
    bot.start()
    try:
        herald.connect(srv.url, herald_id, herald_token)
        showdown = showdown_js()
        for name, token in zip(("Ann", "Bo"), tokens):
            rp = open_page(chromium, srv, f"{srv.url}/login?name={name}&token={token}", showdown)
            _in_room(rp, waiting)
            pages.append(rp)
        users = [int(rp.page.evaluate("() => self_user.id")) for rp in pages]
        for rp, uid in zip(pages, users):
            if order == "join_first":
                rest.join_room(uid, room)
                _in_room(rp, room)
                wait_until(lambda rp=rp: rp.page.evaluate(TEXT_STATE) == [False, "Enter your message here!"],
                           what="the game room's joined_room handled")
                rest.leave_room(uid, waiting)  # the stray left_room reaches a page that is in the game room
            else:
                rest.leave_room(uid, waiting)
                rest.join_room(uid, room)
                _in_room(rp, room)
        assert herald.call("room_created", {"room": room, "task": task}, timeout=WAIT) is True
        for rp in pages:
            wait_until(lambda rp=rp: rp.page.evaluate("() => !!(window.SlurkTask && window.SlurkTask.bot())"),
                       what="the bot seen by the page")
        time.sleep(1.0)  # let any left_room in flight arrive before the state is read
        for rp in pages:
            assert rp.page.evaluate(TEXT_STATE) == [False, "Enter your message here!"], order
            assert rp.page.evaluate("() => getComputedStyle(document.getElementById('user-list')).opacity") == "1"
        # A line each way; each must reach the partner's page within 2 s (the bound: a dead chat box never
        # delivers, a live one delivers in well under a second on a quiet machine).
        for sender, receiver, line in ((pages[0], pages[1], f"hello from Ann {order}"),
                                       (pages[1], pages[0], f"hi Ann, Bo here {order}")):
            t0 = time.monotonic()
            sender.type(line)
            wait_until(lambda: any(line in m for _c, _u, m in receiver.chat()), timeout=WAIT, what="the line")
            took = time.monotonic() - t0
            print(f"{order}: {line!r} reached the partner in {took:.2f} s")
            assert took < 2.0, f"{line!r} took {took:.2f} s"
    finally:
        for rp in pages:
            try:
                rp.page.context.close()
            except Exception:
                pass
        herald.disconnect()
        bot.stop()
        rest.close()
