"""The released DialOp dialogues: the loader rebuilds every Assignment game, the replay reproduces every stored
score, and prompted self-play cuts at 50% / 75% of the words or before the final proposal. Skips without the data
(../shared/data/dialop/data.zip or $DIALOP_DATA)."""
from __future__ import annotations

import os

import pytest

from tasks import get_task
from tasks.assignment import released
from tasks.dialop import psp
from tasks.dialop.data import default_path, message_words, read_records
from tasks.dialop.runner import play_released

PATH = default_path()
pytestmark = pytest.mark.skipif(not os.path.exists(PATH),
                                reason=f"released DialOp data not found at {PATH} (set DIALOP_DATA to data.zip)")
SPEC = get_task("assignment")


def test_all_three_files_are_read():
    counts = {t: sum(1 for _ in read_records(PATH, t)) for t in ("assignment", "planning", "mediation")}
    assert counts == {"assignment": 134, "planning": 113, "mediation": 162}


def test_every_stored_score_is_reproduced_by_the_replay():
    ok, problems = released.check_scores(PATH, SPEC)
    assert problems == [] and ok == 134


def test_psp_cuts():
    games = list(released.load(PATH))[:20]
    for g in games:
        total = sum(message_words(g.record))
        n50, n75, nend = (psp.cut_index(g.record, m) for m in psp.MODES)
        assert n50 <= n75 <= nend
        log = g.record["action_log"]
        assert "proposal" in log[nend] and all(("proposal" not in a) for a in log[nend + 1:])
        assert abs(psp.prefix_words(g.record, n50) - total / 2) <= max(message_words(g.record)) + 1


@pytest.mark.parametrize("mode", psp.MODES)
def test_prompted_self_play_finishes_within_the_budget(mode):
    for g in list(released.load(PATH))[:4]:
        res = play_released(SPEC, g, {"player1": "optimizer", "player2": "optimizer"}, mode)
        assert res["status"] == "completed", res
        assert res["word_budget"] == sum(message_words(g.record))
        assert res["words"] <= res["word_budget"]
