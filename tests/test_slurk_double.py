"""Scenario tests for the Slurk protocol, run against the double (ETags off/on) and a real Slurk.

Each test uses real ``socketio.Client`` connections and ``requests``; see
``shared/reference/slurk-protocol.md`` for the facts they pin down.
"""

from __future__ import annotations

import base64
import re
import threading
import time

import pytest
import requests
import socketio

from tests.slurk_double import SlurkDouble

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?$")
DB_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$")

BOT = {"api": True, "send_message": True, "send_html_message": True, "send_command": True, "send_privately": True}
HUMAN = {"send_message": True, "send_command": True}


def if_match(server, user_id: int | None = None) -> dict:
    """If-Match for a DELETE /users/{u}/rooms/{r}: a fresh user ETag when ETags are on."""
    if not server.etag:
        return {}
    etag = requests.get(server.api_url(f"users/{user_id}"), timeout=5).headers["ETag"]
    return {"If-Match": etag}


def connect(socket_client, server, name: str, user_id: int, token: str, **kwargs):
    return socket_client(name, **kwargs).connect(server.url, user_id, token)


def joined(client, room_id: int, user_id: int) -> None:
    """Wait until ``client`` is in the room and everybody has been told (status join seen by itself)."""
    client.wait_for("joined_room", lambda d: d == {"room": room_id, "user": user_id})
    client.wait_for("status", lambda d: d["type"] == "join" and d["room"] == room_id and d["user"]["id"] == user_id)


# --------------------------------------------------------------------------- connecting


@pytest.mark.parametrize("via", ["header", "plain-header", "query"])
def test_auth_gives_joined_room_then_status_join(slurk_server, socket_client, via):
    room = slurk_server.create_room()
    uid, token = slurk_server.provision_user("Alice", HUMAN, room_id=room)

    alice = socket_client("alice").connect(slurk_server.url, uid, token, via=via)

    assert alice.wait_for("joined_room") == [{"room": room, "user": uid}]
    status = alice.wait_for("status")[0]
    assert status["type"] == "join"
    assert status["user"] == {"id": uid, "name": "Alice"}
    assert status["room"] == room
    assert TIMESTAMP.match(status["timestamp"]), status["timestamp"]
    assert alice.index_of("joined_room") < alice.index_of("status")

    user = slurk_server.get_user(uid)
    assert user["session_id"] == alice.sid  # the namespace sid, not the engine.io sid
    online = requests.get(slurk_server.api_url(f"rooms/{room}/users"), timeout=5).json()
    assert [u["id"] for u in online] == [uid]

    logs = slurk_server.logs(room)
    assert [(log["event"], log["user_id"]) for log in logs] == [("join", uid)]
    assert logs[0]["data"] == {} and logs[0]["receiver_id"] is None
    assert DB_TIME.match(logs[0]["date_created"])
    connects = slurk_server.api("GET", "logs", params={"user_id": uid, "event": "connect"}).json()
    assert len(connects) == 1 and connects[0]["room_id"] is None


def test_bad_credentials_connect_but_nothing_is_joined(slurk_server, socket_client):
    room = slurk_server.create_room()
    uid, token = slurk_server.provision_user("Mallory", HUMAN, room_id=room)
    other_uid, _ = slurk_server.provision_user("Other", HUMAN, room_id=room)

    clients = [
        socket_client("bogus-token").connect(slurk_server.url, uid, "11111111-2222-3333-4444-555555555555"),
        socket_client("wrong-user").connect(slurk_server.url, other_uid, token),
        socket_client("auth-dict").connect(
            slurk_server.url, via="none", auth={"token": token, "user": str(uid), "Authorization": f"Bearer {token}"}
        ),
        socket_client("nothing").connect(slurk_server.url, via="none"),
    ]
    for client in clients:
        assert client.sio.connected  # connecting "succeeds" ...
    clients[0].assert_no("joined_room", within=2.0)  # ... but nothing is joined (one 2 s window for all)
    for client in clients:
        assert client.of("joined_room") == []
        assert client.of("status") == []

    mallory = clients[0]
    with pytest.raises(socketio.exceptions.TimeoutError):
        mallory.call("text", {"room": room, "message": "hi"}, timeout=0.5)
    with pytest.raises(socketio.exceptions.TimeoutError):
        mallory.call("message_command", {"room": room, "command": "x"}, timeout=0.5)
    assert mallory.call("mouse", {"room": room, "type": "click"}) == (False, "invalid session id")
    assert mallory.call("keypress", {"typing": True}) is None
    assert slurk_server.get_user(uid)["session_id"] is None
    assert slurk_server.get_user(other_uid)["session_id"] is None
    assert slurk_server.logs(room) == []


def test_status_join_waits_for_joined_room_ack(slurk_server, socket_client):
    room = slurk_server.create_room()
    bob_id, bob_token = slurk_server.provision_user("Bob", HUMAN, room_id=room)
    alice_id, alice_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    bob = connect(socket_client, slurk_server, "bob", bob_id, bob_token)
    joined(bob, room, bob_id)

    release = threading.Event()
    alice = socket_client("alice", joined_room_hook=lambda data: release.wait(10))
    alice.connect(slurk_server.url, alice_id, alice_token)
    alice.wait_for("joined_room")

    def alice_joins(d):
        return d["type"] == "join" and d["user"]["id"] == alice_id

    bob.assert_no("status", alice_joins, within=1.0)  # Alice has not acked yet
    # The join is logged when joined_room is emitted, not when it is acked.
    assert ("join", alice_id) in [(log["event"], log["user_id"]) for log in slurk_server.logs(room)]

    release.set()
    status = bob.wait_for("status", alice_joins)[0]
    assert status["user"] == {"id": alice_id, "name": "Alice"} and status["room"] == room
    alice.wait_for("status", alice_joins)


def test_disconnect_keeps_membership_and_reconnect_rejoins(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    b_id, b_token = slurk_server.provision_user("Bob", HUMAN, room_id=room)
    bob = connect(socket_client, slurk_server, "bob", b_id, b_token)
    joined(bob, room, b_id)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    joined(alice, room, a_id)

    alice.disconnect()
    leave = bob.wait_for("status", lambda d: d["type"] == "leave" and d["user"]["id"] == a_id)[0]
    assert leave["room"] == room and leave["user"]["name"] == "Alice" and TIMESTAMP.match(leave["timestamp"])
    assert slurk_server.get_user(a_id)["session_id"] is None
    online = requests.get(slurk_server.api_url(f"rooms/{room}/users"), timeout=5).json()
    assert [u["id"] for u in online] == [b_id]
    member_of = requests.get(slurk_server.api_url(f"users/{a_id}/rooms"), timeout=5).json()
    assert [r["id"] for r in member_of] == [room]

    events = [(log["event"], log["user_id"]) for log in slurk_server.logs(room)]
    assert events[-1] == ("leave", a_id)
    disconnects = slurk_server.api("GET", "logs", params={"user_id": a_id, "event": "disconnect"}).json()
    assert len(disconnects) == 1 and disconnects[0]["room_id"] is None

    again = connect(socket_client, slurk_server, "alice#2", a_id, a_token)
    joined(again, room, a_id)
    bob.wait_for("status", lambda d: d["type"] == "join" and d["user"]["id"] == a_id, count=2)


def test_second_connection_replaces_the_first(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    b_id, b_token = slurk_server.provision_user("Bob", BOT, room_id=room)
    bob = connect(socket_client, slurk_server, "bob", b_id, b_token)
    joined(bob, room, b_id)
    first = connect(socket_client, slurk_server, "alice#1", a_id, a_token)
    joined(first, room, a_id)
    second = connect(socket_client, slurk_server, "alice#2", a_id, a_token)
    joined(second, room, a_id)
    assert slurk_server.get_user(a_id)["session_id"] == second.sid

    assert bob.call("text", {"room": room, "message": "psst", "receiver_id": a_id}) is True
    second.wait_for("text_message", lambda d: d["message"] == "psst")
    # the old sid is still in the socket room, but private messages go to the newest sid only
    assert bob.call("text", {"room": room, "message": "public"}) is True
    first.wait_for("text_message", lambda d: d["message"] == "public")
    assert first.of("text_message", lambda d: d["message"] == "psst") == []

    # closing the OLD connection acts on the user's current sid: the NEW one is told it left
    first.disconnect()
    assert second.wait_for("left_room") == [{"room": room, "user": a_id}]
    assert slurk_server.get_user(a_id)["session_id"] is None


# --------------------------------------------------------------------------- messages


def test_public_message_is_echoed_to_the_sender(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    b_id, b_token = slurk_server.provision_user("Bot", BOT, room_id=room)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    bot = connect(socket_client, slurk_server, "bot", b_id, b_token)
    joined(alice, room, a_id)
    joined(bot, room, b_id)

    assert alice.call("text", {"room": room, "message": "hello bot"}) is True

    echo = alice.wait_for("text_message")[0]
    received = bot.wait_for("text_message")[0]
    assert echo == received
    assert set(echo) == {"user", "room", "timestamp", "private", "message", "html", "broadcast"}
    assert echo["user"] == {"id": a_id, "name": "Alice"}
    assert (echo["room"], echo["private"], echo["message"], echo["html"], echo["broadcast"]) == (
        room,
        False,
        "hello bot",
        False,
        False,
    )
    assert TIMESTAMP.match(echo["timestamp"])
    bot.wait_for("stop_typing", lambda d: d == {"user": {"id": a_id, "name": "Alice"}, "room": room})

    log = [row for row in slurk_server.logs(room) if row["event"] == "text_message"]
    assert len(log) == 1
    assert (log[0]["user_id"], log[0]["receiver_id"]) == (a_id, None)
    assert log[0]["data"] == {"message": "hello bot", "html": False, "broadcast": False}


def test_private_message_reaches_only_the_receiver(slurk_server, socket_client):
    room = slurk_server.create_room()
    bot_id, bot_token = slurk_server.provision_user("Bot", BOT, room_id=room)
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    c_id, c_token = slurk_server.provision_user("Carol", HUMAN, room_id=room)
    offline_id, _ = slurk_server.provision_user("Offline", HUMAN, room_id=room)
    bot = connect(socket_client, slurk_server, "bot", bot_id, bot_token)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    carol = connect(socket_client, slurk_server, "carol", c_id, c_token)
    for client, uid in ((bot, bot_id), (alice, a_id), (carol, c_id)):
        joined(client, room, uid)

    ack = bot.call("text", {"room": room, "message": "<b>secret</b>", "html": True, "receiver_id": a_id})
    assert ack is True
    got = alice.wait_for("text_message")[0]
    assert got["private"] is True and got["html"] is True and got["user"] == {"id": bot_id, "name": "Bot"}

    # barrier: a later public message reaches everyone, so the private one would have arrived by now
    assert bot.call("text", {"room": room, "message": "barrier"}) is True
    for client in (bot, alice, carol):
        client.wait_for("text_message", lambda d: d["message"] == "barrier")
    assert bot.of("text_message", lambda d: d["private"]) == []
    assert carol.of("text_message", lambda d: d["private"]) == []

    private_logs = [row for row in slurk_server.logs(room) if row["receiver_id"] is not None]
    assert [(row["event"], row["user_id"], row["receiver_id"]) for row in private_logs] == [
        ("text_message", bot_id, a_id)
    ]

    # ack strings of the receiver checks
    assert bot.call("text", {"room": room, "message": "x", "receiver_id": 987654}) == (
        False,
        'User "987654" does not exist',
    )
    assert bot.call("text", {"room": room, "message": "x", "receiver_id": offline_id}) == (
        False,
        f'User "{offline_id}" is not logged in',
    )
    elsewhere = slurk_server.create_room()
    assert bot.call("text", {"room": elsewhere, "message": "x", "receiver_id": a_id}) == (
        False,
        f'User "{a_id}" is not in this room',
    )
    assert alice.call("text", {"room": room, "message": "x", "receiver_id": c_id}) == (
        False,
        "You are not allowed to send privately",
    )


def test_message_command_with_dict_and_string(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    b_id, b_token = slurk_server.provision_user("Bot", BOT, room_id=room)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    bot = connect(socket_client, slurk_server, "bot", b_id, b_token)
    joined(alice, room, a_id)
    joined(bot, room, b_id)

    command = {"event": "click_room", "room": "K", "nested": {"n": [1, 2]}}
    assert alice.call("message_command", {"room": room, "command": command}) is True
    got = bot.wait_for("command")[0]
    assert got["command"] == command
    assert got["user"] == {"id": a_id, "name": "Alice"} and got["room"] == room
    assert got["private"] is False and got["broadcast"] is False and TIMESTAMP.match(got["timestamp"])
    alice.wait_for("command")  # humans receive commands too (and their own echo)

    assert alice.call("message_command", {"room": room, "command": "propose K"}) is True
    bot.wait_for("command", lambda d: d["command"] == "propose K")

    assert bot.call("message_command", {"room": room, "command": {"x": 1}, "receiver_id": a_id}) is True
    assert alice.wait_for("command", lambda d: d["private"])[0]["command"] == {"x": 1}

    commands = [row for row in slurk_server.logs(room) if row["event"] == "command"]
    assert [row["data"] for row in commands] == [
        {"broadcast": False, "command": command},
        {"broadcast": False, "command": "propose K"},
        {"broadcast": False, "command": {"x": 1}},
    ]
    assert [row["receiver_id"] for row in commands] == [None, None, a_id]

    viewer_id, viewer_token = slurk_server.provision_user("Viewer", {"send_message": True}, room_id=room)
    viewer = connect(socket_client, slurk_server, "viewer", viewer_id, viewer_token)
    viewer.wait_for("joined_room")
    assert viewer.call("message_command", {"room": room, "command": "x"}) == (False, "insufficient rights")
    assert alice.call("message_command", {"room": room}) == (False, 'missing argument: "command"')


def test_ack_values_and_check_order(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    joined(alice, room, a_id)
    other_room = slurk_server.create_room()

    assert alice.call("text", {"room": room, "message": "<b>x</b>", "html": True}) == (False, "insufficient rights")
    assert alice.call("text", {"room": room}) == (False, 'missing argument: "message"')
    # permission is checked before the room
    assert alice.call("text", {"message": "x", "html": True}) == (False, "insufficient rights")
    assert alice.call("text", {"message": "x"}) == (False, 'missing argument: "room"')
    assert alice.call("text", {"room": 987654, "message": "x"}) == (False, "Room not found")
    assert alice.call("text", {"room": room, "message": "x", "broadcast": True}) == (
        False,
        "You are not allowed to broadcast",
    )
    assert alice.call("text", {"room": other_room, "message": "x"}) == (False, "Not in room")
    assert alice.call("image", {"room": room, "url": "https://example.org/a.png"}) == (False, "insufficient rights")

    img_id, img_token = slurk_server.provision_user("Painter", {"send_image": True}, room_id=room)
    painter = connect(socket_client, slurk_server, "painter", img_id, img_token)
    joined(painter, room, img_id)
    assert painter.call("image", {"room": room}) == (False, 'missing argument: "url"')
    assert painter.call("image", {"room": room, "url": "https://example.org/a.png", "width": 100}) is True
    image = alice.wait_for("image_message")[0]
    assert (image["url"], image["width"], image["height"], image["private"]) == (
        "https://example.org/a.png",
        100,
        None,
        False,
    )

    # unknown events are not acknowledged at all
    with pytest.raises(socketio.exceptions.TimeoutError):
        alice.call("ping", {"room": room}, timeout=0.5)


def test_read_only_room_blocks_public_but_not_private(slurk_server, socket_client):
    room = slurk_server.create_room()
    bot_id, bot_token = slurk_server.provision_user("Bot", BOT, room_id=room)
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    bot = connect(socket_client, slurk_server, "bot", bot_id, bot_token)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    joined(bot, room, bot_id)
    joined(alice, room, a_id)

    etag = requests.get(slurk_server.api_url(f"rooms/{room}"), timeout=5).headers.get("ETag")
    headers = {"If-Match": etag} if slurk_server.etag else {}
    response = slurk_server.api("PATCH", f"rooms/{room}", json={"read_only": True}, headers=headers)
    assert response.status_code == 200 and response.json()["read_only"] is True

    assert alice.call("text", {"room": room, "message": "x"}) == (False, f"Room {room} is read-only")
    assert bot.call("text", {"room": room, "message": "still private", "receiver_id": a_id}) is True
    alice.wait_for("text_message", lambda d: d["message"] == "still private")


def test_impersonate_shows_another_member_but_logs_the_sender(slurk_server, socket_client):
    room = slurk_server.create_room()
    bot_id, bot_token = slurk_server.provision_user("Bot", BOT, room_id=room)
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    ghost_id, _ = slurk_server.provision_user("Ghost", HUMAN, room_id=room)  # member, offline
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    bot = connect(socket_client, slurk_server, "bot", bot_id, bot_token)
    joined(alice, room, a_id)
    joined(bot, room, bot_id)

    assert bot.call("text", {"room": room, "message": "boo", "impersonate": ghost_id}) is True
    seen = alice.wait_for("text_message")[0]
    assert seen["user"] == {"id": ghost_id, "name": "Ghost"}
    assert bot.wait_for("text_message")[0]["user"]["id"] == ghost_id  # the echo is impersonated too
    outsider_id, _ = slurk_server.provision_user("Outsider", HUMAN)
    assert bot.call("text", {"room": room, "message": "nope", "impersonate": outsider_id}) is True
    seen = alice.wait_for("text_message", lambda d: d["message"] == "nope")[0]
    assert seen["user"] == {"id": bot_id, "name": "Bot"}

    texts = [row for row in slurk_server.logs(room) if row["event"] == "text_message"]
    assert [row["user_id"] for row in texts] == [bot_id, bot_id]


def test_typing_typed_message_and_mouse(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    b_id, b_token = slurk_server.provision_user("Bob", HUMAN, room_id=room)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    bob = connect(socket_client, slurk_server, "bob", b_id, b_token)
    joined(alice, room, a_id)
    joined(bob, room, b_id)

    assert alice.call("keypress", {"typing": True}) is None
    assert bob.wait_for("start_typing") == [{"user": {"id": a_id, "name": "Alice"}, "room": room}]
    assert alice.call("typed_message", {"text": "hel"}) is None
    assert bob.wait_for("typed_message") == [{"user": {"id": a_id, "name": "Alice"}, "text": "hel"}]

    coordinates = {"x": 0.5, "y": 0.25}
    ack = alice.call("mouse", {"room": room, "type": "click", "coordinates": coordinates, "element_id": "area"})
    assert ack is None
    mouse = bob.wait_for("mouse")[0]
    assert mouse["user"] == {"id": a_id, "name": "Alice"} and mouse["room"] == room
    assert (mouse["type"], mouse["coordinates"], mouse["element_id"]) == ("click", coordinates, "area")
    assert alice.call("mouse", {"room": 987654, "type": "click"}) == (False, "Room not found")

    logged = [row for row in slurk_server.logs(room) if row["event"] == "mouse"]
    assert [row["data"] for row in logged] == [{"type": "click", "coordinates": coordinates, "element_id": "area"}]
    assert all(row["event"] not in ("keypress", "typed_message", "start_typing") for row in slurk_server.logs(room))


# --------------------------------------------------------------------------- rooms, tasks, membership


def test_room_created_sends_new_task_room_to_every_client(slurk_server, socket_client):
    waiting = slurk_server.create_room()
    layout = slurk_server.create_layout()
    task = slurk_server.create_task("Echo Task", 2, layout)
    new_room = slurk_server.expect_ok(slurk_server.api("POST", "rooms", json={"layout_id": layout}))["id"]
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=new_room, task_id=task)
    b_id, b_token = slurk_server.provision_user("Bob", HUMAN, room_id=new_room, task_id=task)
    c_id, c_token = slurk_server.provision_user("Concierge", BOT, room_id=waiting)

    concierge = connect(socket_client, slurk_server, "concierge", c_id, c_token)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    stranger = socket_client("stranger").connect(slurk_server.url, via="none")  # not even logged in
    concierge.wait_for("joined_room")
    alice.wait_for("joined_room")

    assert concierge.call("room_created", {"room": new_room, "task": task}) is True
    for client in (concierge, alice, stranger):
        assert client.wait_for("new_room", lambda d: d["room"] == new_room) == [{"room": new_room}]
        got = client.wait_for("new_task_room", lambda d: d["room"] == new_room)[0]
        assert got["task"] == task
        assert sorted(got["users"], key=lambda u: u["id"]) == [
            {"id": a_id, "name": "Alice"},
            {"id": b_id, "name": "Bob"},
        ]

    assert concierge.call("room_created", {"room": new_room}) is True
    alice.wait_for("new_room", lambda d: d["room"] == new_room, count=2)
    assert stranger.call("room_created", {"room": 987654, "task": task}) == (False, 'Room "None" does not exist')
    assert stranger.call("room_created", {"room": new_room, "task": 987654}) == (False, 'Task "None" does not exist')

    user_task = requests.get(slurk_server.api_url(f"users/{a_id}/task"), timeout=5).json()
    assert (user_task["id"], user_task["num_users"], user_task["layout_id"]) == (task, 2, layout)
    assert requests.get(slurk_server.api_url(f"users/{c_id}/task"), timeout=5).json() == {}


def test_post_and_delete_membership_while_online(slurk_server, socket_client):
    lobby = slurk_server.create_room()
    task_room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=lobby)
    w_id, w_token = slurk_server.provision_user("Watcher", BOT, room_id=task_room)
    watcher = connect(socket_client, slurk_server, "watcher", w_id, w_token)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    joined(watcher, task_room, w_id)
    joined(alice, lobby, a_id)

    response = slurk_server.api("POST", f"users/{a_id}/rooms/{task_room}")
    assert response.status_code == 201
    assert response.json()["id"] == a_id and response.json()["session_id"] == alice.sid
    alice.wait_for("joined_room", lambda d: d == {"room": task_room, "user": a_id})
    watcher.wait_for("status", lambda d: d["type"] == "join" and d["user"]["id"] == a_id and d["room"] == task_room)
    alice.wait_for("status", lambda d: d["type"] == "join" and d["room"] == task_room)
    rooms = requests.get(slurk_server.api_url(f"users/{a_id}/rooms"), timeout=5).json()
    assert sorted(r["id"] for r in rooms) == sorted([lobby, task_room])
    assert alice.call("text", {"room": task_room, "message": "hi"}) is True

    response = slurk_server.api("DELETE", f"users/{a_id}/rooms/{task_room}", headers=if_match(slurk_server, a_id))
    assert response.status_code == 204, response.text
    assert alice.wait_for("left_room") == [{"room": task_room, "user": a_id}]
    watcher.wait_for("status", lambda d: d["type"] == "leave" and d["user"]["id"] == a_id and d["room"] == task_room)
    assert alice.call("text", {"room": task_room, "message": "still here?"}) == (False, "Not in room")
    assert alice.of("status", lambda d: d["type"] == "leave" and d["room"] == task_room) == []

    events = [(row["event"], row["user_id"]) for row in slurk_server.logs(task_room)]
    assert events == [("join", w_id), ("join", a_id), ("text_message", a_id), ("leave", a_id)]


def test_membership_changes_while_offline(slurk_server, socket_client):
    lobby = slurk_server.create_room()
    extra = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=lobby)
    w_id, w_token = slurk_server.provision_user("Watcher", BOT, room_id=lobby)
    watcher = connect(socket_client, slurk_server, "watcher", w_id, w_token)
    joined(watcher, lobby, w_id)

    assert slurk_server.api("POST", f"users/{a_id}/rooms/{extra}").status_code == 201
    assert slurk_server.logs(extra) == []  # offline: nothing emitted or logged

    response = slurk_server.api("DELETE", f"users/{a_id}/rooms/{lobby}", headers=if_match(slurk_server, a_id))
    assert response.status_code == 204
    # the leave status is broadcast even for an offline user, but nothing is logged
    watcher.wait_for("status", lambda d: d["type"] == "leave" and d["user"]["id"] == a_id)
    assert [row["event"] for row in slurk_server.logs(lobby)] == ["join"]

    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    joined(alice, extra, a_id)
    assert alice.of("joined_room") == [{"room": extra, "user": a_id}]


# --------------------------------------------------------------------------- room UI endpoints


def test_room_ui_updates_broadcast_and_per_receiver(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    b_id, b_token = slurk_server.provision_user("Bob", HUMAN, room_id=room)
    offline_id, _ = slurk_server.provision_user("Offline", HUMAN, room_id=room)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    bob = connect(socket_client, slurk_server, "bob", b_id, b_token)
    joined(alice, room, a_id)
    joined(bob, room, b_id)

    offline = slurk_server.api("PATCH", f"rooms/{room}/text/instr", json={"text": "x", "receiver_id": offline_id})
    assert offline.status_code == 422
    assert "errors" not in offline.json()
    missing = slurk_server.api("PATCH", f"rooms/{room}/text/instr", json={"text": "x", "receiver_id": 987654})
    assert missing.status_code == 422
    assert missing.json()["errors"] == {"json": {"receiver_id": ["User `987654` does not exist"]}}

    response = slurk_server.api("PATCH", f"rooms/{room}/text/instr", json={"text": "only bob", "receiver_id": b_id})
    assert response.status_code == 204 and "ETag" not in response.headers
    assert bob.wait_for("text_update") == [{"text": "only bob", "id": "instr"}]

    # room-wide updates reach everyone; they also act as a barrier for the private one above
    assert slurk_server.api("POST", f"rooms/{room}/class/board", json={"class": "done"}).status_code == 204
    assert (
        slurk_server.api(
            "PATCH", f"rooms/{room}/attribute/id/text", json={"attribute": "readonly", "value": "True"}
        ).status_code
        == 204
    )
    assert (
        slurk_server.api(
            "PATCH", f"rooms/{room}/attribute/class/card", json={"attribute": "style", "value": "color: red"}
        ).status_code
        == 204
    )
    assert (
        slurk_server.api(
            "DELETE", f"rooms/{room}/attribute/id/text", json={"attribute": "readonly", "value": ""}
        ).status_code
        == 204
    )
    assert slurk_server.api("DELETE", f"rooms/{room}/class/board", json={"class": "done"}).status_code == 204
    for client in (alice, bob):
        assert client.wait_for("class_add") == [{"class": "done", "id": "board"}]
        updates = client.wait_for("attribute_update", count=2)
        assert sorted(updates, key=repr) == sorted(
            [
                {"attribute": "readonly", "value": "True", "id": "text"},
                {"attribute": "style", "value": "color: red", "cls": "card"},
            ],
            key=repr,
        )
        assert client.wait_for("remove_attribute") == [{"attribute": "readonly", "value": "", "id": "text"}]
        assert client.wait_for("class_remove") == [{"class": "done", "id": "board"}]
    assert alice.of("text_update") == []

    rows = [row for row in slurk_server.logs(room) if row["event"] not in ("join", "leave")]
    assert [(row["event"], row["receiver_id"], row["user_id"]) for row in rows] == [
        ("set_text", b_id, None),
        ("class_add", None, None),
        ("set_attribute", None, None),
        ("set_attribute", None, None),
        ("delete_attribute", None, None),
        ("class_remove", None, None),
    ]
    assert rows[0]["data"] == {"text": "only bob", "id": "instr"}
    assert rows[3]["data"] == {"attribute": "style", "value": "color: red", "cls": "card"}

    assert slurk_server.api("PATCH", f"rooms/{room}/text/x", json={"text": "t", "foo": 1}).status_code == 422
    assert (
        requests.patch(slurk_server.api_url(f"rooms/{room}/text/x"), json={"text": "t"}, timeout=5).status_code == 401
    )
    assert slurk_server.api("PATCH", "rooms/987654/text/x", json={"text": "t"}).status_code == 404


# --------------------------------------------------------------------------- logs


def test_logs_ordering_and_visibility(slurk_server, socket_client):
    room = slurk_server.create_room()
    bot_id, bot_token = slurk_server.provision_user("Bot", BOT, room_id=room)
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    c_id, c_token = slurk_server.provision_user("Carol", HUMAN, room_id=room)
    bot = connect(socket_client, slurk_server, "bot", bot_id, bot_token)
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    joined(bot, room, bot_id)
    joined(alice, room, a_id)

    assert bot.call("text", {"room": room, "message": "public"}) is True
    assert bot.call("text", {"room": room, "message": "to alice", "receiver_id": a_id}) is True
    posted = slurk_server.api(
        "POST", "logs", json={"event": "confirmation_log", "room_id": room, "receiver_id": c_id, "data": {"c": "AB12"}}
    )
    assert posted.status_code == 201
    assert posted.json()["user_id"] is None  # not filled in from the token
    assert posted.json()["data"] == {"c": "AB12"}

    # date_created has 1 s resolution: add rows until the clock has moved on, so DESC is observable
    newest = max(row["date_created"] for row in slurk_server.logs(room))
    deadline = time.monotonic() + 5
    while (
        slurk_server.expect_ok(slurk_server.api("POST", "logs", json={"event": "tick", "room_id": room}))[
            "date_created"
        ]
        <= newest
    ):
        assert time.monotonic() < deadline, "server clock did not advance"
        time.sleep(0.05)
    everything = slurk_server.api("GET", "logs", params={"room_id": room}).json()
    dates = [row["date_created"] for row in everything]
    assert dates == sorted(dates, reverse=True) and dates[0] > dates[-1]  # date_created DESC
    assert everything[0]["event"] == "tick"
    if not slurk_server.is_real:  # within one second the real order is arbitrary; the double uses id DESC
        assert [row["id"] for row in everything] == sorted((row["id"] for row in everything), reverse=True)
    assert {row["id"] for row in everything} == {row["id"] for row in slurk_server.logs(room)}

    alice_view = requests.get(
        slurk_server.api_url(f"rooms/{room}/users/{a_id}/logs"),
        headers={"Authorization": f"Bearer {a_token}", "user": str(a_id)},
        timeout=5,
    )
    assert alice_view.status_code == 200
    ids = [row["id"] for row in alice_view.json()]
    assert ids == sorted(ids)  # ascending
    messages = [row["data"].get("message") for row in alice_view.json() if row["event"] == "text_message"]
    assert messages == ["public", "to alice"]
    assert "confirmation_log" not in [row["event"] for row in alice_view.json()]

    carol_view = slurk_server.api("GET", f"rooms/{room}/users/{c_id}/logs").json()  # admin may read any view
    assert [row["data"].get("message") for row in carol_view if row["event"] == "text_message"] == ["public"]
    assert [row["event"] for row in carol_view if row["receiver_id"] == c_id] == ["confirmation_log"]

    stranger = requests.get(
        slurk_server.api_url(f"rooms/{room}/users/{c_id}/logs"),
        headers={"Authorization": f"Bearer {a_token}", "user": str(a_id)},
        timeout=5,
    )
    assert stranger.status_code == 401
    assert requests.get(slurk_server.api_url("logs"), timeout=5).status_code == 401
    filtered = slurk_server.api("GET", "logs", params={"room_id": room, "receiver_id": a_id}).json()
    assert [row["data"]["message"] for row in filtered] == ["to alice"]


# --------------------------------------------------------------------------- REST rules and ETags


def test_rest_auth_validation_and_errors(slurk_server):
    api = slurk_server.api_url
    layout = slurk_server.create_layout()

    assert requests.post(api("layouts"), json={"title": "t"}, timeout=5).status_code == 401
    # GETs are open (filtered, so a long-lived real server's growing tables do not slow this down)
    for path in (f"layouts/{layout}", f"rooms?layout_id={layout}", f"tasks?layout_id={layout}", "users?name=nobody-x"):
        assert requests.get(api(path), timeout=5).status_code == 200, path
    assert requests.get(api("tokens"), timeout=5).status_code == 401
    assert requests.get(api("rooms/"), timeout=5).status_code == 404  # trailing slash

    unknown = slurk_server.api("POST", "rooms", json={"layout_id": layout, "foo": 1})
    assert unknown.status_code == 422
    assert unknown.json()["errors"] == {"json": {"foo": ["Unknown field."]}}
    bad_fk = slurk_server.api("POST", "rooms", json={"layout_id": 987654})
    assert bad_fk.json()["errors"] == {"json": {"layout_id": ["Layout `987654` does not exist"]}}
    missing = slurk_server.api("GET", "rooms/987654")
    assert missing.status_code == 404
    assert missing.json()["errors"] == {"query": {"room_id": "Room `987654` does not exist"}}
    form = slurk_server.api("POST", "layouts", data={"title": "t"})
    assert form.status_code == 415

    # a user's token without the api flag is not an api token
    uid, token = slurk_server.provision_user("Human", HUMAN)
    assert slurk_server.api("POST", "layouts", json={"title": "t"}, token=token).status_code == 401
    assert requests.get(api(f"tokens/{token}"), timeout=5).status_code == 200  # token GET is open
    assert requests.get(api(f"users/{uid}/permissions"), timeout=5).json()["send_command"] is True
    perms_id = requests.get(api(f"tokens/{token}"), timeout=5).json()["permissions_id"]
    assert requests.get(api(f"permissions/{perms_id}"), timeout=5).json()["send_message"] is True
    assert [u["id"] for u in requests.get(api("users"), params={"token_id": token}, timeout=5).json()] == [uid]

    perms = slurk_server.expect_ok(slurk_server.api("POST", "permissions", json={"send_message": True}))
    two = slurk_server.expect_ok(
        slurk_server.api("POST", "tokens", json={"permissions_id": perms["id"], "registrations_left": 2})
    )
    first = slurk_server.expect_ok(slurk_server.api("POST", "users", json={"name": "u1", "token_id": two["id"]}))
    assert requests.get(api(f"users/{first['id']}/permissions"), timeout=5).json() == {}  # registrations left
    assert requests.get(api(f"users/{first['id']}/rooms"), timeout=5).json() == []  # token without room
    slurk_server.expect_ok(slurk_server.api("POST", "users", json={"name": "u2", "token_id": two["id"]}))
    exhausted = slurk_server.api("POST", "users", json={"name": "u3", "token_id": two["id"]})
    assert exhausted.status_code == 422
    assert exhausted.json()["errors"] == {"json": {"token_id": "No registrations left for given token"}}

    slurk_server.expect_ok(slurk_server.api("POST", "rooms", json={"layout_id": layout}))
    in_use = slurk_server.api("DELETE", f"layouts/{layout}", headers={"If-Match": "*"})
    assert in_use.status_code == 422
    assert in_use.json()["errors"] == {"query": f"Layout `{layout}` is still in use"}

    rooms = requests.get(api("rooms"), params={"layout_id": layout}, timeout=5).json()
    assert len(rooms) == 1 and rooms[0]["layout_id"] == layout


def test_layout_compilation_embeds_data_url_scripts(slurk_server):
    code = ";window.slurkDoubleProbe = function () { return 42; };"
    layout = {
        "title": "Probe",
        "subtitle": "sub",
        "html": [
            {"layout-type": "div", "id": "area", "class": "", "layout-content": ["<b>raw</b>", {"layout-type": "br"}]}
        ],
        "css": {"#area": {"color": "red", "width": "50%"}},
        "scripts": {"plain": "data:text/javascript;base64," + base64.b64encode(code.encode()).decode()},
        "read_only": True,
    }
    response = slurk_server.api("POST", "layouts", json=layout)
    assert response.status_code == 201
    body = response.json()
    assert body["title"] == "Probe" and body["subtitle"] == "sub" and body["read_only"] is True
    assert "html" in body and "css" in body and "script" in body and "scripts" not in body
    assert body["html"] == "<div id='area'>\n<b>raw</b>    <br>\n</div>\n"
    assert body["css"] == "#area {\n    color: red;\n    width: 50%;\n}\n\n"
    assert code in body["script"]
    assert "incoming_text = function(data)" in body["script"]  # unspecified triggers become empty functions
    if slurk_server.etag:
        assert response.headers["ETag"]
    else:
        assert "ETag" not in response.headers

    room = slurk_server.expect_ok(slurk_server.api("POST", "rooms", json={"layout_id": body["id"]}))["id"]
    uid, token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    with socketio.SimpleClient() as client:
        client.connect(slurk_server.url, headers={"Authorization": f"Bearer {token}", "user": str(uid)})
        assert client.receive(timeout=5) == ["joined_room", {"room": room, "user": uid}]
        assert client.call("text", {"room": room, "message": "x"}, timeout=5) == (False, f"Room {room} is read-only")


def test_etag_preconditions(slurk_server, socket_client):
    room = slurk_server.create_room()
    a_id, a_token = slurk_server.provision_user("Alice", HUMAN, room_id=room)
    layout_url = f"layouts/{requests.get(slurk_server.api_url(f'rooms/{room}'), timeout=5).json()['layout_id']}"

    if not slurk_server.etag:
        assert "ETag" not in requests.get(slurk_server.api_url(layout_url), timeout=5).headers
        assert slurk_server.api("PATCH", layout_url, json={"subtitle": "no etag needed"}).status_code == 200
        assert slurk_server.api("DELETE", f"users/{a_id}/rooms/{room}").status_code == 204
        return

    got = requests.get(slurk_server.api_url(layout_url), timeout=5)
    etag = got.headers["ETag"]
    assert requests.get(slurk_server.api_url(layout_url), headers={"If-None-Match": etag}, timeout=5).status_code == 304
    assert slurk_server.api("PATCH", layout_url, json={"subtitle": "a"}).status_code == 428
    assert (
        slurk_server.api("PATCH", layout_url, json={"subtitle": "a"}, headers={"If-Match": '"abc"'}).status_code == 412
    )
    patched = slurk_server.api("PATCH", layout_url, json={"subtitle": "a"}, headers={"If-Match": etag})
    assert patched.status_code == 200 and patched.headers["ETag"] != etag
    assert slurk_server.api("PATCH", layout_url, json={"subtitle": "b"}, headers={"If-Match": etag}).status_code == 412
    assert slurk_server.api("PATCH", layout_url, json={"subtitle": "c"}, headers={"If-Match": "*"}).status_code == 200
    # 428 comes first, even before the 404 of a missing entity
    assert slurk_server.api("PATCH", "layouts/987654", json={}).status_code == 428

    # user/permission ETags are shared
    perms_etag = requests.get(slurk_server.api_url(f"users/{a_id}/permissions"), timeout=5).headers["ETag"]
    perms_id = slurk_server.expect_ok(slurk_server.api("GET", f"tokens/{a_token}"))["permissions_id"]
    assert requests.get(slurk_server.api_url(f"permissions/{perms_id}"), timeout=5).headers["ETag"] == perms_etag
    assert (
        slurk_server.api(
            "PATCH", f"permissions/{perms_id}", json={"send_command": False}, headers={"If-Match": perms_etag}
        ).status_code
        == 200
    )

    # the user's ETag changes when the session id changes (connect)
    stale = requests.get(slurk_server.api_url(f"users/{a_id}"), timeout=5).headers["ETag"]
    alice = connect(socket_client, slurk_server, "alice", a_id, a_token)
    alice.wait_for("joined_room")
    fresh = requests.get(slurk_server.api_url(f"users/{a_id}"), timeout=5).headers["ETag"]
    assert fresh != stale
    assert slurk_server.api("DELETE", f"users/{a_id}/rooms/{room}").status_code == 428
    assert slurk_server.api("DELETE", f"users/{a_id}/rooms/{room}", headers={"If-Match": stale}).status_code == 412
    # the room's ETag is not what is checked
    room_etag = requests.get(slurk_server.api_url(f"rooms/{room}"), timeout=5).headers["ETag"]
    assert slurk_server.api("DELETE", f"users/{a_id}/rooms/{room}", headers={"If-Match": room_etag}).status_code == 412
    assert slurk_server.api("DELETE", f"users/{a_id}/rooms/{room}", headers={"If-Match": fresh}).status_code == 204
    alice.wait_for("left_room")
    assert slurk_server.api("DELETE", f"users/{a_id}/rooms/{room}", headers={"If-Match": "*"}).status_code == 204
    # POST never needs If-Match; room UI endpoints carry no ETag and need none
    assert slurk_server.api("POST", f"users/{a_id}/rooms/{room}").status_code == 201
    ui = slurk_server.api("PATCH", f"rooms/{room}/text/x", json={"text": "t"})
    assert ui.status_code == 204 and "ETag" not in ui.headers


# --------------------------------------------------------------------------- double-only behaviour


def test_etag_double_fixture_requires_if_match(slurk_double_etag, slurk_double):
    path = "slurk/api/layouts"
    headers = {"Authorization": f"Bearer {slurk_double_etag.admin_token}"}
    layout = requests.post(f"{slurk_double_etag.url}/{path}", json={"title": "t"}, headers=headers, timeout=5)
    assert layout.headers["ETag"].startswith('"')
    item = f"{slurk_double_etag.url}/{path}/{layout.json()['id']}"
    assert requests.delete(item, headers=headers, timeout=5).status_code == 428
    assert requests.delete(item, headers={**headers, "If-Match": '"nope"'}, timeout=5).status_code == 412
    assert requests.delete(item, headers={**headers, "If-Match": "*"}, timeout=5).status_code == 204

    plain = requests.post(f"{slurk_double.url}/{path}", json={"title": "t"}, headers=headers, timeout=5)
    assert "ETag" not in plain.headers
    plain_item = f"{slurk_double.url}/{path}/{plain.json()['id']}"
    assert requests.delete(plain_item, headers=headers, timeout=5).status_code == 204


def test_double_helpers_and_parallel_instances(slurk_double):
    with SlurkDouble() as second:
        assert second.url != slurk_double.url
        room = slurk_double.create_room({"title": "Helper", "scripts": {"plain": "my-plugin"}})
        uid, token = slurk_double.provision_user("Helper", {"api": True}, room_id=room)
        assert requests.get(f"{second.url}/slurk/api/users/{uid}", timeout=5).status_code == 404
        assert requests.get(f"{slurk_double.url}/slurk/api/users/{uid}", timeout=5).json()["name"] == "Helper"
        assert isinstance(token, str) and len(token) == 36
        layout_id = requests.get(f"{slurk_double.url}/slurk/api/rooms/{room}", timeout=5).json()["layout_id"]
        assert slurk_double.layout_source(layout_id)["scripts"] == {"plain": "my-plugin"}
        posted = requests.post(
            f"{slurk_double.url}/slurk/api/logs",
            json={"event": "e1", "room_id": room},
            headers={"Authorization": f"Bearer {slurk_double.admin_token}"},
            timeout=5,
        )
        assert posted.status_code == 201
        assert [row["event"] for row in slurk_double.logs(room)] == ["e1"]
    assert not second.is_running
