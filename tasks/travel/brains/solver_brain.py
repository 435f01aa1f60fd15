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
   needs for the same comparison. Questions are chat; answers are /share plus the numbers in words (truthful by
   construction; without /share, under the paper's rules, the numbers in chat alone).
4. Propose T* (a full tour) once it is certified, or when turns run short. Before proposing, share the own coins the
   partner would need to certify T* (simulated from the partner's side), so the partner can usually agree at once.
5. Answer a partner's proposal (or premature submit, or a path suggested in chat) on joint value: agree when it is
   (the completion of) T* or certainly optimal; counter-propose T* when it is certainly worse; otherwise ask for the
   deciding coins first. Backtracks to an earlier agreed room are accepted. Late in the game (few turns left) the
   estimate decides. After agreeing on a full tour it submits at once; a partner's acceptable early submit is answered
   by submitting the same tour, which finishes the game.
share_policy="all" shares every coin in the opening instead (one message; also legitimate), "asked" only on request.

With people (plain English through reader.py; tests/test_travel_people.py). Every message gets an answer or a move,
never the same line twice in a row. A question is asked once: while it is unanswered no other question follows, and
a partner who lets it pass is asked no more (the agent proposes on what it knows). A bare rejection, or a "no" in
chat, leads to a concrete proposal: the best other tour first, then the best one again with its numbers; "you
choose" or "what do you suggest?" is answered with the best tour. A worse tour proposed again and again is countered
with the numbers each time; only when turns run out does the agent give way, and it says what that costs. A "yes" in
chat to an open full tour makes the agent submit it, so a person can finish with Submit alone. Its lines come after
the moves they refer to (shares and proposals first), and state only what is true when they are sent.
"""
from __future__ import annotations

from typing import Optional, Sequence

from tasks.core import Brain, ChatShown, Message, View

from ..board import normalize_tour
from ..solver import best_tour
from . import lines as L
from . import reader as rule_reader
from . import templates as T
from .knowledge import EPS, Knowledge, _Plan, ekey, key_edge, tour_edges, value  # noqa: F401 (re-exported)
from .llm_reader import READING_SCHEMA, read_with_llm, reader_messages, reading_schema  # noqa: F401 (re-exported)
from .solver_replies import SolverReplies

COSTED = ("propose", "agree", "reject", "undo")


class SolverBrain(SolverReplies, Brain):
    name = "solver"
    # A symbolic agent: it gets the LLM only with brain option reader=llm (TaskSpec.wants_llm), and then reads
    # chat through it as option llm_reader says.
    uses_llm = False

    def __init__(self, seat: str, seed: int = 0, llm=None, options: Optional[dict] = None):
        super().__init__(seat, seed, llm, options)
        o = self.options
        self.share_policy = o.get("share_policy", "threshold")
        self.late_turns = int(o.get("late_turns", 3))
        self.tolerance = float(o.get("tolerance", 0.0))
        self.ask_rounds = int(o.get("ask_rounds", 4))
        self.max_asks = int(o.get("max_asks", 1))  # ask for one hallway at most this often
        # How chat is read when an LLM is configured: "always" (true; the LLM first, the rules when it fails),
        # "fallback" (the rules first, the LLM only for a message they make nothing of: for small local models,
        # which read worse than the rules, see bench/bench_travel_reader.py), "off" (false).
        mode = o.get("llm_reader", True)
        self.llm_reader = {True: "always", False: "off"}.get(mode, str(mode).lower())
        if self.llm_reader not in ("always", "fallback", "off"):
            raise ValueError(f"llm_reader must be always, fallback or off, not {mode!r}")
        self._reading_schema: Optional[dict] = None
        self.share_with_asks = bool(o.get("share_with_asks", True))
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
        self._yes = self._no = self._defer = self._question = False
        self._heard = False  # this act answers something the partner wrote
        self._cache: dict = {}
        self._can_share = True       # /share exists (not under the paper's rules: coins go through chat then)
        self._awaiting: set = set()  # hallways I asked about that the partner has not answered yet
        self._quiet = False          # the partner left a question unanswered: act on what is known, ask no more
        self._rejections: dict = {}  # canon tour -> how often the partner turned it down
        self._insisted: dict = {}    # canon tour -> how often the partner proposed it against my counter
        self._last_line = ""
        self._learned = False
        self._unclear = False
        self._told: set = set()      # my hallway keys stated in chat (when there is no /share)

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
                c = self._canon(prev["pending"]["path"])
                self._rejected[c] = -1
                self._rejections[c] = self._rejections.get(c, 0) + 1
            self.k.update_view(data)
            self.view = data
            self._can_share = bool(data.get("share", True))
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
        shared = {key_edge(x) for x in self._shared_keys()}
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
        shared = self._shared_keys()
        return [ekey(e) for e in self.k.edges if e in edges and ekey(e) not in shared]

    # ------------------------------------------------------------------------------------------------------------
    # reading chat

    def _read(self, text: str):
        k = self.k
        if self.llm is not None and self.llm_reader == "fallback":
            r = rule_reader.read(text, k.rooms, k.wmin, k.wmax)
            if r.coins or r.asks or r.ask_all or r.path or r.yes or r.no or r.defer or r.question or r.cap is not None:
                return r
        if self.llm is not None and self.llm_reader != "off":
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
            self._yes, self._no, self._defer = self._yes or r.yes, self._no or r.no, self._defer or r.defer
            if r.path:
                self._suggestion = r.path
            elif r.question and not (r.asks or r.ask_all or r.coins):
                self._question = True  # "what do you think?", "which one?": answered with my choice
            read_something = r.coins or r.asks or r.ask_all or r.path or r.yes or r.no or r.defer or r.question \
                or r.cap is not None
            if not read_something and (r.rooms or any(c.isdigit() for c in text)):
                self._unclear = True  # rooms or numbers, but I could not tell what they say: ask back

    def _shared_keys(self) -> set:
        """Hallway keys the partner has seen my coins on: shared on the board, or stated in chat."""
        return set(self.view.get("my_shared") or []) | self._told

    def _may_ask(self) -> bool:
        return not self._quiet and not self._awaiting

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
        """Shares first, then moves, then the chat line, so the line refers to what the partner has already seen.
        Without /share (the paper's rules) the shared coins are stated in the chat line instead."""
        out = []
        no_turns = self._left("me") == 0
        lines = list(plan.lines)
        if plan.shares and self._can_share:
            # Comma-joined groups keep big shares under the match's limits on argument count and length.
            out.append(self.command("share", *(",".join(plan.shares[i:i + 40])
                                               for i in range(0, len(plan.shares), 40))))
        elif plan.shares:
            own = {ekey(e): w for e, w in self.k.own.items()}
            lines.insert(0, L.coins([(key, own[key]) for key in plan.shares]))
            self._told.update(plan.shares)
        costed = [c for c in plan.cmds if c[0] != "submit"]
        submits = [c for c in plan.cmds if c[0] == "submit"]
        for name, args in costed:
            if not (no_turns and name in COSTED):
                out.append(self.command(name, *args))
        ends = any(self._completes(args) for _, args in submits)
        if not ends:
            out += [self.command(name, *args) for name, args in submits]
        if lines and not no_turns and not ends:
            out.append(self.say(" ".join(lines)))
            self._last_line = " ".join(lines)
        if ends:  # a submit that completes the game comes last: nothing can be said after it
            out += [self.command(name, *args) for name, args in submits]
        return out  # the driver marks the 2nd..nth move of a turn with turn=False

    def _completes(self, args) -> bool:
        theirs = self.view.get("partner_submitted")
        tour = list(args) or self.view.get("agreed") or []
        return bool(theirs) and self._complete(tour) and self._canon(theirs) == self._canon(tour)

    def _decide(self) -> _Plan:
        v, k = self.view, self.k
        plan = _Plan()
        version = k.version
        self._read_chats(plan)
        learned = k.version != version or any(e in k.partner for e in self._awaiting)
        self._learned = learned
        if self._awaiting:
            if not learned:
                self._quiet = True  # asked once, no answer: act on what is known from now on
            self._awaiting = {e for e in self._awaiting if e not in k.partner} if learned else set()
        elif learned:
            self._quiet = False
        self._answer_questions(plan)
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
            self._while_mine_open(plan, pending["path"], agreed, best, best_val)
        elif self._suggestion:
            self._answer_suggestion(plan, agreed, best, best_val)
        elif not (opening and self.share_policy == "threshold" and not v.get("partner_coins")):
            # (An opening that knows nothing of the partner yet only shares: questions come once the partner's
            # rich hallways and cap are known, so they ask for far fewer coins.)
            self._initiative(plan, best, best_val)
        if self._heard and not (plan.lines or plan.cmds or plan.shares):
            self._acknowledge(plan, pending, agreed, best, best_val)
        if self._unclear:
            plan.lines.insert(0, L.clarify())
        self._suggestion = None
        self._yes = self._no = self._defer = self._question = self._unclear = False
        return plan
