"""DialOp Mediation over real sockets (the Slurk double, ETags off and on; a real Slurk when configured): two people
take the user seats and the mediator agent the assistant's. The relay holds: what each person's credentials can
receive or fetch never holds the other user's lines, calendar (events with importance), preferences or flights;
the assistant's lines reach only their addressees; both users accept and the game ends with the agreed pair. Also
a room of three people (the assistant a person too)."""
from __future__ import annotations

import json
import time

from tasks import get_task
from tests.leaks import find_leaks
from tests.test_privacy import RELAY_PERMS, Participant, _leak_report, _room_with_two
from tests.test_slurk_runtime import WAIT, Table, finish, make_bot, wait_logs

SPEC = get_task("mediation")


def _line(view: dict) -> str:
    """What a person would type: private events and important shared ones, with times and importance."""
    parts = []
    for e in sorted(view["calendar"], key=lambda e: -e["importance"])[:4]:
        parts.append(f"{e['when']} importance {e['importance']}")
    return "hi! busy " + ", ".join(parts) + ". the rest are not important. cheaper is better"


def test_mediation_relay_leaks_nothing(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, SPEC, tmp_path, RELAY_PERMS, agents={"assistant": "mediator"})
    try:
        u1, u2 = people["user1"], people["user2"]
        views = {s: p.view() for s, p in people.items()}
        assert {v["role"] for v in views.values()} == {"user"}
        # the mediator asks each user privately
        for p in people.values():
            asked = p.rec.wait_for("text_message", lambda d: "Which meetings" in str(d.get("message")), timeout=WAIT)[0]
            assert asked["private"]
        lines = {s: _line(v) for s, v in views.items()}
        assert u1.send({"chat": lines["user1"]}) is True
        assert u1.send({"chat": "hello other user", "to": ["user2"]}) is True  # refused: users write to the assistant
        u1.rec.wait_for("text_message", lambda d: "only write to the assistant" in str(d.get("message")), timeout=WAIT)
        # the mediator may propose at user 1's line (user 2 on defaults) and revise at user 2's: the flights are
        # read once its answer to user 2's line (a flight, or "still looks best") is in the room's log
        assert u2.send({"chat": lines["user2"]}) is True
        inputs = lambda: [x["data"]["input"] for x in srv.logs(room) if x["event"] == "game_input"]  # noqa: E731

        def answered():
            got = inputs()
            said = [i for i, x in enumerate(got) if x["seat"] == "user2" and x["type"] == "Chat"]
            return said and any(x["seat"] == "assistant" and (x.get("to") == ["user2"] or x["type"] == "Command")
                                for x in got[said[-1] + 1:])
        deadline = time.monotonic() + WAIT
        while not answered():
            assert time.monotonic() < deadline, "the mediator never answered user 2"
            time.sleep(0.05)
        last = max(x["data"]["id"] for x in srv.logs(room) if x["event"] == "proposal")
        pending = {s: p.view(lambda v: (v["pending"] or {}).get("id") == last)["pending"] for s, p in people.items()}
        assert all("breakdown" in p for p in pending.values())
        assert u1.send("accept") is True and u2.send({"command": "accept", "args": []}) is True
        for p in people.values():
            res = p.view(lambda v: v["core"]["phase"] == "over")["result"]
            assert res["flight"]["id"] == pending[p.view()["core"]["seat"]]["flight"]["id"], [
                (x["event"], x["data"]) for x in srv.logs(room) if x["event"] in ("proposal", "agent_note", "response")]
        wait_logs(srv, room, "game_end")
        assert _leak_report(srv, SPEC, room, people) == {"user1": [], "user2": []}
        # beyond the declared private parts: the other user's flights and chat lines never reach a user
        for me, other in (("user1", "user2"), ("user2", "user1")):
            got = people[me].received() + people[me].readable()
            assert find_leaks(got, [views[other]["flights"]]) == [], me
            assert find_leaks(got, [f for f in views[other]["flights"] if f not in views[me]["flights"]][:5]) == []
            assert not people[me].rec.of("text_message", lambda d: d["user"]["id"] == people[other].id)
            assert not any(lines[other] in json.dumps(x) for x in got), me
        assert not u2.rec.of("text_message", lambda d: "hello other user" in str(d.get("message")))
        chats = [x["data"]["input"] for x in srv.logs(room) if x["event"] == "game_input"
                 and x["data"]["input"]["type"] == "Chat"]
        assert all(c.get("to") in (["user1"], ["user2"]) for c in chats if c["seat"] == "assistant")
    finally:
        finish(bot)


def test_three_people_in_a_relayed_room(slurk_server, tmp_path):
    """Three people: two users and a person as the assistant. The assistant's line to one user reaches only that
    user; each user's line reaches only the assistant; the assistant proposes from its page, both accept."""
    srv = slurk_server
    table = Table(srv, num_users=3, name=SPEC.name)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=SPEC, person_seats=3)
    bot.start()
    try:
        ps = [Participant(srv, n, room, table.task, SPEC.state_element, RELAY_PERMS) for n in ("Ann", "Ben", "Cy")]
        ps[0].rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT)
        people = {p.view()["core"]["seat"]: p for p in ps}
        assert set(people) == {"user1", "user2", "assistant"}
        a, u1, u2 = people["assistant"], people["user1"], people["user2"]
        va = a.view()
        assert va["role"] == "assistant" and len(va["users"]) == 2
        assert a.send({"chat": "user one, which meetings matter?", "to": ["user1"]}) is True
        u1.rec.wait_for("text_message", lambda d: "user one, which" in str(d.get("message")), timeout=WAIT)
        assert u1.send({"chat": "thursday afternoon is important"}) is True
        a.rec.wait_for("text_message", lambda d: "thursday afternoon" in str(d.get("message")), timeout=WAIT)
        assert a.send({"chat": "hello both"}) is True
        u2.rec.wait_for("text_message", lambda d: "hello both" in str(d.get("message")), timeout=WAIT)
        assert a.send({"command": "propose", "args": ["1", "2"]}) is True
        for u in (u1, u2):
            u.view(lambda v: v["pending"] is not None)
        assert u1.send("accept") is True and u2.send("accept") is True
        assert a.view(lambda v: v["core"]["phase"] == "over")["result"]["pair"] == [1, 2]
        wait_logs(srv, room, "game_end")
        assert not u2.rec.of("text_message", lambda d: "user one, which" in str(d.get("message")))
        assert not u2.rec.of("text_message", lambda d: "thursday afternoon" in str(d.get("message")))
        assert not u1.rec.of("text_message", lambda d: d["user"]["id"] == u2.id)
        assert _leak_report(srv, SPEC, room, people) == {"user1": [], "user2": [], "assistant": []}
    finally:
        finish(bot)
