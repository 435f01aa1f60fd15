"""LLM usage per agent act: the driver records it as an input, so local games, Slurk games and their replays all
report the same tokens."""
from __future__ import annotations

from tasks.core.evaluation import play_game
from bots.study.replay import replay_file
from tasks.core import AgentUsage, TaskSpec, input_from_json, input_to_json
from tests.test_slurk_runtime import Person, Table, finish, make_bot, play_against_brain, wait_logs
from tests.toygame import SPEC, ToyBrain


class CountingBrain(ToyBrain):
    """The toy brain, as if each act that moves cost one LLM call of 100 + 20 tokens."""

    name = "counting"

    def act(self):
        moves = super().act()
        if moves:
            self.usage["prompt_tokens"] += 100
            self.usage["completion_tokens"] += 20
            self.usage["calls"] += 1
        return moves


COUNTING = TaskSpec(name="toy", title=SPEC.title, game_class=SPEC.game_class,
                    brains={"toy": ToyBrain, "counting": CountingBrain}, default_brains=("counting", "counting"),
                    per_game_columns=SPEC.per_game_columns, state_element=SPEC.state_element)


def test_usage_is_an_input_that_round_trips():
    u = AgentUsage("a", 10, 2, 1, 0, t=3.0)
    assert input_from_json(input_to_json(u)) == u


def test_local_game_reports_tokens_and_the_replay_agrees(tmp_path):
    log = tmp_path / "g.jsonl"
    rec = play_game(COUNTING, 4, {"a": "counting", "b": "counting"}, log_path=str(log))
    calls = rec.usage["calls"]
    assert calls >= 2 and rec.results["tokens"] == 120 * calls
    assert rec.results["llm_usage"]["a"]["calls"] + rec.results["llm_usage"]["b"]["calls"] == calls
    [g], _ = replay_file(str(log), resolve=lambda name: COUNTING)
    assert g.check == "ok" and g.recomputed_results["tokens"] == rec.results["tokens"]


def test_slurk_game_reports_tokens(slurk_double, tmp_path):
    from tests.conftest import SlurkServer
    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=COUNTING, agents={"b": "counting"})
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        play_against_brain(alice)
        end = wait_logs(srv, room, "game_end")[0]["data"]["results"]
        usage = [x["data"]["input"] for x in srv.logs(room) if x["event"] == "game_input"
                 and x["data"]["input"]["type"] == "AgentUsage"]
        assert usage and end["tokens"] == sum(u["prompt_tokens"] + u["completion_tokens"] for u in usage) > 0
    finally:
        finish(bot)
