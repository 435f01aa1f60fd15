"""Attacks on seats and rooms, played the way a participant who wants the bonus without the work would: acting as
their partner (`impersonate`), announcing rooms that are not task rooms (`room_created`), sending while the bot is
down, and flooding with oversized input. Over real sockets and HTTP against the Slurk double (ETags off and on) and,
with SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN set, a real Slurk.

Every scenario asserts that nothing was accepted that should not be, nothing was lost and nothing doubled.
"""
from __future__ import annotations

import csv
import json
import sqlite3

from bots.slurk.intake import CAUGHT_UP_TEXT, FORGED_TEXT
from tests.test_slurk_runtime import (
    PEOPLE, WAIT, Person, Table, _poll, finish, logs_of, make_bot, provision_bot, wait_logs,
)

# What `setup` grants a participant: the page sends its commands privately to the bot.
PAGE_PERMS = {"send_message": True, "send_command": True, "send_privately": True}


class Player(Person):
    """A scripted participant with a participant's permissions, who can also send what their page sends."""

    def __init__(self, srv, name: str, room: int, task: int):
        self.srv, self.name, self.room = srv, name, room
        self.id, self.token = srv.provision_user(name, PAGE_PERMS, room_id=room, task_id=task)
        self.rec = None
        self.nonce = 0

    def page(self, command, key: str, bot: int, nonce=None):
        """What the task page sends: the command in an envelope with the seat's key and a fresh nonce."""
        self.nonce += 1
        env = {"key": key, "n": nonce or f"{self.name}-{self.nonce}"}
        env.update({"typed": command} if isinstance(command, str) else command)
        return self.rec.call("message_command", {"room": self.room, "command": env, "receiver_id": bot}, timeout=WAIT)

    def forge(self, event: str, payload: dict, victim: int):
        return self.rec.call(event, {"room": self.room, **payload, "impersonate": victim}, timeout=WAIT)


def _start_pair(srv, tmp_path, **kw):
    table = Table(srv, num_users=2)
    room = table.room()
    credentials = provision_bot(srv)
    bot = make_bot(srv, table, tmp_path, person_seats=2, credentials=credentials, **kw)
    bot.start()
    alice = Player(srv, "Alice", room, table.task).connect()
    bob = Player(srv, "Bob", room, table.task).connect()
    alice.announce(room, table.task)
    va = alice.wait_view(lambda v: v["core"]["phase"] == "playing")
    vb = bob.wait_view(lambda v: v["core"]["phase"] == "playing")
    first, second = (alice, bob) if va["core"]["seat"] == "a" else (bob, alice)
    return table, room, bot, credentials, first, second


def _inputs(srv, room: int) -> list[dict]:
    return [x["data"]["input"] for x in logs_of(srv, room, "game_input")]


def test_a_person_cannot_act_or_speak_as_their_partner(slurk_server, tmp_path):
    srv = slurk_server
    table, room, bot, _creds, a, b = _start_pair(srv, tmp_path)
    try:
        key_a = a.wait_view()["core"]["key"]
        key_b = b.wait_view()["core"]["key"]
        assert key_a and key_b and key_a != key_b
        # b, in a's name: a typed command, a page action, a chat line, an envelope with a guessed key
        assert b.forge("message_command", {"command": "propose 5"}, a.id) is True
        assert b.forge("text", {"message": "I give up, you win"}, a.id) is True
        assert b.forge("message_command", {"command": {"key": "guess", "n": "x1", "typed": "propose 6"},
                                           "receiver_id": bot.user_id}, a.id) is True
        b.wait_message(FORGED_TEXT, private=True, count=3)
        # a's own moves count: typed (checked against Slurk's log) and from the page (key), acknowledged
        a.command("propose 3")
        b.wait_view(lambda v: v["pending"] == 3)
        assert b.page("agree", key_b, bot.user_id, nonce="b-agree") is True
        seen = b.wait_view(lambda v: v["agreed"] == 3 and v["core"].get("ack") == "b-agree")
        assert seen["core"]["key"] == key_b
        # the same envelope again (a replay) changes nothing
        assert b.page("agree", key_b, bot.user_id, nonce="b-agree") is True
        a.command("help")
        a.wait_message("Commands:", private=True)
        refused = wait_logs(srv, room, "input_refused", count=3)
        assert {r["data"]["reason"] for r in refused} == {"impersonation"}
        assert all(r["data"]["claimed_seat"] == "a" and r["data"]["sender_seat"] == "b" for r in refused)
        inputs = _inputs(srv, room)
        assert not any(i.get("name") == "propose" and i.get("args") in (["5"], ["6"]) for i in inputs)
        assert not any(i.get("type") == "Chat" for i in inputs)
        assert sum(1 for i in inputs if i.get("name") == "agree") == 1
        # neither person ever received the other's key
        assert key_a not in json.dumps(b.rec.events) and key_b not in json.dumps(a.rec.events)
        assert not a.rec.of("text_message", lambda d: FORGED_TEXT in str(d.get("message")))
        # the game ends normally; replaying Slurk's log reproduces it and names the refused attempts
        a.command("submit")
        b.page("submit", key_b, bot.user_id)
        a.wait_view(lambda v: v["core"]["phase"] == "over")
        wait_logs(srv, room, "game_end")
        wait_logs(srv, room, "confirmation_log", count=2)
        log_file = tmp_path / "logs" / f"room-{room}.jsonl"
        log_file.parent.mkdir()
        log_file.write_text("".join(json.dumps(r) + "\n" for r in srv.logs(room)), encoding="utf-8")
        from bots.study.replay import replay_paths
        from tests.toygame import SPEC as TOY

        replay_paths([str(log_file)], str(tmp_path / "out"), echo=None, resolve=lambda name: TOY)
        with open(tmp_path / "out" / "summary.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        assert len(rows) == 1 and rows[0]["status"] == "completed"
        assert "3 input(s) sent in another participant's name were refused (b as a)" in rows[0]["mismatches"]
    finally:
        finish(bot)


def test_announcing_a_room_that_is_not_a_task_room_changes_nothing(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    waiting_layout = srv.create_layout({"title": "Waiting", "html": [], "show_users": True})
    waiting = table.room(waiting_layout)
    other = Table(srv, num_users=1, name="other-study")
    theirs = other.room()
    bot = make_bot(srv, table, tmp_path, waiting_room=None)
    bot.start()
    try:
        mallory = Player(srv, "Mallory", waiting, table.task).connect()
        assert mallory.announce(waiting, table.task) is True          # the waiting room, as our task
        intruder = Player(srv, "Eve", theirs, other.task).connect()
        assert intruder.announce(theirs, table.task) is True          # another study's room, as our task
        # and a real one, so we know the announcements above were handled (events are handled in order)
        room = table.room()
        carol = Player(srv, "Carol", room, table.task).connect()
        carol.announce(room, table.task)
        carol.wait_view(lambda v: v["core"]["phase"] == "playing")
        member_of = {r["id"] for r in srv.api("GET", f"users/{bot.user_id}/rooms").json()}
        assert waiting not in member_of and theirs not in member_of and room in member_of
        assert not logs_of(srv, waiting, "game_start") and not logs_of(srv, theirs, "game_start")
        assert bot.room(waiting) is None and bot.room(theirs) is None
    finally:
        finish(bot)


def test_a_person_of_another_task_gets_no_seat(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=2)
    other = Table(srv, num_users=2, name="other-study")
    room = table.room()
    bot = make_bot(srv, table, tmp_path, person_seats=2)
    bot.start()
    try:
        eve = Player(srv, "Eve", room, other.task).connect()   # a token of another study, in our room
        alice = Player(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        _poll(lambda: bot.room(room) is not None and bot.room(room).people.seat_of(alice.id) is not None)
        alice.rec.wait_for("text_update", lambda d: '"key"' in str(d.get("text")), timeout=WAIT)
        assert bot.room(room).people.seat_of(eve.id) is None
        assert not eve.rec.of("text_update", lambda d: '"key"' in str(d.get("text")))
    finally:
        finish(bot)


def test_inputs_sent_while_the_bot_is_down_are_handled_once_after_the_restart(slurk_server, tmp_path):
    srv = slurk_server
    table, room, bot, creds, a, b = _start_pair(srv, tmp_path)
    bot2 = None
    try:
        key_a = a.wait_view()["core"]["key"]
        a.command("propose 4")
        b.wait_view(lambda v: v["pending"] == 4)
        bot.stop()  # as after kill -9: open rooms stay in the state file
        # Slurk accepts and logs these while nobody handles them
        assert b.command("agree") is True
        assert a.say("great, 4 it is") is True
        # the page cannot send privately to an offline bot: it is told so (nothing silently lost)
        refused = a.page("submit", key_a, bot.user_id)
        assert refused != True  # noqa: E712 - the ack is (False, reason)
        bot2 = make_bot(srv, table, tmp_path, person_seats=2, credentials=creds)
        bot2.start()
        a.wait_view(lambda v: v["agreed"] == 4)
        b.wait_message(CAUGHT_UP_TEXT.split(".")[0], private=True)
        a.wait_message(CAUGHT_UP_TEXT.split(".")[0], private=True)
        a.command("submit")
        b.command("submit")
        a.wait_view(lambda v: v["core"]["phase"] == "over")
        over = wait_logs(srv, room, "game_end")[-1]["data"]  # the room's rows are shipped in order: all are in
        inputs = _inputs(srv, room)
        assert sum(1 for i in inputs if i.get("name") == "agree") == 1
        assert sum(1 for i in inputs if i.get("type") == "Chat") == 1
        assert over["results"]["chats"] == 1 and over["results"]["agreed"] == 4
    finally:
        finish(*(x for x in (bot, bot2) if x is not None))


def test_oversized_input_is_refused_before_anything_is_stored(slurk_server, tmp_path):
    srv = slurk_server
    table, room, bot, _creds, a, b = _start_pair(srv, tmp_path)
    try:
        key_a = a.wait_view()["core"]["key"]
        big = "x" * 300_000
        a.say(big)
        a.command("propose " + big)
        a.page({"command": "propose", "args": [big]}, key_a, bot.user_id)
        a.wait_message("too large", private=True, count=3)
        a.command("help")
        a.wait_message("Commands:", private=True)
        refused = wait_logs(srv, room, "input_refused", count=3)
        assert all(r["data"]["reason"] == "too_long" and len(json.dumps(r)) < 1000 for r in refused)
        bot_logs = [x for x in srv.logs(room) if x["event"] not in ("text_message", "command")]
        assert max(len(json.dumps(x)) for x in bot_logs) < 20_000  # nothing of the payloads was re-posted
        bot.stop()
        db = sqlite3.connect(str(tmp_path / "state.sqlite3"))
        assert max(len(r[0]) for r in db.execute("SELECT input FROM inputs")) < 1000
        assert not b.rec.of("text_message", lambda d: "too large" in str(d.get("message")))
        # Slurk keeps the payloads in its log; the transcript made from that log shows only their beginnings
        log_file = tmp_path / "logs" / f"room-{room}.jsonl"
        log_file.parent.mkdir()
        log_file.write_text("".join(json.dumps(r) + "\n" for r in srv.logs(room)), encoding="utf-8")
        assert log_file.stat().st_size > 900_000
        from bots.study.replay import replay_paths
        from tests.toygame import SPEC as TOY

        replay_paths([str(log_file)], str(tmp_path / "out"), echo=None, resolve=lambda name: TOY)
        pages = list((tmp_path / "out").rglob("*.html"))
        assert pages and all(p.stat().st_size < 100_000 for p in pages)
    finally:
        finish(bot)


def test_the_bot_leaves_a_finished_room_even_if_someone_never_comes_back(slurk_server, tmp_path, monkeypatch):
    from bots.slurk import rooms
    from tasks.core.match import TimerConfig

    monkeypatch.setattr(rooms, "KEEP_FOR_ABSENT_SECONDS", 1.0)
    srv = slurk_server
    table, room, bot, _creds, a, b = _start_pair(srv, tmp_path, timers=TimerConfig(partner_left_grace=0.5))
    try:
        b.disconnect()          # b leaves for good: the game ends, and b's code can never be delivered
        a.wait_view(lambda v: v["core"]["phase"] == "over")
        _poll(lambda: room not in {r["id"] for r in srv.api("GET", f"users/{bot.user_id}/rooms").json()})
        assert bot.room(room) is None
    finally:
        finish(bot)


def test_the_state_file_is_readable_by_its_owner_only(tmp_path):
    import os
    import stat

    from bots.slurk.store import RoomRecord, RoomStore

    path = str(tmp_path / "state.sqlite3")
    store = RoomStore(path, server="http://x", bot_user=1)
    try:
        store.open_room(RoomRecord(1, "toy", 7, {}, {"a": {"kind": "person", "key": "secret"}}))
        for name in os.listdir(tmp_path):  # the database and, while it is open, its -wal and -shm files
            assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600, name
    finally:
        store.close()


def test_a_transcript_shows_only_the_beginning_of_a_huge_line():
    from bots.study.replay_timeline import MAX_SHOWN_CHARS, clip

    assert clip("short") == "short"
    shown = clip("y" * 900_000)
    assert len(shown) < MAX_SHOWN_CHARS + 60 and "900,000 characters" in shown
