"""One player's picture of the table, in its own display scale: its own cells exactly, the partner's as far as told
(converted with the estimated ratio of the two scales), bounds from what was said, and the 50 of cells that neither
player knows. Shared by the optimizer and the simulated user."""
from __future__ import annotations

import statistics
from typing import Optional

import numpy as np

from ..generator import best_matching
from ..names import N
from .english import Reading

PRIOR = 50.0          # true value of a cell unknown to both players (released data)
STRONG = 60.0         # "strong" cells (true value) that a player shares in its opening
QUIET = 47.0          # a cell the partner never mentioned (mean true value in the released dialogues: people tell
                      # their high cells, so the ones they keep quiet about are a little below 50)


def expected_max(n: int) -> float:
    """Expected maximum of n integers uniform on 0..99."""
    n = max(1, n)
    return sum(1 - (k / 100) ** n for k in range(100))


class Knowledge:
    def __init__(self, table: list):
        self.own = [[None if v is None else float(v) for v in row] for row in table]
        known = [v for row in self.own for v in row if v is not None]
        self.n_known = len(known)
        self.top = max(known) if known else 0.0
        self.scale = max(1e-6, self.top / expected_max(self.n_known)) if known else 1.0  # own scale estimate
        self.told: dict = {}            # (r, p) -> partner's number (partner scale)
        self.p_unknown: set = set()     # cells the partner does not know
        self.p_bad: set = set()
        self.p_good: set = set()
        self.p_suggested: set = set()   # pairs the partner put forward (chat without numbers, its proposals)
        self.p_best_in_paper: dict = {}
        self.p_top: Optional[float] = None
        self.p_cap: Optional[float] = None   # partner's unmentioned known cells are below this (true units)
        self.p_rated: dict = {}         # (r, p) -> value (true units) a graded word suggested ("decent", "red")
        self.p_doubt: set = set()       # cells of a proposal the partner rejected that only it could judge
        self.rejected: list = []        # matchings the partner rejected: never proposed again as they are
        self.version = 0

    # --- learning -----------------------------------------------------------------------------------------------
    def learn(self, rd: Reading) -> bool:
        before = (len(self.told), len(self.p_unknown), len(self.p_bad), len(self.p_good), self.p_top,
                  len(self.p_best_in_paper), len(self.p_suggested), dict(self.p_rated))
        for cell, v in rd.values.items():
            self.told[cell] = float(v)
            self.p_unknown.discard(cell)
        for cell in rd.unknown:
            if cell not in self.told:
                self.p_unknown.add(cell)
        self.p_bad |= rd.bad
        self.p_good |= rd.good
        self.p_suggested |= {c for c in rd.suggested if c not in rd.bad}
        self.p_doubt -= rd.suggested | rd.good | set(rd.rated)  # said after a rejection: the partner's word wins
        self.p_best_in_paper.update(rd.best_in_paper)
        for cell, v in rd.rated.items():
            if cell not in self.told:
                self.p_rated[cell] = float(v)
        if rd.top is not None:
            self.p_top = float(rd.top)
        after = (len(self.told), len(self.p_unknown), len(self.p_bad), len(self.p_good), self.p_top,
                 len(self.p_best_in_paper), len(self.p_suggested), self.p_rated)
        changed = before != after
        if changed:
            self.version += 1
        return changed

    def partner_proposed(self, matching) -> None:
        """The partner put a full matching forward: its cells that only the partner can judge look good to it."""
        cells = {(r, p) for r, p in enumerate(matching) if self.own[r][p] is None and (r, p) not in self.told}
        self.p_suggested |= cells
        self.p_doubt -= cells
        self.version += 1

    def partner_rejected(self, matching) -> None:
        """The partner rejected this matching: some cell of it that only the partner could judge may be low (weak
        evidence: in the released dialogues such cells average about 52)."""
        self.rejected.append(list(matching))
        self.p_doubt |= {(r, p) for r, p in enumerate(matching) if self.own[r][p] is None and (r, p) not in self.told
                         and (r, p) not in self.p_rated}
        self.version += 1

    def ratio(self) -> float:
        """Partner scale / own scale: from cells both know when possible, else from the two top numbers, else
        from the partner's largest number mentioned."""
        common = [self.told[c] / self.own[c[0]][c[1]] for c in self.told
                  if self.own[c[0]][c[1]] is not None and self.own[c[0]][c[1]] >= 15 * self.scale]
        if common:
            return statistics.median(common)
        if self.p_top:
            return (self.p_top / expected_max(25)) / self.scale
        if self.told:
            m = max(self.told.values())
            if m > 0:
                return max(m / 90.0, 0.2) / self.scale
        return 1.0

    # --- estimates (own scale) ----------------------------------------------------------------------------------
    def cell(self, r: int, p: int) -> tuple[float, str]:
        """(estimate in own scale, how it is known: own | told | none | guess)."""
        s = self.scale
        if self.own[r][p] is not None:
            return self.own[r][p], "own"
        if (r, p) in self.told:
            return self.told[(r, p)] / self.ratio(), "told"
        if (r, p) in self.p_unknown:
            return PRIOR * s, "none"
        if (r, p) in self.p_rated:
            return self.p_rated[(r, p)] * s, "guess"
        if (r, p) in self.p_bad:
            return 38 * s, "guess"
        if (r, p) in self.p_good:
            return 80 * s, "guess"
        best_r = self.p_best_in_paper.get(p)
        if best_r == r:
            return 83 * s, "guess"
        if (r, p) in self.p_doubt:
            return 52 * s, "guess"  # measured: a rejection rarely says which cell was low
        if (r, p) in self.p_suggested:
            return 72 * s, "guess"
        if self.p_cap is not None:
            # not mentioned as strong: either unknown to both (50) or known to the partner and below the cap
            q = 0.4 * 0.6 / (0.4 * 0.6 + 0.6)
            return (q * self.p_cap / 2 + (1 - q) * PRIOR) * s, "guess"
        return QUIET * s, "guess"

    def estimates(self, assume: Optional[dict] = None) -> np.ndarray:
        est = np.zeros((N, N))
        for r in range(N):
            for p in range(N):
                est[r, p] = self.cell(r, p)[0]
        for (r, p), v in (assume or {}).items():
            est[r, p] = v
        return est

    def exact(self, r: int, p: int) -> bool:
        return self.cell(r, p)[1] in ("own", "told", "none")

    def best(self) -> tuple[list[int], float]:
        """The best matching under the estimates, other than one the partner already rejected."""
        est = self.estimates()
        m = best_matching(est)
        if m in self.rejected:
            alts = []
            for r, p in enumerate(m):  # the best matching without one cell of the rejected one
                alt = est.copy()
                alt[r, p] = -1e6
                m2 = best_matching(alt)
                if m2 not in self.rejected:
                    alts.append((float(sum(est[i, j] for i, j in enumerate(m2))), m2))
            if alts:
                m = max(alts)[1]
        return m, float(sum(est[r, p] for r, p in enumerate(m)))

    def value(self, matching) -> float:
        est = self.estimates()
        return float(sum(est[r, p] for r, p in enumerate(matching)))

    def questions(self, limit: int = 6) -> list[tuple[int, int]]:
        """Value of information: the guessed cells whose true value could change the best matching. A guessed
        cell of the current best matching is asked when setting it low changes the best matching; a guessed cell
        outside it when setting it high (the cap, or 99) makes a better matching. Largest possible change first."""
        est = self.estimates()
        m = best_matching(est)
        base = float(sum(est[r, p] for r, p in enumerate(m)))
        hi_true = self.p_cap if self.p_cap is not None else 99.0
        out = []
        for r in range(N):
            for p in range(N):
                if self.exact(r, p):
                    continue
                if m[r] == p:
                    alt = est.copy()
                    alt[r, p] = 0.0
                    m2 = best_matching(alt)
                    loss = base - float(sum(alt[i, j] for i, j in enumerate(m2)))
                    gain = float(sum(alt[i, j] for i, j in enumerate(m2))) - float(sum(alt[i, j] for i, j in enumerate(m)))
                    out.append((gain + 0.001 * loss, (r, p)))
                else:
                    alt = est.copy()
                    alt[r, p] = hi_true * self.scale
                    m2 = best_matching(alt)
                    gain = float(sum(alt[i, j] for i, j in enumerate(m2))) - base
                    if m2[r] == p and gain > 0:
                        out.append((gain, (r, p)))
        out.sort(key=lambda x: -x[0])
        return [c for g, c in out if g > 0.5 * self.scale][:limit]
