"""Instances of DialOp Assignment: true affinities, what each player knows, display scales, the pooled optimum.

One candidate is drawn as in the released game: integer affinities 0..99, each cell known to each player with
p = 0.4, a display scale U(1, 10) per player. Cells unknown to both players count as 50 (`unknown_value="50"`, what
the released data does); `unknown_value="paper"` keeps their random value instead (the paper's Uniform table).

Hardness: an instance is accepted only when the pooled-knowledge optimum beats each player's solo optimum (the best
matching on the own known cells, 50 elsewhere, scored on the true table) by more than 1.25x. Candidates are drawn
in vectorised batches and tested with scipy's Hungarian solver, the pooled test first and the solo tests only for
candidates still in the running; sampling continues until a candidate passes (no cap that would skip the test), and
the number of candidates drawn is recorded as `tries`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from scipy.optimize import linear_sum_assignment

from .names import N

P_KNOWN = 0.4
HARDNESS = 1.25
UNKNOWN = 50
BATCH = 1024


def best_matching(values) -> list[int]:
    """The matching (paper per reviewer) with the largest sum of `values` (Hungarian algorithm)."""
    rows, cols = linear_sum_assignment(np.asarray(values, dtype=float), maximize=True)
    out = [0] * len(rows)
    for r, c in zip(rows, cols):
        out[int(r)] = int(c)
    return out


def score(table, matching) -> int:
    return int(sum(int(table[r][p]) for r, p in enumerate(matching)))


def estimate(table, mask) -> np.ndarray:
    """What a player with `mask` can infer: the known cells, 50 elsewhere."""
    t = np.asarray(table)
    return np.where(np.asarray(mask, dtype=bool), t, UNKNOWN)


def hardness(table, m1, m2) -> dict:
    """Pooled optimum, solo scores and whether the instance passes the 1.25x test."""
    union = np.asarray(m1, dtype=bool) | np.asarray(m2, dtype=bool)
    best_m = best_matching(estimate(table, union))
    best = score(table, best_m)
    solo = [score(table, best_matching(estimate(table, m))) for m in (m1, m2)]
    return {"best": best, "best_matching": best_m, "solo": solo,
            "hard": all(HARDNESS * s < best for s in solo)}


def generate(seed: int, p_known: float = P_KNOWN, unknown_value: str = "50", hard: bool = True,
             batch: int = BATCH) -> dict:
    """A seeded instance (JSON-able). `hard=False` takes the first candidate (for tests of the rules)."""
    if unknown_value not in ("50", "paper"):
        raise ValueError("unknown_value must be '50' (released data) or 'paper'")
    rng = np.random.default_rng(seed)
    tries = 0
    while True:
        tables = rng.integers(0, 100, size=(batch, N, N))
        m1 = rng.random((batch, N, N)) < p_known
        m2 = rng.random((batch, N, N)) < p_known
        scales = rng.uniform(1, 10, size=(batch, 2))
        union = m1 | m2
        if unknown_value == "50":
            tables = np.where(union, tables, UNKNOWN)
        pooled = np.where(union, tables, UNKNOWN)
        solo1 = np.where(m1, tables, UNKNOWN)
        solo2 = np.where(m2, tables, UNKNOWN)
        for i in range(batch):
            tries += 1
            t = tables[i]
            if hard:
                best_m = best_matching(pooled[i])
                best = score(t, best_m)
                s1 = score(t, best_matching(solo1[i]))
                if not HARDNESS * s1 < best:
                    continue
                s2 = score(t, best_matching(solo2[i]))
                if not HARDNESS * s2 < best:
                    continue
            return _instance(t, m1[i], m2[i], scales[i], tries, unknown_value, seed)


def _instance(t, m1, m2, scales, tries: Optional[int], unknown_value: str, seed=None, source="generated") -> dict:
    h = hardness(t, m1, m2)
    return {
        "table": [[int(v) for v in row] for row in np.asarray(t)],
        "masks": [[[int(bool(v)) for v in row] for row in np.asarray(m)] for m in (m1, m2)],
        "scales": [float(s) for s in scales],
        "best": h["best"], "best_matching": h["best_matching"], "solo": h["solo"], "hard": h["hard"],
        "tries": tries, "unknown_value": unknown_value, "source": source, "seed": seed,
    }


def from_released(record: dict, index: int) -> dict:
    """The instance of one game of the released optimization.jsonl (its table already holds the 50s)."""
    return _instance(np.asarray(record["table"]), np.asarray(record["mask1"]), np.asarray(record["mask2"]),
                     (record["scale1"], record["scale2"]), None, "50", None, source=f"released:{index}")


def original_rejection_sampling(rng, max_tables: int = 10000) -> tuple[int, bool]:
    """A straightforward implementation of the original generator (one candidate at a time, Python `random`-style
    draws, accepted anyway after `max_tables` failures), for the benchmark. Returns (tries, met_the_test)."""
    for tries in range(1, max_tables + 1):
        t = rng.integers(0, 100, size=(N, N))
        m1 = rng.random((N, N)) < P_KNOWN
        m2 = rng.random((N, N)) < P_KNOWN
        rng.uniform(1, 10, size=2)
        union = m1 | m2
        t = np.where(union, t, UNKNOWN)
        best = score(t, best_matching(np.where(union, t, UNKNOWN)))
        r1 = score(t, best_matching(np.where(m1, t, UNKNOWN)))
        r2 = score(t, best_matching(np.where(m2, t, UNKNOWN)))
        if HARDNESS * r1 < best and HARDNESS * r2 < best:
            return tries, True
    return max_tables, False
