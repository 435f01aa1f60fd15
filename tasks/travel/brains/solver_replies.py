"""How the solver agent ("solver", solver_brain.py) answers: the replies its `_decide` picks from: a partner's
proposal, submit or suggestion, a rejection, questions, its own opening, proposals and questions, and the judgement
of a path against the best tour (agree, counter, or ask for the deciding coins first).

A mixin of SolverBrain: every method works on the brain's knowledge (`self.k`), view and plan of the turn.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

from . import lines as L
from . import templates as T
from .knowledge import EPS, _Plan, ekey, key_edge, tour_edges, value


class SolverReplies:
    """The replies of the solver agent (see the module doc)."""

    def _while_mine_open(self, plan: _Plan, q: list, agreed: list, best: list, best_val: float) -> None:
        """My proposal q is open and the partner wrote or did something else."""
        val = value(self.k.weights("est"), q) if self._complete(q) else best_val
        if self._learned and self._complete(q) and self._canon(best) != self._canon(q) and best_val > val + EPS:
            # what they just told me makes another tour better than my open proposal
            plan.share(self._unshared(tour_edges(best) ^ tour_edges(q)))
            self._propose(plan, best, best_val, text=L.revised(q, best, val, best_val))
            return
        if self._yes and not self._no:
            if self._complete(q) and self.view["submitted"]["me"] is None:
                # People often say yes instead of pressing Agree: submitting q lets them finish with Submit.
                plan.cmd("submit", *q)
                plan.say(L.yes_submitted(q))
            else:
                plan.say(T.press_agree())
            return
        if self._suggestion:
            self._answer_suggestion(plan, agreed, best, best_val)
            return
        if (self._defer or self._question) and self._canon(q) != self._canon(best) and self._complete(q):
            self._propose(plan, best, best_val, text=L.my_choice(best, best_val))  # my choice is the best one
            return
        if self._complete(q) and self._canon(best) != self._canon(q) and self._d_lo(best, q) > EPS:
            self._propose(plan, best, best_val, counter_to=q)  # what they told me makes q certainly worse
            return
        if self._defer or self._question:
            plan.say(L.keep_mine(q, val))
        elif self._no:
            # A "no" in chat without pressing Reject: take it as a rejection and offer something concrete.
            c = self._canon(q)
            self._rejected[c] = -1
            self._rejections[c] = self._rejections.get(c, 0) + 1
            self._after_rejection(plan, best, best_val)

    def _acknowledge(self, plan: _Plan, pending, agreed: list, best: list, best_val: float) -> None:
        """Every message gets an answer: the state of things, never the same line twice in a row."""
        if pending and pending["mine"]:
            q = pending["path"]
            line = L.waiting(q, value(self.k.weights("est"), q) if self._complete(q) else best_val)
            plan.say(line if line != self._last_line else L.waiting_short(q))
        elif self._complete(agreed):
            plan.say(T.please_submit_agreed(agreed))
        else:
            self._propose(plan, best, best_val, text=L.my_choice(best, best_val))

    def _answer_questions(self, plan: _Plan) -> None:
        """Questions about my coins: shown (/share, or stated in chat) and answered in words, every time."""
        k = self.k
        if self._ask_all:
            keys = [ekey(e) for e in k.edges]
        else:
            keys = [ekey(e) for e in self._asked_by_partner]
        self._asked_by_partner, ask_all, self._ask_all = [], self._ask_all, False
        if not keys:
            return
        fresh = [x for x in keys if x not in self._shared_keys()]
        plan.share(fresh)
        if ask_all and self._can_share:
            plan.say(L.all_shared())
        elif self._can_share or len(fresh) < len(keys):
            own = {ekey(e): w for e, w in k.own.items()}
            plan.say(L.answer([(x, own[x]) for x in keys], shared=self._can_share))

    def _opening(self, plan: _Plan) -> None:
        self._opened = True
        k = self.k
        if self.share_policy == "all" and self._can_share:
            plan.share(self._unshared(set(k.edges)))
            plan.say(L.all_shared())
        elif self.share_policy == "all":
            self._told.update(ekey(e) for e in k.edges)
            plan.say(L.opening_listed([(ekey(e), w) for e, w in k.own.items()], 0, 0, len(k.edges)))
        elif self.share_policy == "threshold":
            thr = math.ceil((k.wmin + k.wmax) / 2)
            rich = {e for e, w in k.own.items() if w >= thr}
            self._my_cap = thr - 1
            if self._can_share:
                plan.share(self._unshared(rich))
                plan.say(L.opening(thr, thr - 1, len(rich), len(k.edges), False))
            else:  # no /share: the line itself lists them, so it can say "those" truthfully
                keys = [ekey(e) for e in k.edges if e in rich]
                self._told.update(keys)
                plan.say(L.opening_listed([(x, k.own[key_edge(x)]) for x in keys], thr, thr - 1, len(k.edges)))
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
        if self._certified(c):
            return "accept", [], c
        if self._canon(c) == self._canon(best):
            # My own estimate too, but not certain: ask for the coins that could still change it, once.
            asks = [e for e in self._blocking(c) if self._my_asks.get(e, 0) < self.max_asks]
            return ("unsure", asks, c) if asks and self._may_ask() and not self._late() else ("accept", [], c)
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
        if asks and self._may_ask():
            return "unsure", asks, c
        return ("accept" if good_enough else "reject"), [], c

    def _ask(self, plan: _Plan, asks: list) -> None:
        for e in asks:
            self._my_asks[e] = self._my_asks.get(e, 0) + 1
        self._awaiting = set(asks)
        unknown = self.k.unknown()
        if len(asks) > 8 and 2 * len(asks) >= len(unknown):
            plan.say(T.ask_all() if self._can_share else "Could you tell me all your coins?")
        else:
            plan.say(L.ask([ekey(e) for e in asks]))
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
            times = self._insisted.get(self._canon(counter_to), 0)
            plan.say(L.insist(counter_to, tour, their, val, times) if times > 1 else
                     T.counter(counter_to, tour, their, val, self._d_lo(tour, counter_to) > EPS))
        else:
            plan.say(T.propose(tour, val, self._certified(tour)))
        plan.cmd("propose", *tour)
        c = self._canon(tour)
        self._proposed[c] = self._proposed.get(c, 0) + 1

    def _answer_proposal(self, plan: _Plan, pending: dict, agreed: list, best: list, best_val: float) -> None:
        path = pending["path"]
        backtrack = pending["kind"] == "revise" and len(path) < len(agreed) and agreed[:len(path)] == path
        c = self._canon(path)
        self._insisted[c] = self._insisted.get(c, 0) + 1
        if backtrack:
            verdict, asks = "accept", []
        else:
            verdict, asks, tour = self._judge(path, best, best_val)
            if verdict == "reject" and self._late() and self._insisted[c] >= 2 and self._complete(path):
                # Out of turns against a partner who holds on to their tour: finishing beats a timeout, and I say
                # what it costs.
                plan.cmd("agree")
                plan.cmd("submit")
                plan.say(L.yield_late(path, best, best_val - value(self.k.weights("est"), path)))
                return
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
        pending = self.view.get("pending")
        if pending and pending["mine"] and self._canon(pending["path"]) == self._canon(s):
            plan.say(T.press_agree())  # they suggest what I proposed: a yes
            if self._complete(s) and self.view["submitted"]["me"] is None:
                plan.cmd("submit", *s)
            return
        verdict, asks, whole = self._judge(s, best, best_val)
        c = self._canon(s)
        self._insisted[c] = self._insisted.get(c, 0) + 1
        if verdict == "reject" and self._late() and self._insisted[c] >= 2 and self._complete(s):
            plan.cmd("propose", *s)  # out of turns against a partner who holds on to it (see _answer_proposal)
            plan.say(L.yield_late(s, best, best_val - value(self.k.weights("est"), s)))
        elif verdict == "accept":
            # A next room ("the kitchen next") becomes the whole tour it stands for: one proposal to agree to (or to
            # say yes to and submit), instead of room-by-room steps that a person typing cannot press Agree for.
            tour = whole if self._complete(whole) else s
            plan.cmd("propose", *tour)
            plan.say(T.suggestion_ok(tour))
        elif verdict == "unsure":
            self._ask(plan, asks)
        else:
            self._propose(plan, best, best_val, counter_to=s)

    def _alternative(self, avoid: Sequence[str]) -> tuple[Optional[list], float]:
        """The best tour (on estimates) that is not `avoid`: the best tour without one of avoid's hallways."""
        est = self.k.weights("est")
        best, best_val = None, -math.inf
        for e in tour_edges(avoid):
            w = dict(est)
            w[e] = -1e6
            t, val = self._best(w)
            if val > best_val and self._canon(t) != self._canon(avoid):
                best, best_val = t, value(est, t)
        return best, best_val

    def _after_rejection(self, plan: _Plan, best: list, best_val: float) -> None:
        """A bare rejection leads to a concrete proposal: a different tour first, then back to the best one with
        reasons (never just "which tour would you prefer?", which stalled games with people who let me choose)."""
        c = self._canon(best)
        if self._rejections.get(c, 0) == 1:
            alt, alt_val = self._alternative(best)
            if alt is not None and self._rejections.get(self._canon(alt), 0) == 0:
                self._propose(plan, alt, alt_val, text=L.alternative(best, alt, alt_val, best_val))
                return
        self._propose(plan, best, best_val, text=L.still_best(best, best_val, self._rejections.get(c, 0)))

    def _initiative(self, plan: _Plan, best: list, best_val: float) -> None:
        if self._left("partner") == 0:
            # The partner can only submit now: submit the best tour and ask them to do the same.
            plan.cmd("submit", *best)
            plan.say(T.submitted(best))
            return
        c = self._canon(best)
        if self._defer or self._question:
            self._propose(plan, best, best_val, text=L.my_choice(best, best_val))  # "you choose": I do
            asks = [e for e in self._blocking(best) if self._my_asks.get(e, 0) < self.max_asks]
            if asks and self._may_ask() and not self._late():
                self._ask(plan, asks)  # and say which of their coins could still change it
            return
        if c in self._rejected and self._rejected[c] in (-1, self.k.version):
            # Turned down and nothing new learnt since.
            self._rejected[c] = self.k.version
            self._after_rejection(plan, best, best_val)
            return
        if self._certified(best) or self._late():
            self._propose(plan, best, best_val)
            return
        asks = [e for e in self._blocking(best) if self._my_asks.get(e, 0) < self.max_asks]
        if asks and self._may_ask():
            self._ask(plan, asks)
        elif self._quiet and not self._proposed.get(c):
            self._propose(plan, best, best_val, text=L.no_answer(best, best_val))
        else:
            self._propose(plan, best, best_val)
