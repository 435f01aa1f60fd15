"""The exact belief over the partner's values (tasks/dond/belief.py): prior, the paper's update with λ and γ, the
evidence of proposals, acceptances, rejections (R1 / R2) and statements, and the paper's estimation metrics."""
from __future__ import annotations

import pytest

from tasks.dond import items as I
from tasks.dond.belief import FLOOR, Belief, estimation_metrics

COUNTS = (3, 2, 1)


def mass(b: Belief, event) -> float:
    return sum(p for v, p in b.items() if event(v))


def test_prior_is_uniform_over_omega():
    b = Belief(COUNTS)
    assert b.omega == I.valuations(COUNTS) and 9 <= len(b.omega) <= 26
    assert sum(b.p) == pytest.approx(1.0)
    assert max(b.p) == pytest.approx(min(b.p))


def test_statement_zero_keeps_only_consistent_values():
    b = Belief(COUNTS)
    b.stated("zero", 1)
    assert mass(b, lambda v: v[1] == 0) > 0.9
    assert all(p < FLOOR for v, p in b.items() if v[1] != 0)
    assert sum(b.p) == pytest.approx(1.0)


def test_lambda_mixes_old_and_new_belief():
    still = Belief(COUNTS, lam=0.0)
    still.stated("zero", 1)
    assert still.p == pytest.approx(Belief(COUNTS).p)
    half = Belief(COUNTS, lam=0.5)
    full = Belief(COUNTS, lam=1.0)
    half.stated("zero", 1)
    full.stated("zero", 1)
    prior = 1 / len(half.omega)
    for h, f in zip(half.p, full.p):
        assert h == pytest.approx(0.5 * prior + 0.5 * f)


def test_acceptance_means_envy_free_for_the_partner():
    b = Belief(COUNTS)
    mine = (3, 0, 0)  # the partner keeps the hats and the ball
    before = b.p_ef(mine)
    b.accepted(mine)
    assert b.p_ef(mine) > max(before, 0.9)


def test_rejection_reasons_follow_the_paper():
    mine, counter = (2, 1, 0), (1, 1, 0)  # I asked for 2 books and a hat; they counter, leaving me 1 book, 1 hat
    theirs = I.rest(COUNTS, mine)
    envy = lambda v: I.utility(theirs, v) < 5                                              # noqa: E731
    greedy = lambda v: not envy(v) and I.utility(I.rest(COUNTS, counter), v) > I.utility(theirs, v)  # noqa: E731
    # a reason said in words: only valuations under which it holds explain it (others keep the floor)
    for reason, event in (("R1", envy), ("R2", greedy)):
        b = Belief(COUNTS)
        b.rejected(mine, counter, reason)
        odds = mass(b, event) / (1 - mass(b, event))
        prior_odds = mass(Belief(COUNTS), event) / (1 - mass(Belief(COUNTS), event))
        assert odds == pytest.approx(prior_odds / FLOOR)
    # no reason given: R1 and R2 weigh 1/(1+γ) and γ/(1+γ)
    for gamma in (0.5, 1.0, 3.0):
        b = Belief(COUNTS, gamma=gamma)
        prior_ratio = mass(b, envy) / mass(b, greedy)
        b.rejected(mine, counter)
        assert mass(b, envy) / mass(b, greedy) == pytest.approx(prior_ratio / gamma)


def test_a_proposal_says_what_the_proposer_values():
    b = Belief(COUNTS)
    b.proposed((3, 0, 0))  # the partner asks for the hats and the ball, leaves me the books
    mean = b.mean()
    prior = Belief(COUNTS).mean()
    assert mean[1] > prior[1] and mean[2] > prior[2] and mean[0] < prior[0]


def test_impossible_evidence_changes_nothing():
    b = Belief(COUNTS)
    before = list(b.p)
    assert b.update(lambda v: 0.0, "nothing fits") is False
    assert b.p == before


def test_expectations_are_exact_sums():
    b = Belief(COUNTS)
    b.stated("top", 2)
    mine = (2, 1, 0)
    brute = sum(p for v, p in b.items() if I.utility(I.rest(COUNTS, mine), v) >= 5)
    assert b.p_ef(mine) == pytest.approx(brute)
    brute_value = sum(p * I.utility(I.rest(COUNTS, mine), v) for v, p in b.items())
    assert b.partner_value(mine) == pytest.approx(brute_value)


def test_estimation_metrics_as_the_paper_defines_them():
    b = Belief(COUNTS)
    truth = (1, 2, 3)
    assert truth in b.omega
    m = estimation_metrics(b, truth)
    assert m == {"precision": 1.0, "recall": pytest.approx(1 / len(b.omega)), "reduction": pytest.approx(0.0),
                 "size": len(b.omega)}
    b.stated("top", 2)
    b.stated("more", 1, 0)
    m = estimation_metrics(b, truth)
    est = b.estimate()
    assert truth in est and m["size"] == len(est) < len(b.omega)
    assert m["recall"] == pytest.approx(1 / len(est))
    assert m["reduction"] == pytest.approx(1 - len(est) / len(b.omega))
    wrong = estimation_metrics(b, (0, 5, 0))
    assert wrong["precision"] == 0.0 and wrong["recall"] == 0.0
