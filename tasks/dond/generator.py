"""Seeded Deal or No Deal instances, drawn like the released data: three item types with 1-4 of each and 5-7 items in
all (uniform over such count triples), and each player's values drawn uniformly and independently from Ω, the
integer valuations 0-10 with Σ count·value = 10.

Options: `ef` (default true) keeps only instances with at least one envy-free split (the paper plays only those);
`hard` (`L1<=4`) keeps only the reference's hard cases (not all counts even, not "maximum covered", L1 distance of
the valuations at most the bound). Candidates are drawn until one passes; `tries` records how many were drawn.
"""
from __future__ import annotations

import itertools
import random
from typing import Optional

from .items import ef_splits, l1_distance, maximum_covered, valuations
from .parse import parse_hard

MIN_COUNT, MAX_COUNT = 1, 4
MIN_ITEMS, MAX_ITEMS = 5, 7
MAX_TRIES = 100_000  # a bound no valid option combination comes near (L1<=2 needs ~40 draws)

COUNT_TRIPLES = tuple(c for c in itertools.product(range(MIN_COUNT, MAX_COUNT + 1), repeat=3)
                      if MIN_ITEMS <= sum(c) <= MAX_ITEMS and valuations(c))


def is_hard(counts, values_a, values_b, bound: Optional[int]) -> bool:
    """The reference's hard-case test (§6) without the duplicate check (that needs the whole data set)."""
    if bound is None:
        return True
    if all(c % 2 == 0 for c in counts) or maximum_covered(counts, values_a, values_b):
        return False
    return l1_distance(values_a, values_b) <= bound


def _flag(value, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, str):
        return value.strip().lower() not in ("0", "false", "no", "off", "")
    return bool(value)


def make_instance(counts, values_a, values_b, **extra) -> dict:
    counts, va, vb = tuple(counts), tuple(values_a), tuple(values_b)
    return {"counts": list(counts), "values": {"alice": list(va), "bob": list(vb)}, "source": "generated",
            "line": None, "human": None, "l1": l1_distance(va, vb), "has_ef": bool(ef_splits(counts, va, vb)),
            **extra}


def generate(seed: int, options: Optional[dict] = None) -> dict:
    options = dict(options or {})
    need_ef = _flag(options.get("ef"), True)
    bound = parse_hard(options.get("hard"))
    rng = random.Random(f"dond-{seed}")
    for tries in range(1, MAX_TRIES + 1):
        counts = rng.choice(COUNT_TRIPLES)
        omega = valuations(counts)
        va, vb = rng.choice(omega), rng.choice(omega)
        if not is_hard(counts, va, vb, bound):
            continue
        if need_ef and not ef_splits(counts, va, vb):
            continue
        return make_instance(counts, va, vb, tries=tries, hard=bound, ef_required=need_ef)
    raise ValueError(f"no instance found in {MAX_TRIES} draws for hard={bound}, ef={need_ef}")
