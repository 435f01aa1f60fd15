"""The released DialOp Mediation dialogues: every one of the 162 rebuilds as instance + inputs, replays through the
rules and reproduces its stored score, best, worst and norm; the released per-proposal score breakdowns come out of
the scoring; prompted self-play continues every cut within the word budget. Skips without the data
(../shared/data/dialop/data.zip or $DIALOP_DATA)."""
from __future__ import annotations

import os

import pytest

from tasks import get_task
from tasks.dialop import psp
from tasks.dialop.data import default_path, message_words
from tasks.dialop.runner import play_released
from tasks.mediation import generator as gen
from tasks.mediation import released

PATH = default_path()
pytestmark = pytest.mark.skipif(not os.path.exists(PATH),
                                reason=f"released DialOp data not found at {PATH} (set DIALOP_DATA to data.zip)")
SPEC = get_task("mediation")
AGENTS = {"user1": "simuser", "user2": "simuser", "assistant": "mediator"}


def test_every_stored_score_is_reproduced_by_the_replay():
    ok, problems = released.check_scores(PATH, SPEC)
    assert problems == [] and ok == 162


def test_every_released_breakdown_is_reproduced():
    n = 0
    for g in released.load(PATH):
        for a in g.record["action_log"]:
            if a["type"] != "proposal":
                continue
            b = gen.breakdown(g.instance, tuple(p["flight_id"] for p in a["proposals"]))
            for u, p in enumerate(a["proposals"]):
                c = p["cost"]
                assert (b["users"][u]["calendar"], b["users"][u]["price"], b["users"][u]["arrival"],
                        b["users"][u]["total"]) == (c["calendar"], c["price"], c["arrival_time"], c["total"])
                n += 1
    assert n == 918


def test_instances_keep_the_released_data_and_the_original_rules():
    g = next(iter(released.load(PATH)))
    pd = g.record["player_data"]
    for k, u in enumerate(g.instance["users"]):
        assert len(u["flights"]) == len(pd[k]["flights"]) and u["mean_price"] == pd[k]["mean_price"]
        assert sum(e["shared"] for e in u["calendar"]) == len(pd[k]["shared_calendar"])
    assert g.instance["rules"]["overlap"] == "strict" and g.instance["rules"]["arrival"] == "per_user"
    assert g.human_results()["normalized_score"] == g.result["norm"]


@pytest.mark.parametrize("mode", psp.MODES)
def test_prompted_self_play_finishes_within_the_budget(mode):
    for g in list(released.load(PATH))[:6]:
        res = play_released(SPEC, g, AGENTS, mode)
        assert res["status"] == "completed", res
        assert res["word_budget"] == sum(message_words(g.record))
        assert res["words"] <= res["word_budget"]
        assert 0.0 <= res["normalized_score"] <= 1.0


def test_self_play_on_released_instances():
    for g in list(released.load(PATH))[:6]:
        res = play_released(SPEC, g, AGENTS)
        assert res["status"] == "completed" and res["normalized_score"] >= 0.8
