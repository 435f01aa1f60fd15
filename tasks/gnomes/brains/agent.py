"""Brains for Gnomes at Night.

- "aismcts": the communicating AISMCTS-F agent. It reads the partner's chat into flags (an LLM classifier when an
  llm is given, the rule-based reader otherwise; each classification and each LLM answer is an LLM act, see
  tasks.core.brain), records rejected moves in Omega, adopts the partner's requested
  move among its best moves, suggests the partner's next move, says when a requested move hits its wall (and where
  in that row or column it could make it), asks where a hidden treasure is, and answers such questions.
- "mute": the same planner without any messages (the paper's A-Mute); it still learns from the course of play.
- "partner" and the scripted people ("terse", "chatty", ...): simulated partners, in tasks.gnomes.brains.people.

Every brain sees only its seat's view and the chat; models are built from the walls the view shows.
"""
from __future__ import annotations

from typing import Optional

from . import language as lang
from . import paper_language as paper
from ..maze import ACTIONS, DOWN, SIZE, STAY, UP, xy
from ..maze import cell as cell_of
from .planner import UNREACHABLE, Belief, Planner, greedy_action
from .seat import FLAG_ACTION, GnomeBrain


class AgentBrain(GnomeBrain):
    """AISMCTS-F with intent flags, made to hold up with people.

    Options:
        budget_ms       search time per move (100); `iterations` fixes the count instead (reproducible runs)
        planner         "ours" (default) or "paper": the paper's settings, n = 100 iterations and uniformly random
                        roll-outs to the treasure (explicit iterations / rollout_depth / epsilon still win)
        c, rollout_depth, epsilon, tie_tolerance   planner settings (sqrt 2, 0, 0.1, 0.1)
        beta            how rational we take a partner who knows the treasure to be, per turn of value (1.0)
        suggest         "confident" (default): suggest the partner's next move whenever we see the treasure, and
                        otherwise only when that move is best with probability >= suggest_confidence (0.8) under
                        our belief (the partner then knows better, and it follows suggestions); "always" (the
                        paper); "never"
        ask             "repeat" (default): ask where a hidden treasure is when the token is somewhere new and our
                        belief is not yet sharp (top cell < ask_until, 0.9), never again while a question is
                        unanswered, at most ask_limit (3) times a round; "once" per round; "never"
        obey            follow a legal move the partner asks for when the partner sees the treasure (True)
        explain_walls   add where in the row/column we could make a rejected move (True)

    With people: every message gets an answer or a move (questions are answered, a named treasure place is
    acknowledged, unclear text gets one clarifying question); a suggestion the partner silently does not follow,
    in a round only we see the treasure of, counts as a wall on its side (Omega), so the plan changes.
    """

    name = "aismcts"
    # A symbolic agent: the LLM (flag classifier, answers) only with brain option reader=llm (TaskSpec.wants_llm)
    uses_llm = False
    PAPER = {"iterations": 100, "rollout_depth": 100000, "epsilon": 1.0, "tie_tolerance": 0.0}

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        o = dict(self.options)
        if o.get("planner", "ours") == "paper":
            o = {**self.PAPER, **{k: v for k, v in o.items() if k in ("iterations", "rollout_depth", "epsilon")}}
        self.budget = float(o.get("budget_ms", 100)) / 1000.0
        self.iterations = o.get("iterations")
        self.planner_kw = {k: o[k] for k in ("c", "rollout_depth", "epsilon", "tie_tolerance") if k in o}
        self.beta = float(self.options.get("beta", 1.0))
        self.suggest_mode = self.options.get("suggest", "confident")
        self.suggest_confidence = float(self.options.get("suggest_confidence", 0.8))
        self.ask = self.options.get("ask", "repeat")
        self.ask_until = float(self.options.get("ask_until", 0.9))
        self.ask_limit = int(self.options.get("ask_limit", 3))
        self.obey = bool(self.options.get("obey", True))
        self.planner: Optional[Planner] = None
        self.belief: Optional[Belief] = None
        self.input_flag: Optional[int] = None
        self.queue: list[int] = []                       # further moves the partner asked for ("left twice")
        self.pending: Optional[tuple[int, int]] = None  # (cell, action) of our last suggestion
        self.suggested: set = set()                      # (round, cell, action) of suggestions already made
        self.opened = 0                                  # round in which we sent a suggestion before its first move
        self.asked_at: Optional[tuple[int, int]] = None  # (round, cell) of our last question
        self.open_question = False                       # asked, and the partner has told us nothing since
        self.asks = 0                                    # questions asked this round
        self.clarifying = False                          # asked to rephrase, no clear message since
        self.told = 0                                    # round in which the partner named the treasure's cell
        self.history: list[str] = []                     # recent chat lines, context for the LLM classifier

    # --- beliefs -------------------------------------------------------------------------------------------------
    def new_round(self, data: dict) -> None:
        self.belief = None if data.get("sees_treasure") else Belief(exclude=(self.cell,))
        self.input_flag = None
        self.queue = []
        self.pending = None
        self.open_question = False
        self.asks = 0

    def visited(self, c: int) -> None:
        if self.belief is not None:
            self.belief.eliminate(c)

    def partner_moved(self, frm: int, action: int) -> None:
        super().partner_moved(frm, action)
        p = self.pending
        if p is not None and p[0] == frm and action != p[1] and self.belief is None and self.communicate:
            # We see the treasure and asked for p[1]; the partner, who cannot see it, did something else without a
            # word: most likely a wall on its side. Take it as one, so the plan changes instead of repeating.
            if self.model.add_rejection(frm, p[1]):
                self.note("omega", cell=list(xy(frm)), action=ACTIONS[p[1]], inferred=True)
                self._suspect_line(frm, p[1])
            self.pending = None
        if self.belief is None or action == STAY or (p is not None and p[0] == frm):
            return  # it does not know the treasure, did not move, or answered our suggestion
        # The partner knows the treasure: its own moves say something about where it is.
        self.belief.rational(self.model, frm, 1, action, self.beta)

    def _suspect_line(self, c: int, action: int) -> None:
        """Walls come in lines: after a wall at `c`, guess the same wall at the neighbours along it (not seen open),
        unless the guess would cut us off from the treasure we see. A later move there corrects the guess."""
        t = self.treasure()
        if t is None or not self.options.get("wall_lines", True):
            return
        x, y = xy(c)
        near = [(x - 1, y), (x + 1, y)] if action in (UP, DOWN) else [(x, y - 1), (x, y + 1)]
        added = [cc for cc in (cell_of(nx, ny) for nx, ny in near if 0 <= nx < SIZE and 0 <= ny < SIZE)
                 if (cc, action) not in self.model.seen_open and self.model.add_rejection(cc, action)]
        if added and self.model.distances(t)[self.cell * 2] >= UNREACHABLE:
            for cc in added:
                self.model.forget_rejection(cc, action)

    # --- reading the partner -------------------------------------------------------------------------------------
    def _read_inbox(self) -> None:
        inbox, self.inbox = self.inbox, []
        for text, at, rnd in inbox:
            context = "\n".join(self.history[-4:])
            self.history.append(f"Partner: {text}")
            reading = self.read_message(text, context)
            flags = reading.flags or [reading.flag]
            if lang.REJECT in flags:
                key = (at, reading.reject_direction) if reading.reject_direction is not None else self.pending
                self.learn_rejection(reading, at, self.pending)
                if key is not None and rnd == self.round:
                    self._suspect_line(*key)
                self.pending = None
            if reading.line is not None:
                self.learn_line(at, reading.line)
            if rnd != self.round:
                continue  # the rest is about a round that is over
            if not reading.unclear:
                self.clarifying = False
            if reading.info or reading.hint or reading.location or lang.REJECT in flags:
                self.open_question = False  # the partner told us something: a new question is no repeat
            if reading.unclear and text.strip():
                if not self.clarifying:
                    self.clarifying = True
                    self.replies.append(lang.CLARIFY)
                continue
            if lang.INQUIRY in flags:
                self.replies.append(self._answer(text, reading))
            if reading.location is not None and self.belief is not None:
                self.belief.locate(*reading.location)
                if None not in reading.location:
                    self.told = self.round  # told exactly where: nothing left to ask this round
                self.replies.append(lang.thanks_location(reading.location))
            if reading.hint and self.belief is not None:
                self.belief.hint(at, reading.hint, reading.straight)
            first = FLAG_ACTION.get(reading.flag, next((FLAG_ACTION[f] for f in reversed(flags) if f in FLAG_ACTION),
                                                       None))
            if first is not None:
                # "left twice": the rest waits for our next turns (only when the flag agrees with the rules).
                rest = reading.moves[1:] if reading.moves and reading.moves[0] == first else []
                self.input_flag, self.queue = first, list(rest)

    def _answer(self, question: str, reading: Optional[lang.Reading] = None) -> str:
        token = xy(self.cell)
        t = self.view.get("treasure")
        treasure = tuple(t) if t else None
        if reading is not None and reading.asks_about is not None and treasure is not None:
            # "Should I go left?": judged against the partner's best moves toward the treasure we see.
            vals = self.model.action_values(self.cell, 1, cell_of(*treasure))
            a = reading.asks_about
            best = a in vals and vals[a] == min(vals.values())
            return lang.yes_no(best, None if best else greedy_action(self.model, self.cell, 1, cell_of(*treasure),
                                                                     self.rng))
        if reading is not None and reading.asks_about is not None:
            return lang.FOLLOW
        if self.llm is not None:
            act = None
            try:
                with self.llm_act("answer") as act:
                    if self.release:  # the paper's inquiry prompt; its answer is used as it is
                        messages = paper.inquiry_messages(self.release, question, token, self.last_action, treasure)
                        text = " ".join(str(self.llm.chat(messages, usage=act, **self.sampling("answer"))).split())
                        if not text:
                            raise ValueError("empty answer")
                        return text
                    return lang.llm_answer(self.llm, question, token, treasure, usage=act, **self.sampling("answer"))
            except Exception as exc:
                self.llm_fallback(act, exc, what="answer")  # strict_llm: the act failed, the game ends invalid
        return lang.template_answer(token, treasure)

    # --- acting --------------------------------------------------------------------------------------------------
    def act(self):
        if self.model is None:
            return []
        if self.communicate:
            self._read_inbox()
        out = [self.say(text) for text in self.replies]
        self.replies = []
        if not self.my_turn():
            return out + self._opening()
        c = self.cell
        flag = self.input_flag if self.communicate else None
        if flag is None and self.queue and self.communicate:
            flag = self.queue.pop(0)  # the next of several moves the partner asked for
        self.input_flag = None
        treasure = self.treasure()
        mine = self.model.my_moves
        legal_flag = flag is not None and mine[c * 5 + flag] >= 0
        if legal_flag and self.belief is not None:
            # A partner who sees the treasure asked for this move: evidence about where the treasure is.
            self.belief.rational(self.model, c, 0, flag, self.beta)
        if self.planner is None:
            self.planner = Planner(self.model, seed=self.rng.randrange(1 << 30), **self.planner_kw)
        d = self.planner.search(c, treasure=treasure, belief=self.belief, flag=flag, budget=self.budget,
                                iterations=self.iterations)
        action, flag_out = d.action, d.flag_out
        if legal_flag and self.belief is not None and self.obey and action != flag:
            action, flag_out = flag, None  # the partner sees the treasure and leads: follow, suggest nothing
        self.note("decision", round=self.round, cell=list(xy(c)), flag_in=None if flag is None else ACTIONS[flag],
                  **{**d.summary(), "action": ACTIONS[action]})
        nxt = mine[c * 5 + action]
        self.pending = None
        if self.communicate:
            if flag is not None and flag != action:
                if not legal_flag:
                    out += [self.say(text) for text in self.explain_wall(c, flag)]
                    self.queue = []
                elif treasure is not None:
                    out.append(self.say(lang.own_way(action)))
                    self.queue = []
            key = (self.round, nxt, flag_out)
            if (flag_out is not None and nxt != treasure and key not in self.suggested
                    and self._may_suggest(nxt, flag_out)):
                # The same request as last time (the partner followed it): say it differently, like a person.
                again = self.history and self.history[-1] == f"You: {lang.suggest(flag_out)}"
                out.append(self.say(lang.suggest_again(flag_out) if again else lang.suggest(flag_out)))
                self.pending = (nxt, flag_out)
                self.suggested.add(key)  # never the same suggestion at the same place twice
            if self._should_ask(nxt):
                self.asked_at = (self.round, nxt)
                self.open_question = True
                self.asks += 1
                out.append(self.say(lang.ASK_TREASURE))
        self.history += [f"You: {m.text}" for m in out]
        return out + [self.move(action)]

    def _opening(self) -> list:
        """When the partner opens a round we can see the treasure of, suggest its first move before it makes it
        (a person reads it in time; the local simulated partner moves at once)."""
        v = self.view
        t = self.treasure()
        if (not self.communicate or t is None or self.opened == self.round or v.get("turns") != 0
                or v.get("turn") != v.get("partner") or v.get("finished")):
            return []
        self.opened = self.round
        b = greedy_action(self.model, self.cell, 1, t, self.rng)
        if b is None or b == STAY:
            return []
        self.pending = (self.cell, b)
        self.suggested.add((self.round, self.cell, b))
        return [self.say(lang.suggest(b))]

    def _should_ask(self, at: int) -> bool:
        """The answer will describe the treasure from where the token is after our move (`at`). Never while an
        earlier question is unanswered."""
        if (self.belief is None or self.ask not in ("repeat", "once") or self.open_question
                or self.told == self.round):
            return False
        if self.ask == "once":
            return self.asks == 0
        return (self.asks < self.ask_limit and self.asked_at != (self.round, at)
                and self.belief.top()[1] < self.ask_until)

    def _may_suggest(self, at: int, action: int) -> bool:
        if self.suggest_mode == "never":
            return False
        if self.suggest_mode == "always" or self.belief is None:
            return True
        # The partner sees the treasure and follows our suggestions, so only suggest what is almost surely right.
        return self.belief.optimal_share(self.model, at, 1, action) >= self.suggest_confidence


class MuteBrain(AgentBrain):
    """The same planner, deaf and silent (the paper's A-Mute)."""

    name = "mute"
    communicate = False
    uses_llm = False
