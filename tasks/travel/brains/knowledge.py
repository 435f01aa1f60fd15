"""What the solver agent knows of the board (its own coins, the partner's as far as known, bounds and estimates),
the hallway helpers it shares with the LLM agents, and the plan of one turn."""
from __future__ import annotations

import math
from typing import Optional, Sequence

from ..board import edge

EPS = 1e-6


def key_edge(k: str) -> tuple[str, str]:
    u, v = k.split("-")
    return edge(u, v)


def ekey(e: Sequence[str]) -> str:
    u, v = edge(e[0], e[1])
    return f"{u}-{v}"


def tour_edges(t: Sequence[str]) -> set:
    return {edge(u, v) for u, v in zip(t, t[1:])}


def value(w: dict, t: Sequence[str]) -> float:
    return math.fsum(w[edge(u, v)] for u, v in zip(t, t[1:]))


class Knowledge:
    """One seat's picture of the board: own coins exactly, the partner's as far as known, bounds and estimates."""

    def __init__(self, view: dict):
        self.rooms = [r["id"] for r in view["rooms"]]
        self.start = view["start"]
        self.own = {key_edge(k): int(w) for k, w in view["my_coins"].items()}
        self.edges = list(self.own)
        lo, hi = view.get("coin_range") or (min(self.own.values()), max(self.own.values()))
        self.wmin, self.wmax = int(lo), int(hi)
        self.budget = (self.wmin + self.wmax) * len(self.edges) // 2
        self.partner: dict = {}   # edge -> partner coins, exact
        self.cap: dict = {}       # edge -> upper bound on the partner's coins
        self.version = 0          # bumps whenever something is learned

    @property
    def n(self) -> int:
        return len(self.rooms)

    def update_view(self, view: dict) -> None:
        for k, w in (view.get("partner_coins") or {}).items():
            self.learn(key_edge(k), int(w))

    def learn(self, e, w: int) -> None:
        if e in self.own and self.partner.get(e) != w:
            self.partner[e] = w
            self.version += 1

    def apply_cap(self, cap: int, unknown: Optional[set] = None) -> None:
        cap = max(self.wmin, min(self.wmax, int(cap)))
        for e in self.edges:
            if e not in self.partner and (unknown is None or e in unknown) and self.cap.get(e, self.wmax) > cap:
                self.cap[e] = cap
                self.version += 1

    def unknown(self) -> list:
        return [e for e in self.edges if e not in self.partner]

    def hi(self, e) -> int:
        return self.cap.get(e, self.wmax)

    def estimates(self) -> dict:
        """Unknown partner coins: the remaining budget spread evenly, water-filled under the caps."""
        unknown = self.unknown()
        est: dict = {}
        rest = self.budget - sum(self.partner.values())
        todo = list(unknown)
        while todo:
            avg = rest / len(todo)
            capped = [e for e in todo if self.hi(e) < avg]
            if not capped:
                for e in todo:
                    est[e] = min(max(avg, self.wmin), self.hi(e))
                break
            for e in capped:
                est[e] = float(self.hi(e))
                rest -= self.hi(e)
            todo = [e for e in todo if e not in capped]
        return est

    def weights(self, mode: str = "est", against: Optional[set] = None, assume: Optional[dict] = None) -> dict:
        """Joint weights. mode: est | hi | lo | adv (unknown coins at the minimum on `against`, the cap elsewhere).
        `assume` fixes some unknown partner coins (e.g. at their estimates)."""
        est = self.estimates() if mode == "est" or assume else {}
        out = {}
        for e, o in self.own.items():
            if e in self.partner:
                p = self.partner[e]
            elif assume and e in assume:
                p = assume[e]
            elif mode == "est":
                p = est[e]
            elif mode == "hi":
                p = self.hi(e)
            elif mode == "lo":
                p = self.wmin
            else:
                p = self.wmin if e in against else self.hi(e)
            out[e] = o + p
        return out


class _Plan:
    """The moves of one turn: shares first (so a chat line can refer to them), then one chat line, then commands."""

    def __init__(self):
        self.shares: list[str] = []
        self.lines: list[str] = []
        self.cmds: list[tuple] = []

    def share(self, keys) -> None:
        for k in keys:
            if k not in self.shares:
                self.shares.append(k)

    def say(self, text: str) -> None:
        if text and text not in self.lines:
            self.lines.append(text)

    def cmd(self, name: str, *args: str) -> None:
        self.cmds.append((name, tuple(args)))

    def has(self, name: str) -> bool:
        return any(c[0] == name for c in self.cmds)
