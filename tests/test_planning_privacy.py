"""DialOp Planning privacy on the wire (modelled on tests/test_privacy.py): two people play over real sockets on
the Slurk double (and a real Slurk when configured). The assistant searches (answered to it alone), suggests a
partial itinerary, proposes a full one that the user rejects with a page action, then one the user accepts.
Nothing either person's credentials can receive or fetch holds the other seat's private data: the user's
preference texts, weights and scorecards never reach the assistant, its search results never reach the user."""
from __future__ import annotations

from tasks import get_task
from tests.test_privacy import _leak_report, _room_with_two
from tests.test_slurk_runtime import WAIT, finish, wait_logs


def test_planning_leaks_nothing(slurk_server, tmp_path):
    srv = slurk_server
    spec = get_task("planning")
    bot, room, people = _room_with_two(srv, spec, tmp_path)
    try:
        user, assistant = people["user"], people["assistant"]
        uv, av = user.view(), assistant.view()
        assert "preferences" in uv and "sites" in av and "preferences" not in av
        user.say("hi! i would like something relaxed, you choose")
        assert assistant.send("search type == park, sort_by=price, limit=2") is True
        assistant.rec.wait_for("text_message", lambda d: "Search Results" in str(d.get("message")), timeout=WAIT)
        names = [s["name"] for s in av["sites"]]
        assert assistant.send({"command": "propose", "args": [f"{names[0]}, NULL, {names[1]}"]}) is True
        user.view(lambda v: len(v["proposals"]) == 1)
        assert assistant.send({"command": "propose", "args": [", ".join(names[:3])]}) is True
        user.view(lambda v: v["must_respond"])
        assert user.send({"command": "reject", "args": []}) is True
        assert assistant.send("propose " + ", ".join(names[3:6])) is True
        user.view(lambda v: v["must_respond"] and len(v["proposals"]) == 3)
        assert user.send("accept") is True
        for person in people.values():
            person.view(lambda v: v["core"]["phase"] == "over")
        wait_logs(srv, room, "game_end")
        assert _leak_report(srv, spec, room, people) == {"user": [], "assistant": []}
        # the search answer went to the assistant alone
        assert not user.rec.of("text_message", lambda d: "Search Results" in str(d.get("message")))
        assert not assistant.rec.of("command", lambda d: d["user"]["id"] == user.id)
    finally:
        finish(bot)
