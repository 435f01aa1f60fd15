"""Attack scenario: a hanging LLM endpoint.

A travel room on Slurk (the double, ETags off and on, and a real Slurk when SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN
are set) whose agent seat's model sits behind an endpoint that accepts connections and never answers. The person's
/help, chat and moves are answered promptly while the agent thinks (their page shows it thinking); the agent's turn
ends at the LLM deadline with the documented fallback (the solver plays that turn, noted as `llm_fallback`), and
nothing else in the room waits for it.

Waits are bounded polls for events; the only time figures asserted are generous upper bounds.
"""
from __future__ import annotations

import json
import time

from bots.llm import LLMClient, LLMConfig
from bots.slurk.runtime import SlurkBot
from tasks import get_task
from tests.test_llm import HangingEndpoint
from tests.page_views import indexed_page_views
from tests.test_privacy import Participant
from tests.test_slurk_runtime import (
    WAIT, Table, _poll, bot_config, finish, logs_of, provision_bot, wait_logs,
)

TRAVEL = get_task("travel")
DEADLINE = 3.0  # the agent's whole turn; per attempt the client would allow 30 s, three times


def _first_view(rec, pred, after: int, timeout: float) -> int:
    """The index (in rec.events) of the first page view after index `after` of the playing game matching `pred`
    (both parts of the travel page combined, as the page does)."""
    found = -1

    def seen():
        nonlocal found
        for i, v in indexed_page_views(rec, TRAVEL):
            if i > after and v["core"].get("phase") != "waiting" and pred(v):
                found = i
                return True
        return False
    _poll(seen, timeout=timeout)
    return found


def _first(rec, event, pred, after: int, timeout: float) -> int:
    """The index of the first recorded `event` matching `pred` after index `after`, waiting for it."""
    found = -1

    def seen():
        nonlocal found
        for i, (e, d) in enumerate(list(rec.events)[after + 1:], start=after + 1):
            if e == event and pred(d):
                found = i
                return True
        return False
    _poll(seen, timeout=timeout)
    return found


def test_a_hanging_llm_endpoint_does_not_hold_up_the_room(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1, name=TRAVEL.name)
    room = table.room()
    state = TRAVEL.state_element
    with HangingEndpoint() as endpoint:
        llm = LLMClient(LLMConfig(model="test-model", base_url=endpoint.url, api_key="sk-test", timeout=30.0,
                                  max_retries=2, deadline=DEADLINE))
        bot_id, bot_token = provision_bot(srv)
        cfg = bot_config(srv, bot_id, bot_token, table.task, str(tmp_path / "state.sqlite3"), person_seats=1,
                         agents={"ghost": "baseline"}, task_options={"boards": "preset"})
        bot = SlurkBot(cfg, TRAVEL, llm)
        bot.start()
        try:
            ann = Participant(srv, "Ann", room, table.task, state)
            ann.rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT)
            v = ann.view()
            assert v["core"]["seat"] == "light" and "thinking" not in v["core"]

            # Ann speaks: the LLM agent in the ghost seat starts its turn, and its model never answers.
            before = len(ann.rec.events) - 1
            t_said = time.monotonic()
            assert ann.say("Hi! Which hallways are cheap for you?") is True
            _poll(lambda: endpoint.accepted >= 1)  # the agent is waiting for its model now
            assert ann.send("help") is True
            help_answer = lambda d: str(d.get("message")).startswith("Commands:\n")  # noqa: E731
            i_help = _first(ann.rec, "text_message", help_answer, before, WAIT)
            help_delay = time.monotonic() - t_said
            hall = sorted(v["my_coins"])[0]
            assert ann.send(f"share {hall}") is True
            i_share = _first_view(ann.rec, lambda x: hall in x["my_shared"], before, WAIT)
            # her page shows the partner thinking
            i_thinking = _first_view(ann.rec, lambda x: x["core"].get("thinking") == ["ghost"], before, WAIT)

            # The agent's turn ends at the deadline: the solver plays it, the log says why, the page stops showing it.
            i_done = _first_view(ann.rec, lambda x: "thinking" not in x["core"], i_thinking, WAIT + DEADLINE)
            turn_took = time.monotonic() - t_said
            notes = [n["data"] for n in wait_logs(srv, room, "agent_note", timeout=WAIT)]
            fallback = next(n for n in notes if n["kind"] == "llm_fallback")
            assert fallback["seat"] == "ghost" and "deadline" in fallback["error"]
            assert "sk-test" not in json.dumps(notes)

            def usage():
                return [x["data"]["input"] for x in logs_of(srv, room, "game_input")
                        if x["data"]["input"]["type"] == "AgentUsage"]
            _poll(lambda: usage())
            assert usage()[0]["seat"] == "ghost" and usage()[0]["failures"] >= 1

            # Ann was answered while the agent thought: before its turn ended, and without waiting for the model.
            assert i_help < i_done and i_share < i_done
            assert help_delay < DEADLINE  # generous: the /help answer did not wait for the model
            assert turn_took < DEADLINE + WAIT  # the turn ended at the deadline, not after 3 x 30 s
            assert bot.room(room).state == "attached"  # the room plays on
        finally:
            finish(bot)
            llm.close()
