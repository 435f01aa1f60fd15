"""What the hardness test says about the cells one does not know, for a final proposal made without more talk.

Every instance passed the generator's test (the pooled optimum beats each player's solo optimum by more than
1.25x; `generator.py`), and that is public knowledge of the game. It is informative: my solo matching (my own cells,
50 elsewhere) must score low on the true table, so the cells of it that I do not know are probably ones the partner
knows and low; and the partner's own solo matching must be weak too. `posterior_means` draws complete tables from
the generator's distribution given what I know (my cells exact; the partner's cells as told, "don't know" = 50, cells
it hinted at near my estimate, silent cells known to it with p = 0.4 and uniform 0..99, else 50), keeps those that
pass the test (rejection sampling of independent tables: Metropolis chains were tried and stayed too close to their
first table), and returns the mean table. The sum of a matching is linear, so the best matching on the mean table is
the one with the highest expected score.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..generator import HARDNESS, P_KNOWN, UNKNOWN, best_matching
from ..names import N

ROWS = np.arange(N)
HINT_SPREAD = 20.0    # a hinted cell ("Ava is good for BLEU"): uniform within +-20 of the estimate (true units)
BATCH = 20000


def _kinds(k) -> np.ndarray:
    """own | told | none | hint | quiet for every cell, from the knowledge's own categories."""
    out = np.empty((N, N), dtype=object)
    for r in range(N):
        for p in range(N):
            kind = k.cell(r, p)[1]
            if kind == "guess":
                hinted = ((r, p) in k.p_rated or (r, p) in k.p_bad or (r, p) in k.p_good or (r, p) in k.p_doubt
                          or (r, p) in k.p_suggested or k.p_best_in_paper.get(p) == r)
                kind = "hint" if hinted else "quiet"
            out[r, p] = kind
    return out


class _Model:
    """The prior over complete tables given what I know, on flat (n, 64) arrays (true units)."""

    def __init__(self, k):
        self.est = (k.estimates() / k.scale).ravel()
        kinds = _kinds(k).ravel()
        self.own, self.told, self.none = kinds == "own", kinds == "told", kinds == "none"
        self.hint, self.quiet = kinds == "hint", kinds == "quiet"
        self.sure = np.flatnonzero(self.told | self.hint)            # cells the partner surely knows
        self.fixed = np.flatnonzero(self.own | self.told)            # values I know (mine, or told)
        self.hints = np.flatnonzero(self.hint)
        self.my_solo = np.array(best_matching(np.where(self.own, self.est, UNKNOWN).reshape(N, N))) + ROWS * N

    def draw(self, rng, n: int) -> tuple[np.ndarray, np.ndarray]:
        """n tables from the prior: (true values, partner mask), each (n, 64)."""
        u = rng.random((n, N * N), dtype=np.float32)
        pm = u < P_KNOWN                                # own and silent cells: known to the partner with p = 0.4
        pm[:, self.sure] = True
        pm[:, np.flatnonzero(self.none)] = False
        # a silent cell the partner knows is uniform on 0..99 (u / 0.4 is uniform on [0, 1) given u < 0.4)
        t = np.where(pm, np.floor(u * (100 / P_KNOWN)), np.float32(UNKNOWN))
        t[:, self.fixed] = self.est[self.fixed]
        h = self.est[self.hints]
        t[:, self.hints] = np.clip(h + rng.uniform(-HINT_SPREAD, HINT_SPREAD, (n, h.size)), 0, 99)
        return t, pm

    def passing(self, t: np.ndarray, pm: np.ndarray) -> np.ndarray:
        """The tables that pass the hardness test (my solo and the partner's solo both under best / 1.25)."""
        solo = t[:, self.my_solo].sum(1)
        tt = t.reshape(-1, N, N)
        upper = np.minimum(tt.max(2).sum(1), tt.max(1).sum(1))  # no matching beats the row / column maxima
        idx = np.flatnonzero(HARDNESS * solo < upper)
        cols = np.array([linear_sum_assignment(tt[i], maximize=True)[1] for i in idx], dtype=int).reshape(-1, N)
        best = np.take_along_axis(t[idx], cols + ROWS * N, 1).sum(1)
        ok = HARDNESS * solo[idx] < best
        idx, best = idx[ok], best[ok]
        view = np.where(pm[idx], t[idx], float(UNKNOWN)).reshape(-1, N, N)  # what the partner sees
        cols = np.array([linear_sum_assignment(v, maximize=True)[1] for v in view], dtype=int).reshape(-1, N)
        partner_solo = np.take_along_axis(t[idx], cols + ROWS * N, 1).sum(1)
        return idx[HARDNESS * partner_solo < best]


def posterior_means(k, seed: int = 0, want: int = 100, min_kept: int = 30,
                    max_draws: int = 200000) -> Optional[np.ndarray]:
    """The mean of tables consistent with what I know and with the hardness test, in my display scale (my own
    cells exact): rejection sampling until `want` tables pass (or `max_draws` were drawn); None when fewer than
    `min_kept` passed (what I believe does not fit the test well: the plain estimates stand)."""
    m = _Model(k)
    rng = np.random.default_rng(seed)
    kept: list = []
    drawn = 0
    while drawn < max_draws and sum(len(x) for x in kept) < want:
        t, pm = m.draw(rng, BATCH)
        drawn += BATCH
        kept.append(t[m.passing(t, pm)])
    tables = np.concatenate(kept)
    if len(tables) < min_kept:
        return None
    return (np.where(m.own, m.est, tables.mean(0)) * k.scale).reshape(N, N)
