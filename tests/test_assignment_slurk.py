"""DialOp Assignment on the Slurk test double (and a real Slurk when configured): a scripted person (the simulated
user's policy, fed only with what the person's page receives) plays with the optimizer through the Slurk runtime;
its moves go privately to the bot as page actions, as the page's buttons send them."""
from __future__ import annotations

import json
import re
import time

from bots.slurk.runtime import SlurkBot
from tasks import get_task
from tasks.core import Chat, ChatShown, Command, View
from tests.test_slurk_runtime import PEOPLE, Person, bot_config, finish, provision_bot, wait_logs

SPEC = get_task("assignment")
AGENT_LINE = re.compile(r"^(Player 2): (.*)$", re.S)  # the agent's relayed lines carry its role name
DEADLINE = 90  # seconds: an upper bound for the whole game, not a speed assertion


def test_person_and_optimizer_agree_on_a_matching(slurk_server, tmp_path):
    srv = slurk_server
    layout = srv.create_layout({"title": "Reviewer Assignment", "subtitle": "test",
                                "html": [{"layout-type": "div", "id": SPEC.state_element}],
                                "show_users": True, "show_latency": False})
    task = srv.create_task("assignment", 1, layout)
    room = srv.api("POST", "rooms", json={"layout_id": layout}).json()["id"]
    bot_id, bot_token = provision_bot(srv, room, name="AssignBot")
    cfg = bot_config(srv, bot_id, bot_token, task, str(tmp_path / "state.sqlite3"), person_seats=1)
    bot = SlurkBot(cfg, SPEC)
    bot.start()
    try:
        pat = Person(srv, "Pat", room, task).connect()
        pat.announce(room, task)
        person = SPEC.make_brain("simuser", "player1", 3, None, {})
        seen, final = 0, None
        deadline = time.monotonic() + DEADLINE
        while final is None:
            assert time.monotonic() < deadline, "the game did not finish"
            with pat.rec._cond:
                events = list(pat.rec.events[seen:])
            seen += len(events)
            for name, data in events:
                if name == "text_update" and data.get("id") == SPEC.state_element:
                    view = json.loads(data["text"])
                    person.observe(View("player1", view))
                    if view.get("core", {}).get("phase") == "over":
                        final = view
                elif name == "text_message" and data["user"]["id"] != pat.id:
                    m = AGENT_LINE.match(str(data.get("message")))
                    if m:
                        person.observe(ChatShown("player2", m.group(2)))
            for inp in person.act():
                if isinstance(inp, Chat):
                    assert pat.command({"chat": inp.text}) is True  # relayed chat: through the bot
                elif isinstance(inp, Command):
                    assert pat.command({"command": inp.name, "args": list(inp.args)}) is True
            if not events:
                time.sleep(0.02)
        assert final["core"]["status"] == "completed" and final["result"]["accepted"]
        assert final["result"]["pooled"] and final["result"]["best_matching"]
        end = wait_logs(srv, room, "game_end")[0]["data"]
        assert end["results"]["normalized_score"] >= 0.8 and end["results"]["messages"] > 0
    finally:
        finish(bot)
        assert not PEOPLE
