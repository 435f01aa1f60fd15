"""An exact belief over the partner's values in Deal or No Deal (reference game-theory-negotiation.md §8).

The partner's values are one point of Ω: the integer valuations 0..10 per type with Σ count·value = 10 (9 to 26
points on the released data), so the posterior is an exact table, and expectations over the 16-36 splits are
exact sums. Everything here is in the owner's frame: a split is what the OWNER takes, the partner takes the rest.

Updates follow the paper: B ← (1−λ)·B + λ·P(v | evidence), P(v | evidence) ∝ B(v)·P(evidence | v). Evidence:
- a rejection of my offer M, with the paper's two reasons: R1 (M is not envy-free for the partner) with
  P = 1/(1+γ), R2 (M is envy-free for them but something else gives them more: their counter-offer, or anything
  better when they made none) with P = γ/(1+γ), else a small floor (people reject for reasons no model has);
  a reason the partner gave in words ("not fair" = R1, "I want more" = R2) keeps only that reason;
- an acceptance of M (M is envy-free for them);
- a proposal by the partner (a rational proposer asks for what it values: a softmax over the shares it could ask
  for, on its own value, among the shares it does not envy; taking an item worthless to it is unlikely);
- a truthful statement ("hats are worthless to me", "books matter most to me", "I like balls more than hats").
Since utilities sum to 10, a split is envy-free for a player exactly when that player's share is worth ≥ 5 to it.

Estimation metrics (the paper's, §8, with its inverted names): V_est = the valuations whose posterior is at least
`rel` × the largest; precision = 1[v_true ∈ V_est], recall = 1[v_true ∈ V_est] / |V_est|, reduction =
1 − |V_est| / |Ω|.
"""
from __future__ import annotations

import math
from typing import Callable, Iterable, Optional, Sequence

from . import items as I

HALF = I.TOTAL_VALUE / 2
FLOOR = 0.02          # likelihood of evidence the model calls impossible (people are noisy)
ZERO_TAKEN = 0.3      # likelihood factor per unit a proposer takes that is worthless to it


def ef_for_partner(counts, split, v) -> bool:
    return I.utility(I.rest(counts, split), v) >= HALF


class Belief:
    def __init__(self, counts: Sequence[int], lam: float = 1.0, gamma: float = 1.0, beta: float = 1.0):
        self.counts = tuple(counts)
        self.omega = I.valuations(self.counts)
        self.p = [1.0 / len(self.omega)] * len(self.omega)
        self.lam, self.gamma, self.beta = lam, gamma, beta
        self.history: list[str] = []   # what was learnt, for the log and the tests

    # --- updating -------------------------------------------------------------------------------------------------
    def update(self, likelihood: Callable[[tuple], float], what: str = "") -> bool:
        """Bayes with the paper's mixing. Evidence impossible under every valuation changes nothing (False)."""
        post = [p * likelihood(v) for p, v in zip(self.p, self.omega)]
        z = sum(post)
        if z <= 0:
            return False
        lam = self.lam
        self.p = [(1 - lam) * p + lam * q / z for p, q in zip(self.p, post)]
        self.history.append(what)
        return True

    def rejected(self, mine: Sequence[int], counter: Optional[Sequence[int]] = None,
                 reason: Optional[str] = None) -> bool:
        """The partner rejected my offer `mine` (my share), optionally with their counter-offer `counter` (MY share
        under it) and a reason they gave in words ("R1" / "R2")."""
        g = self.gamma
        theirs = I.rest(self.counts, mine)
        their_counter = I.rest(self.counts, counter) if counter is not None else None

        def lik(v):
            got = I.utility(theirs, v)
            if got < HALF:
                r = "R1"
            elif (I.utility(their_counter, v) > got) if their_counter is not None else got < I.TOTAL_VALUE:
                r = "R2"
            else:
                return FLOOR
            if reason is not None:  # the partner said why: only that reason explains it
                return 1.0 if r == reason else FLOOR
            return 1 / (1 + g) if r == "R1" else g / (1 + g)
        return self.update(lik, f"rejected {tuple(mine)}")

    def accepted(self, mine: Sequence[int]) -> bool:
        return self.update(lambda v: 1.0 if ef_for_partner(self.counts, mine, v) else FLOOR, f"accepted {tuple(mine)}")

    def proposed(self, mine: Sequence[int]) -> bool:
        """The partner proposed that I get `mine` (they take the rest)."""
        theirs = I.rest(self.counts, mine)
        splits = I.all_splits(self.counts)

        def weight(share, v):
            got = I.utility(share, v)
            if got < HALF:
                return FLOOR * math.exp(self.beta * got)
            zeros = sum(n for n, x in zip(share, v) if x == 0)
            return math.exp(self.beta * got) * ZERO_TAKEN ** zeros

        def lik(v):
            return weight(theirs, v) / sum(weight(s, v) for s in splits)
        return self.update(lik, f"proposed {tuple(mine)}")

    def stated(self, kind: str, k: int, j: Optional[int] = None) -> bool:
        """A statement about the partner's values per unit: 'zero' (type k is worthless to them), 'positive',
        'top' (k is worth the most per item), 'bottom', 'more' (k more than j), 'same' (k and j alike)."""
        tests = {
            "zero": lambda v: v[k] == 0,
            "positive": lambda v: v[k] > 0,
            "top": lambda v: all(v[k] >= v[i] for i in range(len(v))) and v[k] > 0,
            "bottom": lambda v: all(v[k] <= v[i] for i in range(len(v))),
            "more": lambda v: v[k] > v[j],
            "same": lambda v: v[k] == v[j],
        }
        test = tests[kind]
        return self.update(lambda v: 1.0 if test(v) else FLOOR, f"stated {kind} {k} {j}")

    # --- reading ---------------------------------------------------------------------------------------------------
    def items(self) -> Iterable[tuple[tuple, float]]:
        return zip(self.omega, self.p)

    def prob(self, event: Callable[[tuple], bool]) -> float:
        return sum(p for v, p in self.items() if event(v))

    def p_ef(self, mine: Sequence[int]) -> float:
        """P(the split is envy-free for the partner); times 1[I do not envy] it is the paper's P_EF."""
        return self.prob(lambda v: ef_for_partner(self.counts, mine, v))

    def expect(self, f: Callable[[tuple], float], given: Optional[Callable[[tuple], bool]] = None) -> float:
        num = den = 0.0
        for v, p in self.items():
            if given is None or given(v):
                num += p * f(v)
                den += p
        return num / den if den > 0 else 0.0

    def partner_value(self, mine: Sequence[int]) -> float:
        theirs = I.rest(self.counts, mine)
        return self.expect(lambda v: I.utility(theirs, v))

    def mean(self) -> tuple:
        return tuple(self.expect(lambda v, k=k: v[k]) for k in range(len(self.counts)))

    def estimate(self, rel: float = 0.5) -> list[tuple]:
        top = max(self.p)
        return [v for v, p in self.items() if p >= rel * top - 1e-12]


def estimation_metrics(belief: Belief, truth: Sequence[int], rel: float = 0.5) -> dict:
    """The paper's precision / recall / reduction of one belief against the partner's true values."""
    est = belief.estimate(rel)
    hit = tuple(truth) in est
    return {"precision": float(hit), "recall": (1.0 / len(est)) if hit else 0.0,
            "reduction": 1.0 - len(est) / len(belief.omega), "size": len(est)}
