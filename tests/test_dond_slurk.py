"""Deal or No Deal on the Slurk double over real sockets and HTTP: two people negotiate (chat, an offer from the
page, a typed rejection with a reason, a typed counter-offer, an accept from the page) and neither can read the
other's values in anything their client received or any log row their credentials fetch; a person plays the
`bayes` agent to a deal."""
from __future__ import annotations

import json

from tasks import get_task
from tests.leaks import find_leaks
from tests.test_privacy import Participant, _leak_report, _room_with_two
from tests.test_slurk_runtime import Table, finish, make_bot, wait_logs

SPEC = get_task("dond")
OPTIONS = {"instance": 3}  # every room plays the same generated instance (the room's seed is random)


def _values_lines(person) -> list[str]:
    """The private lines that told this person their values."""
    return [str(d.get("message")) for e, d in person.rec.events
            if e == "text_message" and "Your values (only you see them)" in str(d.get("message"))]


def test_two_people_negotiate_and_neither_reads_the_others_values(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, SPEC, tmp_path, task_options=OPTIONS)
    try:
        alice, bob = people["alice"], people["bob"]
        va, vb = alice.view()["values"], bob.view()["values"]
        assert va != vb  # instance 3 has different valuations, so the strict checks below can fail
        alice.say("hi Bob, I would like the books")
        assert alice.send({"command": "propose", "args": ["books=1", "hats=1", "balls=1"]}) is True
        v = bob.view(lambda v: v["can_accept"] == 1)
        assert v["offers"][0]["by"] == "partner" and v["values"] == vb
        assert bob.send("reject 1 I need more than that") is True
        assert alice.view(lambda v: v["offers"] and v["offers"][0]["status"] == "rejected")["offers"][0]["reason"] == \
            "I need more than that"
        counts = v["counts"]
        assert bob.send(f"propose books=0 hats={counts[1]} balls=0") is True
        offer = alice.view(lambda v: v["can_accept"] is not None)["can_accept"]
        assert alice.send({"command": "accept", "args": [str(offer)]}) is True
        for p in people.values():
            res = p.view(lambda v: v["core"]["phase"] == "over")["result"]
            assert res["deal"] and res["reason"] == "accepted"
        end = wait_logs(srv, room, "game_end")[0]["data"]["results"]
        assert end["split"] == {"alice": [counts[0], 0, counts[2]], "bob": [0, counts[1], 0]}
        assert _leak_report(srv, SPEC, room, people) == {"alice": [], "bob": []}
        # stricter: the other's values as a list under any "values" key, or their values line, never arrive
        for me, other, theirs in ((alice, bob, vb), (bob, alice, va)):
            seen = me.received() + me.readable()
            assert find_leaks(seen, [{"values": theirs}]) == [], "the partner's values reached this person"
            assert find_leaks(seen, _values_lines(other)) == [] and _values_lines(me)
        # the moves went to the bot alone, and the record has everything for replay (instance with both values)
        assert not alice.rec.of("command", lambda d: d["user"]["id"] == bob.id)
        start = wait_logs(srv, room, "game_start")[0]
        assert start["receiver_id"] == bot.user_id and start["data"]["instance"]["values"] == {"alice": va, "bob": vb}
    finally:
        finish(bot)


def test_a_person_and_the_bayes_agent_reach_a_deal(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1, name=SPEC.name)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=SPEC, person_seats=1, agents={"bob": "bayes"}, task_options=OPTIONS)
    bot.start()
    try:
        pat = Participant(srv, "Pat", room, table.task, SPEC.state_element)
        pat.rec.call("room_created", {"room": room, "task": table.task}, timeout=30)
        v = pat.view()
        assert v["seat"] == "alice" and v["first"] == "me"
        best = max(range(3), key=lambda k: v["values"][k])
        ask = [0, 0, 0]
        ask[best] = v["counts"][best]
        pat.say(f"hello, I would like all the {['books', 'hats', 'balls'][best]}; you can have the rest")
        # the agent answers a person's plain English in chat (on a real Slurk a command sent at once could overtake
        # the line, and an acceptable offer is accepted without a word)
        pat.rec.wait_for("text_message", lambda d: str(d.get("message")).startswith("Bob: "), timeout=30)
        v = pat.view(lambda v: v["phase"] == "over" or v["can_accept"] is not None)
        if v["phase"] != "over" and v["can_accept"] is None:
            assert pat.send({"command": "propose", "args": [f"{n}" for n in ask]}) is True
        # the agent answers: accepts, or counters; the person then accepts the agent's standing offer
        v = pat.view(lambda v: v["phase"] == "over" or v["can_accept"] is not None)
        if v["phase"] != "over":
            assert pat.send({"command": "accept", "args": [str(v["can_accept"])]}) is True
            v = pat.view(lambda v: v["phase"] == "over")
        assert v["result"]["deal"]
        said = [str(d.get("message")) for e, d in pat.rec.events if e == "text_message"]
        assert [m for m in said if m.startswith("Bob: ")], said  # the agent talked to the person in chat
        end = wait_logs(srv, room, "game_end")[0]["data"]["results"]
        assert end["deal"] and end["status"] == "completed"
        vb = json.loads(json.dumps(wait_logs(srv, room, "game_start")[0]["data"]["instance"]["values"]["bob"]))
        assert vb != v["values"] and find_leaks(pat.received() + pat.readable(), [{"values": vb}]) == []
    finally:
        finish(bot)
