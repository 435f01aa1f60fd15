"""AsymPuzl over real sockets on the Slurk test double (a real Slurk when configured): two people, then a person
with the share-all agent. Chat is relayed (turns are enforced: a line out of turn reaches nobody), replacements are
page actions sent privately to the bot, and what each person's credentials can receive or fetch never holds the
partner's clues except through the partner's own messages."""
from __future__ import annotations

from tasks import get_task
from tests.leaks import find_leaks
from tests.test_privacy import RELAY_PERMS, Participant, _leak_report, _room_with_two
from tests.test_slurk_runtime import WAIT, Table, finish, make_bot, wait_logs

SPEC = get_task("asympuzl")
OPTIONS = {"size": 4, "distractors": 1}


def _replace_all(person, rows):
    for i, (shape, colour) in enumerate(rows):
        assert person.send({"command": "replace", "args": [str(i + 1), shape, colour]}) is True


def test_two_people_solve_it_and_nothing_leaks(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, SPEC, tmp_path, RELAY_PERMS, task_options=OPTIONS)
    try:
        a, b = people["a"], people["b"]
        va, vb = a.view(), b.view()
        assert "clue_shapes" in va and "clue_pairs" in vb
        assert b.send({"chat": "hi, I go first"}) is True  # not B's turn: refused, reaches nobody
        b.rec.wait_for("text_message", lambda d: "your partner's turn" in str(d.get("message")), timeout=WAIT)
        line_a = " ".join(f"position {i + 1} is the {' or the '.join(c)}." for i, c in enumerate(va["clue_shapes"]))
        assert a.send({"chat": line_a}) is True
        b.rec.wait_for("text_message", lambda d: d.get("message") == line_a, timeout=WAIT)
        vb = b.view(lambda v: v["turn"] == "me")
        colour = dict(map(tuple, vb["clue_pairs"]))
        shapes = [next(s for s in c if s in colour) for c in va["clue_shapes"]]  # what B works out from A's line
        truth = [(s, colour[s]) for s in shapes]
        _replace_all(b, truth)
        line_b = ", ".join(f"the {s} is {c}" for s, c in vb["clue_pairs"])
        assert b.send({"chat": line_b}) is True
        a.view(lambda v: v["turn"] == "me")
        _replace_all(a, truth)
        assert a.send({"command": "done", "args": []}) is True
        for p in people.values():
            res = p.view(lambda v: v["core"]["phase"] == "over")["result"]
            assert res["success"] and res["rounds"] == 2
        end = wait_logs(srv, room, "game_end")[0]["data"]["results"]
        assert end["success"] and end["size"] == 4 and end["distractors"] == 1
        assert _leak_report(srv, SPEC, room, people) == {"a": [], "b": []}
        assert not b.rec.of("text_message", lambda d: "I go first" in str(d.get("message")))
        assert not a.rec.of("text_message", lambda d: "I go first" in str(d.get("message")))
        assert not a.rec.of("command", lambda d: d["user"]["id"] == b.id)  # moves go to the bot alone
    finally:
        finish(bot)


def test_a_person_and_share_all(slurk_server, tmp_path):
    """The person (seat a) writes plain English; share-all (seat b) places the shapes from it and states its pairs;
    the person completes their row from B's words."""
    srv = slurk_server
    table = Table(srv, num_users=1, name=SPEC.name)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=SPEC, person_seats=1, agents={"b": "share-all"},
                   task_options={"size": 3})
    bot.start()
    try:
        p = Participant(srv, "Ann", room, table.task, SPEC.state_element, RELAY_PERMS)
        p.rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT)
        v = p.view(lambda v: v.get("role") == "A" and v["turn"] == "me")
        shapes = [c[0] for c in v["clue_shapes"]]
        said = f"hi! the 1st is a {shapes[0]}, position 2 is the {shapes[1]} and 3 is the {shapes[2]}"
        assert p.send({"chat": said}) is True
        got = p.rec.wait_for("text_message", lambda d: "My shape-colour pairs:" in str(d.get("message")),
                             timeout=WAIT)[0]["message"]
        pairs = dict((s, c) for c, s in (item.strip().split(" ", 1) for item in
                                         got.split("pairs:")[1].strip(" .").split(",")))
        p.view(lambda v: v["turn"] == "me")
        _replace_all(p, [(s, pairs[s]) for s in shapes])
        assert p.send({"chat": "thanks, done!"}) is True
        res = p.view(lambda v: v["core"]["phase"] == "over")["result"]
        assert res["success"] and res["rounds"] == 2
        parts = [x for x in srv.logs(room) if x["event"] == "game_start"][0]["data"]["instance"]["b_clues"]
        assert find_leaks(p.received() + p.readable(), [parts]) == []  # B's clue list itself never arrives
    finally:
        finish(bot)


def test_on_a_noisy_channel_each_side_sees_its_own_words_and_gets_a_damaged_copy(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1, name=SPEC.name)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=SPEC, person_seats=1, agents={"b": "share-all"},
                   task_options={"size": 3, "noise": 0.3})
    bot.start()
    try:
        p = Participant(srv, "Ann", room, table.task, SPEC.state_element, RELAY_PERMS)
        p.rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT)
        v = p.view(lambda v: v.get("role") == "A" and v["turn"] == "me")
        said = "position 1 is the " + v["clue_shapes"][0][0]
        assert p.send({"chat": said}) is True
        copy = p.rec.wait_for("text_message", lambda d: str(d.get("message")).startswith(
            "(through the noisy channel) Player B: "), timeout=WAIT)[0]
        assert copy["private"] and "My shape-colour pairs:" not in copy["message"]  # damaged on its way
        mine = p.rec.of("text_message", lambda d: d.get("message") == said)
        assert len(mine) == 1 and mine[0]["user"]["id"] == p.id  # the speaker's own line, once, undamaged
    finally:
        finish(bot)
