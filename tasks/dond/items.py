"""Deal or No Deal's arithmetic, shared by the game, the metrics and every agent.

Three item types with counts 1-4 (5-7 items in all); each player values each type at an integer 0-10 and the values
of all items add up to 10 for each player. A split is what ONE player takes, as a tuple of counts per type; the other
player takes the rest (`rest`). Utility is Σ count·value. Pure functions over small tuples; nothing here knows about
seats, messages or pages.

Definitions follow the paper's metric code (reference game-theory-negotiation.md §8):
- envy-free: each player values their own share at least as much as the other's share;
- Pareto optimal: no other split gives one player more and the other no less;
- "best": among EF and PO splits, the one with the largest total, ties to the first enumerated.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Iterable, Optional, Sequence

ITEMS = ("book", "hat", "ball")
PLURALS = ("books", "hats", "balls")
TOTAL_VALUE = 10
MAX_VALUE = 10

Counts = tuple  # (books, hats, balls)
Values = tuple  # value of one book, one hat, one ball
Split = tuple   # what one player takes, per type


def utility(split: Sequence[int], values: Sequence[int]) -> int:
    return sum(n * v for n, v in zip(split, values))


def rest(counts: Sequence[int], split: Sequence[int]) -> Split:
    """The other player's share when one player takes `split`."""
    return tuple(c - n for c, n in zip(counts, split))


def valid_split(counts: Sequence[int], split: Sequence[int]) -> bool:
    return len(split) == len(counts) and all(isinstance(n, int) and 0 <= n <= c for n, c in zip(split, counts))


@lru_cache(maxsize=None)
def all_splits(counts: Counts) -> tuple[Split, ...]:
    """Every split, in the enumeration order the paper's code uses (books outermost)."""
    return tuple(itertools.product(*(range(c + 1) for c in counts)))


@lru_cache(maxsize=None)
def valuations(counts: Counts) -> tuple[Values, ...]:
    """Ω: every integer valuation 0..10 per type with Σ count·value = 10 (the prior's support)."""
    out = []
    for v in itertools.product(range(MAX_VALUE + 1), repeat=len(counts)):
        if utility(counts, v) == TOTAL_VALUE:
            out.append(v)
    return tuple(out)


def valid_values(counts: Sequence[int], values: Sequence[int]) -> bool:
    return tuple(values) in valuations(tuple(counts))


def envy_free_for(counts: Sequence[int], split: Sequence[int], values: Sequence[int]) -> bool:
    """The player who takes `split`, with `values`, does not envy the other's share."""
    return utility(split, values) >= utility(rest(counts, split), values)


def envy_free(counts: Sequence[int], split_a: Sequence[int], values_a: Sequence[int],
              values_b: Sequence[int]) -> bool:
    """Player A takes `split_a`, B takes the rest; neither envies the other."""
    return (envy_free_for(counts, split_a, values_a)
            and envy_free_for(counts, rest(counts, split_a), values_b))


def pareto_optimal(counts: Sequence[int], split_a: Sequence[int], values_a: Sequence[int],
                   values_b: Sequence[int]) -> bool:
    s1, s2 = utility(split_a, values_a), utility(rest(counts, split_a), values_b)
    for t in all_splits(tuple(counts)):
        t1, t2 = utility(t, values_a), utility(rest(counts, t), values_b)
        if (t1 > s1 and t2 >= s2) or (t1 >= s1 and t2 > s2):
            return False
    return True


def ef_splits(counts: Sequence[int], values_a: Sequence[int], values_b: Sequence[int]) -> list[Split]:
    return [s for s in all_splits(tuple(counts)) if envy_free(counts, s, values_a, values_b)]


def best_split(counts: Sequence[int], values_a: Sequence[int], values_b: Sequence[int]) -> Optional[Split]:
    """The paper's "best": the EF and PO split with the largest total (first enumerated on ties); None if no
    split is EF and PO."""
    best, best_total = None, -1
    for s in all_splits(tuple(counts)):
        if envy_free(counts, s, values_a, values_b) and pareto_optimal(counts, s, values_a, values_b):
            total = utility(s, values_a) + utility(rest(counts, s), values_b)
            if total > best_total:
                best, best_total = s, total
    return best


def l1_distance(values_a: Sequence[int], values_b: Sequence[int]) -> int:
    return sum(abs(a - b) for a, b in zip(values_a, values_b))


def maximum_covered(counts: Sequence[int], values_a: Sequence[int], values_b: Sequence[int]) -> bool:
    """The reference's "maximum covered" easy case: both players' highest-valued type is the same, and for each
    player the other two types together are worth at least one unit of that type."""
    top_a = max(range(len(counts)), key=lambda k: values_a[k])
    top_b = max(range(len(counts)), key=lambda k: values_b[k])
    if top_a != top_b:
        return False
    for values in (values_a, values_b):
        others = sum(counts[k] * values[k] for k in range(len(counts)) if k != top_a)
        if others < values[top_a]:
            return False
    return True


def describe(split: Sequence[int]) -> str:
    """'2 books, 1 hat and no balls' — plain English for messages."""
    parts = []
    for n, one, many in zip(split, ITEMS, PLURALS):
        parts.append(f"no {many}" if n == 0 else f"{n} {one if n == 1 else many}")
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def command_text(split: Sequence[int]) -> str:
    """The canonical `/propose` form of a split (what the proposer takes)."""
    return "/propose " + " ".join(f"{p}={n}" for p, n in zip(PLURALS, split))


def splits_by(counts: Sequence[int], key, candidates: Optional[Iterable[Split]] = None) -> list[Split]:
    """Splits sorted by `key` (highest first), stable in enumeration order."""
    pool = list(candidates) if candidates is not None else list(all_splits(tuple(counts)))
    return sorted(pool, key=lambda s: -key(s))
