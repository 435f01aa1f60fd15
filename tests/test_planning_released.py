"""The released DialOp Planning dialogues (`itinerary.jsonl`, 113 games): every instance rebuilds with the stored
best and worst, the replay reproduces the stored score (all but two early games whose stored scorecards skip an
at-least-one penalty, `released.KNOWN_DIFFERENCES`), every stored proposal scorecard matches ours, and prompted
self-play finishes within the word budget. Skips without the data (../shared/data/dialop/data.zip or
$DIALOP_DATA)."""
from __future__ import annotations

import os

import pytest

from tasks import get_task
from tasks.dialop import psp
from tasks.dialop.data import default_path, message_words
from tasks.dialop.runner import play_released
from tasks.planning import released
from tasks.planning.scoring import score

PATH = default_path()
pytestmark = pytest.mark.skipif(not os.path.exists(PATH),
                                reason=f"released DialOp data not found at {PATH} (set DIALOP_DATA to data.zip)")
SPEC = get_task("planning")


def test_every_stored_score_is_reproduced_except_the_known_two():
    ok, problems = released.check_scores(PATH, SPEC)
    assert ok == 111
    assert sorted(int(p.split(":")[0].split()[1]) for p in problems) == sorted(released.KNOWN_DIFFERENCES)


def test_stored_proposal_scorecards_match():
    same = total = 0
    for g in released.load(PATH):
        names = [s["name"] for s in g.instance["sites"]]
        for a in g.record["action_log"]:
            if a.get("type") != "proposal":
                continue
            slots = [None if s is None else names.index(s["name"]) for s in a["proposal"][0::2]]
            card = score(g.instance["sites"], g.instance["prefs"], g.instance["rules"], slots)
            total += 1
            same += (card["total"], card["by_slot"]) == (a["scores"]["total"], a["scores"]["scores_by_event"])
    assert total == 337 and same >= 326  # the rest are the games in KNOWN_DIFFERENCES


@pytest.mark.parametrize("mode", psp.MODES)
def test_prompted_self_play_finishes_within_the_budget(mode):
    for g in list(released.load(PATH))[:3]:
        res = play_released(SPEC, g, {"user": "simuser", "assistant": "planner"}, mode)
        assert res["status"] == "completed", res
        assert res["word_budget"] == sum(message_words(g.record)) and res["words"] <= res["word_budget"]
