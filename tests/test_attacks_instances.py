"""Attack: a second instance of the same bot (issue 10, "a study nobody can cheat or break").

Two `serve` processes for one bot user used to double every private message or start two boards in one room, and
when one exited Slurk dropped the shared user's session, so the survivor silently stopped receiving events. Now:
- a second instance on the same state file is refused by the lease (lease.py), naming the holder;
- one with another state file is refused because Slurk shows another live connection of the bot user (guard.py);
- a stale lease (expired, or held by a process that no longer exists) is taken over;
- a running bot notices when its session is taken over (it stops, `serve` exits 3) or when Slurk dropped it
  (deaf: it reconnects), and when its socket went silent (it reconnects).
Against the double (ETags off and on) and, when configured, a real Slurk. Waits are bounded polls.
"""
from __future__ import annotations

import logging
import os
import threading
import time

import pytest

from bots.slurk import serve
from bots.slurk.guard import SessionLost
from bots.slurk.lease import InstanceConflict, Lease
from bots.slurk.runtime import SlurkBot
from tests.slurk_double.recorder import SocketRecorder
from tests.test_slurk_runtime import (
    WAIT, Person, Table, _server, finish, logs_of, make_bot, play_against_brain, provision_bot,
)


def _until(pred, timeout=WAIT, what="condition"):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def quick(bot: SlurkBot, **kw) -> SlurkBot:
    """Short lease and guard periods for tests (the defaults are seconds to minutes)."""
    settings = dict(lease_ttl=2.0, guard_interval=0.3, foreign_session_wait=1.0, predecessor_session_wait=1.0)
    settings.update(kw)
    for k, v in settings.items():
        setattr(bot, k, v)
    return bot


def session(srv, user_id: int):
    return srv.get_user(user_id)["session_id"]


def started_game(srv, table, bot_credentials, tmp_path, **kw):
    bot = quick(make_bot(srv, table, tmp_path, credentials=bot_credentials), **kw)
    bot.start()
    return bot


def assert_played_once(srv, room: int, alice: Person) -> None:
    """One game, one welcome, every input logged once."""
    assert len(logs_of(srv, room, "game_start")) == 1
    assert len(alice.bot_messages(lambda d: "Agree on a number" in str(d["message"]))) == 1
    seqs = [x["data"]["seq"] for x in logs_of(srv, room, "game_input")]
    assert seqs == list(range(1, len(seqs) + 1))


# ----------------------------------------------------------------------------------------------------------------
# a second instance is refused


def test_second_instance_on_the_same_state_file_is_refused(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    credentials = provision_bot(srv)
    bot = started_game(srv, table, credentials, tmp_path)
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)
        ours = bot.sio.get_sid("/")

        second = quick(make_bot(srv, table, tmp_path, credentials=credentials))  # the same state file
        with pytest.raises(InstanceConflict) as err:
            second.start()
        msg = str(err.value)
        assert f"process {os.getpid()}" in msg and "this state file" in msg and "Stop that instance first" in msg
        assert credentials[1] not in msg
        assert not second.sio.connected and session(srv, bot.user_id) == ours  # it never connected
        assert bot.lease.held and bot.lease.row().holder == bot.lease.holder  # and left the lease alone

        final = play_against_brain(alice)
        assert final["core"]["status"] == "completed"
    finally:
        finish(bot)
    assert_played_once(srv, room, alice)


def test_second_instance_with_another_state_file_is_refused(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    credentials = provision_bot(srv)
    bot = started_game(srv, table, credentials, tmp_path)
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)
        ours = bot.sio.get_sid("/")

        other = tmp_path / "elsewhere"
        other.mkdir()
        second = quick(make_bot(srv, table, other, credentials=credentials))  # a lease of its own
        with pytest.raises(InstanceConflict) as err:
            second.start()
        msg = str(err.value)
        assert f"session {ours}" in msg and "another instance" in msg and "BOT_STATE_DB" in msg
        assert "--take-over" in msg and credentials[1] not in msg
        assert not second.sio.connected and session(srv, bot.user_id) == ours
        assert not second.lease.held  # released again

        final = play_against_brain(alice)
        assert final["core"]["status"] == "completed"
        assert bot.failure is None
    finally:
        finish(bot)
    assert_played_once(srv, room, alice)


def test_serve_refuses_a_second_instance_with_status_3(slurk_double, tmp_path, caplog, monkeypatch):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    bot_id, token = provision_bot(srv, table.room())
    bot = started_game(srv, table, (bot_id, token), tmp_path)
    monkeypatch.setattr(SlurkBot, "foreign_session_wait", 0.5)
    try:
        cfg = tmp_path / "other.yaml"
        cfg.write_text(f"person_seats: 1\nstate_db: {tmp_path / 'other.sqlite3'}\n")
        env = {"SLURK_URL": srv.url, "SLURK_TOKEN": token, "SLURK_USER": str(bot_id), "SLURK_TASK_ID": str(table.task)}
        with caplog.at_level(logging.ERROR):
            assert serve.main(["tests.toygame:SPEC", "--config", str(cfg)], env=env) == 3
        assert "is connected right now from another connection" in caplog.text and token not in caplog.text
        assert session(srv, bot_id) == bot.sio.get_sid("/")
    finally:
        finish(bot)


# ----------------------------------------------------------------------------------------------------------------
# stale leases


def _plant_lease(path, server, user, *, pid, host, expires, sid=None):
    lease = Lease(str(path), server, user)
    import sqlite3
    db = sqlite3.connect(str(path))
    with db:
        db.execute("INSERT OR REPLACE INTO leases VALUES (?,?,?,?,?,?,?,?)",
                   (server, user, "ghost", pid, host, sid, time.time() - 60, expires))
    db.close()
    return lease


def _dead_pid() -> int:
    pid = 4_000_000
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid += 1


def test_stale_leases_are_taken_over(tmp_path, caplog):
    path, server = tmp_path / "state.sqlite3", "http://slurk"
    # expired (a holder on another host that stopped renewing)
    _plant_lease(path, server, 1, pid=1, host="elsewhere", expires=time.time() - 1)
    # not expired, but its process on this host is gone (a kill -9 a moment ago)
    import socket as _socket
    _plant_lease(path, server, 2, pid=_dead_pid(), host=_socket.gethostname(), expires=time.time() + 600)
    # on another host, valid for one more second and never renewed: watched until it expires
    _plant_lease(path, server, 3, pid=1, host="elsewhere", expires=time.time() + 1.0)
    with caplog.at_level(logging.WARNING):
        leases = [Lease(str(path), server, user, ttl=2.0) for user in (1, 2, 3)]
        try:
            previous = [lease.acquire() for lease in leases]
            assert all(p.holder == "ghost" for p in previous)
            assert [lease.row().holder for lease in leases] == [lease.holder for lease in leases]
        finally:
            for lease in leases:
                lease.release()
    assert "it expired at" in caplog.text and "that process no longer exists" in caplog.text


def test_a_live_lease_is_not_taken_and_a_stalled_holder_learns_it_lost_it(tmp_path):
    path = str(tmp_path / "state.sqlite3")
    lost = []
    first = Lease(path, "http://slurk", 1, ttl=1.0, on_lost=lost.append)
    first.acquire()
    try:
        with pytest.raises(InstanceConflict, match="it renewed its lease just now"):
            Lease(path, "http://slurk", 1, ttl=1.0).acquire()
        first._stop.set()  # the holder stalls: no more renewals
        first._thread.join(WAIT)
        second = Lease(path, "http://slurk", 1, ttl=1.0)
        second.acquire()  # taken over once it expired
        assert not first.renew() and lost and "was taken over by" in lost[0]
        second.release()
    finally:
        first.release()


def test_bot_takes_over_the_lease_of_a_dead_instance(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    credentials = provision_bot(srv)
    import socket as _socket
    _plant_lease(tmp_path / "state.sqlite3", srv.url, credentials[0], pid=_dead_pid(), host=_socket.gethostname(),
                 expires=time.time() + 600)
    bot = started_game(srv, table, credentials, tmp_path)
    try:
        assert bot.lease.row().holder == bot.lease.holder
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        assert play_against_brain(alice)["core"]["status"] == "completed"
    finally:
        finish(bot)
    assert bot.lease.row().expires == 0  # released at stop


# ----------------------------------------------------------------------------------------------------------------
# a running bot notices


def test_taken_over_session_stops_the_bot(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    bot_id, token = provision_bot(srv, table.room())
    bot = started_game(srv, table, (bot_id, token), tmp_path)
    rogue = SocketRecorder("rogue")
    try:
        rogue.connect(srv.url, bot_id, token)  # e.g. an instance that skipped the checks (an old version)
        assert bot.wait(WAIT), "the bot did not notice"
        assert isinstance(bot.failure, InstanceConflict)
        assert f"session {rogue.sid}" in str(bot.failure) and "another instance" in str(bot.failure)
    finally:
        rogue.disconnect()
        finish(bot)


def test_serve_exits_3_when_its_session_is_taken_over(slurk_double, tmp_path, monkeypatch, caplog):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    bot_id, token = provision_bot(srv, table.room())
    monkeypatch.setattr(SlurkBot, "guard_interval", 0.3)
    cfg = tmp_path / "bot.yaml"
    cfg.write_text(f"person_seats: 1\nstate_db: {tmp_path / 's.sqlite3'}\n")
    env = {"SLURK_URL": srv.url, "SLURK_TOKEN": token, "SLURK_USER": str(bot_id), "SLURK_TASK_ID": str(table.task)}
    result = []
    t = threading.Thread(target=lambda: result.append(serve.main(["tests.toygame:SPEC", "--config", str(cfg)],
                                                                 env=env)), daemon=True)
    rogue = SocketRecorder("rogue")
    with caplog.at_level(logging.ERROR):
        t.start()
        _until(lambda: session(srv, bot_id) is not None, what="the served bot to connect")
        try:
            rogue.connect(srv.url, bot_id, token)
            t.join(WAIT)
        finally:
            rogue.disconnect()
    assert result == [3]
    assert "took over Slurk user" in caplog.text and token not in caplog.text


def test_deaf_bot_reconnects_when_slurk_drops_its_session(slurk_server, tmp_path, caplog):
    """The restart after a kill -9: Slurk still shows the dead connection (here a live socket that never answers
    for us, recorded in the lease as our predecessor's). The bot connects anyway after a while; when Slurk finally
    drops the old connection it empties the session and takes the bot's socket out of its rooms. The guard notices
    and reconnects, and the game goes on."""
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    bot_id, token = provision_bot(srv, room)
    ghost = SocketRecorder("predecessor").connect(srv.url, bot_id, token)
    ghost.wait_for("joined_room", timeout=WAIT)
    predecessor = Lease(str(tmp_path / "state.sqlite3"), srv.url, bot_id)
    predecessor.acquire()
    predecessor.set_sid(ghost.sid)
    predecessor.release()  # as a stopped run leaves it: expired, with its session id
    bot = quick(make_bot(srv, table, tmp_path, credentials=(bot_id, token)), predecessor_session_wait=0.5)
    try:
        with caplog.at_level(logging.WARNING):
            bot.start()  # waits for the old session, then connects anyway
        assert "previous connection" in caplog.text
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)
        ghost.disconnect()  # Slurk drops the old connection, and with it the bot's session
        _until(lambda: bot.guard.reconnects >= 1 and session(srv, bot_id) == bot.sio.get_sid("/"),
               what="the bot to reconnect")
        assert bot.failure is None
        assert play_against_brain(alice)["core"]["status"] == "completed"
    finally:
        ghost.disconnect()
        finish(bot)


def test_silent_socket_is_reconnected(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    bot = started_game(srv, table, provision_bot(srv), tmp_path)
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)
        gen = bot.gen
        assert bot.guard.check() is None and bot.guard.reconnects == 0  # Slurk pinged lately: nothing to do
        bot.guard.silence = 0.0  # from now on any silence is too long (as if no packet came for minutes)
        _until(lambda: bot.guard.reconnects >= 1, what="the reconnect")
        bot.guard.silence = None
        _until(lambda: bot.connected and bot.gen > gen, what="the new connection")
        assert play_against_brain(alice)["core"]["status"] == "completed"
    finally:
        finish(bot)


def test_bot_that_cannot_reconnect_gives_up_with_session_lost(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    bot = started_game(srv, table, provision_bot(srv, table.room()), tmp_path, max_offline=1.0)
    slurk_double.crash()  # and it never comes back
    assert bot.wait(WAIT), "the bot did not give up"
    assert isinstance(bot.failure, SessionLost) and "giving up" in str(bot.failure)
    finish(bot)


def test_stale_session_left_by_a_slurk_restart_needs_take_over(slurk_double, tmp_path):
    """Slurk restarted while the bot was away keeps the dead session id for good (measured on a real Slurk). A
    bot with a fresh state file cannot tell it from a live instance: it refuses, naming --take-over; with
    take_over it starts and serves."""
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    bot_id, token = provision_bot(srv, room)
    old = SocketRecorder("old-instance").connect(srv.url, bot_id, token)
    dead = old.sid
    slurk_double.crash()
    slurk_double.restart()
    assert session(srv, bot_id) == dead  # stale: nobody holds it
    refused = quick(make_bot(srv, table, tmp_path, credentials=(bot_id, token)))
    with pytest.raises(InstanceConflict, match="--take-over"):
        refused.start()
    bot = quick(make_bot(srv, table, tmp_path, credentials=(bot_id, token)), take_over=True)
    bot.start()
    try:
        assert session(srv, bot_id) == bot.sio.get_sid("/")
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        assert play_against_brain(alice)["core"]["status"] == "completed"
    finally:
        finish(bot)
