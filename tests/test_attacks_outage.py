"""Attack: Slurk goes away for a few seconds during a game (issue 10, "a study nobody can cheat or break").

Before the durable outbox (bots/slurk/outbox.py) the bot retried a log event for about a second and then dropped
it, so after a 4 s outage `replay` found a `proposal` event missing. Now every log event waits in the state
database until Slurk accepted it: after the outage Slurk's log holds every event the bot posted, once, in order,
and the room replays; a bot killed with events in its outbox ships them when it starts again.

Outages: on the test double, REST answers 503 for 4 s (the socket keeps working, so the game goes on meanwhile), or
the whole server is killed and restarted on the same port after 4 s (`SlurkDouble.crash()` / `restart()`). Against
a real Slurk the server is killed and started again by a command you provide; never point it at a shared server:

    tests/slurk_private_server.sh fresh     # a private Slurk on :5061 with its own database
    SLURK_TEST_URL=http://127.0.0.1:5061 SLURK_TEST_ADMIN_TOKEN=00000000-0000-0000-0000-000000000000 \
    SLURK_TEST_RESTART_CMD=tests/slurk_private_server.sh pytest tests/test_attacks_outage.py

(`$SLURK_TEST_RESTART_CMD stop` kills it, `... start` starts it with the same database.) Waits are bounded polls.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid

import pytest

from bots.slurk import logbatch
from bots.slurk.outbox import OutboxShipper
from bots.slurk.rest import SlurkAPIError
from bots.study.replay import SLURK_EVENTS, replay_file
from tasks.core.match import TimerConfig
from tests.conftest import REAL_TOKEN_ENV, REAL_URL_ENV, SlurkServer, _env_flag, REAL_ETAG_ENV
from tests.slurk_double import ADMIN_TOKEN, SlurkDouble
from tests.test_slurk_runtime import WAIT, Person, Table, finish, make_bot, provision_bot, wait_logs
from tests.toygame import SPEC

OUTAGE = 4.0  # seconds
RESTART_CMD_ENV = "SLURK_TEST_RESTART_CMD"
SHIP_WAIT = 60  # upper bound for the outbox to empty after the outage (back-off is capped at 15 s)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _until(pred, timeout=WAIT, what="condition"):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


# ----------------------------------------------------------------------------------------------------------------
# outages


class RestDown:
    """REST answers 503 (as a proxy does while the app restarts); the socket side keeps working."""

    keeps_socket = True

    def __init__(self, double: SlurkDouble):
        self.double = double

    def begin(self):
        self.double.fail_rest(503)

    def end(self):
        self.double.fail_rest(None)


class DoubleCrash:
    """The double is killed (port closed, connections cut, sessions left stale) and restarted on the same port."""

    keeps_socket = False

    def __init__(self, double: SlurkDouble):
        self.double = double

    def begin(self):
        self.double.crash()

    def end(self):
        self.double.restart()


class RealCrash:
    """A real Slurk stopped and started by `$SLURK_TEST_RESTART_CMD stop|start` (same database)."""

    keeps_socket = False

    def __init__(self, cmd: str, url: str):
        self.cmd, self.url = cmd, url

    def _run(self, what: str):
        subprocess.run(f"{self.cmd} {what}", shell=True, check=True, cwd=ROOT, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def begin(self):
        self._run("stop")

    def end(self):
        self._run("start")


def _real_restart_configured() -> bool:
    return bool(os.environ.get(REAL_URL_ENV) and os.environ.get(REAL_TOKEN_ENV) and os.environ.get(RESTART_CMD_ENV))


@pytest.fixture(params=[
    "double-503", "double-etag-503", "double-crash",
    pytest.param("real-crash", marks=[pytest.mark.conformance, pytest.mark.skipif(
        not _real_restart_configured(),
        reason=f"a real Slurk outage needs {REAL_URL_ENV}, {REAL_TOKEN_ENV} and {RESTART_CMD_ENV} (a command that "
               f"stops (`CMD stop`) and starts (`CMD start`) the server at {REAL_URL_ENV}; never a shared server, "
               "see tests/slurk_private_server.sh)")]),
])
def outage(request):
    """(server, outage) for one game: the double with REST failing or crashing, or a real Slurk that is restarted."""
    if request.param == "real-crash":
        url = os.environ[REAL_URL_ENV]
        yield SlurkServer(url, os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV), is_real=True), \
            RealCrash(os.environ[RESTART_CMD_ENV], url)
        return
    etag = "etag" in request.param
    with SlurkDouble(etag=etag, admin_token=ADMIN_TOKEN) as double:
        srv = SlurkServer(double.url, double.admin_token, etag=etag, is_real=False, double=double)
        yield srv, (DoubleCrash(double) if request.param == "double-crash" else RestDown(double))


# ----------------------------------------------------------------------------------------------------------------
# helpers


def spy_on_logs(bot, room: int) -> list:
    """Record every log event the bot hands to its shipper for `room` (event, data as JSON, receiver)."""
    posted: list = []
    post = bot.logs.post

    def spy(r, event, data, receiver_id=None, turn=None):
        if int(r) == room:
            posted.append((event, json.loads(json.dumps(data or {})), receiver_id))
        return post(r, event, data, receiver_id, turn)

    bot.logs.post = spy
    return posted


def bot_rows(srv, room: int) -> list:
    """The rows the bot posted to the room's log (not Slurk's own), in id order."""
    return [(r["event"], r["data"], r["receiver_id"]) for r in srv.logs(room) if r["event"] not in SLURK_EVENTS]


def replay_room(srv, room: int, folder) -> tuple:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{room}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in srv.logs(room)))
    return replay_file(str(path), resolve=lambda name: SPEC)


def assert_replays(srv, room: int, folder) -> None:
    games, problems = replay_room(srv, room, folder)
    assert not problems, [str(p) for p in problems]
    [g] = games
    assert g.check == "ok", (g.mismatches, g.notes)
    assert g.status == "completed"


def page_command(person: Person, text: str):
    """A typed command as the task page sends it: inside the envelope with the seat's key from its newest view
    (so the bot needs no REST call to know who sent it, which matters while REST is down)."""
    key = (person.views()[-1].get("core") or {}).get("key") if person.views() else None
    if key is None:
        return person.command(text)
    return person.command({"key": key, "n": uuid.uuid4().hex[:12], "typed": text})


def neighbour(n: int) -> int:
    return n + 1 if n < 9 else n - 1


def reconnect(person: Person, srv) -> None:
    """A person whose browser reconnects after the server came back (the recorder does not by itself)."""
    joined = len(person.rec.of("joined_room", lambda d: d["room"] == person.room))
    deadline = time.monotonic() + WAIT
    while True:
        try:
            person.rec.connect(srv.url, person.id, person.token)
            break
        except Exception:
            assert time.monotonic() < deadline, "the person could not reconnect"
            time.sleep(0.2)
    person.rec.wait_for("joined_room", lambda d: d["room"] == person.room, count=joined + 1, timeout=WAIT)


# ----------------------------------------------------------------------------------------------------------------
# the outage during a game


def test_log_events_survive_a_4s_outage(outage, tmp_path):
    srv, down = outage
    table = Table(srv, num_users=1)
    room = table.room()
    # the inactivity warning fires 2 s after the last input: with the server down, its log event has to wait
    timers = TimerConfig(join_timeout=None, inactivity=60.0, inactivity_warning=58.0, partner_left_grace=None)
    bot = make_bot(srv, table, tmp_path, timers=timers)
    bot.start()
    posted = spy_on_logs(bot, room)
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        assert alice.announce(room, table.task) is True
        v = alice.wait_view(lambda v: v["pending"] is not None)  # the brain proposed
        mine = neighbour(v["pending"])
        if down.keeps_socket:
            down.begin()
            t0 = time.monotonic()
            # the game goes on over the socket while no log event can be posted
            assert page_command(alice, f"propose {mine}") is True
            alice.wait_message(f"a proposes {mine}")
            alice.wait_message(f"Agreed on {mine}")
            alice.wait_message(f"b submitted {mine}")
            _until(lambda: any(e == "proposal" for e, _, _ in posted) and bot.logs.pending(room) > 0,
                   what="log events waiting in the outbox")
        else:
            assert page_command(alice, f"propose {mine}") is True
            alice.wait_message(f"b submitted {mine}")
            down.begin()
            t0 = time.monotonic()
            _until(lambda: bot.logs.pending(room) > 0, what="a log event (the inactivity warning) to wait")
        time.sleep(max(0.0, OUTAGE - (time.monotonic() - t0)))
        down.end()
        if not down.keeps_socket:
            reconnect(alice, srv)
            _until(lambda: bot.connected, what="the bot to reconnect")
        assert page_command(alice, "submit") is True
        wait_logs(srv, room, "game_end", timeout=SHIP_WAIT)
        assert bot.logs.drain(SHIP_WAIT)
    finally:
        finish(bot)
    rows = bot_rows(srv, room)
    assert rows == posted  # every event, in the order the room produced it, once
    assert [e for e, _, _ in rows].count("proposal") == 2  # the brain's and Alice's (the one lost before)
    assert_replays(srv, room, tmp_path / "replay")


# ----------------------------------------------------------------------------------------------------------------
# killed with events in the outbox


def _serve(srv, table, credentials, tmp_path) -> subprocess.Popen:
    bot_id, token = credentials
    cfg = tmp_path / "bot.yaml"
    cfg.write_text(f"person_seats: 1\nstate_db: {tmp_path / 'state.sqlite3'}\n")
    env = dict(os.environ, SLURK_URL=srv.url, SLURK_TOKEN=token, SLURK_USER=str(bot_id),
               SLURK_TASK_ID=str(table.task), PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, "-m", "bots", "serve", "tests.toygame:SPEC", "--config", str(cfg)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _outbox_rows(path) -> list:
    db = sqlite3.connect(str(path), timeout=10)
    try:
        return [(e, json.loads(d), r) for e, d, r in
                db.execute("SELECT event, data, receiver_id FROM outbox o WHERE id > COALESCE((SELECT shipped FROM outbox_rooms r "
                                 "WHERE r.room_id = o.room_id AND r.server = o.server AND r.bot_user = o.bot_user), 0) ORDER BY id").fetchall()]
    except sqlite3.OperationalError:  # no table yet
        return []
    finally:
        db.close()


def test_killed_bot_ships_its_outbox_after_restart(slurk_double, tmp_path):
    double = slurk_double
    srv = SlurkServer(double.url, double.admin_token, etag=False, is_real=False, double=double)
    table = Table(srv, num_users=1)
    room = table.room()
    credentials = provision_bot(srv)
    proc = _serve(srv, table, credentials, tmp_path)
    bot2 = None
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        _until(lambda: srv.get_user(credentials[0])["session_id"] is not None or proc.poll() is not None,
               timeout=30, what="the served bot to log in")
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert alice.announce(room, table.task) is True
        v = alice.wait_view(lambda v: v["pending"] is not None, timeout=30)
        mine = neighbour(v["pending"])
        double.fail_rest(503)
        assert page_command(alice, f"propose {mine}") is True
        alice.wait_message(f"b submitted {mine}")
        state = tmp_path / "state.sqlite3"
        _until(lambda: any(e == "proposal" for e, _, _ in _outbox_rows(state)), what="the proposal in the outbox")
        stranded = _outbox_rows(state)
        proc.send_signal(signal.SIGKILL)  # killed with events in its outbox
        proc.wait(WAIT)
        double.fail_rest(None)
        assert not [r for r in bot_rows(srv, room) if r[0] == "proposal" and r[1]["value"] == mine]

        bot2 = make_bot(srv, table, tmp_path, credentials=credentials)  # the same state db
        bot2.start()  # takes over the dead process's lease, ships the outbox, then connects
        shipped = bot_rows(srv, room)  # start() returns connected: the outbox went out before it connected
        for row in stranded:
            assert shipped.count(row) == 1, row
        i = shipped.index(stranded[0])
        assert shipped[i:i + len(stranded)] == stranded  # in their order
        _until(lambda: bot2.room(room) is not None and bot2.room(room).state == "attached", what="the resume")
        assert page_command(alice, "submit") is True
        wait_logs(srv, room, "game_end")
        assert bot2.logs.drain(WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(WAIT)
        finish(*(b for b in (bot2,) if b is not None))
    rows = bot_rows(srv, room)
    seqs = [d["seq"] for e, d, _ in rows if e == "game_input"]
    assert seqs == list(range(1, len(seqs) + 1))  # in order, none lost, none doubled
    assert len(set(map(json.dumps, rows))) == len(rows)
    assert_replays(srv, room, tmp_path / "replay")


# ----------------------------------------------------------------------------------------------------------------
# the shipper's policy (no server)


class _Rest:
    """POST /logs answers scripted per event: a list of statuses to answer in turn (then 201); a batch row is
    answered by the script of the first event in it that has one. Rows are kept as Slurk keeps them (batch rows
    too); `events()` reads them expanded, as the bot's readers do."""

    def __init__(self, script=None):
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.rows: list = []
        self.posts: list = []  # (event, room) of every POST
        self.lock = threading.Lock()

    def post_log(self, event, room_id=None, data=None, receiver_id=None):
        with self.lock:
            self.posts.append((event, room_id))
            names = [x["event"] for x in data["rows"]] if event == logbatch.BATCH_EVENT else [event]
            answers = next((self.script[n] for n in names if self.script.get(n)), None)
            status = answers.pop(0) if answers else 201
            row = {"id": len(self.rows) + 1, "event": event, "room_id": room_id, "data": json.loads(json.dumps(data)),
                   "receiver_id": receiver_id, "user_id": None}
            if status == "stored-but-timeout":  # reached the server, the answer did not come back
                self.rows.append(row)
                raise SlurkAPIError(0, "cannot reach Slurk: ReadTimeout", "POST", "/logs", in_doubt=True)
            if status != 201:
                raise SlurkAPIError(status, "injected", "POST", "/logs")
            self.rows.append(row)
            return row

    def get_logs(self, room_id=None, event=None, **_):
        with self.lock:
            return [r for r in self.rows if r["room_id"] == room_id and (event is None or r["event"] == event)]

    def events(self, room):
        return [r["event"] for r in logbatch.expand(self.rows) if r["room_id"] == room]


def test_shipper_retries_transient_failures_in_order_and_drops_permanent_ones(caplog):
    rest = _Rest({"a2": [503, 0, 429, 502], "b1": [422]})
    shipper = OutboxShipper(rest, threads=2, base_delay=0.01, max_delay=0.05, batch_rows=1)  # one event a request
    try:
        with caplog.at_level(logging.WARNING):
            for e in ("a1", "a2", "a3"):
                shipper.post(1, e, {"secret": "s3cr3t"})
            for e in ("b1", "b2"):
                shipper.post(2, e, {})
            assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert rest.events(1) == ["a1", "a2", "a3"]  # retried until accepted, the room's order kept
    assert rest.events(2) == ["b2"]  # a 422 is permanent: dropped, the next goes on
    assert "'b1' dropped" in caplog.text and "422" in caplog.text and "s3cr3t" not in caplog.text
    assert shipper.accepted == 4 and shipper.dropped == 1


def test_an_event_in_doubt_is_not_posted_twice():
    rest = _Rest({"x": ["stored-but-timeout"]})
    shipper = OutboxShipper(rest, threads=1, base_delay=0.01, max_delay=0.05)
    try:
        shipper.post(1, "x", {"k": 1})
        shipper.post(1, "y", {})
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert rest.events(1) == ["x", "y"]


def test_stopped_bot_does_not_reconnect_after_the_outage(slurk_double, tmp_path):
    """`stop()` during a reconnection ends it: the bot must not come back as a zombie holding the session."""
    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    table = Table(srv, num_users=1)
    bot = make_bot(srv, table, tmp_path, room=table.room())
    bot.start()
    sid = bot.sio.get_sid("/")
    slurk_double.crash()
    _until(lambda: not bot.connected, what="the drop")
    bot.stop()
    slurk_double.restart()
    deadline = time.monotonic() + 3  # longer than python-socketio's first reconnection delays
    while time.monotonic() < deadline:
        assert not bot.sio.connected
        assert srv.get_user(bot.user_id)["session_id"] == sid  # the dead session, never a new one
        time.sleep(0.1)


def test_a_message_caught_by_repeated_drops_is_given_up(caplog):
    """A flapping connection cannot make the emitter send one message forever: it is sent again after each drop,
    MAX_SENDS times in all, then given up with a warning (and the room's next messages go on)."""
    from bots.slurk.emitter import MAX_SENDS
    from tests.test_slurk_runtime import _delivery

    bot, d = _delivery()
    bot.sio.hold = True  # no acknowledgement ever comes back
    d.say("hello")
    with caplog.at_level(logging.WARNING):
        for _ in range(MAX_SENDS):
            bot.gen += 1  # the connection dropped (and came back)
            d.emitter.check(timeout=60)
    assert [m for m, _ in bot.sio.sent] == ["hello"] * MAX_SENDS
    assert d.emitter.idle() and "given up" in caplog.text
    d.say("next")
    assert bot.sio.sent[-1][0] == "next"
