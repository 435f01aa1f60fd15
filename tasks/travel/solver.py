"""Maximum-weight closed tours with a fixed prefix (the "intermediate best path" of the game).

Methods:
- "dp": Held-Karp dynamic programming over the rooms not yet in the prefix. Exact; O(m^2 2^m) for m free rooms.
- "ilp": a PuLP MILP solved by the bundled CBC (directed arcs, MTZ subtour elimination, prefix arcs fixed). If CBC
  fails or stops at the time limit without a proven optimum, the heuristic takes over or polishes its tour.
- "brute": every permutation of the free rooms (the test oracle; at most 8 free rooms).
- "heuristic": greedy nearest neighbour plus 2-opt/or-opt local search with seeded restarts (not exact).
- "auto": "dp" when the open subproblem has at most DP_MAX_ROOMS rooms, else "ilp".

Weights are keyed by canonical edges (`board.edge`); values may be ints or floats (e.g. estimated partner
coins). Tour values are recomputed along the returned tour with math.fsum, so the same cycle always has the same
value whichever method or direction found it.
"""
from __future__ import annotations

import itertools
import math
import random
import time
import warnings
from dataclasses import asdict, dataclass
from operator import add
from typing import TYPE_CHECKING, Mapping, Optional, Sequence, Union

from .board import ROOM_NAMES, Board, edge, is_valid_tour

if TYPE_CHECKING:  # networkx is imported where a graph is built: it is a third of every run's start-up time
    import networkx as nx

NEG = float("-inf")
DP_MAX_ROOMS = 15  # auto uses dp up to this many rooms in the open subproblem (start + free rooms)
DP_HARD_MAX_FREE = 17  # 2^17 rows of 17 values (~100 MB) is the memory ceiling for an explicit "dp"
BRUTE_MAX_FREE = 8  # 8! = 40320 permutations, i.e. a 9-room board from scratch
METHODS = ("auto", "dp", "ilp", "brute", "heuristic")


@dataclass
class SolveInfo:
    """What a solve did: the tour and value, the method actually used and whether optimality is proven."""

    tour: list[str]
    value: float
    method: str  # method actually used: dp, ilp, brute, heuristic
    requested: str  # method asked for (auto resolves to dp or ilp)
    optimal: bool  # True when the method proves the value optimal
    seconds: float
    status: str = ""  # human-readable detail, e.g. "ilp: stopped at time limit; heuristic fallback"
    n_rooms: int = 0
    n_free: int = 0  # rooms still to place after the prefix

    def to_dict(self) -> dict:
        return asdict(self)


# -- graph helpers ----------------------------------------------------------------------------------------------


def board_graph(board: Board, seat: Optional[str] = None) -> nx.Graph:
    """The board as a complete networkx graph. `weight` is the joint coins (or `seat`'s coins if given); every
    seat's own coins are also stored under the seat name, and each node carries its room description."""
    import networkx as nx

    g = nx.Graph(start=board.start, name=board.name)
    for r in board.rooms:
        g.add_node(r, description=ROOM_NAMES.get(r, r))
    for e in board.edges:
        attrs = {s: board.weights[s][e] for s in board.seats}
        attrs["weight"] = board.weights[seat][e] if seat else board.joint_weights[e]
        g.add_edge(*e, **attrs)
    return g


def graph_weights(g: nx.Graph, attr: str = "weight") -> dict[tuple[str, str], float]:
    """Canonical edge -> weight from a networkx graph (the inverse of board_graph for one attribute)."""
    return {edge(u, v): d[attr] for u, v, d in g.edges(data=True)}


def tour_value(weights: Mapping[tuple[str, str], float], tour: Sequence[str]) -> float:
    """Correctly rounded sum of the weights along `tour` (independent of direction and summation order)."""
    return math.fsum(_lookup(weights, u, v) for u, v in zip(tour, tour[1:]))


def _lookup(weights: Mapping, u: str, v: str, default: Optional[float] = None) -> float:
    e = edge(u, v)
    if e in weights:
        return weights[e]
    if (e[1], e[0]) in weights:  # tolerate a non-canonical key from hand-written dicts
        return weights[(e[1], e[0])]
    if default is not None:
        return default
    raise ValueError(f"no weight for hallway {e[0]}-{e[1]}")


def choose_method(n_open_rooms: int) -> str:
    """What "auto" picks for an open subproblem of `n_open_rooms` rooms (the start plus the free rooms)."""
    return "dp" if n_open_rooms <= DP_MAX_ROOMS else "ilp"


# -- problem set-up ---------------------------------------------------------------------------------------------


class _Problem:
    """Rooms as indices 0..n-1, a symmetric weight matrix, the prefix and the free rooms."""

    def __init__(self, weights: Mapping, rooms: Sequence[str], start: str, prefix: Sequence[str],
                 default: Optional[float]):
        rooms = list(rooms)
        if len(set(rooms)) != len(rooms):
            raise ValueError(f"rooms repeat: {rooms}")
        if len(rooms) < 3:
            raise ValueError("a tour needs at least 3 rooms")
        if start not in rooms:
            raise ValueError(f"start room {start} is not among the rooms")
        self.rooms = rooms
        self.start = start
        self.index = {r: i for i, r in enumerate(rooms)}
        n = len(rooms)
        W = [[0.0] * n for _ in range(n)]
        for i, j in itertools.combinations(range(n), 2):
            W[i][j] = W[j][i] = _lookup(weights, rooms[i], rooms[j], default)
        self.W = W
        self.weights = {edge(rooms[i], rooms[j]): W[i][j] for i, j in itertools.combinations(range(n), 2)}

        pre = list(prefix) or [start]
        if pre[0] != start:
            raise ValueError(f"the prefix must begin with the start room {start}")
        if len(pre) == n + 1 and pre[-1] == start:
            pre = pre[:-1]  # an already closed full tour: just close it again
        for r in pre:
            if r not in self.index:
                raise ValueError(f"prefix room {r} is not among the rooms")
        if len(set(pre)) != len(pre):
            raise ValueError(f"the prefix repeats a room: {pre}")
        self.prefix = [self.index[r] for r in pre]
        in_prefix = set(self.prefix)
        self.free = [i for i in range(n) if i not in in_prefix]
        self.s = self.index[start]
        self.p = self.prefix[-1]

    def names(self, idx: Sequence[int]) -> list[str]:
        return [self.rooms[i] for i in idx]

    def full(self, order: Sequence[int]) -> list[str]:
        """Prefix + free rooms in `order` + back to start, as names."""
        return self.names([*self.prefix, *order, self.s])

    def value(self, tour: Sequence[str]) -> float:
        return tour_value(self.weights, tour)


# -- Held-Karp --------------------------------------------------------------------------------------------------


def _dp_table(P: _Problem):
    """dp[mask][j]: best value of a path from the prefix end through the free rooms in `mask`, ending at free
    room j (NEG where j is not in mask). Rows are plain lists so the inner max runs in C via map(add, ...)."""
    W, free, p = P.W, P.free, P.p
    m = len(free)
    # cols[j][k] = weight of the step from free room k into free room j
    cols = [[W[free[k]][free[j]] for k in range(m)] for j in range(m)]
    bits = [1 << j for j in range(m)]
    pairs = list(zip(bits, cols))
    dp: list = [None] * (1 << m)
    for j in range(m):
        row = [NEG] * m
        row[j] = W[p][free[j]]
        dp[bits[j]] = row
    for mask in range(3, 1 << m):
        if not mask & (mask - 1):
            continue  # single rooms are seeded above
        dp[mask] = [max(map(add, dp[mask ^ b], col)) if mask & b else NEG for b, col in pairs]
    return dp, cols, bits


def _dp_solve(P: _Problem) -> list[int]:
    m = len(P.free)
    if m == 0:
        return []
    dp, cols, bits = _dp_table(P)
    full = (1 << m) - 1
    back = [P.W[f][P.s] for f in P.free]
    final = list(map(add, dp[full], back))
    j = final.index(max(final))
    order = [j]
    mask = full
    while mask != bits[j]:
        # Recompute the candidates exactly as the table did; the maximum is found again bit for bit.
        prev = mask ^ bits[j]
        cand = list(map(add, dp[prev], cols[j]))
        k = cand.index(dp[mask][j])
        order.append(k)
        mask, j = prev, k
    order.reverse()
    return [P.free[k] for k in order]


def _dp_all(P: _Problem, limit: int, tol: float) -> list[list[int]]:
    """Every optimal completion (ties within `tol`), by backtracking through the Held-Karp table."""
    m = len(P.free)
    if m == 0:
        return [[]]
    dp, cols, bits = _dp_table(P)
    full = (1 << m) - 1
    final = list(map(add, dp[full], [P.W[f][P.s] for f in P.free]))
    best = max(final)
    out: list[list[int]] = []

    def walk(mask: int, j: int, suffix: list[int]) -> None:
        if len(out) >= limit:
            return
        if mask == bits[j]:
            out.append([P.free[k] for k in reversed(suffix)])
            return
        prev = mask ^ bits[j]
        cand = list(map(add, dp[prev], cols[j]))
        for k in range(m):
            if prev & bits[k] and cand[k] >= dp[mask][j] - tol:
                walk(prev, k, suffix + [k])

    try:
        for j in range(m):
            if final[j] >= best - tol:
                walk(full, j, [j])
    finally:
        walk = None  # noqa: F841 - the recursive closure holds itself (and the DP table) until this cell is cleared
    return out


# -- brute force ------------------------------------------------------------------------------------------------


def _brute_solve(P: _Problem) -> list[int]:
    if len(P.free) > BRUTE_MAX_FREE:
        raise ValueError(f"brute force is limited to {BRUTE_MAX_FREE} free rooms, not {len(P.free)}")
    if not P.free:
        return []
    W, p, s = P.W, P.p, P.s
    best, best_perm = NEG, None
    for perm in itertools.permutations(P.free):
        v = W[p][perm[0]] + W[perm[-1]][s]
        prev = perm[0]
        for x in perm[1:]:
            v += W[prev][x]
            prev = x
        if v > best:
            best, best_perm = v, perm
    return list(best_perm)


# -- heuristic --------------------------------------------------------------------------------------------------


def _path_gain_2opt(W, seq, eps) -> bool:
    """One improving segment reversal on seq (endpoints fixed); True if applied."""
    n = len(seq)
    for i in range(1, n - 2):
        a, b = seq[i - 1], seq[i]
        wab = W[a][b]
        for k in range(i + 1, n - 1):
            c, d = seq[k], seq[k + 1]
            if W[a][c] + W[b][d] - wab - W[c][d] > eps:
                seq[i:k + 1] = seq[i:k + 1][::-1]
                return True
    return False


def _path_gain_oropt(W, seq, eps) -> bool:
    """Move a segment of 1..3 rooms (optionally reversed) elsewhere in seq (endpoints fixed); True if applied."""
    n = len(seq)
    for L in (1, 2, 3):
        for i in range(1, n - L):
            j_end = i + L - 1
            if j_end >= n - 1:
                break
            a, x, y, b = seq[i - 1], seq[i], seq[j_end], seq[j_end + 1]
            removed = W[a][x] + W[y][b] - W[a][b]
            seg = seq[i:j_end + 1]
            rest = seq[:i] + seq[j_end + 1:]
            for t in range(len(rest) - 1):
                u, v = rest[t], rest[t + 1]
                if t == i - 1:
                    continue  # putting it back where it was
                fwd = W[u][x] + W[y][v] - W[u][v]
                rev = W[u][y] + W[x][v] - W[u][v]
                if fwd - removed > eps or rev - removed > eps:
                    ins = seg if fwd >= rev else seg[::-1]
                    seq[:] = rest[:t + 1] + ins + rest[t + 1:]
                    return True
    return False


def _local_search(W, seq, eps, deadline) -> None:
    while time.perf_counter() < deadline:
        if _path_gain_2opt(W, seq, eps) or _path_gain_oropt(W, seq, eps):
            continue
        return


def _heuristic_solve(P: _Problem, time_limit: float, seed: int = 0, restarts: int = 20,
                     initial: Optional[list[int]] = None) -> list[int]:
    """Greedy from the prefix end (ties alphabetical), then local search; plus seeded random restarts. The
    prefix is never changed: only the free rooms between the prefix end and the return to start move."""
    if not P.free:
        return []
    W = P.W
    deadline = time.perf_counter() + max(time_limit, 0.05)
    scale = max((abs(x) for row in W for x in row), default=1.0) or 1.0
    eps = 1e-12 * scale * len(W)

    def path_value(order):
        seq = [P.p, *order, P.s]
        return math.fsum(W[u][v] for u, v in zip(seq, seq[1:]))

    starts = []
    if initial:
        starts.append(list(initial))
    left, cur, greedy = set(P.free), P.p, []
    while left:
        nxt = max(sorted(left, key=lambda i: P.rooms[i]), key=lambda i: W[cur][i])  # first max = alphabetical
        greedy.append(nxt)
        left.remove(nxt)
        cur = nxt
    starts.append(greedy)
    rng = random.Random(seed)
    for _ in range(restarts):
        order = list(P.free)
        rng.shuffle(order)
        starts.append(order)

    best, best_v = None, NEG
    for order in starts:
        if best is not None and time.perf_counter() > deadline:
            break
        seq = [P.p, *order, P.s]
        _local_search(W, seq, eps, deadline)
        v = path_value(seq[1:-1])
        if v > best_v + eps:
            best, best_v = seq[1:-1], v
    return best


# -- ILP --------------------------------------------------------------------------------------------------------


def _ilp_solve(P: _Problem, time_limit: float) -> tuple[Optional[list[int]], bool, str]:
    """(free order or None, proven optimal, status). Directed arcs x[i,j] on the complete graph, in/out degree 1,
    MTZ order variables for every room but the start, prefix arcs and prefix positions fixed."""
    import pulp

    n = len(P.rooms)
    W, s = P.W, P.s
    prob = pulp.LpProblem("tour", pulp.LpMaximize)
    if hasattr(prob, "add_variable"):  # PuLP >= 3.3 deprecates free-standing LpVariable construction
        var = prob.add_variable
    else:  # pragma: no cover - older PuLP
        var = pulp.LpVariable
    x = {(i, j): var(f"x_{i}_{j}", 0, 1, "Binary") for i in range(n) for j in range(n) if i != j}
    u = {i: var(f"u_{i}", 1, n - 1, "Continuous") for i in range(n) if i != s}
    prob += pulp.lpSum(W[i][j] * x[i, j] for (i, j) in x)
    for i in range(n):
        prob += pulp.lpSum(x[i, j] for j in range(n) if j != i) == 1
        prob += pulp.lpSum(x[j, i] for j in range(n) if j != i) == 1
    for i in u:
        for j in u:
            if i != j:
                # MTZ: an arc i->j forces u_j >= u_i + 1, which no subtour avoiding the start can satisfy.
                prob += u[i] - u[j] + (n - 1) * x[i, j] <= n - 2
    for pos, (a, b) in enumerate(zip(P.prefix, P.prefix[1:]), start=1):
        prob += x[a, b] == 1
        prob += u[b] == pos
    with warnings.catch_warnings():
        # PULP_CBC_CMD is the CBC bundled with PuLP; its PuLP-4 deprecation notice is noise for us.
        warnings.simplefilter("ignore", DeprecationWarning)
        solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=max(0.01, time_limit), gapRel=0, gapAbs=0)
    try:
        prob.solve(solver)
    except Exception as exc:  # CBC missing or crashed: the caller falls back to the heuristic
        return None, False, f"ilp failed: {type(exc).__name__}: {exc}"
    sol = prob.sol_status
    if sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return None, False, f"ilp: no solution ({pulp.LpStatus.get(prob.status, prob.status)})"
    succ = {}
    for (i, j), var in x.items():
        if (var.value() or 0) > 0.5:
            succ[i] = j
    seq, cur = [s], s
    for _ in range(n):
        cur = succ.get(cur)
        if cur is None:
            break
        seq.append(cur)
    if len(seq) != n + 1 or seq[-1] != s or len(set(seq[:-1])) != n or seq[:len(P.prefix)] != P.prefix:
        return None, False, "ilp: solution is not a tour through the prefix"
    optimal = sol == pulp.LpSolutionOptimal
    return seq[len(P.prefix):-1], optimal, "ilp: optimal" if optimal else "ilp: stopped at time limit"


# -- public API -------------------------------------------------------------------------------------------------


def solve(weights: Mapping[tuple[str, str], float], rooms: Sequence[str], start: str, prefix: Sequence[str] = (),
          method: str = "auto", time_limit: float = 10.0, *, default: Optional[float] = None,
          seed: int = 0) -> SolveInfo:
    """Best closed tour that begins with `prefix`, with a SolveInfo saying how it was found.

    `default` is used for missing hallways (None: a missing hallway is an error). `seed` drives the heuristic's
    random restarts."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
    t0 = time.perf_counter()
    P = _Problem(weights, rooms, start, prefix, default)
    m = len(P.free)
    used = choose_method(m + 1) if method == "auto" else method
    optimal, status = True, used
    if m <= 1:
        order, status = list(P.free), f"{used}: forced, at most one room left"
    elif used == "dp":
        if m > DP_HARD_MAX_FREE:
            raise ValueError(f"dp is limited to {DP_HARD_MAX_FREE} free rooms, not {m}")
        order = _dp_solve(P)
    elif used == "brute":
        order = _brute_solve(P)
    elif used == "heuristic":
        order, optimal, status = _heuristic_solve(P, time_limit, seed), False, "heuristic (not proven optimal)"
    else:
        order, optimal, status = _ilp_solve(P, time_limit)
        if order is None:
            remaining = max(0.05, time_limit - (time.perf_counter() - t0))
            order, used = _heuristic_solve(P, remaining, seed), "heuristic"
            status += "; heuristic fallback"
        elif not optimal:
            # Time ran out before CBC proved optimality: polish its incumbent and try the heuristic's restarts.
            before = P.value(P.full(order))
            order = _heuristic_solve(P, 1.0, seed, initial=order)
            improved = P.value(P.full(order)) > before
            status += "; local search improved it" if improved else "; local search found nothing better"
    tour = P.full(order)
    return SolveInfo(tour=tour, value=P.value(tour), method=used, requested=method, optimal=optimal,
                     seconds=time.perf_counter() - t0, status=status, n_rooms=len(P.rooms), n_free=m)


def best_tour(weights: Mapping[tuple[str, str], float], rooms: Sequence[str], start: str,
              prefix: Sequence[str] = (), method: str = "auto", time_limit: float = 10.0, *,
              default: Optional[float] = None, return_info: bool = False):
    """The maximum-weight closed tour starting with `prefix`, as (tour, value); tour starts and ends with
    `start`. With return_info=True, returns (tour, value, SolveInfo)."""
    info = solve(weights, rooms, start, prefix, method, time_limit, default=default)
    if return_info:
        return info.tour, info.value, info
    return info.tour, info.value


def best_tours(weights: Mapping[tuple[str, str], float], rooms: Sequence[str], start: str,
               prefix: Sequence[str] = (), *, distinct_cycles: bool = False, limit: int = 1000,
               tol: Optional[float] = None, default: Optional[float] = None) -> tuple[list[list[str]], float]:
    """All optimal tours (ties) starting with `prefix`, exact via the Held-Karp table, and the optimum value.

    Tours are directed from the start (a cycle and its reversal are both listed when the prefix is just the
    start), sorted; `distinct_cycles=True` keeps one direction per cycle. At most `limit` tours are enumerated.
    `tol` is the tie tolerance (default 0 for integer weights, 1e-9 relative otherwise)."""
    P = _Problem(weights, rooms, start, prefix, default)
    if len(P.free) > DP_HARD_MAX_FREE:
        raise ValueError(f"best_tours is limited to {DP_HARD_MAX_FREE} free rooms")
    if tol is None:
        ints = all(float(w).is_integer() for w in P.weights.values())
        scale = max((abs(w) for w in P.weights.values()), default=1.0)
        tol = 0.0 if ints else 1e-9 * max(1.0, scale * len(rooms))
    orders = _dp_all(P, limit, tol)
    tours = [P.full(o) for o in orders]
    vals = [P.value(t) for t in tours]
    best = max(vals)
    tours = [t for t, v in zip(tours, vals) if v >= best - tol * (len(rooms) + 1)]
    if distinct_cycles:
        seen, kept = set(), []
        for t in tours:
            key = min(tuple(t), tuple(reversed(t)))
            if key not in seen:
                seen.add(key)
                kept.append(t)
        tours = kept
    tours.sort()
    return tours, best


def optimality_ratio(board: Board, tour: Union[str, Sequence[str]]) -> float:
    """Joint score of `tour` divided by the joint optimum (1.0 for an optimal tour)."""
    ok, reason = is_valid_tour(board, tour)
    if not ok:
        raise ValueError(reason)
    _, best = best_tour(board.joint_weights, board.rooms, board.start)
    return board.score(tour) / best if best else 1.0
