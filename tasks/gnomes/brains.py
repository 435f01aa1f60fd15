"""Brains for Gnomes at Night.

- "aismcts": the communicating AISMCTS-F agent. It reads the partner's chat into flags (an LLM classifier when an
  llm is given, the rule-based reader otherwise; each classification and each LLM answer is an LLM act, see
  tasks.core.brain), records rejected moves in Omega, adopts the partner's requested
  move among its best moves, suggests the partner's next move, says when a requested move hits its wall (and where
  in that row or column it could make it), asks where a hidden treasure is, and answers such questions.
- "mute": the same planner without any messages (the paper's A-Mute); it still learns from the course of play.
- "partner": a simulated partner for local runs. It knows its own walls and, when it has it, the treasure; it
  answers truthfully, rejects suggestions that hit its walls, follows them otherwise, and suggests the other
  player's moves toward its treasure.

Every brain sees only its seat's view and the chat; models are built from the walls the view shows.
"""
from __future__ import annotations

import random
from typing import Optional

from tasks.core import Brain, ChatShown, View

from . import language as lang
from .maze import ACTIONS, DOWN, INBOUND, OPPOSITE, SIZE, STAY, UP, move_table, xy
from .maze import cell as cell_of
from .planner import Belief, Model, Planner, greedy_action

FLAG_ACTION = {name: a for a, name in enumerate(ACTIONS)}


def _line(c: int, action: int) -> list[tuple[int, int]]:
    """(index, cell) along the row of c for up/down moves, or along its column for left/right moves."""
    x, y = xy(c)
    if action in (UP, DOWN):
        return [(i, cell_of(i, y)) for i in range(SIZE)]
    return [(i, cell_of(x, i)) for i in range(SIZE)]


class GnomeBrain(Brain):
    """What the brains share: following the view (rounds, turns, the partner's moves) and the chat inbox."""

    communicate = True

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.rng = random.Random(seed)
        self.view: dict = {}
        self.model: Optional[Model] = None
        self.round = 0
        self.cell = 0
        self.inbox: list[tuple[str, int, int]] = []   # (text, token cell when it arrived, round)
        self.replies: list[str] = []
        self.acted: Optional[tuple[int, int]] = None  # (round, turns) of our last move
        self.asked_round = 0
        self._prev: Optional[tuple[int, int, Optional[str], int]] = None
        self.explain_walls = bool(self.options.get("explain_walls", True))

    # --- observation ---------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View):
            self._on_view(effect.data)
        elif isinstance(effect, ChatShown) and effect.seat != self.seat and self.communicate:
            self.inbox.append((effect.text, self.cell, self.round))

    def _on_view(self, data: dict) -> None:
        self.view = data
        if not data.get("round"):
            return
        if self.model is None:
            walls = data["walls"]
            self.model = Model(move_table(walls["right"], walls["below"]))
        r, c = data["round"], cell_of(*data["token"])
        prev = self._prev
        if r != self.round:
            self.round = r
            self.cell = c
            self.new_round(data)
        elif prev is not None and data["turns"] == prev[3] + 1 and prev[2] == data["partner"]:
            # The partner's turn: the direction shows when the token moved; a stay and a blocked move look alike.
            a = STAY if c == prev[1] else next((a for a in range(1, 5) if INBOUND[prev[1] * 5 + a] == c), None)
            if a is not None:
                self.partner_moved(prev[1], a)
        self.cell = c
        self.visited(c)
        self._prev = (r, c, data.get("turn"), data["turns"])

    def new_round(self, data: dict) -> None:
        pass

    def partner_moved(self, frm: int, action: int) -> None:
        """`action` is STAY when the token did not move (a stay or a blocked move)."""
        if action != STAY:
            self.model.saw_partner_move(frm, action)

    def visited(self, c: int) -> None:
        pass

    # --- helpers -------------------------------------------------------------------------------------------------
    def my_turn(self) -> bool:
        v = self.view
        if v.get("core", {}).get("phase") != "playing" or v.get("finished") or not v.get("your_turn"):
            return False
        return self.acted != (v["round"], v["turns"])

    def treasure(self) -> Optional[int]:
        t = self.view.get("treasure")
        return cell_of(*t) if t else None

    def read_message(self, text: str, context: str = "") -> lang.Reading:
        """Rules always (for a Reject's direction, wall lines and treasure hints); the LLM decides the flag when
        one is configured."""
        reading = lang.read(text)
        if self.llm is not None and text.strip():
            act = None
            try:
                with self.llm_act("flag") as act:
                    flag = lang.llm_flag(self.llm, text, context, usage=act)
                reading.flag, reading.flags = flag, [flag]
            except Exception as exc:  # any LLM failure: the rules already gave an answer
                self.llm_fallback(act, exc, what="flag")  # strict_llm: the act failed, the game ends invalid
        return reading

    def move(self, action: int):
        self.acted = (self.view["round"], self.view["turns"])
        return self.command("move", ACTIONS[action])

    def explain_wall(self, c: int, action: int) -> list[str]:
        """The Reject template, plus where in this row/column we can make the move: walls come in lines, and
        this spares the partner from trying the cells one by one."""
        out = [lang.wall_reject(action)]
        if self.explain_walls:
            out.append(lang.wall_line(action, [i for i, cc in _line(c, action)
                                               if self.model.my_moves[cc * 5 + action] >= 0]))
        return out

    def learn_rejection(self, reading: lang.Reading, at: int, pending: Optional[tuple[int, int]]) -> None:
        """Omega: the move a Reject names at the cell where it was said, else our last suggestion."""
        key = (at, reading.reject_direction) if reading.reject_direction is not None else pending
        if key is not None and self.model.add_rejection(*key):
            self.note("omega", cell=list(xy(key[0])), action=ACTIONS[key[1]])

    def learn_line(self, at: int, line: tuple[int, tuple[int, ...]]) -> None:
        """The partner said where in the token's row/column it can make a move: open there, walled elsewhere."""
        action, opens = line
        for i, cc in _line(at, action):
            if INBOUND[cc * 5 + action] < 0:
                continue
            if i in opens:
                self.model.saw_partner_move(cc, action)
            else:
                self.model.add_rejection(cc, action)


class AgentBrain(GnomeBrain):
    """AISMCTS-F with intent flags.

    Options:
        budget_ms       search time per move (100); `iterations` fixes the count instead (reproducible runs)
        c, rollout_depth, epsilon, tie_tolerance   planner settings (sqrt 2, 0, 0.1, 0.1)
        beta            how rational we take a partner who knows the treasure to be, per turn of value (1.0)
        suggest         "confident" (default): suggest the partner's next move whenever we see the treasure, and
                        otherwise only when that move is best with probability >= suggest_confidence (0.8) under
                        our belief (the partner then knows better, and it follows suggestions); "always" (the
                        paper); "never"
        ask             "repeat" (default): ask where a hidden treasure is whenever the token is somewhere new and
                        our belief is not yet sharp (top cell < ask_until, 0.9), since answers from different
                        places pin it down; "once" per round; "never"
        explain_walls   add where in the row/column we could make a rejected move (True)
    """

    name = "aismcts"
    uses_llm = True  # the flag classifier and the answers, when an LLM is configured

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        o = self.options
        self.budget = float(o.get("budget_ms", 100)) / 1000.0
        self.iterations = o.get("iterations")
        self.planner_kw = {k: o[k] for k in ("c", "rollout_depth", "epsilon", "tie_tolerance") if k in o}
        self.beta = float(o.get("beta", 1.0))
        self.suggest_mode = o.get("suggest", "confident")
        self.suggest_confidence = float(o.get("suggest_confidence", 0.8))
        self.ask = o.get("ask", "repeat")
        self.ask_until = float(o.get("ask_until", 0.9))
        self.planner: Optional[Planner] = None
        self.belief: Optional[Belief] = None
        self.input_flag: Optional[int] = None
        self.pending: Optional[tuple[int, int]] = None  # (cell, action) of our last suggestion
        self.opened = 0                                  # round in which we sent a suggestion before its first move
        self.asked_at: Optional[tuple[int, int]] = None  # (round, cell) of our last question
        self.history: list[str] = []                     # recent chat lines, context for the LLM classifier

    # --- beliefs -------------------------------------------------------------------------------------------------
    def new_round(self, data: dict) -> None:
        self.belief = None if data.get("sees_treasure") else Belief(exclude=(self.cell,))
        self.input_flag = None
        self.pending = None

    def visited(self, c: int) -> None:
        if self.belief is not None:
            self.belief.eliminate(c)

    def partner_moved(self, frm: int, action: int) -> None:
        super().partner_moved(frm, action)
        if self.belief is None or action == STAY or (self.pending is not None and self.pending[0] == frm):
            return  # it does not know the treasure, did not move, or answered our suggestion
        # The partner knows the treasure: its own moves say something about where it is.
        self.belief.rational(self.model, frm, 1, action, self.beta)

    # --- reading the partner -------------------------------------------------------------------------------------
    def _read_inbox(self) -> None:
        inbox, self.inbox = self.inbox, []
        for text, at, rnd in inbox:
            context = "\n".join(self.history[-4:])
            self.history.append(f"Partner: {text}")
            reading = self.read_message(text, context)
            flags = reading.flags or [reading.flag]
            if lang.REJECT in flags:
                self.learn_rejection(reading, at, self.pending)
                self.pending = None
            if reading.line is not None:
                self.learn_line(at, reading.line)
            if rnd != self.round:
                continue  # the rest is about a round that is over
            if lang.INQUIRY in flags:
                self.replies.append(self._answer(text))
            if reading.hint and self.belief is not None:
                self.belief.hint(at, reading.hint, reading.straight)
            if reading.flag in FLAG_ACTION:
                self.input_flag = FLAG_ACTION[reading.flag]
            else:
                moves = [f for f in flags if f in FLAG_ACTION]
                if moves:
                    self.input_flag = FLAG_ACTION[moves[-1]]

    def _answer(self, question: str) -> str:
        token = xy(self.cell)
        t = self.view.get("treasure")
        treasure = tuple(t) if t else None
        if self.llm is not None:
            act = None
            try:
                with self.llm_act("answer") as act:
                    return lang.llm_answer(self.llm, question, token, treasure, usage=act)
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
        self.input_flag = None
        treasure = self.treasure()
        mine = self.model.my_moves
        if flag is not None and self.belief is not None and mine[c * 5 + flag] >= 0:
            # A partner who sees the treasure asked for this move: evidence about where the treasure is.
            self.belief.rational(self.model, c, 0, flag, self.beta)
        if self.planner is None:
            self.planner = Planner(self.model, seed=self.rng.randrange(1 << 30), **self.planner_kw)
        d = self.planner.search(c, treasure=treasure, belief=self.belief, flag=flag, budget=self.budget,
                                iterations=self.iterations)
        self.note("decision", round=self.round, cell=list(xy(c)), flag_in=None if flag is None else ACTIONS[flag],
                  **d.summary())
        nxt = mine[c * 5 + d.action]
        self.pending = None
        if self.communicate:
            if flag is not None and flag != d.action and mine[c * 5 + flag] < 0:
                out += [self.say(text) for text in self.explain_wall(c, flag)]
            if d.flag_out is not None and nxt != treasure and self._may_suggest(nxt, d.flag_out):
                out.append(self.say(lang.suggest(d.flag_out)))
                self.pending = (nxt, d.flag_out)
            if self._should_ask(nxt):
                self.asked_at = (self.round, nxt)
                out.append(self.say(lang.ASK_TREASURE))
        self.history += [f"You: {m.text}" for m in out]
        return out + [self.move(d.action)]

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
        return [self.say(lang.suggest(b))]

    def _should_ask(self, at: int) -> bool:
        """The answer will describe the treasure from where the token is after our move (`at`)."""
        if self.belief is None or self.ask not in ("repeat", "once"):
            return False
        if self.ask == "once":
            done = self.asked_at is not None and self.asked_at[0] == self.round
            return not done
        return self.asked_at != (self.round, at) and self.belief.top()[1] < self.ask_until

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


class PartnerBrain(GnomeBrain):
    """A simulated partner that plays like a cooperative, truthful person who takes suggestions literally.

    With the treasure it plans the shortest joint path it can imagine: its own walls exactly, the other side's
    walls as far as it was told (everything else assumed open), and asks for the other player's next step on it.
    Without the treasure it follows requests, waits for guidance, or (if nobody guides it) wanders toward a
    stated direction. Options: ask (True: ask where the treasure is in rounds it does not see it),
    explain_walls (True).
    """

    name = "partner"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.request: Optional[int] = None
        self.hint: Optional[set] = None
        self.pending: Optional[tuple[int, int]] = None
        self.last_move: Optional[int] = None
        self.guided = False  # the other player suggested moves this round
        self.ask = bool(self.options.get("ask", True))

    def new_round(self, data: dict) -> None:
        self.request = None
        self.hint = None
        self.pending = None
        self.last_move = None
        self.guided = False

    def read_message(self, text: str, context: str = "") -> lang.Reading:
        return lang.read(text)  # the simulated partner always reads with the rules

    def _read_inbox(self) -> None:
        inbox, self.inbox = self.inbox, []
        for text, at, rnd in inbox:
            reading = self.read_message(text)
            flags = reading.flags or [reading.flag]
            if lang.REJECT in flags:
                self.learn_rejection(reading, at, self.pending)
                self.pending = None
            if reading.line is not None:
                self.learn_line(at, reading.line)
            if rnd != self.round:
                continue
            if lang.INQUIRY in flags:
                t = self.view.get("treasure")
                self.replies.append(lang.template_answer(xy(self.cell), tuple(t) if t else None))
            if reading.hint:
                self.hint = reading.hint
            if reading.flag in FLAG_ACTION:
                self.request = FLAG_ACTION[reading.flag]
                self.guided = True

    def act(self):
        if self.model is None:
            return []
        self._read_inbox()
        out = [self.say(text) for text in self.replies]
        self.replies = []
        if not self.my_turn():
            return out
        c = self.cell
        mine = self.model.my_moves
        t = self.treasure()
        action = None
        if self.request is not None:
            if mine[c * 5 + self.request] < 0:
                out += [self.say(text) for text in self.explain_wall(c, self.request)]
                # Knowing the treasure it plays its own move instead; otherwise it waits for new guidance.
                action = None if t is not None else STAY
            else:
                action = self.request
        self.request = None
        if action is None:
            action = greedy_action(self.model, c, 0, t, self.rng) if t is not None else self._explore(c)
        nxt = mine[c * 5 + action]
        self.pending = None
        if t is not None and nxt != t:
            b = greedy_action(self.model, nxt, 1, t, self.rng)
            if b is not None:
                out.append(self.say(lang.suggest(b)))
                self.pending = (nxt, b)
        if t is None and self.ask and self.asked_round != self.round:
            self.asked_round = self.round
            out.append(self.say(lang.ASK_TREASURE))
        self.last_move = action
        return out + [self.move(action)]

    def _explore(self, c: int) -> int:
        """No treasure and no request. Like a person: wait for guidance at the start of a round and while the
        other player is guiding; otherwise step toward a stated direction if possible, else take a random step
        that does not undo the previous one."""
        if self.guided or self.view.get("turns", 0) == 0:
            return STAY
        mine = self.model.my_moves
        legal = [a for a in range(1, 5) if mine[c * 5 + a] >= 0]
        if not legal:
            return STAY
        toward = [a for a in legal if self.hint and a in self.hint]
        if toward:
            return self.rng.choice(toward)
        fresh = [a for a in legal if self.last_move is None or a != OPPOSITE[self.last_move]] or legal
        return self.rng.choice(fresh)


BRAINS = {"aismcts": AgentBrain, "mute": MuteBrain, "partner": PartnerBrain}
