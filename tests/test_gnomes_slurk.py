"""Gnomes at Night on the Slurk test double: a scripted person (seat h) plays five rounds with the agent (seat e).

The person is a real socket client. Its decisions come from the simulated partner brain, fed only with what the
person's page receives: the JSON view in #gnomes-state and the agent's chat lines ("E: ..."). Waits are bounded
polls for events, never assertions about durations.
"""
from __future__ import annotations

import html
import json
import re
import time

from bots.slurk.runtime import SlurkBot
from tasks import get_task
from tasks.core import Chat, ChatShown, Command, View
from tests.test_slurk_runtime import PEOPLE, Person, bot_config, finish, provision_bot, wait_logs

SPEC = get_task("gnomes")
AGENT_LINE = re.compile(r"^(Side 1): (.*)$", re.S)  # the bot shows an agent seat's chat as "<seat name>: <text>"
DEADLINE = 90  # seconds: an upper bound for the whole game, not a speed assertion


def test_scripted_person_plays_five_rounds_with_the_agent(slurk_server, tmp_path):
    srv = slurk_server  # the double (ETags off and on) and, when configured, a real Slurk
    layout = srv.create_layout({"title": "Gnomes at Night", "subtitle": "test",
                                "html": [{"layout-type": "div", "id": SPEC.state_element}],
                                "show_users": True, "show_latency": False})
    task = srv.create_task("gnomes", 1, layout)
    room = srv.api("POST", "rooms", json={"layout_id": layout}).json()["id"]
    bot_id, bot_token = provision_bot(srv, room, name="GnomeBot")
    # Task options reach the game and the brains: a small fixed search keeps this quick.
    cfg = bot_config(srv, bot_id, bot_token, task, str(tmp_path / "state.sqlite3"), person_seats=1,
                     task_options={"iterations": 150})
    bot = SlurkBot(cfg, SPEC)
    bot.start()
    try:
        pat = Person(srv, "Pat", room, task).connect()
        pat.announce(room, task)
        person = SPEC.make_brain("partner", "h", 5, None, {})
        seen = 0
        final = None
        deadline = time.monotonic() + DEADLINE
        while final is None:
            assert time.monotonic() < deadline, "the game did not finish"
            with pat.rec._cond:
                events = list(pat.rec.events[seen:])
            seen += len(events)
            for name, data in events:
                if name == "text_update" and data.get("id") == SPEC.state_element:
                    view = json.loads(data["text"])
                    person.observe(View("h", view))
                    if view.get("core", {}).get("phase") == "over":
                        final = view
                elif name == "text_message" and data["user"]["id"] != pat.id:
                    m = AGENT_LINE.match(html.unescape(str(data.get("message"))))  # bot lines go out as escaped html
                    if m:
                        person.observe(ChatShown("e", m.group(2)))
            for inp in person.act():
                if isinstance(inp, Chat):
                    pat.say(inp.text)
                elif isinstance(inp, Command):  # the page's arrow buttons send this payload
                    assert pat.command({"command": "move", "args": list(inp.args)}) is True
            if not events:
                time.sleep(0.02)
        assert final["core"]["status"] == "completed" and final["finished"]
        assert [r["status"] for r in final["results"]] == ["found"] * 5
        end = wait_logs(srv, room, "game_end")[0]["data"]
        assert end["results"]["rounds_played"] == 5 and end["results"]["messages_e"] > 0
        # the agent's questions and suggestions reached the person as chat
        texts = [str(d.get("message")) for d in pat.bot_messages()]
        assert any(t.endswith("Where is the treasure?") for t in texts)
        assert any("Can you move" in t for t in texts)
    finally:
        finish(bot)
        assert not PEOPLE
