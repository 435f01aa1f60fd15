"""Faults: a bot killed mid-game resumes from its state db, a dropped socket reconnects and re-syncs, a failing
rule or brain stays inside its room, bad credentials stop the bot with a clear error. Plus the store itself."""
from __future__ import annotations

import logging
import socket
import time

import pytest

from bots.config import Config, SlurkSettings
from bots.slurk import serve
from bots.slurk.runtime import SlurkAuthError, SlurkBot, SlurkConnectionError
from bots.slurk.store import RoomRecord, RoomStore
from tasks.core import TaskSpec
from tasks.core.match import TimerConfig
from tasks.core.protocol import ChatShown, Chat, Command, Join
from tests.test_slurk_runtime import (
    STATE, WAIT, Person, Table, _server, finish, logs_of, make_bot, play_against_brain, provision_bot,
    rebuild_from_logs, wait_logs,
)
from tests.toygame import SPEC, PickNumber, ToyBrain


def _until(pred, timeout=WAIT, what="condition"):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


# ----------------------------------------------------------------------------------------------------------------
# restart


def test_killed_bot_resumes_the_game_from_its_state_db(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    credentials = provision_bot(srv)
    bot = make_bot(srv, table, tmp_path, credentials=credentials)
    bot.start()
    bot2 = None
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        v = alice.wait_view(lambda v: v["pending"] is not None)
        seed = bot.room(room).match.game.seed
        mine = v["pending"] + 1 if v["pending"] < 9 else v["pending"] - 1
        alice.command("poke")
        alice.wait_view(lambda v: v["turn"] == "b")
        bot.stop()  # killed mid-game: no GameOver, the room stays open in the store
        n_views = len(alice.views())

        bot2 = make_bot(srv, table, tmp_path, credentials=credentials)  # same state db
        bot2.start()
        resumed = alice.wait_view(count=n_views + 1)  # the restarted bot re-sends the view
        assert resumed["turn"] == "b" and resumed["pending"] == v["pending"]
        match = bot2.room(room).match
        assert match.game.seed == seed and match.game.pokes == 1
        assert alice.command(f"propose {mine}") is True
        alice.wait_view(lambda v: v["agreed"] == mine)  # the resumed brain accepts and submits
        alice.command("submit")
        final = alice.wait_view(lambda v: v["core"]["phase"] == "over")
        assert final["core"]["status"] == "completed"
    finally:
        finish(*(b for b in (bot, bot2) if b is not None))
    assert len(logs_of(srv, room, "game_start")) == 1  # the same game, not a new one
    seqs = [x["data"]["seq"] for x in logs_of(srv, room, "game_input")]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1
    rebuilt = rebuild_from_logs(srv, room)
    assert rebuilt.status == "completed" and rebuilt.game.agreed == mine


def test_logs_lost_in_a_crash_are_posted_on_resume(slurk_double, tmp_path):
    """Inputs are stored before their logs reach Slurk; after a crash the resumed bot posts the missing
    game_input logs, so Slurk's logs alone still rebuild the game."""
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    credentials = provision_bot(srv)
    bot = make_bot(srv, table, tmp_path, credentials=credentials)
    bot.start()
    bot2 = None
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        v = alice.wait_view(lambda v: v["pending"] is not None)
        lost = []
        bot.logs.post = lambda *args, **kw: lost.append(args)  # from now on the logs never arrive
        alice.command("poke")
        alice.wait_view(lambda v: v["turn"] == "b")
        assert any(a[1] == "game_input" for a in lost)
        bot.stop()
        posted = {x["data"]["seq"] for x in logs_of(srv, room, "game_input")}
        bot2 = make_bot(srv, table, tmp_path, credentials=credentials)
        bot2.start()
        _until(lambda: bot2.room(room) is not None and bot2.room(room).state == "attached", what="the resume")
        n = bot2.room(room).match.seq
        assert len(posted) < n  # some game_input logs were really lost
        # (the resumed brain may move on meanwhile, so later seqs may be there too)
        _until(lambda: {x["data"]["seq"] for x in logs_of(srv, room, "game_input")} >= set(range(1, n + 1)),
               what="the lost logs to be posted")
        mine = v["pending"] + 1 if v["pending"] < 9 else v["pending"] - 1
        alice.command(f"propose {mine}")
        alice.wait_view(lambda v: v["agreed"] == mine)
        alice.command("submit")
        alice.wait_view(lambda v: v["core"]["phase"] == "over")
    finally:
        finish(*(b for b in (bot, bot2) if b is not None))
    rebuilt = rebuild_from_logs(srv, room)
    assert rebuilt.status == "completed" and rebuilt.game.pokes == 1 and rebuilt.game.agreed == mine


def test_resumed_room_rearms_its_timers(slurk_double, tmp_path):
    """The inactivity timer armed before the kill still fires after the restart (and closes the room), although
    the restarted bot's own config has long timers: a match keeps the settings it was created with."""
    srv = _server(slurk_double)
    table = Table(srv, num_users=2)
    room = table.room()
    credentials = provision_bot(srv)
    short = TimerConfig(join_timeout=None, inactivity=1.5, inactivity_warning=0.5, partner_left_grace=None)
    bot = make_bot(srv, table, tmp_path, credentials=credentials, timers=short, person_seats=2)
    bot.start()
    bot2 = None
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        bob = Person(srv, "Bob", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["core"]["phase"] == "playing")
        bot.stop()
        assert not logs_of(srv, room, "game_end")
        bot2 = make_bot(srv, table, tmp_path, credentials=credentials, person_seats=2)
        assert bot2.config.timers.inactivity == 300
        bot2.start()
        alice.wait_message("Are you still there?")
        final = bob.wait_view(lambda v: v["core"]["phase"] == "over")
        assert final["core"]["status"] == "timeout" and final["core"]["code"]
        assert wait_logs(srv, room, "game_end")[0]["data"]["status"] == "timeout"
    finally:
        finish(*(b for b in (bot, bot2) if b is not None))


# ----------------------------------------------------------------------------------------------------------------
# socket drop


def test_dropped_socket_reconnects_and_resyncs(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    bot = make_bot(srv, table, tmp_path)
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)
        n_views = len(alice.views())
        eio = bot.sio.eio
        assert eio.current_transport == "websocket"
        eio.ws.sock.shutdown(socket.SHUT_RDWR)  # the network goes away under the engine.io transport
        _until(lambda: bot.gen >= 1, what="the bot to notice the drop")
        alice.rec.wait_for("status", lambda d: d["type"] == "leave" and d["user"]["id"] == bot.user_id, timeout=WAIT)
        _until(lambda: bot.connected, what="the reconnect")
        alice.rec.wait_for("status", lambda d: d["type"] == "join" and d["user"]["id"] == bot.user_id, count=2,
                           timeout=WAIT)
        alice.wait_view(count=n_views + 1)  # re-synced view after the reconnect
        final = play_against_brain(alice)  # and the game goes on
        assert final["core"]["status"] == "completed"
        assert bot.sio is not None and bot.connected
    finally:
        finish(bot)


# ----------------------------------------------------------------------------------------------------------------
# failures stay in their room


class FragileBrain(ToyBrain):
    """A ToyBrain that crashes when it hears "explode" (a bug in an agent, not in the rules)."""

    name = "fragile"

    def observe(self, effect):
        super().observe(effect)
        if isinstance(effect, ChatShown) and effect.text == "explode":
            self.explode = True

    def act(self):
        if getattr(self, "explode", False):
            self.explode = False
            raise RuntimeError("the agent fell over")
        return super().act()


FRAGILE_SPEC = TaskSpec(name="toy", title="Pick a number", game_class=PickNumber, brains={"fragile": FragileBrain},
                        default_brains=("fragile", "fragile"), state_element=STATE)


def test_rule_and_brain_failures_stay_in_their_room(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room1, room2 = table.room(), table.room()
    bot = make_bot(srv, table, tmp_path, spec=FRAGILE_SPEC)
    bot.start()
    try:
        alice1 = Person(srv, "Alice1", room1, table.task).connect()
        alice2 = Person(srv, "Alice2", room2, table.task).connect()
        alice1.announce(room1, table.task)
        alice2.announce(room2, table.task)
        alice1.wait_view(lambda v: v["pending"] is not None)
        # a rule handler that raises: rolled back, answered privately, logged
        alice1.command("crash")
        alice1.wait_message("something went wrong while handling that; nothing changed", private=True)
        assert bot.room(room1).match.game.agreed is None
        assert wait_logs(srv, room1, "input_refused")[0]["data"]["error"] == "ZeroDivisionError"
        # a brain that raises: caught by the room's worker, answered in that room, the room keeps working
        alice1.say("explode")
        alice1.wait_message("Sorry, something went wrong on our side")
        final2 = play_against_brain(alice2)
        final1 = play_against_brain(alice1)
        assert final1["core"]["status"] == final2["core"]["status"] == "completed"
        assert not alice2.bot_messages(lambda d: "went wrong" in d["message"])
    finally:
        finish(bot)


# ----------------------------------------------------------------------------------------------------------------
# bad credentials


def test_bad_token_stops_the_bot_with_a_clear_error(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    bot_id, _token = provision_bot(srv, room)
    _other_id, other_token = provision_bot(srv, room, name="Other")
    bot = make_bot(srv, table, tmp_path, credentials=(bot_id, other_token), auth_timeout=1.0)
    with pytest.raises(SlurkAuthError) as err:
        bot.start()
    msg = str(err.value)
    assert f"not the token of user {bot_id}" in msg and "BOT_TOKEN" in msg and "no joined_room" in msg
    assert other_token not in msg
    assert not bot.sio.connected


def test_unknown_user_id_is_named(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv)
    _bot_id, token = provision_bot(srv)
    bot = make_bot(srv, table, tmp_path, credentials=(10 ** 6, token), auth_timeout=1.0)
    with pytest.raises(SlurkAuthError, match=f"no user with id {10 ** 6}"):
        bot.start()


def test_unreachable_server_is_a_connection_error(tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    cfg = Config(slurk=SlurkSettings(url=f"http://127.0.0.1:{port}", token="t", user_id=1, task_id=1),
                 person_seats=1, state_db=str(tmp_path / "s.db"))
    with pytest.raises(SlurkConnectionError, match="Cannot connect to the Slurk server"):
        SlurkBot(cfg, SPEC).start()


def test_serve_exits_2_and_never_logs_the_token(slurk_double, tmp_path, caplog, capsys):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    bot_id, _token = provision_bot(srv, room)
    _other, wrong = provision_bot(srv, room, name="Other")
    cfg = tmp_path / "bot.yaml"
    cfg.write_text(f"slurk: {{auth_timeout: 1}}\nperson_seats: 1\nstate_db: {tmp_path / 's.db'}\n")
    env = {"SLURK_URL": srv.url, "SLURK_TOKEN": wrong, "SLURK_USER": str(bot_id), "SLURK_TASK_ID": str(table.task)}
    with caplog.at_level(logging.DEBUG):
        code = serve.main(["tests.toygame:SPEC", "--config", str(cfg)], env=env)
    assert code == 2
    text = caplog.text + capsys.readouterr().err
    assert "did not log the bot in" in text and wrong not in text


def test_serve_reports_missing_settings(tmp_path, caplog):
    with caplog.at_level(logging.ERROR):
        assert serve.main(["tests.toygame:SPEC"], env={"SLURK_URL": "http://x"}) == 2
    assert "missing the bot's token" in caplog.text


# ----------------------------------------------------------------------------------------------------------------
# the store


def test_store_round_trip_and_isolation(tmp_path):
    path = str(tmp_path / "s.db")
    store = RoomStore(path, server="http://a", bot_user=1)
    seats = {"a": {"kind": "person", "name": "Al", "user_id": 5, "brain": None},
             "b": {"kind": "agent", "name": "B", "user_id": None, "brain": "toy"}}
    store.open_room(RoomRecord(7, "toy", 42, {"turn_limit": 3}, seats, "open", 100.0, meta={"timers": {}}))
    store.add_input(7, 1, Join("a", 1.0))
    store.add_input(7, 2, Command("a", "propose", ("3",), 2.0))
    store.add_input(7, 3, Chat("b", "ok", 3.0, turn=False))
    other = RoomStore(path, server="http://b", bot_user=1)  # another server: not its room
    other.open_room(RoomRecord(7, "toy", 1, {}, {}, "open", 1.0))
    store.close()
    other.close()

    again = RoomStore(path, server="http://a", bot_user=1)
    [rec] = again.open_rooms(task="toy")
    assert (rec.room_id, rec.seed, rec.options, rec.seats, rec.opened_at, rec.meta) == \
        (7, 42, {"turn_limit": 3}, seats, 100.0, {"timers": {}})
    assert rec.inputs == [Join("a", 1.0), Command("a", "propose", ("3",), 2.0), Chat("b", "ok", 3.0, turn=False)]
    assert again.open_rooms(task="travel") == []
    again.close_room(7, "completed", {"score": 1})
    assert again.open_rooms() == [] and again.status(7) == "completed" and again.get(7).result == {"score": 1}
    # a new game in the same room starts with an empty input list
    again.open_room(RoomRecord(7, "toy", 43, {}, seats, "open", 200.0))
    assert again.get(7).inputs == [] and again.get(7).seed == 43
    assert again.journal_mode() == "wal"
    again.close()
