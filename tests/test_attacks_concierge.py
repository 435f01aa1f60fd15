"""Attacks on the waiting room and the study files (issue 10), replayed against the Slurk test double (ETags off and
on) and, with the conformance flag, a real Slurk:

(a) a person in the waiting room emits `room_created` (Slurk checks neither login nor permission) for the waiting
    room and for another task's room, and a person of another task waits in our waiting room: the concierge moves
    nobody and creates nothing;
(b) Slurk goes away while two people wait and comes back unable to move them (as a restarted Slurk is for sessions it
    lost: it adds the membership, then answers 500): the concierge creates a bounded number of rooms, backs off,
    gives up (empties, read-only) every room it could not fill, caps the rooms per minute, and pairs the two once
    Slurk works again;
(c) login names with markdown or HTML are shown inert;
(d) participants.csv, bot.env, study.json, downloaded logs and the replay outputs are created with mode 0600 (their
    new folders 0700).

Slurk's outage is played by `FaultyProxy`, a reverse proxy (REST and socket.io, websockets included) that only the
concierge talks through, so the same scenario runs against the double and against a real Slurk that must not be
stopped. Waits are bounded polls; time gaps are only checked from below (what the back-off guarantees).
"""
from __future__ import annotations

import asyncio
import csv
import os
import re
import stat
import threading
import time
import uuid
from pathlib import Path
from typing import Optional

import aiohttp
import pytest
from aiohttp import web

from bots.study import logs as study_logs
from bots.study import setup as study_setup
from bots.concierge import Backoff, ManualTimers, ThreadTimers, build_concierge, shown_name
from bots.study.provision import PERSON_PERMISSIONS, login_link
from tests.test_study_concierge import WAIT, Person, Study, listener, rooms_of, wait_until

FAST = dict(retry_base=0.2, retry_cap=1.0)  # the concierge's back-off in these tests (seconds)
JITTER = 0.2                                # bots.concierge.retries.RETRY_JITTER


# ----------------------------------------------------------------------------------------------------------------
# Slurk's outage, for the concierge only

_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers", "transfer-encoding",
        "upgrade", "host", "content-length", "content-encoding"}
_MOVE = re.compile(r"^/slurk/api/users/(\d+)/rooms/(\d+)$")


class FaultyProxy:
    """A reverse proxy in front of a Slurk server (REST and socket.io, websockets included) that can play an outage.

    * `down()`: every websocket through it is closed and every request is answered 503, as a reverse proxy whose Slurk
      is gone would (the concierge's socket drops and its reconnection attempts fail);
    * `fail_moves(users, except_room=None)`: `POST /users/{u}/rooms/{r}` for these users is passed to Slurk and then
      answered 500. That is what a Slurk restarted after a crash does for a user whose socket session died with it:
      it adds the membership, then fails to socket-join the session id it no longer knows (slurk:models/user.py
      `join_room`; observed in the attack run and on a killed and restarted Slurk). `except_room` is answered
      normally (the waiting room: then moves fail but re-adding to the waiting room works);
    * `up()`: everything passes.
    `requests` records (monotonic time, method, path, status answered) for every request.
    """

    def __init__(self, upstream: str):
        self.upstream = upstream.rstrip("/")
        self.mode = "up"
        self.failing: set[int] = set()
        self.except_room: Optional[int] = None
        self.requests: list[tuple[float, str, str, int]] = []
        self._lock = threading.Lock()
        self._pairs: set = set()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="faulty-proxy", daemon=True)
        self.port: Optional[int] = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- switches ---------------------------------------------------------------------------------------------------
    def down(self) -> None:
        self.mode = "down"
        asyncio.run_coroutine_threadsafe(self._close_sockets(), self._loop).result(10)

    def up(self) -> None:
        self.mode = "up"

    def fail_moves(self, users, except_room: Optional[int] = None) -> None:
        self.failing = {int(u) for u in users}
        self.except_room = except_room

    def answered(self, method: str, pattern: str, status: Optional[int] = None) -> list[float]:
        """Times of the requests whose path matches `pattern` (a regex), optionally only those answered `status`."""
        rx = re.compile(pattern)
        with self._lock:
            return [t for t, m, p, s in self.requests if m == method and rx.fullmatch(p) and status in (None, s)]

    # --- lifecycle --------------------------------------------------------------------------------------------------
    def start(self) -> "FaultyProxy":
        self._thread.start()
        assert self._ready.wait(10), "the proxy did not start"
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _main(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.run_until_complete(self._startup())
        self._ready.set()
        loop.run_forever()
        loop.close()

    async def _startup(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60), auto_decompress=False)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        await self._close_sockets()
        await self._runner.cleanup()
        await self._session.close()

    async def _close_sockets(self) -> None:
        """Cut every websocket like a crashed server does: the TCP connection just ends (no close handshake)."""
        for transport, tasks in list(self._pairs):
            transport.close()
            for t in tasks:
                t.cancel()

    def _record(self, request: web.Request, status: int) -> None:
        with self._lock:
            self.requests.append((time.monotonic(), request.method, request.path, status))

    @staticmethod
    def _headers(headers, drop=()) -> dict:
        return {k: v for k, v in headers.items() if k.lower() not in _HOP and k.lower() not in drop}

    # --- forwarding ---------------------------------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        if self.mode == "down":
            self._record(request, 503)
            return web.Response(status=503, text="Service Unavailable")
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._websocket(request)
        body = await request.read()
        headers = self._headers(request.headers)
        if "Origin" in headers:
            headers["Origin"] = self.upstream
        async with self._session.request(request.method, self.upstream + request.path_qs, headers=headers,
                                         data=body, allow_redirects=False) as resp:
            data = await resp.read()
            status, out = resp.status, self._headers(resp.headers)
        move = _MOVE.match(request.path)
        if (request.method == "POST" and move and status < 400 and int(move[1]) in self.failing
                and int(move[2]) != self.except_room):
            status, data, out = 500, b"<!doctype html><title>500 Internal Server Error</title>", {
                "Content-Type": "text/html; charset=utf-8"}
        self._record(request, status)
        return web.Response(status=status, body=data, headers=out)

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        server_ws = web.WebSocketResponse()
        await server_ws.prepare(request)
        headers = self._headers(request.headers, drop=("sec-websocket-key", "sec-websocket-version",
                                                       "sec-websocket-extensions", "origin"))
        url = "ws" + self.upstream[4:] + request.path_qs
        try:
            client_ws = await self._session.ws_connect(url, headers=headers)
        except aiohttp.ClientError:
            await server_ws.close()
            return server_ws
        self._record(request, 101)

        async def pump(src, dst):
            async for msg in src:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    await dst.send_str(msg.data)
                elif msg.type == aiohttp.WSMsgType.BINARY:
                    await dst.send_bytes(msg.data)
                else:
                    break

        tasks = (asyncio.ensure_future(pump(server_ws, client_ws)), asyncio.ensure_future(pump(client_ws, server_ws)))
        pair = (request.transport, tasks)
        self._pairs.add(pair)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            self._pairs.discard(pair)
            for ws in (client_ws, server_ws):
                try:
                    await asyncio.wait_for(ws.close(), 1)
                except Exception:
                    pass
        return server_ws


# ----------------------------------------------------------------------------------------------------------------
# helpers


@pytest.fixture
def stop_later():
    items = []
    yield items.append
    for x in reversed(items):
        try:
            x.stop() if hasattr(x, "stop") else x.disconnect()
        except Exception:
            pass


def task_rooms(srv, layout_id: int) -> dict[int, dict]:
    """The rooms with the study's task layout (each study has its own layout, so other users of a shared real
    server do not count)."""
    resp = srv.api("GET", "rooms", params={"layout_id": layout_id})
    assert resp.status_code == 200, resp.text
    return {r["id"]: r for r in resp.json()}


def person_token(srv, room: int, task: int) -> str:
    """A participant token (own permissions row, one registration) for `room` and `task`, as setup makes them."""
    perms = srv.expect_ok(srv.api("POST", "permissions", json=dict(PERSON_PERMISSIONS)))
    body = {"permissions_id": perms["id"], "room_id": room, "task_id": task, "registrations_left": 1}
    return srv.expect_ok(srv.api("POST", "tokens", json=body))["id"]


def first_room(concierge) -> Optional[int]:
    with concierge._lock:
        return min(concierge.rooms) if concierge.rooms else None


def online_in(srv, room: int) -> list[int]:
    return [u["id"] for u in srv.api("GET", f"rooms/{room}/users").json()]


def proxied_concierge(study: Study, proxy: FaultyProxy, **kw):
    options = dict(FAST, timers=ThreadTimers(), emit_timeout=3)
    options.update(kw)
    return build_concierge(None, study.bot_env(SLURK_URL=proxy.url), **options).start()


def assert_backed_off(times: list[float], base: float, cap: float, what: str) -> None:
    """Consecutive tries are at least the back-off apart: try k+1 waits >= (1 - jitter) * min(cap, base * 2**k)."""
    for k, (a, b) in enumerate(zip(times, times[1:])):
        least = (1 - JITTER) * min(cap, base * 2 ** k) - 0.02
        assert b - a >= least, f"{what}: try {k + 2} came {b - a:.3f} s after try {k + 1}, expected >= {least:.3f} s"


def assert_given_up(srv, concierge, room: int, people) -> None:
    """A room the concierge could not fill: read-only, nobody in it, nobody's room."""
    assert srv.api("GET", f"rooms/{room}").json()["read_only"] is True
    assert online_in(srv, room) == []
    for p in people:
        assert room not in rooms_of(srv, p.id)
    dead = concierge.dead_rooms[room]
    assert dead["read_only"] is True and dead["left_in"] == set()


# ----------------------------------------------------------------------------------------------------------------
# (a) announcements are hints; only the configured task


def test_room_created_by_a_person_and_a_foreign_task_move_nobody_and_create_nothing(slurk_server, tmp_path,
                                                                                      stop_later):
    srv = slurk_server
    study = Study(srv, tmp_path, participants=2, people_per_room=2)
    layout = study.manifest["layout_id"]
    other_layout = srv.create_layout({"title": f"Other {uuid.uuid4().hex[:6]}", "html": []})
    other_task = srv.create_task(f"other-{uuid.uuid4().hex[:6]}", 1, other_layout)
    other_room = srv.expect_ok(srv.api("POST", "rooms", json={"layout_id": other_layout}))["id"]
    bot_listener = listener(study)
    stop_later(bot_listener)
    concierge = study.concierge()
    stop_later(concierge)
    alice = study.person()
    stop_later(alice.connect(study.waiting_room).rec)
    alice.private("welcome")
    wait_until(lambda: concierge.waiting(study.task_id) == [alice.id], what="alice queued")

    # Alice announces the waiting room as a task room of our task, and another task's room: Slurk accepts both and
    # tells everyone (new_task_room with the room's members).
    assert alice.rec.call("room_created", {"room": study.waiting_room, "task": study.task_id}) is True
    assert alice.rec.call("room_created", {"room": other_room, "task": other_task}) is True
    fake = bot_listener.wait_for("new_task_room", lambda d: d["room"] == study.waiting_room, timeout=WAIT)[-1]
    assert alice.id in [u["id"] for u in fake["users"]] and fake["task"] == study.task_id
    bot_listener.wait_for("new_task_room", lambda d: d["room"] == other_room, timeout=WAIT)

    # A person whose token is for another task (one person per room!) lands in our waiting room.
    token = person_token(srv, study.waiting_room, other_task)
    mallory = Person(srv, login_link(srv.url, "Mallory", token), "Mallory")
    stop_later(mallory.connect(study.waiting_room).rec)

    wait_until(lambda: concierge.stats["ignored_announcements"] >= 2, what="both announcements seen")
    wait_until(lambda: concierge.stats["not_ours"] >= 1, what="mallory's task read")
    assert concierge.wait_idle()
    assert rooms_of(srv, alice.id) == [study.waiting_room]
    assert rooms_of(srv, mallory.id) == [study.waiting_room]
    assert concierge.waiting() == [alice.id]
    assert task_rooms(srv, layout) == {}
    assert list(task_rooms(srv, other_layout)) == [other_room]
    assert concierge.rooms == {} and concierge.stats["rooms_created"] == 0
    assert not [e for e, d in alice.rec.events if e == "joined_room" and d["room"] != study.waiting_room]


# ----------------------------------------------------------------------------------------------------------------
# (b) outages: bounded rooms, back-off, clean-up, recovery


def test_an_outage_while_two_wait_creates_one_room_at_most_and_they_are_paired_afterwards(slurk_server, tmp_path,
                                                                                          stop_later):
    srv = slurk_server
    study = Study(srv, tmp_path, participants=2, people_per_room=2)
    layout = study.manifest["layout_id"]
    proxy = FaultyProxy(srv.url).start()
    stop_later(proxy)
    concierge = proxied_concierge(study, proxy)
    stop_later(concierge)
    before = task_rooms(srv, layout)

    proxy.down()  # Slurk is gone for the concierge
    wait_until(lambda: not concierge.sio.connected, what="the concierge's socket dropped")
    alice, bob = study.person(), study.person()
    stop_later(alice.connect(study.waiting_room).rec)
    stop_later(bob.connect(study.waiting_room).rec)
    wait_until(lambda: len(proxy.answered("GET", r"/socket\.io/", 503)) >= 1, what="a failed reconnection")

    # Slurk is back, but it cannot move these two (the sessions it lost in the crash)
    proxy.fail_moves({alice.id, bob.id})
    proxy.up()
    wait_until(lambda: concierge.stats["rooms_given_up"] >= 1, what="the first room given up")
    probes = rf"/slurk/api/users/({alice.id}|{bob.id})/rooms/{study.waiting_room}"
    wait_until(lambda: len(proxy.answered("POST", probes, 500)) >= 4, what="three probes after the given-up room")

    created = set(task_rooms(srv, layout)) - set(before)
    assert concierge.stats["rooms_created"] == 1 and len(created) == 1  # the old concierge made ~50 a second
    [dead] = created
    assert_backed_off(proxy.answered("POST", probes, 500), FAST["retry_base"], FAST["retry_cap"], "probes")
    assert len(proxy.answered("POST", r"/slurk/api/rooms")) == 1

    # the sessions are back (the two reloaded their pages): the next try pairs them
    proxy.fail_moves(())
    room = wait_until(lambda: first_room(concierge), what="a room for the two")
    for p in (alice, bob):
        wait_until(lambda p=p: rooms_of(srv, p.id) == [room], what=f"{p.name} moved")
    after = task_rooms(srv, layout)
    assert set(after) - set(before) == {dead, room}
    assert after[room]["read_only"] is False and concierge.rooms[room]["users"] in ([alice.id, bob.id],
                                                                                   [bob.id, alice.id])
    assert_given_up(srv, concierge, dead, (alice, bob))
    assert concierge.waiting() == [] and concierge.suspects == set()


def test_failing_moves_are_backed_off_and_every_unfilled_room_is_given_up(slurk_server, tmp_path, stop_later):
    """Slurk answers 500 to every move into a new room (re-adding to the waiting room works, so every try makes a
    room): the tries are backed off, each room is emptied and made read-only, and the pair is placed afterwards."""
    srv = slurk_server
    study = Study(srv, tmp_path, participants=2, people_per_room=2)
    layout = study.manifest["layout_id"]
    proxy = FaultyProxy(srv.url).start()
    stop_later(proxy)
    concierge = proxied_concierge(study, proxy)
    stop_later(concierge)
    alice, bob = study.person(), study.person()
    proxy.fail_moves({alice.id, bob.id}, except_room=study.waiting_room)
    stop_later(alice.connect(study.waiting_room).rec)
    stop_later(bob.connect(study.waiting_room).rec)
    wait_until(lambda: concierge.stats["rooms_given_up"] >= 4, timeout=WAIT + 5, what="four rooms given up")
    proxy.fail_moves(())
    room = wait_until(lambda: first_room(concierge), what="a room for the two")
    for p in (alice, bob):
        wait_until(lambda p=p: rooms_of(srv, p.id) == [room], what=f"{p.name} moved")

    tries = proxy.answered("POST", r"/slurk/api/rooms")
    assert len(tries) == concierge.stats["rooms_created"] == len(task_rooms(srv, layout))
    assert_backed_off(tries[:-1], FAST["retry_base"], FAST["retry_cap"], "room creations")
    dead = set(task_rooms(srv, layout)) - {room}
    assert dead == set(concierge.dead_rooms) and len(dead) == len(tries) - 1
    for r in dead:
        assert_given_up(srv, concierge, r, (alice, bob))
    # both pages ended in the task room (the last joined_room each of them got)
    for p in (alice, bob):
        joined = [d["room"] for e, d in p.rec.events if e == "joined_room"]
        wait_until(lambda p=p: [d["room"] for e, d in p.rec.events if e == "joined_room"][-1] == room,
                   what=f"{p.name}'s page in the room")
        assert set(joined) <= dead | {room, study.waiting_room}


def test_a_crash_of_slurk_leaves_nobody_alone_and_one_given_up_room(slurk_double, tmp_path, stop_later):
    """The double killed and restarted (SlurkDouble.crash/restart: users keep their dead session ids, as in Slurk's
    database). Alice waited before the crash and has not come back; Bob arrives after it. Moving Alice fails (500):
    Bob is not put into a room alone, one room is given up, and once Alice is back the two are paired."""
    from tests.conftest import SlurkServer

    if not hasattr(slurk_double, "crash"):
        pytest.skip("this Slurk double has no crash()/restart()")
    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    study = Study(srv, tmp_path, participants=2, people_per_room=2)
    layout = study.manifest["layout_id"]
    concierge = build_concierge(None, study.bot_env(), timers=ThreadTimers(), emit_timeout=3, **FAST).start()
    stop_later(concierge)
    alice, bob = study.person(), study.person()
    stop_later(alice.connect(study.waiting_room).rec)
    wait_until(lambda: concierge.waiting(study.task_id) == [alice.id], what="alice queued")
    slurk_double.crash()
    slurk_double.restart()
    wait_until(lambda: concierge.sio.connected, what="the concierge reconnected")
    stop_later(bob.connect(study.waiting_room).rec)
    wait_until(lambda: concierge.stats["rooms_given_up"] >= 1, what="the room for alice and bob given up")
    wait_until(lambda: concierge.stats["retries"] >= 3, what="a few probes")
    assert concierge.stats["rooms_created"] == 1 and len(task_rooms(srv, layout)) == 1
    assert rooms_of(srv, bob.id) == [study.waiting_room] and rooms_of(srv, alice.id) == [study.waiting_room]
    alice.connect(study.waiting_room)  # her page reconnects
    stop_later(alice.rec)
    room = wait_until(lambda: first_room(concierge), what="a room for the two")
    for p in (alice, bob):
        wait_until(lambda p=p: rooms_of(srv, p.id) == [room], what=f"{p.name} moved")
    [dead] = set(task_rooms(srv, layout)) - {room}
    assert_given_up(srv, concierge, dead, (alice, bob))


class FakeClock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_rooms_per_minute_are_capped(slurk_server, tmp_path, stop_later):
    srv = slurk_server
    study = Study(srv, tmp_path, participants=2, people_per_room=2)
    proxy = FaultyProxy(srv.url).start()
    stop_later(proxy)
    timers, clock = ManualTimers(), FakeClock()
    concierge = build_concierge(None, study.bot_env(SLURK_URL=proxy.url, CONCIERGE_ROOMS_PER_MINUTE=3),
                                timers=timers, clock=clock, **FAST).start()
    stop_later(concierge)
    assert concierge.rooms_per_minute == 3
    alice, bob = study.person(), study.person()
    proxy.fail_moves({alice.id, bob.id}, except_room=study.waiting_room)
    stop_later(alice.connect(study.waiting_room).rec)
    stop_later(bob.connect(study.waiting_room).rec)
    retry = ("retry", study.task_id)
    wait_until(lambda: retry in timers.pending and concierge.idle(), what="the first room given up")
    for n in (2, 3, 4):  # the back-off has passed each time (the timer fires), the clock has not moved
        assert timers.fire(retry)
        wait_until(lambda: retry in timers.pending and concierge.idle(), what=f"try {n}")
    assert len(proxy.answered("POST", r"/slurk/api/rooms")) == 3 == concierge.stats["rooms_created"]
    assert concierge.stats["deferred"] == 1
    assert timers.pending[retry][0] == pytest.approx(60, abs=0.1)  # until the first room is a minute old
    proxy.fail_moves(())
    clock.t += 61
    assert timers.fire(retry)
    room = wait_until(lambda: first_room(concierge), what="a room for the two")
    assert len(proxy.answered("POST", r"/slurk/api/rooms")) == 4
    for p in (alice, bob):
        wait_until(lambda p=p: rooms_of(srv, p.id) == [room], what=f"{p.name} moved")


def test_backoff_is_exponential_capped_and_seeded():
    a, b = Backoff(1.0, 8.0, seed=7), Backoff(1.0, 8.0, seed=7)
    waits = [a.delay(k) for k in range(8)]
    assert waits == [b.delay(k) for k in range(8)]  # the same seed gives the same waits
    for k, w in enumerate(waits):
        raw = min(8.0, 2.0 ** k)
        assert (1 - JITTER) * raw <= w <= min(8.0, (1 + JITTER) * raw)
    assert max(Backoff(1.0, 8.0, seed=s).delay(50) for s in range(20)) <= 8.0
    with pytest.raises(ValueError):
        Backoff(0, 1)


def test_every_failure_of_the_server_is_retried_a_limited_number_of_times(slurk_double, tmp_path, stop_later):
    """With Slurk's REST down and the socket up: a person's task cannot be read; the lookup is retried with the
    back-off and given up after the limit (the next sweep or arrival tries again)."""
    from tests.conftest import SlurkServer

    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    study = Study(srv, tmp_path, participants=1, people_per_room=2)
    proxy = FaultyProxy(srv.url).start()
    stop_later(proxy)
    timers = ManualTimers()
    rest_only = dict(FAST, retry_limit=3)
    concierge = build_concierge(None, study.bot_env(), timers=timers, **rest_only)
    from bots.slurk.rest import SlurkREST

    concierge.rest = SlurkREST(proxy.url, study.env["CONCIERGE_TOKEN"])  # REST through the proxy, socket direct
    concierge.start()
    stop_later(concierge)
    carol = study.person()
    proxy.mode = "down"
    stop_later(carol.connect(study.waiting_room).rec)
    key = ("join", carol.id)
    for n in range(3):
        wait_until(lambda: key in timers.pending and concierge.idle(), what=f"retry {n + 1} armed")
        assert timers.pending[key][0] <= FAST["retry_cap"]
        assert timers.fire(key)
    wait_until(lambda: concierge.idle() and key not in timers.pending, what="given up")
    assert concierge.stats["given_up"] == 1 and concierge.waiting() == []
    assert len(proxy.answered("GET", rf"/slurk/api/users/{carol.id}/task", 503)) == 4
    proxy.up()  # the next sweep (e.g. after a reconnection) finds her
    concierge._events.put(("sweep",))
    wait_until(lambda: concierge.waiting(study.task_id) == [carol.id], what="carol queued")


def test_the_socket_stops_reconnecting_after_its_limit(slurk_double, tmp_path, stop_later, monkeypatch):
    """python-socketio's reconnection loop is bounded too: when it gives up, the concierge stops with an error."""
    from bots.concierge import socket_events
    from tests.conftest import SlurkServer

    monkeypatch.setattr(socket_events, "RECONNECT_LIMIT", 2)
    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    study = Study(srv, tmp_path, participants=1, people_per_room=2)
    proxy = FaultyProxy(srv.url).start()
    stop_later(proxy)
    concierge = proxied_concierge(study, proxy)
    stop_later(concierge)
    proxy.down()
    wait_until(lambda: concierge.failed, what="the concierge giving up")
    assert "2 reconnection attempts" in concierge.failed
    wait_until(lambda: concierge._stopped.is_set(), what="the concierge stopped")
    assert len(proxy.answered("GET", r"/socket\.io/", 503)) == 2


# ----------------------------------------------------------------------------------------------------------------
# (c) names


NASTY = ["[x](javascript:alert(3))", '<img src=x onerror="alert(1)">', "**Big** _it_ `code` # h ![i](http://e/x.png)"]


def test_markdown_and_html_in_names_are_inert(slurk_server, tmp_path, stop_later):
    srv = slurk_server
    study = Study(srv, tmp_path, participants=len(NASTY), people_per_room=2)  # one at a time: none is paired
    timers = ManualTimers()
    concierge = study.concierge(timers=timers)
    stop_later(concierge)
    for raw, row in zip(NASTY, study.participants):
        token = row["token"]
        person = Person(srv, login_link(srv.url, raw, token), raw)  # the name is part of the login link
        assert srv.get_user(person.id)["name"] == raw
        stop_later(person.connect(study.waiting_room).rec)
        for text, timer in (("welcome", None), ("no partner", ("wait", person.id))):
            if timer:
                wait_until(lambda: timer in timers.pending, what="the waiting timer")
                timers.fire(timer)
            msg = person.private(text)["message"]
            name = shown_name(raw)
            assert name in msg and re.fullmatch(r"[\w .'-]+", name), name
            for bad in ("](", "javascript:", "<img", "onerror=", "**", "`", "![", "_it_", "&lt;"):
                assert bad not in msg, (bad, msg)


# ----------------------------------------------------------------------------------------------------------------
# (d) files


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # the usual umask: without care, files would be 0644 and folders 0755
    yield
    os.umask(old)


def test_study_files_are_created_private(slurk_server, tmp_path, stop_later, umask_022):
    srv = slurk_server
    study = Study(srv, tmp_path, participants=3, people_per_room=2)
    for name in ("participants.csv", "bot.env", "study.json"):
        assert mode(study.folder / name) == 0o600, name
    assert mode(tmp_path / "studies") == 0o700 and mode(study.folder) == 0o700
    # a file that was readable by others is replaced, not reused
    os.chmod(study.folder / "participants.csv", 0o644)
    rc = study_setup.main(["travel", "--participants", "3", "--people-per-room", "2", "--study", study.name,
                           "--out", study.out], env=study.admin_env(), echo=lambda *_: None)
    assert rc == 0 and mode(study.folder / "participants.csv") == 0o600

    # a room with logs, and a no-partner completion code in the waiting room
    timers = ManualTimers()
    concierge = study.concierge(timers=timers)
    stop_later(concierge)
    alice, bob, carol = study.person(), study.person(), study.person()
    for p in (alice, bob):
        stop_later(p.connect(study.waiting_room).rec)
    alice.wait_moved(study.waiting_room)
    stop_later(carol.connect(study.waiting_room).rec)
    wait_until(lambda: ("wait", carol.id) in timers.pending, what="carol's timer")
    timers.fire(("wait", carol.id))
    carol.private("no partner")
    out = tmp_path / "downloads" / "task"
    lines: list[str] = []
    wait_until(lambda: [x for x in srv.logs(study.waiting_room) if x["event"] == "confirmation_log"], what="code")
    rc = study_logs.main(["download", "--task", str(study.task_id), "--out", str(out)],
                         env=study.admin_env(), echo=lines.append)
    assert rc == 0, lines
    files = sorted(out.iterdir())
    assert any(f.suffix == ".jsonl" for f in files) and (out / "waiting_room_codes.csv") in files
    assert all(mode(f) == 0o600 for f in files), [(f.name, oct(mode(f))) for f in files]
    assert mode(tmp_path / "downloads") == 0o700 and mode(out) == 0o700


def test_replay_outputs_are_created_private(tmp_path, umask_022):
    from bots.study.replay import get_task, replay_paths
    from tests.toygame import SPEC

    fixture = Path(__file__).parent / "fixtures" / "slurk-toy-room.jsonl"
    out = tmp_path / "replay" / "out"
    report = replay_paths([str(fixture)], str(out), resolve=lambda n: SPEC if n == "toy" else get_task(n), echo=None)
    [game] = report.games
    assert game.codes  # the transcript and summary.csv carry completion codes
    files = [p for p in out.rglob("*") if p.is_file()]
    names = {p.relative_to(out).as_posix() for p in files}
    assert {"summary.csv", "problems.csv", "by_agents.csv", f"{game.name}.html", "plots/status.png"} <= names
    assert all(mode(p) == 0o600 for p in files), [(p.name, oct(mode(p))) for p in files]
    assert mode(tmp_path / "replay") == 0o700 and mode(out) == 0o700 and mode(out / "plots") == 0o700
    with open(out / "summary.csv", newline="") as fh:
        assert list(csv.DictReader(fh))[0]["codes"]
    [code] = game.codes.values()
    assert code in (out / f"{game.name}.html").read_text()


def test_names_in_the_codes_csv_cannot_run_as_spreadsheet_formulas():
    from bots.study.logs import spreadsheet_safe

    assert spreadsheet_safe('=HYPERLINK("http://x","pay me")') == '\'=HYPERLINK("http://x","pay me")'
    assert spreadsheet_safe("+1") == "'+1" and spreadsheet_safe("@SUM(A1)") == "'@SUM(A1)"
    assert spreadsheet_safe("Alice") == "Alice" and spreadsheet_safe(None) == ""
