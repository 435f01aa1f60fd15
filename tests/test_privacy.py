"""Privacy on the wire: what each participant's own credentials can receive or fetch never holds another seat's
private data. Played through the Slurk runtime over real sockets and HTTP, on the double (ETags off and on) and
on a real Slurk when SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN are set.

Collected per person: every socket event their client received (messages, commands, page updates) and the log
rows `GET /rooms/{room}/users/{user}/logs` returns to their credentials (what the page fetches on every join).
The private parts come from the game rebuilt from the admin's full log (`Game.private_parts`).
"""
from __future__ import annotations

import time

from tasks import get_task
from tests.leaks import find_leaks, readable_logs, rebuild
from tests.page_views import spec_of_state, wait_page_view
from tests.slurk_double.recorder import SocketRecorder
from tests.test_slurk_runtime import PEOPLE, WAIT, Table, finish, make_bot, wait_logs
from tests.threeseat import SPEC as MEETING

# What `setup` grants a participant: commands go privately to the bot (send_privately), chat is typed.
PERSON_PERMS = {"send_message": True, "send_command": True, "send_privately": True}
RELAY_PERMS = {"send_command": True, "send_privately": True}  # relayed rooms: every line goes through the bot


class Participant:
    """A scripted person who plays as the task page does: commands and page actions privately to the bot."""

    def __init__(self, srv, name: str, room: int, task: int, state: str, perms=PERSON_PERMS):
        self.srv, self.name, self.room, self.state = srv, name, room, state
        self.id, self.token = srv.provision_user(name, perms, room_id=room, task_id=task)
        self.rec = SocketRecorder(name).connect(srv.url, self.id, self.token)
        PEOPLE.append(self)
        self.rec.wait_for("joined_room", lambda d: d["room"] == room, timeout=WAIT)
        self.bot = None

    def disconnect(self) -> None:
        self.rec.disconnect()

    def view(self, pred=lambda v: True, count: int = 1) -> dict:
        """The page's view once `count` views of the playing game match (both parts combined, as the page does)."""
        v = wait_page_view(self.rec, spec_of_state(self.state), pred, count=count, timeout=WAIT)
        self.bot = v["core"]["bot"]
        self.chat = v["core"].get("chat", "open")
        return v

    def send(self, command) -> object:
        """A typed /command (str) or a page action / relayed chat line (dict), privately to the bot."""
        assert self.bot is not None, "the page learns the bot's id from its first view"
        return self.rec.call("message_command", {"room": self.room, "command": command, "receiver_id": self.bot},
                             timeout=WAIT)

    def say(self, text: str) -> object:
        """A chat line as the page sends it: in a relayed room privately to the bot, else as Slurk `text`."""
        if getattr(self, "chat", "open") == "relay":
            return self.send({"chat": text})
        return self.rec.call("text", {"room": self.room, "message": text}, timeout=WAIT)

    def received(self) -> list:
        return [data for _event, data in self.rec.events]

    def readable(self) -> list:
        return readable_logs(self.srv.url, self.room, self.id, self.token)


def _leak_report(srv, spec, room: int, people: dict[str, Participant]) -> dict[str, list[str]]:
    """seat -> leaks of the *other* seats' private parts found in what that seat's person can read."""
    deadline = time.monotonic() + WAIT
    match = rebuild(spec, srv.logs(room))
    while not match.over and time.monotonic() < deadline:  # the bot ships its log rows off the replies' path
        time.sleep(0.05)
        match = rebuild(spec, srv.logs(room))
    assert match.over, "the admin's log rebuilds the finished game"
    out = {}
    for seat, person in people.items():
        parts = [p for other in match.seats if other != seat for p in match.game.private_parts(other)]
        assert parts, f"the game has private data of other seats to look for (seat {seat})"
        out[seat] = find_leaks(person.received() + person.readable(), parts)
    return out


def _seated(a: Participant, b: Participant) -> dict[str, Participant]:
    va, vb = a.view(), b.view()
    return {va["core"]["seat"]: a, vb["core"]["seat"]: b}


def _room_with_two(srv, spec, tmp_path, perms=PERSON_PERMS, **bot_kw):
    """A task room of `spec` served by a started bot, with two people in it (announced): (bot, room, seat->person).
    The caller stops the bot (`finish`)."""
    table = Table(srv, num_users=2, name=spec.name)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=spec, person_seats=2, **bot_kw)
    bot.start()
    try:
        a = Participant(srv, "Ann", room, table.task, spec.state_element, perms)
        b = Participant(srv, "Ben", room, table.task, spec.state_element, perms)
        a.rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT)
        return bot, room, _seated(a, b)
    except BaseException:
        finish(bot)
        raise


def test_travel_leaks_nothing(slurk_server, tmp_path):
    """Two people play a travel game through to the end; neither can read the other's unshared coins."""
    srv = slurk_server
    spec = get_task("travel")
    bot, room, people = _room_with_two(srv, spec, tmp_path, task_options={"boards": "preset"})
    try:
        light, ghost = people["light"], people["ghost"]
        v = light.view()
        tour = [v["start"]] + [r["id"] for r in v["rooms"] if r["id"] != v["start"]] + [v["start"]]
        hall = sorted(v["my_coins"])[0]
        assert light.send(f"share {hall}") is True            # one coin is shared: that one may be seen
        assert light.send("propose " + " ".join(tour)) is True
        ghost.view(lambda v: v["pending"] is not None)
        assert ghost.send({"command": "agree", "args": []}) is True  # a page action
        light.view(lambda v: len(v["agreed"]) == len(tour))
        assert light.send("submit") is True and ghost.send("submit") is True
        light.view(lambda v: v["core"]["phase"] == "over")
        ghost.view(lambda v: v["core"]["phase"] == "over")
        wait_logs(srv, room, "game_end")
        assert _leak_report(srv, spec, room, people) == {"light": [], "ghost": []}
        # the moves themselves went to the bot alone: the partner never received the other's command event
        assert not light.rec.of("command", lambda d: d["user"]["id"] == ghost.id)
        assert not ghost.rec.of("command", lambda d: d["user"]["id"] == light.id)
        # and the record is complete for the researcher (admin): instance and every input
        assert [x for x in srv.logs(room) if x["event"] == "game_start"][0]["receiver_id"] == bot.user_id
    finally:
        finish(bot)


def test_gnomes_leaks_nothing(slurk_server, tmp_path):
    """Two people play one short gnomes round; neither can read the walls only the other side has."""
    srv = slurk_server
    spec = get_task("gnomes")
    bot, room, people = _room_with_two(srv, spec, tmp_path, task_options={"rounds": 1, "turn_cap": 4})
    try:
        for i in range(4):
            mover = people["h" if i % 2 == 0 else "e"]
            mover.view(lambda v: v.get("your_turn"))
            assert mover.send({"command": "move", "args": ["stay"]}) is True
        for p in people.values():
            p.view(lambda v: v["core"]["phase"] == "over")
        wait_logs(srv, room, "game_end")
        assert _leak_report(srv, spec, room, people) == {"h": [], "e": []}
    finally:
        finish(bot)


def test_assignment_leaks_nothing(slurk_server, tmp_path):
    """Two people play DialOp Assignment (a typed value, a proposal rejected by a page action, a typed counter
    proposal accepted); neither can read the other's table or scale, even with the pooled table shown at the end."""
    srv = slurk_server
    spec = get_task("assignment")
    bot, room, people = _room_with_two(srv, spec, tmp_path)
    try:
        one, two = people["player1"], people["player2"]
        v = one.view()
        r, p = next((r, p) for r in range(8) for p in range(8) if v["table"][r][p] is not None)
        one.say(f"{v['reviewers'][r]} on {v['papers'][p]} is {v['table'][r][p]} for me")  # one cell may be seen
        plain = ", ".join(f"{v['papers'][i]}={v['reviewers'][i]}" for i in range(8))
        assert one.send({"command": "propose", "args": [plain]}) is True
        two.view(lambda w: w["must_respond"])
        assert two.send({"command": "reject", "args": []}) is True
        shifted = ", ".join(f"{v['papers'][(i + 1) % 8]}={v['reviewers'][i]}" for i in range(8))
        assert two.send("propose " + shifted) is True
        one.view(lambda w: w["must_respond"])
        assert one.send("accept") is True
        for person in people.values():
            person.view(lambda w: w["core"]["phase"] == "over")
        wait_logs(srv, room, "game_end")
        assert _leak_report(srv, spec, room, people) == {"player1": [], "player2": []}
        assert not one.rec.of("command", lambda d: d["user"]["id"] == two.id)
    finally:
        finish(bot)


def test_relayed_three_seat_room(slurk_server, tmp_path):
    """A relayed room: each user's line reaches only the assistant (an agent seat); the assistant addresses one
    user or both; both users must accept its proposal; no user can read the other's free slots."""
    srv = slurk_server
    bot, room, people = _room_with_two(srv, MEETING, tmp_path, RELAY_PERMS, agents={"assistant": "assistant"})
    try:
        u1, u2 = people["user1"], people["user2"]
        # the assistant asks each user privately
        asked1 = u1.rec.wait_for("text_message", lambda d: "user1, when" in d["message"], timeout=WAIT)[0]
        asked2 = u2.rec.wait_for("text_message", lambda d: "user2, when" in d["message"], timeout=WAIT)[0]
        assert asked1["private"] and asked2["private"]
        free = {s: p.view()["free_slots"] for s, p in people.items()}
        line1 = "I am free in slots " + ", ".join(map(str, free["user1"]))
        assert u1.send({"chat": line1}) is True
        # the speaker sees their accepted line (as themselves); the other user never does
        echo = u1.rec.wait_for("text_message", lambda d: d["message"] == line1, timeout=WAIT)[0]
        assert echo["user"]["id"] == u1.id
        assert u1.send({"chat": "hello Ben", "to": ["user2"]}) is True  # refused: users write to the assistant
        u1.rec.wait_for("text_message", lambda d: "only write to the assistant" in d["message"], timeout=WAIT)
        assert u2.send({"chat": "I am free in slots " + ", ".join(map(str, free["user2"]))}) is True
        proposal = u2.view(lambda v: v["pending"] is not None)["pending"]
        assert u1.send("accept") is True and u2.send("accept") is True
        for p in people.values():
            assert p.view(lambda v: v["core"]["phase"] == "over")["agreed"] == proposal
        assert not u2.rec.of("text_message", lambda d: d["user"]["id"] == u1.id)  # nothing of user1's, ever
        assert not u2.rec.of("text_message", lambda d: "hello Ben" in str(d.get("message")))
        assert not u1.rec.of("text_message", lambda d: "user2, when" in str(d.get("message")))
        assert _leak_report(srv, MEETING, room, people) == {"user1": [], "user2": []}
        # the admin's record keeps every line with its addressees, the refused one included
        chats = [x["data"]["input"] for x in srv.logs(room) if x["event"] == "game_input"
                 and x["data"]["input"]["type"] == "Chat"]
        assert [c["to"] for c in chats if c["seat"] == "assistant"] == [["user1"], ["user2"]]
        assert [c.get("to") for c in chats if c["seat"] == "user1"] == [None, ["user2"]]
        assert wait_logs(srv, room, "move_rejected")[0]["receiver_id"] == bot.user_id
    finally:
        finish(bot)


def test_participant_permissions_follow_the_chat_policy():
    """Open rooms: typed chat plus private commands. Relayed rooms: no public line at all (it would skip the rules)."""
    from bots.study.provision import person_permissions
    open_room = person_permissions(get_task("travel"))
    assert open_room["send_message"] and open_room["send_command"] and open_room["send_privately"]
    relayed = person_permissions(MEETING)
    assert not relayed["send_message"] and relayed["send_command"] and relayed["send_privately"]
