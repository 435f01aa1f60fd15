"""The Slurk runtime (bots.slurk.runtime.SlurkBot) over real sockets and real HTTP: against the test double, with
ETags off and on, and against a real Slurk server when SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN are set.

Scripted people are real python-socketio clients logged in as provisioned users; the task is tests/toygame.py.
Waits are bounded polls for events (never assertions about durations).
"""
from __future__ import annotations

import json
import threading
from typing import Optional


from bots.config import Config, SlurkSettings
from bots.slurk.delivery import Delivery
from bots.slurk.metrics import Metrics, Turn
from bots.slurk.people import RoomPeople
from bots.slurk.shipping import PageUpdates
from bots.slurk.rest import SlurkAPIError
from bots.slurk.runtime import SlurkBot
from bots.slurk.timers import Scheduler
from tasks.core import Match, MatchDriver, SeatInfo, TaskSpec, input_from_json
from tasks.core.protocol import LogEvent, Message, View
from tests.slurk_double.recorder import SocketRecorder
from tests.toygame import SPEC, PickNumber, ToyBrain

WAIT = 10  # seconds, upper bound of every wait (generous for a real server)
BOT_PERMS = {"api": True, "send_message": True, "send_html_message": True, "send_privately": True,
             "send_command": True}
PERSON_PERMS = {"send_message": True, "send_command": True}
STATE = SPEC.state_element
TOY_LAYOUT = {"title": "Pick a number", "subtitle": "runtime test",
              "html": [{"layout-type": "div", "id": STATE}, {"layout-type": "div", "id": "other"}],
              "show_users": True, "show_latency": False}


# ----------------------------------------------------------------------------------------------------------------
# helpers (imported by test_slurk_faults.py)



def _playing(update: dict) -> bool:
    return json.loads(update["text"]).get("core", {}).get("phase") != "waiting"

class Table:
    """A task (toy) with its layout, plus rooms created on demand."""

    def __init__(self, srv, num_users: int = 2, name: str = "toy"):
        self.srv = srv
        self.layout = srv.create_layout(TOY_LAYOUT)
        self.task = srv.create_task(name, num_users, self.layout)

    def room(self, layout: Optional[int] = None) -> int:
        resp = self.srv.api("POST", "rooms", json={"layout_id": layout or self.layout})
        assert resp.status_code == 201, resp.text
        return resp.json()["id"]


PEOPLE: list = []  # every connected Person; finish() disconnects them before the server stops


def finish(*bots) -> None:
    """Stop the bots and disconnect every person (a server-side disconnect at teardown costs seconds)."""
    for bot in bots:
        bot.stop()
    while PEOPLE:
        PEOPLE.pop().disconnect()


class Person:
    """A scripted person: a provisioned user whose token lands in `room`, with a recording socket."""

    def __init__(self, srv, name: str, room: int, task: Optional[int] = None):
        self.srv, self.name, self.room = srv, name, room
        self.id, self.token = srv.provision_user(name, PERSON_PERMS, room_id=room, task_id=task)
        self.rec: Optional[SocketRecorder] = None

    def connect(self) -> "Person":
        self.rec = SocketRecorder(self.name).connect(self.srv.url, self.id, self.token)
        PEOPLE.append(self)
        self.rec.wait_for("joined_room", lambda d: d["room"] == self.room, timeout=WAIT)
        return self

    def disconnect(self) -> None:
        if self.rec:
            self.rec.disconnect()

    def command(self, command) -> object:
        return self.rec.call("message_command", {"room": self.room, "command": command}, timeout=WAIT)

    def say(self, text: str) -> object:
        return self.rec.call("text", {"room": self.room, "message": text}, timeout=WAIT)

    def announce(self, room: Optional[int] = None, task: Optional[int] = None) -> object:
        """What a concierge does after moving people: emit room_created so task bots get new_task_room."""
        return self.rec.call("room_created", {"room": room or self.room, "task": task}, timeout=WAIT)

    def views(self) -> list[dict]:
        return [json.loads(d["text"]) for d in self.rec.of("text_update", lambda d: d.get("id") == STATE)]

    def wait_view(self, pred=lambda v: True, count: int = 1, timeout: float = WAIT) -> dict:
        # Views of a game still waiting for players hold only the core part (the page's seat and the bot's id).
        found = self.rec.wait_for("text_update", lambda d: d.get("id") == STATE and _playing(d) and
                                  pred(json.loads(d["text"])), count=count, timeout=timeout)
        return json.loads(found[-1]["text"])

    def bot_messages(self, pred=lambda d: True, private: Optional[bool] = None) -> list[dict]:
        return self.rec.of("text_message", lambda d: d["user"]["id"] != self.id and pred(d)
                           and (private is None or d["private"] == private))

    def wait_message(self, needle: str, private: Optional[bool] = None, count: int = 1, timeout: float = WAIT) -> dict:
        found = self.rec.wait_for("text_message", lambda d: needle in str(d.get("message"))
                                  and (private is None or d["private"] == private), count=count, timeout=timeout)
        return found[-1]


def bot_config(srv, bot_id: int, bot_token: str, task: int, db: str, **kw) -> Config:
    slurk = SlurkSettings(url=srv.url, token=bot_token, user_id=bot_id, task_id=task,
                          waiting_room=kw.pop("waiting_room", None), auth_timeout=kw.pop("auth_timeout", 3.0),
                          etag="auto")
    return Config(slurk=slurk, state_db=db, **kw)


def provision_bot(srv, room: Optional[int] = None, name: str = "ToyBot") -> tuple[int, str]:
    return srv.provision_user(name, BOT_PERMS, room_id=room)


def make_bot(srv, table: Table, tmp_path, *, room: Optional[int] = None, spec: TaskSpec = SPEC,
             credentials: Optional[tuple[int, str]] = None, **kw) -> SlurkBot:
    bot_id, bot_token = credentials or provision_bot(srv, room)
    kw.setdefault("person_seats", 1)
    cfg = bot_config(srv, bot_id, bot_token, table.task, str(tmp_path / "state.sqlite3"), **kw)
    return SlurkBot(cfg, spec)


def _poll(pred, timeout: float = WAIT) -> None:
    import time as _t
    deadline = _t.monotonic() + timeout
    while not pred():
        assert _t.monotonic() < deadline, "condition not reached"
        _t.sleep(0.05)


def logs_of(srv, room: int, event: Optional[str] = None) -> list[dict]:
    return [x for x in srv.logs(room) if event is None or x["event"] == event]


def wait_logs(srv, room: int, event: str, count: int = 1, timeout: float = WAIT) -> list[dict]:
    import time as _t
    deadline = _t.monotonic() + timeout
    while True:
        found = logs_of(srv, room, event)
        if len(found) >= count or _t.monotonic() > deadline:
            assert len(found) >= count, f"expected {count} {event!r} logs in room {room}, got {len(found)}"
            return found
        _t.sleep(0.05)


def rebuild_from_logs(srv, room: int) -> Match:
    """A game rebuilt from Slurk's logs alone: game_start (seed, options, seats) + the game_input stream."""
    logs = srv.logs(room)
    start = [x for x in logs if x["event"] == "game_start"][-1]["data"]
    inputs = sorted((x["data"] for x in logs if x["event"] == "game_input"), key=lambda d: d["seq"])
    seats = {s: SeatInfo(**i) for s, i in start["seats"].items()}
    match = Match(PickNumber(start["seed"], start["options"]), seats)
    MatchDriver(match, {}).replay([input_from_json(d["input"]) for d in inputs])
    return match


def play_against_brain(alice: Person) -> dict:
    """Alice (seat a) counters the brain's proposal with a neighbouring number, which the brain accepts (saying
    "ok"), then both submit. Returns Alice's final view."""
    v = alice.wait_view(lambda v: v["core"]["phase"] == "playing" and v["pending"] is not None)
    mine = v["pending"] + 1 if v["pending"] < 9 else v["pending"] - 1
    assert alice.command(f"propose {mine}") is True
    alice.wait_view(lambda v: v["agreed"] == mine)
    assert alice.command("submit") is True
    return alice.wait_view(lambda v: v["core"]["phase"] == "over")


# ----------------------------------------------------------------------------------------------------------------
# scenarios


def test_person_plays_a_brain_to_the_end(slurk_server, tmp_path):
    """The basic game, on the double (ETags off/on) and a real Slurk: the bot sits in a waiting room, joins the
    task room announced by new_task_room, seats the person, lets its brain play, ends and closes the room, and
    logs enough to rebuild the game from Slurk's logs alone."""
    srv = slurk_server
    table = Table(srv, num_users=1)
    waiting = srv.create_room()  # another layout: the bot's landing room, never played in
    room = table.room()
    bot = make_bot(srv, table, tmp_path, room=waiting, waiting_room=waiting)
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        assert alice.announce(room, table.task) is True
        hello = alice.wait_message("Agree on a number")
        assert hello["private"] is False and hello["user"]["id"] == bot.user_id
        first = alice.wait_view(lambda v: v["core"]["phase"] == "playing")
        assert first["core"]["seat"] == "a" and set(first) >= {"favourite", "pending", "agreed", "turn"}
        final = play_against_brain(alice)
        assert final["core"]["status"] == "completed" and final["agreed"] is not None
        code = final["core"]["code"]
        msg = alice.wait_message(code, private=True)
        assert "completion code" in msg["message"]
        # the brain's chat ("ok") is shown under its seat name; Alice's own text is never re-sent by the bot
        alice.wait_message("B: ok", private=False)
        # the room is closed for her: read-only input with a placeholder
        alice.rec.wait_for("attribute_update", lambda d: d == {"attribute": "readonly", "value": "true", "id": "text"},
                           timeout=WAIT)
        alice.rec.wait_for("attribute_update", lambda d: d["attribute"] == "placeholder", timeout=WAIT)

        conf = wait_logs(srv, room, "confirmation_log")
        wait_logs(srv, room, "game_end")
        assert conf[0]["receiver_id"] == alice.id
        assert conf[0]["data"]["confirmation_token"] == code and conf[0]["data"]["status_txt"] == "success"
        assert conf[0]["data"]["receiver_seat"] == "a"
        seat_map = logs_of(srv, room, "seat_map")
        assert [x["data"] for x in seat_map] == [{"a": alice.id, "b": None}]
        end = wait_logs(srv, room, "game_end")[0]["data"]
        rebuilt = rebuild_from_logs(srv, room)
        assert rebuilt.over and rebuilt.status == "completed"
        assert rebuilt.game.results()["agreed"] == end["results"]["agreed"] == final["agreed"]
        # nothing was played in the waiting room, and the store knows the game is over
        assert not logs_of(srv, waiting, "game_start")
        assert bot.store.status(room) == "completed"
        # the bot leaves the finished room (its own messages would otherwise fan out to every old room)
        _poll(lambda: room not in [r["id"] for r in srv.api("GET", f"users/{bot.user_id}/rooms").json()])
        assert waiting in [r["id"] for r in srv.api("GET", f"users/{bot.user_id}/rooms").json()]
    finally:
        finish(bot)


def test_member_room_with_the_task_layout_is_played_without_announcement(slurk_double, tmp_path):
    """slurk-bots' default set-up without a waiting room: the bot's token lands in the task room itself."""
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    other = srv.create_room()  # a member room with another layout: not a task room
    bot_id, bot_token = provision_bot(srv, room)
    srv.api("POST", f"users/{bot_id}/rooms/{other}")
    alice = Person(srv, "Alice", room, table.task).connect()
    bot = make_bot(srv, table, tmp_path, credentials=(bot_id, bot_token))
    bot.start()
    try:
        play_against_brain(alice)
        assert wait_logs(srv, room, "game_start") and not logs_of(srv, other, "game_start")
    finally:
        finish(bot)


def test_two_people_see_only_their_own_view(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=2)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, person_seats=2)
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        bob = Person(srv, "Bob", room, table.task).connect()
        alice.announce(room, table.task)
        va = alice.wait_view(lambda v: v["core"]["phase"] == "playing")
        vb = bob.wait_view(lambda v: v["core"]["phase"] == "playing")
        seats = {va["core"]["seat"], vb["core"]["seat"]}
        assert seats == {"a", "b"}
        first, second = (alice, bob) if va["core"]["seat"] == "a" else (bob, alice)
        # a bad move is answered privately to its sender only
        first.command("dance")
        err = first.wait_message("Unknown command /dance", private=True)
        assert err["user"]["id"] == bot.user_id
        assert first.command("propose 4") is True
        second.wait_view(lambda v: v["pending"] == 4)
        second.command("agree")
        first.wait_view(lambda v: v["agreed"] == 4)
        first.command("submit")
        second.wait_message("submitted 4")
        second.command("submit")
        fa = alice.wait_view(lambda v: v["core"]["phase"] == "over")
        fb = bob.wait_view(lambda v: v["core"]["phase"] == "over")
        assert fa["core"]["code"] and fb["core"]["code"] and fa["core"]["code"] != fb["core"]["code"]
        # private views and messages never reached the other person
        assert all(v["core"]["seat"] == va["core"]["seat"] for v in alice.views())
        assert all(v["core"]["seat"] == vb["core"]["seat"] for v in bob.views())
        assert not second.bot_messages(lambda d: "Unknown command" in d["message"])
        assert not alice.bot_messages(lambda d: fb["core"]["code"] in d["message"])
        assert not bob.bot_messages(lambda d: fa["core"]["code"] in d["message"])
        # the bot's own join/messages (echoed to it) never gave it a seat
        seat_map = wait_logs(srv, room, "seat_map")[0]["data"]
        assert set(seat_map.values()) == {alice.id, bob.id} and bot.user_id not in seat_map.values()
    finally:
        finish(bot)


def test_update_for_an_offline_person_is_delivered_after_their_join(slurk_double, tmp_path):
    """Bob is offline when his view changes: the per-user update (here forced into a real 422 by making the bot
    believe he is online) is kept and delivered after his `status: join`."""
    srv = _server(slurk_double)
    table = Table(srv, num_users=2)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, person_seats=2)
    statuses: list[int] = []
    set_text = bot.rest.set_text

    def spy(*a, **kw):
        try:
            return set_text(*a, **kw)
        except SlurkAPIError as exc:
            statuses.append(exc.status)
            raise

    bot.rest.set_text = spy
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        bob = Person(srv, "Bob", room, table.task).connect()
        alice.announce(room, table.task)
        va = alice.wait_view(lambda v: v["core"]["phase"] == "playing")
        bob.wait_view(lambda v: v["core"]["phase"] == "playing")
        bob.disconnect()
        alice.wait_message("left the room")
        bot.room(room).people.online.add(bob.id)  # stale belief: the next update for Bob meets a 422
        n = 3 if va["core"]["seat"] == "a" else 2
        alice.command(f"propose {n}")
        alice.wait_view(lambda v: v["pending"] == n)
        alice.command("help")
        alice.wait_message("Commands:")  # the room's queue is ordered: everything before help was handled
        _poll(lambda: 422 in statuses)
        _poll(lambda: bot.room(room).delivery.pending)  # kept for Bob (the 422 comes back asynchronously)
        bob.connect()
        back = bob.wait_view(lambda v: v["pending"] == n)
        assert back["core"]["seat"] != va["core"]["seat"]
        alice.wait_message("is back")
        assert not bot.room(room).delivery.pending
    finally:
        finish(bot)


def test_new_task_room_of_another_task_is_ignored(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    other_task = srv.create_task("not ours", 1, table.layout)
    ours, theirs = table.room(), table.room()
    bot = make_bot(srv, table, tmp_path)
    bot.start()
    try:
        carol = Person(srv, "Carol", theirs, other_task).connect()
        alice = Person(srv, "Alice", ours, table.task).connect()
        carol.announce(theirs, other_task)
        alice.announce(ours, table.task)
        alice.wait_view(lambda v: v["core"]["phase"] == "playing")
        rooms = [r["id"] for r in srv.api("GET", f"users/{bot.user_id}/rooms").json()]
        assert ours in rooms and theirs not in rooms
        assert not logs_of(srv, theirs, "game_start")
        assert not carol.bot_messages()
    finally:
        finish(bot)


def test_bad_input_is_answered_privately_and_changes_nothing(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    bot = make_bot(srv, table, tmp_path)
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)  # the brain proposed and now waits
        game = bot.room(room).match.game
        assert alice.command("poke") is True  # in turn: a -> b
        alice.wait_view(lambda v: v["turn"] == "b")
        before = (len(alice.views()), game.pokes, game.agreed, game.proposals.pending.value)

        cases = [
            ("dance", "Unknown command /dance"),
            ("poke", "turn"),                                        # out of turn
            ("propose 42", "Usage: /propose N"),                     # malformed
            (["not", "a", "dict"], "expected a JSON object"),        # non-dict UI payload
            ({"command": "propose", "args": ["9" * 5000]}, "too large"),  # oversized UI payload
            ({"command": 7}, "not understood"),
        ]
        for command, needle in cases:
            assert alice.command(command) is True
            msg = alice.wait_message(needle, private=True)
            assert msg["user"]["id"] == bot.user_id
        alice.say("<script>alert(1)</script><b>bold</b>")
        alice.command("help")
        alice.wait_message("Commands:", private=True)  # ordered: every input above has been handled
        game = bot.room(room).match.game
        assert (len(alice.views()), game.pokes, game.agreed, game.proposals.pending.value) == before
        # the bot never repeats a person's text, least of all as HTML
        assert not alice.bot_messages(lambda d: "alert(1)" in str(d["message"]))
        assert not alice.bot_messages(lambda d: d.get("html") and "<script" in str(d["message"]))
        rejected = wait_logs(srv, room, "move_rejected", count=4)
        assert all(x["data"]["seat"] == "a" for x in rejected)
    finally:
        finish(bot)


def test_announced_room_that_does_not_exist_is_logged_and_skipped(slurk_double, tmp_path, caplog):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    bot = make_bot(srv, table, tmp_path)
    bot.start()
    try:
        bot._on_new_task_room({"room": 987654, "task": table.task, "users": []})  # as if Slurk had sent it
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        play_against_brain(alice)
        assert any("987654" in r.getMessage() and "Room `987654` does not exist" in r.getMessage()
                   for r in caplog.records)
    finally:
        finish(bot)


# ----------------------------------------------------------------------------------------------------------------
# concurrency: a slow brain in one room does not delay another room


class GatedBrain(ToyBrain):
    """A ToyBrain; while GATE is armed, the first act() blocks until the test opens the gate."""

    name = "gated"


class _Gate:
    def __init__(self):
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()

    def maybe_block(self):
        with self.lock:
            block, self.armed = self.armed, False
        if block:
            self.entered.set()
            self.release.wait(30)


GATE = _Gate()


def _gated_act(self):
    GATE.maybe_block()
    return ToyBrain.act(self)


GatedBrain.act = _gated_act
GATED_SPEC = TaskSpec(name="toy", title="Pick a number", game_class=PickNumber, brains={"gated": GatedBrain},
                      default_brains=("gated", "gated"), state_element=STATE)


def test_slow_brain_in_one_room_does_not_delay_another(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room1, room2 = table.room(), table.room()
    bot = make_bot(srv, table, tmp_path, spec=GATED_SPEC)
    bot.start()
    try:
        alice1 = Person(srv, "Alice1", room1, table.task).connect()
        alice1.announce(room1, table.task)
        alice1.wait_view(lambda v: v["pending"] is not None)
        GATE.armed = True
        alice1.command("reject")  # room 1's brain blocks in its next act() (this one or a trailing one)
        assert GATE.entered.wait(WAIT)
        stuck = bot.room(room1).match.game.proposals
        alice2 = Person(srv, "Alice2", room2, table.task).connect()
        alice2.announce(room2, table.task)
        final = play_against_brain(alice2)  # a whole game in room 2 while room 1's brain is stuck
        assert final["core"]["status"] == "completed"
        assert not GATE.release.is_set()
        assert stuck.pending is None or stuck.pending.id == 1  # room 1 made no new proposal meanwhile
        GATE.release.set()
        alice1.wait_view(lambda v: v["pending"] is not None and v["left"] < 6)  # room 1 carries on
    finally:
        GATE.release.set()
        finish(bot)


# ----------------------------------------------------------------------------------------------------------------
# units: echo filter, one client per instance, delivery keeping, scheduler, metrics


def test_own_echo_is_dropped_even_with_string_ids(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv)
    bot = make_bot(srv, table, tmp_path)
    other = make_bot(srv, table, tmp_path)
    assert bot.sio is not other.sio  # one socket.io client per bot instance
    seen = []
    bot._dispatch = lambda room, kind, data, t, create=True: seen.append((room, kind))
    bot._on_room_event("text", {"user": {"id": str(bot.user_id), "name": "ToyBot"}, "room": 1, "message": "x"})
    bot._on_room_event("status", {"type": "join", "user": {"id": bot.user_id}, "room": 1})
    bot._on_room_event("command", {"user": {"id": bot.user_id + 1000}, "room": "1", "command": "x"})
    bot._on_new_task_room({"room": 5, "task": table.task + 1, "users": []})
    bot._on_new_task_room({"room": 6, "task": str(table.task), "users": []})
    assert seen == [(1, "command"), (6, "announce")]
    assert "***" in repr(bot) and bot._token not in repr(bot)


class _FakeRest:
    def __init__(self):
        self.calls = []
        self.offline = set()

    def set_text(self, room, element, text, receiver_id=None):
        if receiver_id in self.offline:
            raise SlurkAPIError(422, "The request was well-formed but was unable to be followed")
        self.calls.append(("text", element, text, receiver_id))

    def set_attribute(self, room, element, attribute, value, receiver_id=None):
        self.calls.append(("attr", element, attribute, receiver_id))

    def post_log(self, event, room_id=None, data=None, receiver_id=None):
        self.calls.append(("log", event, data, receiver_id))


class _FakeSocket:
    """Acks `text` like Slurk: True, or (False, reason) for an offline receiver; `hold` delays the acks."""

    def __init__(self, rest):
        self.rest = rest
        self.sent = []
        self.hold = False
        self.waiting = []

    def emit(self, event, payload, namespace=None, callback=None):
        self.sent.append((payload["message"], payload.get("receiver_id")))
        receiver = payload.get("receiver_id")
        ack = (False, f'User "{receiver}" is not logged in') if receiver in self.rest.offline else (True,)
        if self.hold:
            self.waiting.append((callback, ack))
        else:
            callback(*ack)

    def release(self):
        """Ack the messages in flight now (not the ones these acks let out)."""
        waiting, self.waiting = self.waiting, []
        for callback, ack in waiting:
            callback(*ack)


def _people():
    """Seat "a" is a person (user 7, online), seat "b" an agent."""
    people = RoomPeople()
    people.seats = {"a": {"kind": "person", "name": "A", "user_id": 7},
                    "b": {"kind": "agent", "name": "B", "user_id": None}}
    people.online, people.join_gen = {7}, {7: 1}
    return people


class _FakeLogs:
    def __init__(self, rest):
        self.rest = rest

    def post(self, room, event, data, receiver_id=None, turn=None):
        self.rest.post_log(event, room, data, receiver_id)


class _FakePages:
    """PageUpdates, but synchronous."""

    def __init__(self, rest):
        self.real = PageUpdates.__new__(PageUpdates)
        self.real.rest, self.real.state_element = rest, STATE

    def hold(self, room, seconds):  # synchronous: nothing waits
        pass

    def release(self, room):
        pass

    def submit(self, delivery, seat, uid, item, turn, gen=0):
        try:
            self.real._send(delivery.room, uid, item)
        except SlurkAPIError as exc:
            assert exc.status == 422
            delivery.bounced(seat, item, gen)


class _FakeBot:
    def __init__(self):
        self.rest = _FakeRest()
        self.logs = _FakeLogs(self.rest)
        self.pages = _FakePages(self.rest)
        self.sio = _FakeSocket(self.rest)
        self.spec = SPEC
        self.chat = SPEC.chat
        self.metrics = Metrics()
        self.connected = True
        self.stopping = False
        self.gen = 0
        self.user_id = 1


def _delivery():
    """A delivery for a room of person "a" and agent "b"; its game-over and timer effects are recorded in
    `bot.called`, and what bounces is kept at once (the real room does that on its own thread)."""
    bot = _FakeBot()
    bot.called = []
    d = Delivery(bot, 1, _people(), parts_of=lambda seat: None, on_timer=bot.called.append,
                 on_game_over=bot.called.append, on_bounce=lambda seat, item, gen: d.kept(seat, item, gen))
    return bot, d


CORE = {"bot": 1, "chat": SPEC.chat, "users": {"a": 7}}  # what the delivery adds to seat "a"'s views


def test_delivery_keeps_updates_for_offline_people_and_coalesces_views():
    bot, d = _delivery()
    bot.rest.offline.add(7)
    d.deliver([View("a", {"n": 1}), Message("private", to="a"), View("a", {"n": 2}), Message("public"),
               LogEvent("e", {"k": 1}, to="a"), View("b", {"n": 9})])
    # the view met a 422 and was kept; from then on everything for "a" is kept in order, views coalesced
    assert [i[0] for i in d.pending["a"]] == ["msg", "view"] and d.pending["a"][1][1] == {"n": 2, "core": CORE}
    assert bot.sio.sent == [("public", None)]  # agent seat b's view is not sent anywhere
    assert ("log", "e", {"k": 1, "receiver_seat": "a"}, 7) in bot.rest.calls
    assert 7 not in d.people.online
    bot.rest.offline.clear()
    d.people.online.add(7)
    d.flush("a")
    assert bot.sio.sent[-1] == ("private", 7)
    assert bot.rest.calls[-1] == ("text", STATE, json.dumps({"n": 2, "core": CORE}, sort_keys=True), 7)
    assert not d.has_pending()


def test_private_message_bounced_by_slurk_is_kept_for_later():
    bot, d = _delivery()
    bot.rest.offline.add(7)  # the bot believes 7 is online, Slurk says "not logged in"
    d.deliver([Message("your code is X", to="a")])
    assert d.pending["a"] == [("msg", "your code is X", False)] and 7 not in d.people.online
    bot.rest.offline.clear()
    d.people.online.add(7)
    d.flush("a")
    assert bot.sio.sent[-1] == ("your code is X", 7) and not d.has_pending()


def test_stale_bounces_are_dropped_or_resent_not_kept():
    """A 422/"not logged in" that comes back late must not hide updates from a person who is back already."""
    bot, d = _delivery()
    w = d.people
    d.to_seat("a", ("view", {"n": 1}))
    old_view = ("view", {"n": 1}, 1)
    d.to_seat("a", ("view", {"n": 2}))
    d.kept("a", old_view, 1)  # superseded by view 2: dropped, and "a" stays online
    assert not d.has_pending() and 7 in w.online
    w.join_gen[7] = 2  # "a" left and came back after this message was sent
    d.kept("a", ("msg", "code X", False), 1)
    assert bot.sio.sent[-1] == ("code X", 7) and not d.has_pending() and 7 in w.online
    d.kept("a", ("msg", "code Y", False), 2)  # bounced in the current visit: really offline, keep it
    assert d.pending["a"] == [("msg", "code Y", False)] and 7 not in w.online


def test_emitter_keeps_one_message_in_flight_per_room_and_resends_after_a_drop():
    bot, d = _delivery()
    bot.sio.hold = True
    d.deliver([Message("one"), Message("two"), Message("three")])
    assert [m for m, _ in bot.sio.sent] == ["one"] and len(d.emitter) == 3  # the rest waits for the ack
    bot.sio.release()
    assert [m for m, _ in bot.sio.sent] == ["one", "two"]
    bot.gen += 1  # the connection dropped with "two" in flight: its ack will never come
    bot.sio.waiting.clear()
    d.emitter.check(timeout=60)
    assert [m for m, _ in bot.sio.sent] == ["one", "two", "two"]  # sent again, order kept
    bot.sio.release()
    d.emitter.check(timeout=60)
    bot.sio.release()
    assert [m for m, _ in bot.sio.sent] == ["one", "two", "two", "three"] and d.emitter.idle()


def test_emitter_waits_while_disconnected_and_gives_up_without_ack():
    bot, d = _delivery()
    bot.connected = False
    d.deliver([Message("later")])
    assert bot.sio.sent == [] and not d.emitter.idle()
    bot.connected = True
    bot.sio.hold = True
    d.emitter.check(timeout=60)
    assert bot.sio.sent == [("later", None)]
    d.emitter.check(timeout=0)  # no ack within the timeout: given up, the room is not stuck
    assert d.emitter.idle()


def test_delivery_metrics_measure_first_effect_only():
    import time as _t
    bot, d = _delivery()
    d.turn = Turn(_t.perf_counter(), bot.metrics)
    d.deliver([Message("one"), Message("two"), LogEvent("e", {})])
    assert bot.metrics.summary()["n"] == 1


def test_room_lanes_keep_room_order_coalesce_and_do_not_block_other_rooms():
    from bots.slurk.shipping import RoomLanes

    gate = threading.Event()
    ran = []

    class Lanes(RoomLanes):
        name = "test"

        def _run(self, room, job):
            if job == "slow":
                gate.wait(WAIT)
            ran.append((room, job))

        def _merge(self, old, new):
            return new

    lanes = Lanes(threads=2)
    try:
        lanes._submit(1, "slow")
        lanes._submit(1, "after slow")
        lanes._submit(1, "v1", key="view")
        lanes._submit(1, "v2", key="view")  # replaces v1, which has not run yet
        for i in range(5):
            lanes._submit(2, f"r2-{i}")
        _poll(lambda: len([r for r in ran if r[0] == 2]) == 5)  # room 2 runs while room 1 is stuck
        assert not [r for r in ran if r[0] == 1] and lanes.pending(1) == 3
        gate.set()
        assert lanes.drain(WAIT)
        assert [j for r, j in ran if r == 1] == ["slow", "after slow", "v2"]
        assert [j for r, j in ran if r == 2] == [f"r2-{i}" for i in range(5)]
    finally:
        gate.set()
        lanes.stop()


def test_scheduler_fires_replaces_and_cancels():
    fired = []
    done = threading.Event()

    def fire(room, name, token):
        fired.append((room, name, token))
        if name == "last":
            done.set()

    s = Scheduler(fire)
    try:
        s.set(1, "x", 1, 0.05)
        s.set(1, "x", 2, 0.06)   # replaces token 1
        s.set(2, "y", 3, 0.01)
        s.set(2, "z", 4, 0.02)
        s.cancel(2, "z")
        s.set(3, "w", 5, 0.03)
        s.cancel_room(3)
        s.set(9, "last", 6, 0.2)
        assert done.wait(WAIT)
        assert fired == [(2, "y", 3), (1, "x", 2), (9, "last", 6)]
    finally:
        s.stop()


def _server(double):
    """Wrap a bare double fixture in the conftest's SlurkServer interface."""
    from tests.conftest import SlurkServer
    return SlurkServer(double.url, double.admin_token, etag=double.etag, is_real=False, double=double)
