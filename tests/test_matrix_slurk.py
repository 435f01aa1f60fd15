"""Negotiation games on the Slurk double over real sockets and HTTP: two people negotiate in turns through the relay,
then move. Commit-reveal on the wire: after Alice committed and before Bob did, nothing Bob's client received and
no log row his credentials can read holds Alice's move (her command, its record, her sealed move); after the
reveal, neither can read the other's sealed commits, and the admin's record holds everything for replay."""
from __future__ import annotations

import json

from tasks import get_task
from tests.leaks import find_leaks
from tests.test_privacy import RELAY_PERMS, _leak_report, _room_with_two
from tests.test_slurk_runtime import finish, wait_logs

SPEC = get_task("matrix-games")


def _mentions_move(rows: list, seat: str, move: str) -> list:
    """Rows or events that carry `seat`'s move: its command (or its record) or its sealed form."""
    out = []
    for r in rows:
        text = json.dumps(r)
        if "sealed_move" in text:
            out.append(r)
        data = r.get("data") if isinstance(r, dict) else None
        inp = (data or {}).get("input") if isinstance(data, dict) else None
        if isinstance(inp, dict) and inp.get("seat") == seat and inp.get("type") != "Chat" and move in text:
            out.append(r)
        command = r.get("command") if isinstance(r, dict) else None
        if command is not None and move in json.dumps(command):
            out.append(r)
    return out


def test_sealed_moves_stay_sealed_on_the_wire(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, SPEC, tmp_path, RELAY_PERMS,
                                       task_options={"game": "prisoners-dilemma", "negotiation": 1})
    try:
        alice, bob = people["alice"], people["bob"]
        assert alice.send({"chat": "let's both cooperate"}) is True
        bob.view(lambda v: v["negotiation"]["turn"] == "me")
        assert bob.send({"chat": "ok, deal"}) is True
        alice.view(lambda v: v["stage"] == "move")
        assert alice.send("move Defect") is True
        alice.view(lambda v: v["commit"]["me"])
        seen = bob.view(lambda v: v["commit"]["partner"])
        assert seen["commit"]["sealed"] is None and seen["outcomes"] == []
        before = bob.received() + bob.readable()
        assert _mentions_move(before, "alice", "Defect") == []
        assert find_leaks(before, [{"seat": "alice", "trial": 1, "sealed_move": "Defect"}]) == []
        assert bob.send({"command": "move", "args": ["cooperate"]}) is True
        for p in people.values():
            p.view(lambda v: v["core"]["phase"] == "over")
        end = wait_logs(srv, room, "game_end")[0]["data"]["results"]
        assert end["outcome"] == {"alice": "Defect", "bob": "Cooperate"} and end["is_ne"] is False
        assert end["messages"] == 2
        # Slurk hands the bot's showing of each line (in the speaker's name) back to the bot as that person's
        # text: the bot knows its own echo and never tells the speaker that the line "was not delivered"
        for p in people.values():
            said = [str(d.get("message")) for e, d in p.rec.events if e == "text_message"]
            assert not [m for m in said if "not delivered" in m], said
        assert _leak_report(srv, SPEC, room, people) == {"alice": [], "bob": []}
        # the researcher's record has both moves (replay rebuilds the game from it)
        moves = [x["data"]["input"] for x in srv.logs(room) if x["event"] == "game_input"
                 and x["data"]["input"]["type"] in ("Command", "Action") and "move" in json.dumps(x["data"]["input"])]
        assert len(moves) == 2
        assert _mentions_move(srv.logs(room), "alice", "Defect")  # the detector finds the move where it is
    finally:
        finish(bot)


def test_a_sequential_game_shows_each_move_to_both(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, SPEC, tmp_path, RELAY_PERMS, task_options={"game": "monopoly"})
    try:
        alice, bob = people["alice"], people["bob"]
        alice.view(lambda v: v["moves"])
        assert alice.send({"command": "move", "args": ["2"]}) is True
        assert bob.view(lambda v: v["moves"])["path"] == ["choice_2"]
        assert bob.send("move choice_1") is True
        for p in people.values():
            assert p.view(lambda v: v["core"]["phase"] == "over")["outcomes"][0]["path"] == ["choice_2", "choice_1"]
    finally:
        finish(bot)


def test_a_person_negotiates_with_the_workflow_agent(slurk_server, tmp_path):
    """A person (Alice) and the workflow agent (Bob) in one room: the person's plain English reaches the agent
    through the relay, the agent answers and agrees, and both play the agreed equilibrium."""
    from tests.test_privacy import Participant
    from tests.test_slurk_runtime import Table, make_bot

    srv = slurk_server
    table = Table(srv, num_users=1, name=SPEC.name)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=SPEC, person_seats=1, agents={"bob": "workflow"},
                   task_options={"game": "battle-of-sexes", "negotiation": 2})
    bot.start()
    try:
        pat = Participant(srv, "Pat", room, table.task, SPEC.state_element, RELAY_PERMS)
        pat.rec.call("room_created", {"room": room, "task": table.task}, timeout=30)
        v = pat.view(lambda v: v["negotiation"]["turn"] == "me")
        assert v["me"] == "alice"
        assert pat.send({"chat": "I'll take football if you come next time"}) is True
        v = pat.view(lambda v: v["negotiation"]["halt_asked"]["partner"])
        assert "Deal" in v["negotiation"]["messages"][-1]["text"]
        assert pat.send("halt") is True
        pat.view(lambda v: v["stage"] == "move")
        assert pat.send({"command": "move", "args": ["football"]}) is True
        end = pat.view(lambda v: v["core"]["phase"] == "over")
        assert end["outcomes"][0]["their_move"] == "Football" and end["outcomes"][0]["is_ne"]
    finally:
        finish(bot)


def test_a_game_from_a_researchers_yaml_file_plays_on_slurk_and_is_logged_as_data(slurk_server, tmp_path):
    """A 3x2 matrix written by a researcher: the bot loads it, both people move, the instance (not the file's path)
    is in the record, so replay needs no file."""
    path = tmp_path / "coordination.yaml"
    path.write_text("name: my-coordination\ntitle: Meet somewhere\nkind: matrix\ndescription: Meet at one place.\n"
                    "actions: [[Cafe, Park, Library], [Cafe, Park]]\n"
                    "payoffs: [[[4, 4], [0, 0]], [[0, 0], [2, 2]], [[1, 0], [1, 0]]]\n")
    srv = slurk_server
    bot, room, people = _room_with_two(srv, SPEC, tmp_path, RELAY_PERMS,
                                       task_options={"game_file": str(path), "negotiation": 0})
    try:
        alice, bob = people["alice"], people["bob"]
        v = alice.view(lambda v: v["stage"] == "move")
        assert v["my_actions"] == ["Cafe", "Park", "Library"] and bob.view()["my_actions"] == ["Cafe", "Park"]
        assert alice.send("move Cafe") is True
        assert bob.send("move Cafe") is True
        for p in people.values():
            p.view(lambda v: v["core"]["phase"] == "over")
        end = wait_logs(srv, room, "game_end")[0]["data"]["results"]
        assert end["outcome"] == {"alice": "Cafe", "bob": "Cafe"} and end["is_ne"] and end["po_ne"]
        start = wait_logs(srv, room, "game_start")[0]["data"]
        assert "Library" in json.dumps(start["instance"])  # the game itself is in the record
    finally:
        finish(bot)
