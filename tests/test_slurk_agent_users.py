"""Agent seats played under their own Slurk user (Config.agent_users / AGENT_USERS, as `setup` provisions them):
the person sees a partner with a human name, not the bot. Over real sockets, against the test double (ETags off
and on) and a real Slurk when SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN are set.
"""
from __future__ import annotations

from tests.slurk_double.recorder import SocketRecorder
from tests.test_slurk_runtime import (
    WAIT, Person, Table, _poll, finish, logs_of, make_bot, play_against_brain, rebuild_from_logs, wait_logs,
)

AGENT_NAME = "Robin"


def _rooms_of(srv, uid: int) -> list[int]:
    return [r["id"] for r in srv.api("GET", f"users/{uid}/rooms").json()]


def test_agent_seat_speaks_as_its_own_slurk_user(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    waiting = srv.create_room()
    room = table.room()
    agent_id, _token = srv.provision_user(AGENT_NAME, {})  # as `setup` does: no permissions, no room
    bot = make_bot(srv, table, tmp_path, room=waiting, waiting_room=waiting, agent_users={"b": agent_id})
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        assert alice.announce(room, table.task) is True
        final = play_against_brain(alice)
        assert final["core"]["status"] == "completed"
        # the brain's "ok" comes from the agent user, without a "Name: " prefix; the bot never says it
        ok = alice.rec.wait_for("text_message", lambda d: d.get("message") == "ok", timeout=WAIT)[-1]
        assert ok["user"] == {"id": agent_id, "name": AGENT_NAME} and ok["private"] is False
        said = [d["message"] for d in alice.bot_messages(lambda d: d["user"]["id"] == bot.user_id)]
        assert not any(str(m).endswith(": ok") or m == "ok" for m in said)
        # the agent user is a member of the room; the seat map (log and store) records it
        assert room in _rooms_of(srv, agent_id)
        wait_logs(srv, room, "game_end")
        assert [x["data"] for x in logs_of(srv, room, "seat_map")] == [{"a": alice.id, "b": agent_id}]
        start = logs_of(srv, room, "game_start")[0]["data"]
        assert start["seats"]["b"]["name"] == AGENT_NAME
        assert bot.store.get(room).seats["b"]["user_id"] == agent_id
        rebuilt = rebuild_from_logs(srv, room)
        assert rebuilt.over and rebuilt.name_of("b") == AGENT_NAME
    finally:
        finish(bot)


def test_an_online_agent_user_never_takes_a_persons_seat(slurk_server, tmp_path):
    """The agent user is connected in the task room before anyone (and comes and goes during the game): it is
    neither seated nor a Join/Leave; the person who comes later gets the person's seat."""
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    agent_id, agent_token = srv.provision_user(AGENT_NAME, {}, room_id=room)
    agent = SocketRecorder("agent").connect(srv.url, agent_id, agent_token)
    bot = make_bot(srv, table, tmp_path, agent_users={"b": agent_id})
    try:
        agent.wait_for("joined_room", lambda d: d["room"] == room, timeout=WAIT)
        bot_id = bot.user_id
        srv.api("POST", f"users/{bot_id}/rooms/{room}")  # a member room with the task layout: attached at once
        bot.start()
        _poll(lambda: bot.room(room) is not None and bot.room(room).state == "attached")
        w = bot.room(room).people
        assert w.user_of("a") is None and w.user_of("b") == agent_id and agent_id not in w.online
        agent.disconnect()  # comes and goes: no Leave / Join for anyone
        agent = SocketRecorder("agent").connect(srv.url, agent_id, agent_token)
        agent.wait_for("joined_room", lambda d: d["room"] == room, timeout=WAIT)
        alice = Person(srv, "Alice", room, table.task).connect()
        view = alice.wait_view(lambda v: v["core"]["phase"] == "playing")
        assert view["core"]["seat"] == "a"
        assert [x["data"] for x in wait_logs(srv, room, "seat_map")] == [{"a": alice.id, "b": agent_id}]
        ok = play_against_brain(alice)
        assert ok["core"]["status"] == "completed"
        inputs = [x["data"]["input"] for x in logs_of(srv, room, "game_input")]
        presence = [(i["type"], i["seat"]) for i in inputs if i.get("type") in ("Join", "Leave")]
        assert presence and set(presence) == {("Join", "a")}
        # the agent user, online, sees the agent's chat as its own
        agent.wait_for("text_message", lambda d: d.get("message") == "ok" and d["user"]["id"] == agent_id,
                       timeout=WAIT)
    finally:
        finish(bot)
        agent.disconnect()


def test_without_agent_users_the_agent_speaks_through_the_bot(slurk_double, tmp_path):
    from tests.test_slurk_runtime import _server
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    bot = make_bot(srv, table, tmp_path)
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        play_against_brain(alice)
        ok = alice.wait_message("B: ok", private=False)
        assert ok["user"]["id"] == bot.user_id
        wait_logs(srv, room, "game_end")
        assert [x["data"] for x in logs_of(srv, room, "seat_map")] == [{"a": alice.id, "b": None}]
    finally:
        finish(bot)
