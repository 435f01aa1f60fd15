"""The optimizer's final proposal under a spent word budget (no talk can correct it): its estimates there are the
posterior mean given what it knows and the hardness test every instance passed (`brains/hardness.py`)."""
from __future__ import annotations

import numpy as np

from tasks import get_task
from tasks.assignment.brains.hardness import posterior_means
from tasks.assignment.brains.knowledge import Knowledge
from tasks.assignment.generator import UNKNOWN, best_matching, generate
from tasks.core import MatchDriver, SeatInfo, TimerConfig, build_match

SPEC = get_task("assignment")
NO_TIMERS = TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None)


def _shown(inst: dict, k: int) -> list:
    s = inst["scales"][k]
    return [[int(v * s) if inst["masks"][k][r][p] else None for p, v in enumerate(row)]
            for r, row in enumerate(inst["table"])]


def test_the_gaps_of_my_solo_matching_look_low():
    """My solo matching (my cells, 50 elsewhere) must score well under the pooled optimum, so the cells of it I do
    not know are believed below 50, and truly are below 50 on average over generated instances."""
    believed, truth = [], []
    for seed in range(6):
        inst = generate(seed)
        k = Knowledge(_shown(inst, 0))
        post = posterior_means(k, seed=seed)
        assert post is not None
        own = np.array([[v is not None for v in row] for row in k.own])
        solo = best_matching(np.where(own, k.estimates() / k.scale, UNKNOWN))
        for r, p in enumerate(solo):
            if not own[r, p]:
                believed.append(post[r, p] / k.scale)
                truth.append(inst["table"][r][p])
                assert post[r, p] == post[r, p]  # a number
        assert np.allclose(post[own], k.estimates()[own])  # my own cells stay exact
    assert np.mean(believed) < UNKNOWN - 3
    assert np.mean(truth) < UNKNOWN


def test_the_posterior_is_seeded():
    k = Knowledge(_shown(generate(3), 1))
    assert np.array_equal(posterior_means(k, seed=7), posterior_means(k, seed=7))


def test_a_table_no_instance_could_have_gives_no_posterior():
    """I know a matching of 99s: my solo matching is the best there is, so no table passes the test; the plain
    estimates stand (None)."""
    table = [[99 if r == p else None for p in range(8)] for r in range(8)]
    assert posterior_means(Knowledge(table), seed=0) is None


def test_a_spent_budget_ends_with_one_final_proposal_from_the_posterior():
    """Two optimizers with no chat words: exactly one proposes, the proposal is accepted automatically, and it is the
    best matching on that player's posterior table (its plain estimates when no table fits the test)."""
    used_posterior = 0
    for seed in (11, 12, 13, 14):
        inst = generate(seed)
        seats = {s: SeatInfo("agent", s, "optimizer") for s in SPEC.seats}
        match, brains = build_match(SPEC, 0, seats, options={"turns": "free", "word_budget": 10}, instance=inst,
                                    timers=NO_TIMERS)
        for _ in MatchDriver(match, brains).open():
            pass
        assert match.over and match.results["forced_final"] is True
        assert sum(match.game.counts["proposals"].values()) == 1
        proposer = next(s for s, n in match.game.counts["proposals"].items() if n == 1)
        b = brains[proposer]
        post = posterior_means(b.k, seed=b.seed)
        used_posterior += post is not None
        assert match.game.accepted == best_matching(b.k.estimates() if post is None else post)
    assert used_posterior >= 1
