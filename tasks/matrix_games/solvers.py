"""Exact solvers for two-player games, pure Python (fractions, no floats where it matters).

Bimatrix games: `payoffs[i][j] = (u_row, u_col)` with i the row player's (Alice's, player 0) action and j the
column player's (Bob's, player 1). Game trees: a node is `{"player": 0|1|"alice"|"bob", "moves": {label: child}}`,
a leaf is `[u0, u1]`; a history is the tuple of labels from the root.

    pure_nash            every pure Nash equilibrium (weak best responses count: ties are equilibria too)
    pareto_optimal       cells no other cell weakly improves for both and strictly for one
    po_nash              the Nash equilibria not Pareto-dominated by another Nash equilibrium (the paper's PO-NE)
    best_responses       the best-response table of one player
    dominant_action      a strictly dominant action, if any
    mixed_nash           every equilibrium by support enumeration (exact, equal-size supports; small games)
    backward_induction   the subgame-perfect strategy of a tree: the choice at EVERY decision node, on the path or off
"""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Optional, Sequence

PLAYER_INDEX = {"alice": 0, "bob": 1, 0: 0, 1: 1}


def shape(payoffs) -> tuple[int, int]:
    return len(payoffs), len(payoffs[0])


def utility(payoffs, player: int, mine: int, theirs: int):
    """Player's payoff when it plays `mine` and the other plays `theirs`."""
    return payoffs[mine][theirs][0] if player == 0 else payoffs[theirs][mine][1]


def best_responses(payoffs, player: int) -> list[list[int]]:
    """For every action of the other player (by index), the list of `player`'s best actions."""
    n, m = shape(payoffs)
    mine, theirs = (n, m) if player == 0 else (m, n)
    table = []
    for b in range(theirs):
        values = [utility(payoffs, player, a, b) for a in range(mine)]
        top = max(values)
        table.append([a for a in range(mine) if values[a] == top])
    return table


def pure_nash(payoffs) -> list[tuple[int, int]]:
    """All pure Nash equilibria (i, j), in row-major order."""
    n, m = shape(payoffs)
    br_row, br_col = best_responses(payoffs, 0), best_responses(payoffs, 1)
    return [(i, j) for i in range(n) for j in range(m) if i in br_row[j] and j in br_col[i]]


def dominates(u: Sequence, v: Sequence) -> bool:
    """Payoff vector u Pareto-dominates v: at least as good for everyone, better for someone."""
    return all(a >= b for a, b in zip(u, v)) and any(a > b for a, b in zip(u, v))


def pareto_optimal(payoffs) -> list[tuple[int, int]]:
    n, m = shape(payoffs)
    cells = [(i, j) for i in range(n) for j in range(m)]
    return [c for c in cells if not any(dominates(payoffs[o[0]][o[1]], payoffs[c[0]][c[1]]) for o in cells)]


def po_nash(payoffs) -> list[tuple[int, int]]:
    """The Nash equilibria that no other Nash equilibrium Pareto-dominates (the target when there are several)."""
    ne = pure_nash(payoffs)
    return [c for c in ne if not any(dominates(payoffs[o[0]][o[1]], payoffs[c[0]][c[1]]) for o in ne)]


def dominant_action(payoffs, player: int) -> Optional[int]:
    """The action strictly better than every other against every action of the other player, or None."""
    n, m = shape(payoffs)
    mine, theirs = (n, m) if player == 0 else (m, n)
    for a in range(mine):
        if all(utility(payoffs, player, a, b) > utility(payoffs, player, x, b)
               for x in range(mine) if x != a for b in range(theirs)):
            return a
    return None


# --- mixed equilibria -------------------------------------------------------------------------------------------


def _solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> Optional[list[Fraction]]:
    """The unique solution of a square linear system (Gauss-Jordan on fractions), None if singular."""
    k = len(rows)
    a = [list(r) + [b] for r, b in zip(rows, rhs)]
    for col in range(k):
        piv = next((r for r in range(col, k) if a[r][col] != 0), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        p = a[col][col]
        a[col] = [x / p for x in a[col]]
        for r in range(k):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[r][k] for r in range(k)]


def _indifferent(payoffs, player: int, own: tuple, other: tuple, n_other: int) -> Optional[list[Fraction]]:
    """The other player's mix on `other` that makes `player` indifferent among `own` (None if there is none)."""
    # unknowns: the mix on `other` and the common value v
    rows, rhs = [], []
    for a in own:
        rows.append([Fraction(utility(payoffs, player, a, b)) for b in other] + [Fraction(-1)])
        rhs.append(Fraction(0))
    rows.append([Fraction(1)] * len(other) + [Fraction(0)])
    rhs.append(Fraction(1))
    if len(rows) != len(other) + 1:
        return None
    sol = _solve(rows, rhs)
    if sol is None or any(x < 0 for x in sol[:-1]):
        return None
    mix = [Fraction(0)] * n_other
    for b, x in zip(other, sol[:-1]):
        mix[b] = x
    return mix


def _value(payoffs, player: int, a: int, mix: list[Fraction]) -> Fraction:
    return sum(p * utility(payoffs, player, a, b) for b, p in enumerate(mix))


def mixed_nash(payoffs) -> list[tuple[list[Fraction], list[Fraction]]]:
    """Equilibria (row mix, column mix) by support enumeration over equal-size supports: every equilibrium of a
    nondegenerate game (pure ones included), exactly. Exponential: meant for small games (up to about 8x8)."""
    n, m = shape(payoffs)
    found: list[tuple[list[Fraction], list[Fraction]]] = []
    for k in range(1, min(n, m) + 1):
        for rs in combinations(range(n), k):
            for cs in combinations(range(m), k):
                y = _indifferent(payoffs, 0, rs, cs, m)  # column mix making the row player indifferent on rs
                x = _indifferent(payoffs, 1, cs, rs, n)
                if x is None or y is None:
                    continue
                if any(x[i] == 0 for i in rs) or any(y[j] == 0 for j in cs):
                    continue  # a smaller support already gives it
                vr = max(_value(payoffs, 0, i, y) for i in range(n))
                vc = max(_value(payoffs, 1, j, x) for j in range(m))
                if all(_value(payoffs, 0, i, y) == vr for i in rs) and all(_value(payoffs, 1, j, x) == vc for j in cs):
                    if (x, y) not in found:
                        found.append((x, y))
    return found


# --- game trees -------------------------------------------------------------------------------------------------


def is_leaf(node) -> bool:
    return isinstance(node, (list, tuple))


def mover(node) -> int:
    return PLAYER_INDEX[node["player"]]


def subtree(tree, history: Sequence[str]):
    node = tree
    for label in history:
        node = node["moves"][label]
    return node


def leaves(tree, history: tuple = ()) -> list[tuple[tuple, list]]:
    """(path, payoff) of every terminal history, left to right."""
    if is_leaf(tree):
        return [(history, list(tree))]
    out = []
    for label, child in tree["moves"].items():
        out += leaves(child, history + (label,))
    return out


def backward_induction(tree) -> tuple[dict[tuple, str], tuple, list]:
    """(strategy, path, payoff): `strategy` maps every decision node's history (on and off the equilibrium path)
    to the mover's choice; ties go to the first listed move (the trees of the paper have none)."""
    strategy: dict[tuple, str] = {}

    def solve(node, history: tuple) -> tuple[tuple, list]:
        if is_leaf(node):
            return history, list(node)
        p = mover(node)
        best = None
        for label, child in node["moves"].items():
            path, value = solve(child, history + (label,))
            if best is None or value[p] > best[2][p]:
                best = (label, path, value)
        strategy[history] = best[0]
        return best[1], best[2]

    path, value = solve(tree, ())
    return strategy, path, value


def pareto_leaves(tree) -> list[tuple]:
    """Terminal histories whose payoff no other terminal payoff Pareto-dominates."""
    all_leaves = leaves(tree)
    return [h for h, u in all_leaves if not any(dominates(v, u) for _, v in all_leaves)]


def tree_depth(tree) -> int:
    return 0 if is_leaf(tree) else 1 + max(tree_depth(c) for c in tree["moves"].values())
