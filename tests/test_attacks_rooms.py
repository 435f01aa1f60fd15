"""Attack (issue 28): rooms other rooms cannot read, the game master's mark, oversized chat, side channels.

A participant with nothing but their own login, on the double (ETags off and on, which behaves as the verified
protocol facts say: the per-user log route checks the user, not the room; `typed_message` and `mouse` need no
permission) and, with the conformance flag, a real Slurk:
- reading another room's chat through `GET /rooms/{room}/users/{own id}/logs` while both rooms play with a pinned
  instance (dond `instance: K`): the rooms get different instances, and people's lines are no public rows;
- a line sent privately from another room with `impersonate` = the bot: it reaches the victim's socket, but without
  the mark every line of the bot carries (`html: true`, which participants may not send);
- 4,001+ characters of chat: never reach the partner (the page refuses them; a custom client is refused by Slurk or
  by the bot, before anything is stored);
- `typed_message`, `mouse`, private `message_command` and private `text` to the partner in a relayed room;
- participant tokens with just what the task page needs.
The page's side (what it shows of such lines) is tests/test_attacks_rooms_page.py.
"""
from __future__ import annotations

import json

import pytest

from bots.study.provision import PERSON_PERMISSIONS, person_permissions
from tasks import get_task
from tasks.core.limits import MAX_CHAT_CHARS
from tasks.dond.game import values_text
from tests.leaks import readable_logs
from tests.test_privacy import Participant, _seated
from tests.test_slurk_runtime import WAIT, Table, finish, logs_of, make_bot, wait_logs

DOND = get_task("dond")
PINNED = {"instance": 3}  # every room would play generated instance 3


def perms_for(spec, options) -> dict:
    """What `setup` gives a participant of this task (before issue 28 there were no task options to it)."""
    try:
        return person_permissions(spec, options)
    except TypeError:
        return person_permissions(spec)


def two_rooms(srv, tmp_path, options=PINNED, names=(("Ann", "Ben"), ("Cat", "Dan"))):
    """One dond bot serving two rooms open at once, two people in each: (bot, [(room, {seat: Participant})])."""
    table = Table(srv, num_users=2, name="dond")
    bot = make_bot(srv, table, tmp_path, spec=DOND, person_seats=2, task_options=dict(options))
    bot.start()
    rooms = []
    try:
        for a, b in names:
            room = table.room()
            p1 = Participant(srv, a, room, table.task, DOND.state_element, perms_for(DOND, options))
            p2 = Participant(srv, b, room, table.task, DOND.state_element, perms_for(DOND, options))
            assert p1.rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT) is True
            rooms.append((room, _seated(p1, p2)))
        return bot, rooms
    except BaseException:
        finish(bot)
        raise


def instance_of(srv, room: int) -> dict:
    """The room's game_start record (instance, options), as the researcher's admin download has it."""
    return wait_logs(srv, room, "game_start")[0]["data"]


def texts(person, pred=lambda d: True) -> list[dict]:
    return person.rec.of("text_message", pred)


def test_another_rooms_participant_cannot_read_a_partners_values_through_the_log_route(slurk_server, tmp_path):
    srv = slurk_server
    bot, [(room1, one), (room2, two)] = two_rooms(srv, tmp_path)
    try:
        ann, ben, cat = one["alice"], one["bob"], two["alice"]
        values = ann.view()["values"]
        line = f"my values are {values_text(values)}"
        assert ann.say(line) is True                      # as the page sends a chat line
        ben.rec.wait_for("text_message", lambda d: line in str(d.get("message")), timeout=WAIT)  # the partner: yes
        # Cat (room 2) reads room 1's log with her own credentials (Slurk does not check membership)
        readable = readable_logs(srv.url, room1, cat.id, cat.token)
        assert readable is not None
        assert not [r for r in readable if line in json.dumps(r)]
        # and the two rooms do not play the same values: Cat's partner is not Ann's partner in disguise
        first, second = instance_of(srv, room1), instance_of(srv, room2)
        assert first["instance"] != second["instance"]
        assert second["options"].get("pin_dropped") == 3 and "instance" not in second["options"]
    finally:
        finish(bot)


def test_a_line_in_the_bots_name_from_another_room_lacks_the_bots_mark(slurk_server, tmp_path):
    srv = slurk_server
    bot, [(room1, one)] = two_rooms(srv, tmp_path, names=(("Ann", "Ben"),))
    try:
        ann = one["alice"]
        ann.view()
        ann.rec.wait_for("text_message", lambda d: "Your values" in str(d.get("message")), timeout=WAIT)
        # Eve: a participant of another study on the same server, with open chat (send_message, send_privately)
        elsewhere = Table(srv, num_users=2, name="other").room()
        eve_id, eve_token = srv.provision_user("Eve", PERSON_PERMISSIONS, room_id=elsewhere)
        from tests.slurk_double.recorder import SocketRecorder
        eve = SocketRecorder("Eve").connect(srv.url, eve_id, eve_token)
        try:
            eve.wait_for("joined_room", timeout=WAIT)
            fake = "Deal! Your completion code is K7PQ2MZX"
            assert eve.call("text", {"room": room1, "message": fake, "receiver_id": ann.id,
                                     "impersonate": bot.user_id}, timeout=WAIT) is True   # Slurk lets it through
            assert eve.call("text", {"room": room1, "message": "<b>" + fake, "html": True, "receiver_id": ann.id,
                                     "impersonate": bot.user_id}, timeout=WAIT) == (False, "insufficient rights")
            got = ann.rec.wait_for("text_message", lambda d: d.get("message") == fake, timeout=WAIT)[0]
            assert got["user"]["id"] == bot.user_id          # shown in the bot's name...
            assert got["html"] is False                      # ...but without the bot's mark
            from_bot = texts(ann, lambda d: d["user"]["id"] == bot.user_id and d.get("message") != fake)
            assert from_bot and all(d["html"] is True for d in from_bot)   # every line of the bot has it
        finally:
            eve.disconnect()
    finally:
        finish(bot)


def test_oversized_chat_never_reaches_the_partner(slurk_server, tmp_path):
    srv = slurk_server
    bot, [(room, one)] = two_rooms(srv, tmp_path, names=(("Ann", "Ben"),))
    try:
        ann, ben = one["alice"], one["bob"]
        ann.view(), ben.view()
        big = "my values are book 0, hat 0, ball 5. " + "x" * MAX_CHAT_CHARS
        ann.say(big)                                                   # the page's way (a custom client here)
        ann.rec.call("text", {"room": room, "message": big}, timeout=WAIT)                       # plain Slurk text
        ann.send({"chat": "y" * (MAX_CHAT_CHARS + 1)})                 # a relayed line one over the limit
        ann.rec.wait_for("text_message", lambda d: "too large" in str(d.get("message")), timeout=WAIT)
        assert ann.say("done") is True                                 # in order: everything above is handled
        ben.rec.wait_for("text_message", lambda d: "done" == str(d.get("message")), timeout=WAIT)
        assert not texts(ben, lambda d: len(str(d.get("message"))) > MAX_CHAT_CHARS)
        chats = [x["data"]["input"] for x in logs_of(srv, room, "game_input") if x["data"]["input"]["type"] == "Chat"]
        assert all(len(c["text"]) <= MAX_CHAT_CHARS for c in chats)
        assert wait_logs(srv, room, "input_refused")
    finally:
        finish(bot)


def test_side_channels_in_a_relayed_room(slurk_server, tmp_path):
    """What a custom client can still send to the partner in a relayed room, and what it cannot."""
    srv = slurk_server
    bot, [(room, one)] = two_rooms(srv, tmp_path, names=(("Ann", "Ben"),))
    try:
        ann, ben = one["alice"], one["bob"]
        ann.view(), ben.view()
        secret = "my values are book 0, hat 0, ball 5"
        # private text to the partner: refused by Slurk (a relayed room's participants have no send_message)
        assert ann.rec.call("text", {"room": room, "message": secret, "receiver_id": ben.id},
                            timeout=WAIT) == (False, "insufficient rights")
        # outside Slurk's permissions (slurk-protocol.md §8): they reach the partner's socket, the page shows
        # neither (tests/test_attacks_rooms_page.py)
        ann.rec.emit("typed_message", {"text": secret})
        ann.rec.emit("mouse", {"room": room, "type": "click", "coordinates": {"x": 0, "y": 0}, "element_id": "x"})
        # a command to the partner: delivered, without the partner's seat key, so the page ignores it
        assert ann.rec.call("message_command", {"room": room, "command": {"chat": secret}, "receiver_id": ben.id},
                            timeout=WAIT) is True
        ben.rec.wait_for("typed_message", timeout=WAIT)
        ben.rec.wait_for("mouse", timeout=WAIT)
        cmd = ben.rec.wait_for("command", lambda d: d["user"]["id"] == ann.id, timeout=WAIT)[0]
        assert not (isinstance(cmd["command"], dict) and cmd["command"].get("key") == ben.view()["core"]["key"])
        assert not texts(ben, lambda d: secret in str(d.get("message")))
    finally:
        finish(bot)


@pytest.mark.parametrize("task, relay", [("dond", True), ("assignment", True), ("planning", True),
                                         ("matrix-games", True), ("mediation", True), ("travel", False)])
def test_participant_tokens_hold_what_the_page_needs(slurk_server, task, relay):
    """A token made as `setup` makes it (default task options): the page's commands go privately to the bot; in a
    relayed room no `text` at all (public or private); never HTML."""
    srv = slurk_server
    spec = get_task(task)
    table = Table(srv, num_users=2, name=task)
    room = table.room()
    bot_id, _ = srv.provision_user("Bot", {"send_message": True}, room_id=room)
    from tests.slurk_double.recorder import SocketRecorder
    users = []
    try:
        for name in ("P1", "P2"):
            uid, token = srv.provision_user(name, person_permissions(spec), room_id=room, task_id=table.task)
            rec = SocketRecorder(name).connect(srv.url, uid, token)
            rec.wait_for("joined_room", timeout=WAIT)
            users.append((uid, rec))
        bot_rec_id = bot_id
        (p1, rec1), (p2, _) = users
        # the bot is offline here; the page's envelope to it is refused only for that reason, never for rights
        ack = rec1.call("message_command", {"room": room, "command": {"n": "1"}, "receiver_id": bot_rec_id},
                        timeout=WAIT)
        assert ack == (False, f'User "{bot_rec_id}" is not logged in')
        assert rec1.call("message_command", {"room": room, "command": {"n": "1"}, "receiver_id": p2},
                         timeout=WAIT) is True
        public = rec1.call("text", {"room": room, "message": "hi"}, timeout=WAIT)
        private = rec1.call("text", {"room": room, "message": "hi", "receiver_id": p2}, timeout=WAIT)
        html = rec1.call("text", {"room": room, "message": "<b>hi</b>", "html": True}, timeout=WAIT)
        assert html == (False, "insufficient rights")
        if relay:
            assert public == private == (False, "insufficient rights")
        else:
            assert public is True and private is True
    finally:
        for _, rec in users:
            rec.disconnect()


def test_chat_mode_option_switches_back_to_open_chat_where_the_rules_allow():
    assert DOND.chat_mode({}) == "relay" and DOND.chat_mode({"chat": "open"}) == "open"
    assert person_permissions(DOND, {"chat": "open"})["send_message"] is True
    assert person_permissions(DOND)["send_message"] is False
    with pytest.raises(ValueError, match="relays every line"):
        get_task("mediation").chat_mode({"chat": "open"})
    with pytest.raises(ValueError):
        DOND.chat_mode({"chat": "public"})
    assert {get_task(t).chat for t in ("travel", "gnomes")} == {"open"}
    assert {get_task(t).chat for t in ("dond", "assignment", "planning", "matrix-games", "mediation", "asympuzl")} \
        == {"relay"}


def test_rooms_open_at_once_get_different_instances_unless_the_researcher_shares_them():
    from bots.slurk.instances import OpenInstances
    reg = OpenInstances()
    s1, o1, i1 = reg.claim(1, DOND, 5, dict(PINNED))
    s2, o2, i2 = reg.claim(2, DOND, 6, dict(PINNED))
    assert i1 == DOND.generate(3, {}) and i2 != i1 and o2["pin_dropped"] == 3
    reg.release(1)
    _, o3, i3 = reg.claim(3, DOND, 7, dict(PINNED))
    assert i3 == i1 and "pin_dropped" not in o3        # free again once room 1 closed
    shared = OpenInstances()
    a = shared.claim(1, DOND, 5, {**PINNED, "shared_instance": True})[2]
    b = shared.claim(2, DOND, 6, {**PINNED, "shared_instance": True})[2]
    assert a == b                                       # the researcher asked for it
    restored = OpenInstances()
    restored.restore(9, i1)                             # a room resumed after a restart keeps its instance
    assert restored.claim(10, DOND, 5, dict(PINNED))[2] != i1


def test_setup_plans_relay_tokens_and_warns_about_shared_instances(tmp_path):
    """`setup` (a dry run without a server): dond's participant tokens get no send_message; an explicit
    shared_instance is printed with the reason it is risky; `chat=open` gives send_message back."""
    from bots.study import setup as study_setup
    env = {"SLURK_URL": "http://127.0.0.1:1", "SLURK_ADMIN_TOKEN": "x" * 8}

    def plan(*options):
        out: list[str] = []
        argv = ["dond", "--participants", "2", "--dry-run", "--out", str(tmp_path / "studies")]
        for o in options:
            argv += ["--option", o]
        assert study_setup.main(argv, env=env, echo=out.append) == 0, out
        return "\n".join(out)

    relayed = plan()
    assert "(send_command, send_privately)" in relayed and "shared_instance" not in relayed
    shared = plan("instance=3", "shared_instance=true")
    assert "shared_instance is on" in shared and "read every room's public chat" in shared
    assert "(send_message, send_command, send_privately)" in plan("chat=open")


def test_a_relayed_game_replays_from_slurks_log_with_each_line_once(slurk_double, tmp_path):
    """Relayed lines are private rows, one per person, and escaped (html): the researcher's transcript still shows
    each line once, as written."""
    from bots.study.replay import replay_paths
    from tests.conftest import SlurkServer
    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    bot, [(room, one)] = two_rooms(srv, tmp_path, names=(("Ann", "Ben"),))
    try:
        ann, ben = one["alice"], one["bob"]
        ann.view(), ben.view()
        line = "books & hats <all> for me?"
        assert ann.say(line) is True
        ben.rec.wait_for("text_message", lambda d: "books &amp; hats" in str(d.get("message")), timeout=WAIT)
        assert ann.send("nodeal") is True
        wait_logs(srv, room, "game_end")
    finally:
        finish(bot)
    path = tmp_path / "logs" / f"{room}.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in sorted(srv.logs(room), key=lambda r: r["id"])))
    [g] = replay_paths([str(path)], str(tmp_path / "out"), echo=None).games
    assert g.check == "ok", g.mismatches
    html = open(g.transcript, encoding="utf-8").read()
    assert html.count("books &amp; hats &lt;all&gt; for me?") == 1 and "&amp;amp;" not in html


def test_the_pages_commands_need_send_privately(slurk_server):
    """Why relayed rooms keep `send_privately`: without it Slurk refuses a command addressed to the bot, and a command
    without a receiver goes to everyone in the room (the partner would receive every move and every line)."""
    from tests.slurk_double.recorder import SocketRecorder
    srv = slurk_server
    table = Table(srv, num_users=2, name="perm-check")
    room = table.room()
    recs = []
    try:
        ids = []
        for name, perms in (("Bot", {"send_message": True}), ("P1", {"send_command": True}), ("P2", {})):
            uid, token = srv.provision_user(name, perms, room_id=room, task_id=table.task)
            recs.append(SocketRecorder(name).connect(srv.url, uid, token))
            recs[-1].wait_for("joined_room", timeout=WAIT)
            ids.append(uid)
        bot, p1, p2 = ids
        assert recs[1].call("message_command", {"room": room, "command": {"chat": "x"}, "receiver_id": bot},
                            timeout=WAIT) == (False, "You are not allowed to send privately")
        assert recs[1].call("message_command", {"room": room, "command": {"chat": "x"}}, timeout=WAIT) is True
        recs[2].wait_for("command", lambda d: d["user"]["id"] == p1, timeout=WAIT)   # the partner got it
    finally:
        for r in recs:
            r.disconnect()
