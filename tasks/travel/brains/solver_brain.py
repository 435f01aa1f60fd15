"""The solver agent ("solver"): negotiates a tour with the exact solver, no LLM needed.

Knowledge. Its own coins are exact; the partner's are exact where revealed (/share, or stated in chat), bounded by
[wmin, cap] elsewhere (cap = wmax unless the partner said "my other hallways have at most N"), and estimated from the
partner's budget: the per-player sum floor((wmin+wmax)*|E|/2) minus the known coins, spread evenly (water-filled
under the caps) over the unknown hallways, instead of the paper's 0.

Policy (default share_policy="threshold"):
1. Opening: share every own hallway with at least ceil((wmin+wmax)/2) coins and say that the others have at most one
   less. The rich hallways are the ones that can make a tour; the cap bounds the rest, and the partner's budget
   estimate for them drops to the mean of the poor half, so after one exchange both estimates are close.
2. Certify. The best tour T* on estimated joint coins is *certified* when no tour beats it even with the partner's
   unknown coins set adversarially (minimum on T*, cap elsewhere); one exact solve on adversarial weights checks it.
3. Value of information. When T* is not certified, ask for the partner's coins on the unknown hallways where T* and
   the adversarial winner differ (repeated a few times per message with the asked hallways at their estimates), i.e.
   exactly the coins that could flip the argmax, and share its own coins on the same hallways, which the partner
   needs for the same comparison. Questions are chat; answers are /share (truthful by construction).
4. Propose T* (a full tour) once it is certified, or when turns run short. Before proposing, share the own coins the
   partner would need to certify T* (simulated from the partner's side), so the partner can usually agree at once.
5. Answer a partner's proposal (or premature submit, or a path suggested in chat) on joint value: agree when it is
   (the completion of) T* or certainly optimal; counter-propose T* when it is certainly worse; otherwise ask for the
   deciding coins first. Backtracks to an earlier agreed room are accepted. Late in the game (few turns left) the
   estimate decides. After agreeing on a full tour it submits at once; a partner's acceptable early submit is answered
   by submitting the same tour, which finishes the game.
share_policy="all" shares every coin in the opening instead (one message; also legitimate), "asked" only on request.
"""
from __future__ import annotations

import json
import math
from typing import Optional, Sequence

from tasks.core import Brain, ChatShown, Message, View

from ..board import edge, normalize_tour
from ..solver import best_tour
from . import reader as rule_reader
from . import templates as T

EPS = 1e-6
COSTED = ("propose", "agree", "reject", "undo")


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


class SolverBrain(Brain):
    name = "solver"
    uses_llm = True  # its text reader, when an LLM is configured (option llm_reader)

    def __init__(self, seat: str, seed: int = 0, llm=None, options: Optional[dict] = None):
        super().__init__(seat, seed, llm, options)
        o = self.options
        self.share_policy = o.get("share_policy", "threshold")
        self.late_turns = int(o.get("late_turns", 3))
        self.tolerance = float(o.get("tolerance", 0.0))
        self.ask_rounds = int(o.get("ask_rounds", 4))
        self.max_asks = int(o.get("max_asks", 2))  # ask for one hallway at most this often
        self.llm_reader = bool(o.get("llm_reader", True))
        self._reading_schema: Optional[dict] = None
        self.share_with_asks = bool(o.get("share_with_asks", True))
        self.view: Optional[dict] = None
        self.k: Optional[Knowledge] = None
        self._dirty = False
        self._opened = False
        self._my_cap: Optional[int] = None
        self._chats: list[tuple[str, frozenset]] = []
        self._asked_by_partner: list = []
        self._ask_all = False
        self._my_asks: dict = {}
        self._proposed: dict = {}
        self._rejected: dict = {}
        self._suggestion: Optional[list] = None
        self._yes = self._no = False
        self._heard = False  # this act answers something the partner wrote
        self._cache: dict = {}

    # ------------------------------------------------------------------------------------------------------------
    # observation

    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.seat == self.seat:
            data = effect.data
            if "rooms" not in data:
                return
            prev = self.view
            if self.k is None:
                self.k = Knowledge(data)
            if prev is not None and prev.get("pending") and prev["pending"]["mine"] and not data.get("pending") \
                    and data.get("agreed") == prev.get("agreed"):
                # The partner turned my proposal down.
                self._rejected[self._canon(prev["pending"]["path"])] = -1
            self.k.update_view(data)
            self.view = data
            if prev is None:
                self._dirty = self._dirty or self.seat == "light"  # light moves first
            elif self._partner_moved(prev, data):
                self._dirty = True
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            known = frozenset(self.k.partner) if self.k else frozenset()
            self._chats.append((effect.text, known))
            self._dirty = True
        elif isinstance(effect, Message) and effect.to == self.seat and effect.kind == "error":
            self.note("move_rejected", text=effect.text)

    @staticmethod
    def _partner_moved(prev: dict, cur: dict) -> bool:
        if cur.get("partner_coins") != prev.get("partner_coins"):
            return True
        if (cur.get("turns_left") or {}).get("partner") != (prev.get("turns_left") or {}).get("partner"):
            return True
        if cur["submitted"]["partner"] != prev["submitted"]["partner"] or \
                cur.get("partner_submitted") != prev.get("partner_submitted"):
            return True
        pp, cp = prev.get("pending"), cur.get("pending")
        if cp and not cp["mine"] and cp != pp:
            return True
        if pp and pp["mine"] and not (cp and cp["mine"]):
            return True
        return bool(cur.get("result")) and not prev.get("result")

    # ------------------------------------------------------------------------------------------------------------
    # helpers

    def _canon(self, t) -> tuple:
        return normalize_tour(t, self.k.start) if len(t) == self.k.n + 1 else tuple(t)

    def _complete(self, p) -> bool:
        return len(p) == self.k.n + 1 and p[-1] == self.k.start

    def _best(self, w: dict, prefix: Sequence[str] = ()) -> tuple[list, float]:
        key = (tuple(round(w[e], 6) for e in self.k.edges), tuple(prefix))
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) > 2000:
                self._cache.clear()
            tour, val = best_tour(w, self.k.rooms, self.k.start, prefix=tuple(prefix))
            hit = self._cache[key] = (list(tour), val)
        return hit

    def _left(self, who: str) -> Optional[int]:
        return (self.view.get("turns_left") or {}).get(who)

    def _late(self) -> bool:
        me, other = self._left("me"), self._left("partner")
        return (me is not None and me <= self.late_turns) or (other is not None and other <= 1)

    def _unknown_in(self, edges) -> list:
        return [e for e in self.k.edges if e in edges and e not in self.k.partner]

    def _certified(self, t: Sequence[str]) -> bool:
        """No tour beats t, whatever the partner's unknown coins (within their bounds)."""
        w = self.k.weights("adv", against=tour_edges(t))
        _, best = self._best(w)
        return best <= value(w, t) + EPS

    def _blocking(self, t: Sequence[str]) -> list:
        """Unknown partner hallways that keep t from being certified: where t and the adversarial winner differ."""
        ref = tour_edges(t)
        est = self.k.estimates()
        assume: dict = {}
        asks: list = []
        for _ in range(self.ask_rounds):
            w = self.k.weights("adv", against=ref, assume=assume)
            rival, best = self._best(w)
            if best <= value(w, t) + EPS:
                break
            new = [e for e in self._unknown_in(ref ^ tour_edges(rival)) if e not in assume]
            if not new:
                break
            for e in new:
                assume[e] = est[e]
                asks.append(e)
        return asks

    def _support(self, t: Sequence[str]) -> list:
        """Own unshared hallways the partner needs to certify t, simulated from the partner's side."""
        k = self.k
        shared = {key_edge(x) for x in self.view.get("my_shared") or []}
        cap = self._my_cap if self._my_cap is not None else k.wmax
        est = k.estimates()
        ref = tour_edges(t)
        reveal: set = set()
        for _ in range(self.ask_rounds):
            w = {}
            for e, o in k.own.items():
                theirs = k.partner.get(e, est.get(e, 0.0))
                if e in shared or e in reveal:
                    mine = o
                else:
                    mine = k.wmin if e in ref else cap
                w[e] = theirs + mine
            rival, best = self._best(w)
            if best <= value(w, t) + EPS:
                break
            new = [e for e in ref ^ tour_edges(rival) if e not in shared and e not in reveal]
            if not new:
                break
            reveal.update(new)
        return [ekey(e) for e in k.edges if e in reveal]

    def _unshared(self, edges) -> list:
        shared = set(self.view.get("my_shared") or [])
        return [ekey(e) for e in self.k.edges if e in edges and ekey(e) not in shared]

    # ------------------------------------------------------------------------------------------------------------
    # reading chat

    def _read(self, text: str):
        k = self.k
        if self.llm is not None and self.llm_reader:
            if self._reading_schema is None:
                self._reading_schema = reading_schema(k.rooms, k.wmin, k.wmax)
            act = None
            try:
                with self.llm_act("reader") as act:
                    return read_with_llm(self.llm, text, k.rooms, k.wmin, k.wmax, act, schema=self._reading_schema)
            except Exception as exc:  # LLMError or a malformed answer: the rule-based reader takes over
                # (under strict_llm the act is marked failed and the driver ends the game before any move)
                self.llm_fallback(act, exc, where="reader")
        return rule_reader.read(text, k.rooms, k.wmin, k.wmax)

    def _read_chats(self, plan: _Plan) -> None:
        chats, self._chats = self._chats, []
        self._heard = bool(chats)
        for text, known in chats:
            r = self._read(text)
            for e, w in r.coins.items():
                if ekey(e) not in (self.view.get("partner_coins") or {}):
                    self.k.learn(e, w)
            if r.cap is not None:
                self.k.apply_cap(r.cap, {e for e in self.k.edges if e not in known})
            for e in r.asks:
                if e not in self._asked_by_partner:
                    self._asked_by_partner.append(e)
            self._ask_all = self._ask_all or r.ask_all
            self._yes, self._no = r.yes, r.no
            if r.path and not r.question:
                self._suggestion = r.path

    # ------------------------------------------------------------------------------------------------------------
    # deciding

    def act(self):
        v = self.view
        if not self._dirty or v is None or v.get("result") or (v.get("core") or {}).get("phase") != "playing":
            return []
        self._dirty = False
        try:
            plan = self._decide()
        except Exception as exc:  # a bug here must not stop the room: skip this turn and say so in the log
            self.note("error", error=f"{type(exc).__name__}: {exc}"[:300])
            return []
        return self._moves(plan)

    def _moves(self, plan: _Plan) -> list:
        out = []
        no_turns = self._left("me") == 0
        if plan.shares:
            # Comma-joined groups keep big shares under the match's limits on argument count and length.
            out.append(self.command("share", *(",".join(plan.shares[i:i + 40])
                                               for i in range(0, len(plan.shares), 40))))
        if plan.lines and not no_turns:
            out.append(self.say(" ".join(plan.lines)))
        for name, args in plan.cmds:
            if no_turns and name in COSTED:
                continue
            out.append(self.command(name, *args))
        return out  # the driver marks the 2nd..nth move of a turn with turn=False

    def _decide(self) -> _Plan:
        v, k = self.view, self.k
        plan = _Plan()
        self._read_chats(plan)

        # Answer questions about my coins.
        if self._ask_all:
            asked = self._unshared(set(k.edges))
            self._ask_all = False
        else:
            asked = self._unshared(set(self._asked_by_partner))
        self._asked_by_partner = []
        if asked:
            plan.share(asked)
        opening = not self._opened
        if opening:
            self._opening(plan)

        pending = v.get("pending")
        agreed = v.get("agreed") or [k.start]
        best, best_val = self._best(k.weights("est"))
        if 1 < len(agreed) <= k.n:
            # Keep to the agreed path (and its direction) when it can still reach an equally good tour.
            comp, comp_val = self._best(k.weights("est"), prefix=agreed)
            if comp_val >= best_val - EPS:
                best, best_val = comp, comp_val
        mine_sub = v["submitted"]["me"]
        theirs_sub = v.get("partner_submitted")

        if pending and not pending["mine"]:
            self._answer_proposal(plan, pending, agreed, best, best_val)
        elif self._complete(agreed):
            if theirs_sub and self._canon(theirs_sub) != self._canon(agreed):
                verdict, _, _ = self._judge(theirs_sub, best, best_val)
                if verdict == "accept":
                    plan.cmd("submit", *theirs_sub)
                    plan.say(T.accept_their_submit(theirs_sub))
                else:
                    plan.say(T.please_submit_agreed(agreed))
            if not plan.has("submit") and (mine_sub is None or self._canon(mine_sub) != self._canon(agreed)):
                plan.cmd("submit")
                if not theirs_sub:
                    plan.say(T.submitted(agreed))
            elif not plan.has("submit") and not theirs_sub and self._heard:
                # I wait for the partner's submit and they talk instead: remind them (each line costs me a turn,
                # so a partner that never submits ends the game at the turn limit instead of stalling it).
                plan.say(T.please_submit_agreed(agreed))
        elif theirs_sub and (mine_sub is None or self._canon(mine_sub) != self._canon(theirs_sub)):
            self._answer_submit(plan, theirs_sub, best, best_val)
        elif pending and pending["mine"]:
            q = pending["path"]
            if self._yes:
                plan.say(T.press_agree())
            elif self._no:
                plan.say(T.after_no(q))
            if self._complete(q) and self._canon(best) != self._canon(q) and \
                    self._d_lo(best, q) > EPS:
                self._propose(plan, best, best_val, counter_to=q)
        elif self._suggestion:
            self._answer_suggestion(plan, agreed, best, best_val)
        elif not (opening and self.share_policy == "threshold" and not v.get("partner_coins")):
            # (An opening that knows nothing of the partner yet only shares: questions come once the partner's
            # rich hallways and cap are known, so they ask for far fewer coins.)
            self._initiative(plan, best, best_val)
        self._suggestion = None
        self._yes = self._no = False
        return plan

    def _opening(self, plan: _Plan) -> None:
        self._opened = True
        k = self.k
        if self.share_policy == "all":
            plan.share(self._unshared(set(k.edges)))
            plan.say(T.opening_all())
        elif self.share_policy == "threshold":
            thr = math.ceil((k.wmin + k.wmax) / 2)
            plan.share(self._unshared({e for e, w in k.own.items() if w >= thr}))
            self._my_cap = thr - 1
            plan.say(T.opening_cap(thr, thr - 1))
        else:
            plan.say(T.opening_hello())

    def _d_lo(self, a: Sequence[str], b: Sequence[str]) -> float:
        """The least joint advantage of tour a over tour b that the partner's unknown coins allow."""
        ea, eb = tour_edges(a), tour_edges(b)
        lo = self.k.weights("lo")
        hi = self.k.weights("hi")
        return math.fsum(lo[e] for e in ea - eb) - math.fsum(hi[e] for e in eb - ea)

    def _judge(self, path: Sequence[str], best: list, best_val: float) -> tuple[str, list, list]:
        """("accept" | "reject" | "unsure", hallways to ask about, the tour the path stands for)."""
        k = self.k
        est = k.weights("est")
        path = list(path)
        complete = self._complete(path)
        c = path if complete else self._best(est, prefix=path)[0]
        if self._canon(c) == self._canon(best) or self._certified(c):
            return "accept", [], c
        if complete:
            if self._d_lo(best, c) > EPS:
                return "reject", [], c
        else:
            _, optimistic = self._best(k.weights("hi"), prefix=path)
            if optimistic < value(k.weights("lo"), best) - EPS:
                return "reject", [], c
        good_enough = value(est, c) >= best_val - self.tolerance - EPS
        if self._late():
            return ("accept" if good_enough else "reject"), [], c
        asks = self._blocking(c) + [e for e in self._unknown_in(tour_edges(c) ^ tour_edges(best))]
        asks = [e for e in dict.fromkeys(asks) if self._my_asks.get(e, 0) < self.max_asks]
        if asks:
            return "unsure", asks, c
        return ("accept" if good_enough else "reject"), [], c

    def _ask(self, plan: _Plan, asks: list) -> None:
        for e in asks:
            self._my_asks[e] = self._my_asks.get(e, 0) + 1
        unknown = self.k.unknown()
        if len(asks) > 8 and 2 * len(asks) >= len(unknown):
            plan.say(T.ask_all())  # most of them anyway: one click on Share is easier than a long list
        else:
            plan.say(T.ask([ekey(e) for e in asks]))
        if self.share_with_asks:
            # The partner needs my coins on the same hallways to weigh the same alternatives.
            plan.share(self._unshared(set(asks)))

    def _propose(self, plan: _Plan, tour: list, val: float, counter_to: Optional[Sequence[str]] = None,
                 text: Optional[str] = None) -> None:
        k = self.k
        plan.share(self._support(tour))
        if text:
            plan.say(text)
        elif counter_to is not None:
            plan.share(self._unshared(tour_edges(tour) ^ tour_edges(counter_to)))
            their = value(k.weights("est"), counter_to if self._complete(counter_to) else
                          self._best(k.weights("est"), prefix=counter_to)[0])
            plan.say(T.counter(counter_to, tour, their, val, self._d_lo(tour, counter_to) > EPS))
        else:
            plan.say(T.propose(tour, val, self._certified(tour)))
        plan.cmd("propose", *tour)
        c = self._canon(tour)
        self._proposed[c] = self._proposed.get(c, 0) + 1

    def _answer_proposal(self, plan: _Plan, pending: dict, agreed: list, best: list, best_val: float) -> None:
        path = pending["path"]
        backtrack = pending["kind"] == "revise" and len(path) < len(agreed) and agreed[:len(path)] == path
        if backtrack:
            verdict, asks = "accept", []
        else:
            verdict, asks, _ = self._judge(path, best, best_val)
            if verdict == "reject" and self._proposed.get(self._canon(best), 0) >= 3:
                verdict = "accept"  # we keep disagreeing: give way rather than run out of turns
        if verdict == "accept":
            plan.cmd("agree")
            complete = self._complete(path)
            if complete:
                plan.cmd("submit")
            plan.say(T.agree(path, complete))
        elif verdict == "reject":
            self._propose(plan, best, best_val, counter_to=path)
        else:
            plan.say(T.wait_for_answers())
            self._ask(plan, asks)

    def _answer_submit(self, plan: _Plan, theirs: list, best: list, best_val: float) -> None:
        verdict, asks, _ = self._judge(theirs, best, best_val)
        if verdict == "accept" or self._left("me") == 0:
            plan.cmd("submit", *theirs)
            plan.say(T.accept_their_submit(theirs))
        elif verdict == "reject":
            self._propose(plan, best, best_val, counter_to=theirs, text=T.premature_submit(theirs, best))
        else:
            plan.say(T.wait_for_answers())
            self._ask(plan, asks)

    def _answer_suggestion(self, plan: _Plan, agreed: list, best: list, best_val: float) -> None:
        """A path suggested in chat (people often type rather than /propose): propose it for them if it is good."""
        k = self.k
        s = list(self._suggestion)
        if s[0] != k.start:
            s = agreed + [r for r in s if r not in agreed]
        if len(set(s)) == k.n and s[-1] != k.start:
            s = s + [k.start]
        body = s[:-1] if self._complete(s) else s
        if len(set(body)) != len(body) or s == agreed or (s[-1] == k.start and not self._complete(s) and len(s) > 1):
            self._initiative(plan, best, best_val)
            return
        verdict, asks, _ = self._judge(s, best, best_val)
        if verdict == "accept":
            plan.cmd("propose", *s)
            plan.say(T.suggestion_ok(s))
        elif verdict == "unsure":
            self._ask(plan, asks)
        else:
            self._propose(plan, best, best_val, counter_to=s)

    def _initiative(self, plan: _Plan, best: list, best_val: float) -> None:
        if self._left("partner") == 0:
            # The partner can only submit now: submit the best tour and ask them to do the same.
            plan.cmd("submit", *best)
            plan.say(T.submitted(best))
            return
        c = self._canon(best)
        if c in self._rejected and self._rejected[c] in (-1, self.k.version) and not self._late():
            # Turned down and nothing new learnt since: ask the partner for their alternative instead of repeating.
            self._rejected[c] = self.k.version
            plan.share(self._support(best))
            plan.say(T.rejected_wait())
            return
        if self._certified(best) or self._late():
            self._propose(plan, best, best_val)
            return
        asks = [e for e in self._blocking(best) if self._my_asks.get(e, 0) < self.max_asks]
        if asks:
            self._ask(plan, asks)
        else:
            self._propose(plan, best, best_val)


# ----------------------------------------------------------------------------------------------------------------
# Reading chat with an LLM (when one is configured)

def reading_schema(rooms: Sequence[str], wmin: int, wmax: int) -> dict:
    """What the LLM reader extracts from one chat message, for this house's rooms and coin range. Written once per
    seat (`SolverBrain`), sent as the structured-output schema and used to validate the answer; bounded
    throughout, so the client can size max_tokens. An empty path means none."""
    room = {"type": "string", "enum": list(rooms)}
    pair = {"type": "array", "items": room, "minItems": 2, "maxItems": 2}
    coins = list(range(int(wmin), int(wmax) + 1))
    return {
        "title": "reading",
        "type": "object",
        "properties": {
            "coins": {"type": "array", "maxItems": 4, "items": {
                "type": "object",
                "properties": {"hallway": pair, "coins": {"type": "integer", "enum": coins}},
                "required": ["hallway", "coins"], "additionalProperties": False}},
            "asks": {"type": "array", "maxItems": 4, "items": pair},
            "ask_all": {"type": "boolean"},
            "cap": {"enum": [None] + coins},
            "path": {"type": "array", "items": room, "maxItems": len(rooms) + 1},
            "yes": {"type": "boolean"},
            "no": {"type": "boolean"},
            "question": {"type": "boolean"},
        },
        "required": ["coins", "asks", "ask_all", "cap", "path", "yes", "no", "question"],
        "additionalProperties": False,
    }


# The schema for the paper's preset house (documentation and simple fakes; brains build their own per seat).
READING_SCHEMA = reading_schema(list("LEBKCA"), 1, 10)


class _Tally:
    """Collects token counts from an LLM client (it calls .add(delta) with prompt_tokens, completion_tokens...)."""

    FIELDS = ("prompt_tokens", "completion_tokens", "calls", "failures")

    def __init__(self):
        for f in self.FIELDS:
            setattr(self, f, 0)

    def add(self, other) -> "_Tally":
        for f in self.FIELDS:
            setattr(self, f, getattr(self, f) + int(getattr(other, f, 0) or 0))
        return self

    def into(self, usage: dict) -> None:
        for f in self.FIELDS:
            usage[f] = usage.get(f, 0) + getattr(self, f)


def reader_messages(text: str, rooms: Sequence[str], wmin: int, wmax: int) -> list[dict]:
    """The reader's prompt: a stable prefix (instructions for this house, one worked example) and the message."""
    from ..board import ROOM_NAMES

    names = ", ".join(f"{r} = {ROOM_NAMES.get(r, r)}" for r in rooms)
    a, b, c = rooms[0], rooms[1], rooms[2]
    lo, hi = int(wmin), int(wmax)
    example_text = f"I have {min(hi, lo + 3)} coins on {a}-{b}. What are yours on {b}-{c}? Let's go {a} {b} next."
    example = {"coins": [{"hallway": [a, b], "coins": min(hi, lo + 3)}], "asks": [[b, c]], "ask_all": False,
               "cap": None, "path": [a, b], "yes": False, "no": False, "question": True}
    return [
        {"role": "system", "content": (
            "You read one chat message from a player of a cooperative route-planning game and extract its content "
            f"as JSON. Rooms (letter = name): {names}. Hallways connect two rooms; each player has their own coins "
            f"({wmin}-{wmax}) on every hallway. Extract: coins = hallways whose coins the speaker states as their "
            "OWN (not sums); asks = hallways the speaker asks the listener about; ask_all = the speaker asks for all "
            "of the listener's coins; cap = N if the speaker says their other hallways have at most N coins, else "
            "null; path = the room letters the speaker suggests visiting, in order, else []; yes/no = agreement or "
            "disagreement; question = the message asks something. Use room letters only.")},
        {"role": "user", "content": example_text},
        {"role": "assistant", "content": json.dumps(example)},
        {"role": "user", "content": text},
    ]


def read_with_llm(llm, text: str, rooms: Sequence[str], wmin: int, wmax: int, usage, schema: Optional[dict] = None):
    """Read one partner message with the LLM into a reader.Reading (validated: rooms of this house, coin range).
    `usage`: a dict of counts, or an object with .add (an `LLMAct`) that the client fills directly."""
    schema = schema or reading_schema(rooms, wmin, wmax)
    messages = reader_messages(text, rooms, wmin, wmax)
    if hasattr(usage, "add"):
        out = llm.chat_json(messages, schema, usage=usage)
    else:
        tally = _Tally()
        try:
            out = llm.chat_json(messages, schema, usage=tally)
        finally:
            tally.into(usage)
    r = rule_reader.Reading(text=text)
    allowed = set(rooms)

    def hall(pair):
        a, b = (str(x).strip().upper()[:1] for x in pair)
        if a in allowed and b in allowed and a != b:
            return edge(a, b)
        return None

    for item in out.get("coins") or []:
        e = hall(item.get("hallway") or ["", ""])
        w = item.get("coins")
        if e and isinstance(w, int) and wmin <= w <= wmax:
            r.coins[e] = w
    for pair in out.get("asks") or []:
        e = hall(pair)
        if e and e not in r.asks:
            r.asks.append(e)
    r.ask_all = bool(out.get("ask_all"))
    cap = out.get("cap")
    r.cap = cap if isinstance(cap, int) and wmin <= cap <= wmax else None
    p = [str(x).strip().upper()[:1] for x in (out.get("path") or [])]
    r.path = p if p and all(x in allowed for x in p) else None
    r.yes, r.no, r.question = bool(out.get("yes")), bool(out.get("no")), bool(out.get("question"))
    return r
