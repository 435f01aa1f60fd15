"""Agents answer like a person typing (bots/pacing.py): the hold-back rule, its configuration, and a travel room on
Slurk (the double, ETags off and on, and a real Slurk when configured) where the agent's reply comes no sooner than
the configured pace while the person's own commands are answered at once."""
from __future__ import annotations

import time

import pytest

from bots.config import ConfigError, load_config
from bots.pacing import Pacing
from bots.slurk.runtime import SlurkBot
from tasks import get_task
from tasks.core.protocol import Chat, Command
from tests.page_views import indexed_page_views
from tests.test_privacy import Participant
from tests.test_slurk_runtime import WAIT, Table, _poll, bot_config, finish, provision_bot

TRAVEL = get_task("travel")


def test_hold_back_grows_with_the_text_counts_thinking_time_and_is_capped():
    p = Pacing(enabled=True, chars_per_second=10, min_seconds=1.0, max_seconds=4.0)
    assert p.seconds([], 0.0) == 0.0  # nothing to send: nothing to wait for
    assert p.seconds([Command("a", "agree")], 0.0) == pytest.approx(1.0)  # a move alone: the minimum
    assert p.seconds([Chat("a", "x" * 20)], 0.0) == pytest.approx(3.0)  # 1 s + 20 chars at 10/s
    assert p.seconds([Chat("a", "x" * 20)], 2.5) == pytest.approx(0.5)  # thinking time counts
    assert p.seconds([Chat("a", "x" * 500)], 0.0) == pytest.approx(4.0)  # capped
    assert p.seconds([Chat("a", "x" * 20)], 9.0) == 0.0  # a slow turn is not delayed further
    assert Pacing(enabled=False).seconds([Chat("a", "hello")], 0.0) == 0.0


def test_pacing_configuration(tmp_path):
    f = tmp_path / "bot.yaml"
    f.write_text("pacing: {chars_per_second: 5, max_seconds: 3}\n")
    cfg = load_config(str(f), {})
    assert cfg.pacing.enabled and cfg.pacing.chars_per_second == 5 and cfg.pacing.max_seconds == 3
    assert not load_config(str(f), {"BOT_PACING": "off"}).pacing.enabled  # the environment wins
    f.write_text("pacing: off\n")
    assert not load_config(str(f), {}).pacing.enabled
    assert load_config(None, {}).pacing.enabled  # on by default on Slurk
    f.write_text("pacing: {speed: 3}\n")
    with pytest.raises(ConfigError, match="unknown pacing setting 'speed'"):
        load_config(str(f), {})


def test_the_agent_answers_at_a_persons_pace_while_the_room_answers_at_once(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1, name=TRAVEL.name)
    room = table.room()
    cfg = bot_config(srv, *provision_bot(srv), table.task, str(tmp_path / "state.sqlite3"), person_seats=1,
                     agents={"ghost": "solver"}, task_options={"boards": "preset"})
    cfg.pacing = Pacing(enabled=True, chars_per_second=40, min_seconds=1.5, max_seconds=2.5)
    bot = SlurkBot(cfg, TRAVEL)
    bot.start()
    try:
        ann = Participant(srv, "Ann", room, table.task, TRAVEL.state_element)
        ann.rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT)
        v = ann.view()
        assert v["core"]["users"] == {"light": ann.id}  # who sits where (the agent speaks through the bot)
        n = len(ann.rec.events)
        said = time.monotonic()
        assert ann.say("hello") is True
        assert ann.send("help") is True  # the room itself answers at once, paced agent or not

        def first(pred):
            for e, d in list(ann.rec.events)[n:]:
                if e == "text_message" and pred(d):
                    return d
            return None
        _poll(lambda: first(lambda d: str(d.get("message")).startswith("Commands:")))
        help_after = time.monotonic() - said
        _poll(lambda: first(lambda d: "Hi!" in str(d.get("message"))), timeout=WAIT)
        reply_after = time.monotonic() - said
        assert reply_after >= 1.5  # held back to the configured pace
        assert help_after < reply_after
        # while held back, Ann's page showed the agent thinking
        shown = [v for i, v in indexed_page_views(ann.rec, TRAVEL) if i >= n]
        assert any(v["core"].get("thinking") == ["ghost"] for v in shown)
    finally:
        finish(bot)
