"""AISMCTS-F: the flag-based asymmetric-information MCTS of Chen, Fried & Topcu (IJCAI-24), Algorithm 1.

What the planner knows is exactly what its seat knows:
- its own walls (from its view);
- the partner's walls only through Omega, the hidden-information dictionary of moves the partner rejected
  (cell -> set of actions). Every other partner move is modelled as succeeding;
- the treasure when its view shows it; otherwise a `Belief` over cells that the brain updates from the partner's
  messages and the course of play. Each iteration samples one treasure from it (a determinisation).

Structure, as in the paper: two per-player trees. The player to move selects with UCB (c = sqrt 2) in its own tree;
both trees follow the chosen action and each expands at most one node per iteration; the common return is backed
up in both. When the treasure is hidden from us, the partner's tree is kept per sampled treasure, because the
partner knows it and its choices depend on it; ours aggregates over the samples (an information set).

Two deliberate departures, both for strength under a 100 ms budget:
- Leaf evaluation: instead of uniformly random roll-outs to the treasure (hundreds of steps, noisy), a roll-out of
  `rollout_depth` epsilon-greedy steps (default 0) is followed by the exact value under the model,
  20 - 0.1 * d, where d is the fewest turns to the sampled treasure when both play as the model allows.
- Ties: time-budgeted searches rarely tie exactly, so a child counts as tied with the best when its visit count
  is within `tie_tolerance` of the maximum; the partner's input flag is adopted among the tied children.
"""
from __future__ import annotations

import gc
import math
import random
import time
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Optional

from ..maze import ACTIONS, CELLS, DELTA, INBOUND, OPPOSITE, STAY, xy

SQRT2 = math.sqrt(2.0)
REWARD_TREASURE = 20.0
TURN_COST = 0.1
UNREACHABLE = 400  # turns charged when the model cannot reach the sampled treasure at all


class Model:
    """Our exact moves plus the optimistic partner moves (inbound minus Omega), with distance tables.

    Mover index 0 is the model's owner, 1 its partner. Distance tables are flat lists indexed `cell * 2 + mover`.
    """

    def __init__(self, my_moves: list[int]):
        self.my_moves = list(my_moves)
        self.omega: dict[int, set[int]] = {}
        self.seen_open: set[tuple[int, int]] = set()  # partner moves seen made, as (cell, action), both ways
        self._partner_moves: Optional[list[int]] = None
        self._dist: dict[int, list[int]] = {}
        self._preds = None
        self.legal = (self._legal(self.my_moves), None)

    @staticmethod
    def _legal(table: list[int]) -> list[tuple[int, ...]]:
        return [tuple(a for a in range(5) if table[c * 5 + a] >= 0) for c in range(CELLS)]

    # --- Omega and what the partner was seen doing --------------------------------------------------------------
    def add_rejection(self, c: int, action: int) -> bool:
        """Record that the partner cannot make `action` at cell `c`, plus the mirror move from the neighbour
        (a wall blocks both ways). Returns False for nothing new (a stay, an off-board move, a known entry)."""
        nb = INBOUND[c * 5 + action]
        if action == STAY or nb < 0 or action in self.omega.get(c, ()):
            return False
        self.omega.setdefault(c, set()).add(action)
        self.omega.setdefault(nb, set()).add(OPPOSITE[action])
        self.seen_open.discard((c, action))
        self.seen_open.discard((nb, OPPOSITE[action]))
        self._invalidate()
        return True

    def forget_rejection(self, c: int, action: int) -> None:
        """Drop a guessed entry (and its mirror) again."""
        nb = INBOUND[c * 5 + action]
        if nb >= 0 and action in self.omega.get(c, ()):
            self.omega[c].discard(action)
            self.omega.get(nb, set()).discard(OPPOSITE[action])
            self._invalidate()

    def saw_partner_move(self, c: int, action: int) -> None:
        """The partner made (or said it can make) this move: the passage is open on its side, so an earlier
        rejection there was a misunderstanding."""
        nb = INBOUND[c * 5 + action]
        if action == STAY or nb < 0:
            return
        self.seen_open.add((c, action))
        self.seen_open.add((nb, OPPOSITE[action]))
        if action in self.omega.get(c, ()) or OPPOSITE[action] in self.omega.get(nb, ()):
            self.omega[c].discard(action)
            self.omega.get(nb, set()).discard(OPPOSITE[action])
            self._invalidate()

    def _invalidate(self) -> None:
        self._partner_moves = None
        self._dist = {}
        self._preds = None
        self.legal = (self.legal[0], None)

    def partner_moves(self) -> list[int]:
        if self._partner_moves is None:
            table = list(INBOUND)
            for c, acts in self.omega.items():
                for a in acts:
                    table[c * 5 + a] = -1
            self._partner_moves = table
            self.legal = (self.legal[0], self._legal(table))
        return self._partner_moves

    def tables(self) -> tuple[list[int], list[int]]:
        return self.my_moves, self.partner_moves()

    # --- distances ----------------------------------------------------------------------------------------------
    def _predecessors(self):
        if self._preds is None:
            # preds[m][c2] = cells from which mover m reaches c2 in one turn (staying included).
            preds = ([[] for _ in range(CELLS)], [[] for _ in range(CELLS)])
            for m, table in enumerate(self.tables()):
                pm = preds[m]
                for c in range(CELLS):
                    for n in {table[c * 5 + a] for a in range(5)} - {-1}:
                        pm[n].append(c)
            self._preds = preds
        return self._preds

    def distances(self, target: int) -> list[int]:
        """Fewest turns from (cell, mover) to `target` when both play as the model allows (backward BFS)."""
        d = self._dist.get(target)
        if d is not None:
            return d
        preds = self._predecessors()
        d = [UNREACHABLE] * (CELLS * 2)
        d[target * 2] = d[target * 2 + 1] = 0
        frontier = [target * 2, target * 2 + 1]
        dist = 0
        while frontier:
            dist += 1
            nxt = []
            for s in frontier:
                m = 1 - (s & 1)  # the mover whose turn led into s
                for c in preds[m][s >> 1]:
                    k = c * 2 + m
                    if d[k] == UNREACHABLE and c != target:
                        d[k] = dist
                        nxt.append(k)
            frontier = nxt
        self._dist[target] = d
        return d

    def action_values(self, c: int, mover: int, target: int) -> dict[int, int]:
        """Turns to go after each legal action of `mover` at `c` (1 + the successor's distance)."""
        table = self.tables()[mover]
        d = self.distances(target)
        out = {}
        for a in range(5):
            n = table[c * 5 + a]
            if n >= 0:
                out[a] = 1 if n == target else 1 + d[n * 2 + (1 - mover)]
        return out


class Belief:
    """A distribution over the cell of a treasure we cannot see."""

    FLOOR = 1e-4  # soft evidence never rules a cell out completely: people and parsers make mistakes

    def __init__(self, exclude: tuple[int, ...] = ()):
        self.w = [1.0] * CELLS
        for c in exclude:
            self.w[c] = 0.0
        self._normalise()

    def eliminate(self, c: int) -> None:
        """The token was at c and the round went on, so the treasure is not there (hard evidence)."""
        if self.w[c] > 0:
            self.w[c] = 0.0
            self._normalise()

    def weigh(self, factors) -> None:
        """Multiply weights by likelihood factors (a dict cell -> factor, or a list over all cells)."""
        items = factors.items() if isinstance(factors, dict) else enumerate(factors)
        floor = self.FLOOR / CELLS
        for c, f in items:
            if self.w[c] > 0:
                self.w[c] = max(self.w[c] * f, floor)
        self._normalise()

    def _normalise(self) -> None:
        s = sum(self.w)
        if s <= 0:  # contradictory evidence: start over rather than divide by zero
            self.w = [1.0] * CELLS
            s = float(CELLS)
        self.w = [x / s for x in self.w]

    def support(self) -> list[int]:
        return [c for c in range(CELLS) if self.w[c] > 0]

    def top(self) -> tuple[int, float]:
        c = max(range(CELLS), key=self.w.__getitem__)
        return c, self.w[c]

    def sampler(self) -> tuple[list[int], list[float]]:
        cells, cum, acc = [], [], 0.0
        for c, x in enumerate(self.w):
            if x > 0:
                acc += x
                cells.append(c)
                cum.append(acc)
        return cells, cum

    # --- evidence from talk and play ----------------------------------------------------------------------------
    def hint(self, origin: int, directions: set[int], straight: bool = False) -> None:
        """The partner said the treasure lies in these directions from `origin` (e.g. {up, right})."""
        ox, oy = xy(origin)
        dxs = {DELTA[a][0] for a in directions if DELTA[a][0]}
        dys = {DELTA[a][1] for a in directions if DELTA[a][1]}
        factors = []
        for c in range(CELLS):
            x, y = xy(c)
            f = 1.0
            for said, off in ((dxs, x - ox), (dys, y - oy)):
                if said:
                    f *= 1.0 if (off > 0 and 1 in said) or (off < 0 and -1 in said) else 0.02
                else:
                    # An axis nobody mentioned is probably level with the token ("straight" makes that firm).
                    f *= 1.0 if off == 0 else (0.05 if straight else 0.3)
            factors.append(f)
        self.weigh(factors)

    def locate(self, col: Optional[int], row: Optional[int]) -> None:
        """The partner named the treasure's column and/or row: cells off it become unlikely (not impossible:
        people misread the axis numbers now and then)."""
        factors = []
        for c in range(CELLS):
            x, y = xy(c)
            ok = (col is None or x == col) and (row is None or y == row)
            factors.append(1.0 if ok else 0.0005)
        self.weigh(factors)

    def rational(self, model: Model, c: int, mover: int, action: int, beta: float = 1.0) -> None:
        """Someone who knows the treasure chose (or asked for) `action` at `c`: cells for which it is a good move
        become likelier (a Boltzmann-rational choice under our model, beta per turn)."""
        factors = {}
        for t in self.support():
            vals = model.action_values(c, mover, t)
            if action not in vals:
                return
            factors[t] = math.exp(-beta * (vals[action] - min(vals.values())))
        self.weigh(factors)

    def optimal_share(self, model: Model, c: int, mover: int, action: int) -> float:
        """Probability that `action` is among the best moves of `mover` at `c`."""
        share = 0.0
        for t in self.support():
            vals = model.action_values(c, mover, t)
            if action in vals and vals[action] == min(vals.values()):
                share += self.w[t]
        return share


class Node:
    __slots__ = ("n", "w", "kids", "untried")

    def __init__(self):
        self.n = 0
        self.w = 0.0
        self.kids = [None, None, None, None, None]
        self.untried = None


@dataclass
class Decision:
    action: int
    flag_out: Optional[int]            # suggested next partner move (an action), or None
    iterations: int
    elapsed: float
    visits: dict = field(default_factory=dict)      # our root children: action -> visits
    values: dict = field(default_factory=dict)      # action -> mean return
    tied: tuple = ()
    used_flag: bool = False

    def summary(self) -> dict:
        return {"action": ACTIONS[self.action], "flag_out": None if self.flag_out is None else ACTIONS[self.flag_out],
                "iterations": self.iterations, "ms": round(self.elapsed * 1000, 1),
                "visits": {ACTIONS[a]: n for a, n in self.visits.items()}, "used_flag": self.used_flag}


class Planner:
    def __init__(self, model: Model, seed: int = 0, c: float = SQRT2, rollout_depth: int = 0, epsilon: float = 0.1,
                 tie_tolerance: float = 0.1):
        self.model = model
        self.rng = random.Random(seed)
        self.c = c
        self.rollout_depth = rollout_depth
        self.epsilon = epsilon
        self.tie_tolerance = tie_tolerance

    def search(self, root: int, *, treasure: Optional[int] = None, belief: Optional[Belief] = None,
               flag: Optional[int] = None, budget: float = 0.1, iterations: Optional[int] = None) -> Decision:
        """Choose our action at `root` (our turn to move).

        treasure: its cell when we see it; otherwise `belief` (uniform when None) is sampled per iteration.
        flag: the partner's input flag (a move it asked us for), adopted among the tied best children.
        budget: seconds of search; `iterations` (if given) fixes the count instead, for reproducible tests.
        """
        t_start = time.perf_counter()
        # The trees are acyclic and die with this call, so the cyclic collector only costs time here.
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            root_node, n_iter = self._search(root, treasure, belief, budget, iterations, t_start)
        finally:
            if gc_was_on:
                gc.enable()
        return self._choose(root_node, root, flag, n_iter, time.perf_counter() - t_start)

    def _search(self, root, treasure, belief, budget, iterations, t_start):
        model = self.model
        tables = model.tables()
        legal = model.legal
        rng = self.rng
        rand = rng.random
        shuffle = rng.shuffle
        log, sqrt = math.log, math.sqrt
        cexp = self.c
        depth_cap = self.rollout_depth
        eps = self.epsilon
        dist_of = model.distances
        now = time.perf_counter

        if treasure is not None:
            cells, cum = [treasure], [1.0]
        else:
            cells, cum = (belief or Belief(exclude=(root,))).sampler()
        total = cum[-1]
        single = len(cells) == 1

        my_root = Node()
        partner_roots: dict[int, Node] = {}
        deadline = t_start + budget
        n_iter = 0
        while True:
            if iterations is not None:
                if n_iter >= iterations:
                    break
            elif (n_iter & 15) == 0 and n_iter and now() >= deadline:
                break
            n_iter += 1
            t = cells[0] if single else cells[bisect_right(cum, rand() * total)]  # determinise the treasure
            dist = dist_of(t)
            proot = partner_roots.get(t)
            if proot is None:
                proot = partner_roots[t] = Node()
            node0, node1 = my_root, proot  # current node in our tree and in the partner's (None: off the tree)
            path0, path1 = [my_root], [proot]
            c, m, steps, rolled = root, 0, 0, 0
            while True:
                if c == t:
                    ret = REWARD_TREASURE - TURN_COST * steps
                    break
                lg = legal[m][c]
                node = node1 if m else node0
                if node is not None:
                    untried = node.untried
                    if untried is None:
                        untried = node.untried = list(lg)
                        shuffle(untried)
                    if untried:
                        a = untried.pop()
                    else:
                        kids = node.kids
                        logn = log(node.n)
                        best = -1e18
                        a = lg[0]
                        for b in lg:
                            k = kids[b]
                            kn = k.n
                            v = k.w / kn + cexp * sqrt(logn / kn)
                            if v > best:
                                best = v
                                a = b
                else:
                    if rolled >= depth_cap:
                        ret = REWARD_TREASURE - TURN_COST * (steps + dist[c * 2 + m])
                        break
                    rolled += 1
                    if rand() < eps:
                        a = lg[int(rand() * len(lg))]
                    else:
                        table = tables[m]
                        nm = 1 - m
                        a, bd = lg[0], 1 << 30
                        for b in lg:
                            dd = dist[table[c * 5 + b] * 2 + nm]
                            if dd < bd or (dd == bd and rand() < 0.5):
                                a, bd = b, dd
                # Both trees follow the action; each expands at most one node per iteration.
                if node0 is not None:
                    k = node0.kids[a]
                    if k is None:
                        k = node0.kids[a] = Node()
                        path0.append(k)
                        node0 = None
                    else:
                        path0.append(k)
                        node0 = k
                if node1 is not None:
                    k = node1.kids[a]
                    if k is None:
                        k = node1.kids[a] = Node()
                        path1.append(k)
                        node1 = None
                    else:
                        path1.append(k)
                        node1 = k
                c = tables[m][c * 5 + a]
                m ^= 1
                steps += 1
            for nd in path0:
                nd.n += 1
                nd.w += ret
            for nd in path1:
                nd.n += 1
                nd.w += ret
        return my_root, n_iter

    # --- the paper's select_best_action -------------------------------------------------------------------------
    def _choose(self, root_node: Node, root: int, flag: Optional[int], n_iter: int, elapsed: float) -> Decision:
        rng = self.rng
        model = self.model
        kids = {a: k for a, k in enumerate(root_node.kids) if k is not None and k.n > 0}
        if not kids:  # no time to search at all: stay (always legal)
            return Decision(STAY, None, n_iter, elapsed)
        visits = {a: k.n for a, k in kids.items()}
        values = {a: k.w / k.n for a, k in kids.items()}
        top = max(visits.values())
        tied = tuple(a for a, n in visits.items() if n >= top * (1.0 - self.tie_tolerance))
        used = flag is not None and flag in tied
        if used:
            action = flag
        else:
            best = [a for a, n in visits.items() if n == top]
            action = best[0] if len(best) == 1 else rng.choice(best)
        # Output flag: the partner reply most visited under our choice, except moves in Omega and undoing ours.
        flag_out = None
        nxt = model.my_moves[root * 5 + action]
        replies = {b: k.n for b, k in enumerate(kids[action].kids) if k is not None and k.n > 0
                   and b not in model.omega.get(nxt, ())}
        if len(replies) > 1:
            replies.pop(OPPOSITE[action], None)
        if replies:
            most = max(replies.values())
            best = [b for b, n in replies.items() if n == most]
            flag_out = best[0] if len(best) == 1 else rng.choice(best)
        return Decision(action, flag_out, n_iter, elapsed, visits, values, tied, used)


def greedy_action(model: Model, c: int, mover: int, target: int, rng: random.Random) -> Optional[int]:
    """The best action for `mover` at `c` toward `target` under the model (random among equals)."""
    vals = model.action_values(c, mover, target)
    if not vals:
        return None
    best = min(vals.values())
    choices = [a for a, v in vals.items() if v == best]
    return choices[0] if len(choices) == 1 else rng.choice(choices)
