"""The `workflow` agent: the paper's workflow with every reasoning step computed exactly (best-response tables,
dominance, the pure and mixed equilibria, backward induction with the strategy off the path), negotiating in plain
English toward the Pareto-optimal equilibrium.

Simultaneous games: a strictly dominant action is played whatever is said (cheap talk cannot move it). Otherwise
the agent proposes the PO-NE best for itself, accepts any PO-NE the partner proposes (and any NE that no other NE
beats for both), counters a dominated NE with the PO-NE, declines what is not an equilibrium, concedes to the
partner's favourite when its own proposal is refused, and takes "you pick" as leave to settle on its proposal.
Without talk, both seats fall back on the same convention: the PO-NE with the highest joint payoff, then the most
even one, then Alice's favourite. Sequential games: it plays the subgame-perfect strategy from the current node and
says so; promises that the backward induction shows are not credible are declined.

The dialogue discipline (tasks/core/discipline.py): the move it plays is the move it last said it would play (it
only ever states the move it means, so a change of mind is always said first); every question is answered from the
game ("why?" with the payoffs that make it stable, "what will you play?", "what should I play?"); no line is said
twice, paraphrases included; when the partner asks to stop talking it answers what is owed and agrees.
"""
from __future__ import annotations

import re
from typing import Optional

from tasks.core.discipline import Discipline, is_question

from .. import solvers
from ..parse import read_talk
from .base import SeatBrain

DEFER = re.compile(r"\b(you (pick|choose|decide)|up to you|your (call|choice)|whatever|i don'?t mind|dont mind|"
                   r"either is fine|anything works|you tell me)\b", re.I)
REFUSE = re.compile(r"^\s*(no|nope|nah|not that|no way|i'?d rather not)\b", re.I)
AGREE = re.compile(r"^\s*(k|kk|oki|okk|ok|okay|sure|yes|yep|ya|cool)\b", re.I)
BOTH = re.compile(r"\b(both|us|we|together)\b", re.I)
WHY = re.compile(r"\b(why|how come|what for|reason)\b", re.I)
ASK_YOURS = re.compile(r"\b(what|which)\b.*\b(you|u|your)\b.*\b(play|playing|move|do|doing|pick|choose|going)\b|"
                       r"\bwhat'?s your move\b", re.I)
ASK_MINE = re.compile(r"\b(what|which)\b.*\b(should|do|must|shall) (i|me)\b|\bwhat do i\b|\band me\b|\bmy move\b",
                      re.I)


def question_kind(text: str) -> Optional[str]:
    """"why" | "yours" (what will you play) | "mine" (what should I play) | "other" for a question, else None."""
    if not is_question(text) and not WHY.search(text):
        return None
    if WHY.search(text):
        return "why"
    if ASK_MINE.search(text):
        return "mine"
    if ASK_YOURS.search(text):
        return "yours"
    return "other"


def reading(text: str, reader_labels, speaker_labels) -> dict:
    """What a partner's line says to this agent, as it reads it: the question (question_kind), "you pick",
    refusal, agreement, and the moves it names (mine: what it asks me to play; theirs: its own)."""
    talk = read_talk(text, reader_labels, speaker_labels)
    defer = bool(DEFER.search(text))
    refuse = (talk.refuse or bool(REFUSE.match(text))) and not defer  # "i don't mind, you choose"
    mine = talk.mine
    if mine is None and talk.theirs and list(reader_labels) == list(speaker_labels) and BOTH.search(text):
        mine = talk.theirs  # "i want us both on football"
    return {"question": question_kind(text), "defer": defer, "refuse": refuse,
            "agree": (talk.agree or bool(AGREE.match(text))) and not refuse, "mine": mine, "theirs": talk.theirs}


class WorkflowBrain(SeatBrain):
    name = "workflow"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.discipline = Discipline()

    def new_step(self, view) -> None:
        self.proposed: Optional[tuple[int, int]] = None  # (my action, their action) I put forward
        self.agreed: Optional[tuple[int, int]] = None
        self.announced: Optional[int] = None  # the partner's own move as they announced it
        self.stated: Optional[str] = None     # my own move as I last said it (the move I play)
        self.refusals = 0

    # --- simultaneous games ---------------------------------------------------------------------------------------
    def _pone(self) -> list[tuple[int, int]]:
        return solvers.po_nash(self.bimatrix())

    def convention(self) -> Optional[tuple[int, int]]:
        """The PO-NE both seats pick without talking (computed the same way from either side)."""
        p = self.bimatrix()
        pone = self._pone()
        if not pone:
            return None
        alice = 0 if self.seat == "alice" else 1

        def key(c):
            u = p[c[0]][c[1]]
            return (u[0] + u[1], min(u), u[alice], -(c[0] if alice == 0 else c[1]), -(c[1] if alice == 0 else c[0]))
        return max(pone, key=key)

    def favourite(self) -> Optional[tuple[int, int]]:
        p = self.bimatrix()
        pone = self._pone()
        if not pone:
            return None
        conv = self.convention()
        return max(pone, key=lambda c: (p[c[0]][c[1]][0], c == conv))

    def _say_joint(self, c) -> str:
        me, them = self.view["my_actions"][c[0]], self.view["their_actions"][c[1]]
        u = self.bimatrix()[c[0]][c[1]]
        return f"I play {me} and you play {them} (that gives me {u[0]} and you {u[1]})"

    def plan(self) -> Optional[tuple[int, int]]:
        """The pair I stand for now: agreed, else proposed, else my dominant action with their best reply."""
        if self.agreed is not None:
            return self.agreed
        if self.proposed is not None:
            return self.proposed
        p = self.bimatrix()
        dom = solvers.dominant_action(p, 0)
        if dom is not None:
            return dom, solvers.best_responses(p, 1)[dom][0]
        return None

    def _why(self, c) -> list[str]:
        """Reasons for pair c from the payoffs, most telling first (several wordings: none is said twice)."""
        p = self.bimatrix()
        mine, theirs = self.view["my_actions"], self.view["their_actions"]
        i, j = c
        dom = solvers.dominant_action(p, 0)
        if dom == i:
            worse = [f"against your {theirs[b]} it gives me {p[i][b][0]}, the best I can get there"
                     for b in range(len(theirs))][:3]
            return [f"Because {mine[i]} is my best move whatever you play: " + "; ".join(worse) + ".",
                    f"Switching away from {mine[i]} would only lower my reward, so promises cannot change it."]
        alt_me = max((a for a in range(len(mine)) if a != i), key=lambda a: p[a][j][0], default=None)
        alt_you = max((b for b in range(len(theirs)) if b != j), key=lambda b: p[i][b][1], default=None)
        out = []
        if alt_me is not None and alt_you is not None:
            out.append(f"Because neither of us gains by switching: if you play {theirs[j]}, {mine[i]} gives me "
                       f"{p[i][j][0]} and {mine[alt_me]} only {p[alt_me][j][0]}; if I play {mine[i]}, {theirs[j]} "
                       f"gives you {p[i][j][1]} and {theirs[alt_you]} only {p[i][alt_you][1]}.")
        others = [o for o in self._pone() if o != c]
        if others:
            o = others[0]
            out.append(f"It is one of two stable pairs; the other one gives me {p[o[0]][o[1]][0]} and you "
                       f"{p[o[0]][o[1]][1]}. Say so if you prefer that one.")
        out.append(f"That pair gives us {p[i][j][0]} and {p[i][j][1]}, and neither of us does better alone by "
                   "deviating from it.")
        return out

    def _answer(self, kind: str, c) -> list[str]:
        mine, theirs = self.view["my_actions"], self.view["their_actions"]
        if c is None:
            return ["There is no pair where both of us are best off staying, so I will mix my moves at random.",
                    "No stable pair exists in this game; I will choose at random."]
        u = self.bimatrix()[c[0]][c[1]]
        if kind == "why":
            return self._why(c)
        if kind == "yours":
            return [f"I play {mine[c[0]]}.", f"I will play {mine[c[0]]}, as I said.", f"My move: {mine[c[0]]}."]
        if kind == "mine":
            return [f"You play {theirs[c[1]]}: against my {mine[c[0]]} it gives you {u[1]}, your best there.",
                    f"You should play {theirs[c[1]]}, while I play {mine[c[0]]}."]
        return self._restate(c)

    def _decide(self, talk, defer: bool) -> tuple[list[str], bool]:
        """The proposal part of my reply to the partner's last line: (wordings, halt)."""
        p = self.bimatrix()
        mine, theirs = self.view["my_actions"], self.view["their_actions"]
        ne, pone = solvers.pure_nash(p), self._pone()
        dom = solvers.dominant_action(p, 0)
        if dom is not None:
            br = solvers.best_responses(p, 1)[dom][0]
            if self.stated is None:
                return [f"Whatever you choose, {mine[dom]} is my best move, so I will play {mine[dom]}. "
                        f"Your best reply to that is {theirs[br]}."], True
            return [], True
        if talk is not None:
            if talk.theirs is not None:
                self.announced = theirs.index(talk.theirs)
            joint = None
            if talk.mine is not None and talk.theirs is not None:
                joint = (mine.index(talk.mine), theirs.index(talk.theirs))
            elif talk.theirs is not None:  # they say what they will play: my best reply, if that is stable
                j = theirs.index(talk.theirs)
                joint = (solvers.best_responses(p, 0)[j][0], j)
            elif talk.mine is not None:
                i = mine.index(talk.mine)
                joint = (i, solvers.best_responses(p, 1)[i][0])
            if joint is not None and joint == self.agreed:
                return [], True
            if joint is None and (talk.agree or defer) and self.proposed is not None:
                if self.agreed == self.proposed:
                    return [], True
                self.agreed = self.proposed
                return [f"Great, agreed: {self._say_joint(self.agreed)}.",
                        f"Then it's settled: {self._say_joint(self.agreed)}."], True
            if joint is not None:
                if joint in pone or (joint in ne and not any(solvers.dominates(p[c[0]][c[1]], p[joint[0]][joint[1]])
                                                             for c in ne)):
                    self.agreed = self.proposed = joint
                    return [f"Deal: {self._say_joint(joint)}. Neither of us gains by deviating."], True
                better = [c for c in pone if solvers.dominates(p[c[0]][c[1]], p[joint[0]][joint[1]])] or pone
                if better:
                    self.proposed = max(better, key=lambda c: p[c[0]][c[1]][0])
                    self.agreed = None
                    why = ("we both do better with" if joint in ne else
                           "that is not stable (one of us would gain by switching); instead")
                    return [f"Hmm, {why}: {self._say_joint(self.proposed)}. Agreed?"], False
            if talk.refuse and self.proposed is not None:
                self.refusals += 1
                others = [c for c in pone if c != self.proposed]
                if others and self.refusals == 1:
                    # they want the other equilibrium: conceding beats missing each other
                    self.proposed = max(others, key=lambda c: p[c[0]][c[1]][1])
                    self.agreed = None
                    return [f"All right, let's do it your way: {self._say_joint(self.proposed)}."], False
                c = self.proposed
                return [f"I'll stay with it then: {self._say_joint(c)}. Tell me if you want another pair.",
                        f"I still think it is best for both of us: {self._say_joint(c)}."], True
        if self.proposed is None and self.agreed is None:
            target = self.favourite() if not defer else (self.convention() or self.favourite())
            if target is None:
                return ["There is no pure equilibrium here, so I will mix my moves at random."], True
            self.proposed = target
            if defer:
                self.agreed = target
                return [f"Then let's do this: {self._say_joint(target)}. Neither of us gains by switching."], True
            return [f"Let's agree: {self._say_joint(target)}. It is an equilibrium: neither of us gains by "
                    "switching."], False
        return [], True

    def _matrix_talk(self) -> tuple[Optional[str], bool]:
        heard = list(self.heard)
        last = heard[-1] if heard else ""
        mine, theirs = self.view["my_actions"], self.view["their_actions"]
        talk = read_talk(last, mine, theirs) if last else None
        if talk is not None:  # people's short forms the reader leaves out: "nah", "k", "us both on X"
            r = reading(last, mine, theirs)
            talk.refuse, talk.agree, talk.mine = r["refuse"], r["agree"], r["mine"]
        kinds = [k for k in (question_kind(t) for t in heard) if k]
        defer = bool(last and DEFER.search(last))
        options, halt = self._decide(talk if not kinds or talk.named else None, defer)
        c = self.plan()
        if options:  # "how about we both go stag?" is answered by the proposal itself
            kinds = [k for k in kinds if k != "other"]
        answers = [self._answer(k, c) for k in dict.fromkeys(kinds)]
        return self._compose(answers, options, c, halt, bool(heard))

    def _compose(self, answers: list[list[str]], options: list[str], c, halt: bool, spoken_to: bool):
        """One fresh line: the answers to the partner's questions, then the proposal part. Said before is skipped,
        another wording is taken; with nothing owed and nothing new, a short summary or silence."""
        parts = []
        for wordings in answers:
            line = self._pick(wordings)
            if line:
                parts.append(line)
        prop = self._pick(options)
        if prop:
            parts.append(prop)
        if not parts and spoken_to and not self._agreeing():
            # spoken to on my turn with nothing new: a restatement (the talk only moves on when I speak)
            summary = self._pick(self._restate(c))
            if summary:
                parts.append(summary)
        if not parts:
            return None, True
        text = " ".join(parts)
        if self.view["game"]["kind"] == "matrix":  # what I now say I play, as the partner reads it: I play that
            own = read_talk(text, self.view["their_actions"], self.view["my_actions"]).theirs
            self.stated = own or self.stated
        self.discipline.said(text)
        for part in parts:
            self.discipline.said(part)
        if self.view["negotiation"]["halt_asked"]["partner"]:
            halt = True  # they clicked Stop talking: answer what is owed, then agree
        return text, halt

    def _pick(self, wordings: list[str]) -> Optional[str]:
        """The first wording not said yet; in a room that plays the game again, the first one with the trial."""
        line = self.discipline.pick(*wordings) if wordings else None
        if wordings and not line and (self.view.get("trials") or 1) > 1:
            line = self.discipline.pick(f"Trial {self.view['trial']}: {wordings[0]}")
        return line

    def _agreeing(self) -> bool:
        """The partner's last line only agreed ("ok", "sounds good"): nothing to answer, stopping is fine."""
        last = self.heard[-1] if self.heard else ""
        return bool(last) and not is_question(last) and (bool(AGREE.match(last)) or read_talk(last, [], []).agree) \
            and not REFUSE.match(last)

    def _restate(self, c) -> list[str]:
        """My plan again, in wordings not said yet; the last one names the rounds left, so it is always new."""
        neg = self.view["negotiation"]
        left = max(0, (neg["rounds"] or 0) - (neg["round"] or 0))
        trial = f" in trial {self.view['trial']}" if (self.view.get("trials") or 1) > 1 else ""
        if self.view["game"]["kind"] == "matrix":
            if c is None:
                return [f"{left} round{'s' if left != 1 else ''} left{trial}; I still have no pure move to promise."]
            plan = self._say_joint(c)
        else:
            plan = self._tree_plan()[0]
        return [f"To sum up: {plan}.", f"So: {plan}.", f"My plan stays: {plan}.", f"Still the same for me: {plan}.",
                f"{left} round{'s' if left != 1 else ''} left{trial}, and my plan stays: {plan}."]

    def _matrix_choice(self) -> str:
        mine = self.view["my_actions"]
        if self.stated is not None:
            return self.stated  # keep my word: the move I last said is the move I play
        p = self.bimatrix()
        dom = solvers.dominant_action(p, 0)
        if dom is not None:
            return mine[dom]
        ne = solvers.pure_nash(p)
        if self.announced is not None:
            br = solvers.best_responses(p, 0)[self.announced][0]
            if (br, self.announced) in ne:
                return mine[br]
        target = self.convention()
        if target is not None:
            return mine[target[0]]
        small = min(len(p), len(p[0])) <= 6  # support enumeration is exponential; larger games mix uniformly
        mixes = solvers.mixed_nash(p) if small else []
        x = mixes[0][0] if mixes else [1] * len(mine)
        return self.rng.choices(mine, weights=[float(w) for w in x])[0]

    # --- sequential games ---------------------------------------------------------------------------------------
    def _tree_plan(self) -> tuple[str, list]:
        strategy, _path, _value = self.spe()
        here = tuple(self.view["path"])
        node = solvers.subtree(self.tree(), here)
        # the equilibrium continuation from here
        rest, h = [], here
        while not solvers.is_leaf(node):
            label = strategy[h]
            rest.append(("me" if node["player"] == 0 else "you", label))
            h = h + (label,)
            node = node["moves"][label]
        self._rest = rest
        return ", then ".join(f"{'you play' if w == 'you' else 'I will play'} {lab}" for w, lab in rest), node

    def _tree_why(self) -> list[str]:
        """Why the plan: what each move at this node leads to, thinking backwards (the payoffs at its end)."""
        strategy, _p, _v = self.spe()
        here = tuple(self.view["path"])
        node = solvers.subtree(self.tree(), here)
        who = "me" if node["player"] == 0 else "you"
        ends = []
        for label, child in node["moves"].items():
            h, n = here + (label,), child
            while not solvers.is_leaf(n):
                n = n["moves"][strategy[h]]
                h = h + (strategy[h],)
            ends.append(f"{label} ends with {n[0]} for me and {n[1]} for you")
        mover = "I move" if who == "me" else "you move"
        return [f"Because here {mover}: " + "; ".join(ends) + ", each of us choosing the best move at every later "
                "step.", "Thinking backwards, every later move is each player's best one; promises against that "
                "are not credible."]

    def _tree_talk(self) -> tuple[Optional[str], bool]:
        plan, leaf = self._tree_plan()
        labels = list(solvers.subtree(self.tree(), tuple(self.view["path"]))["moves"])
        said = [read_talk(t, labels, labels) for t in self.heard]
        kinds = [k for k in (question_kind(t) for t in self.heard) if k]
        ending = f"ending with {leaf[0]} for me and {leaf[1]} for you"
        answers = []
        for k in dict.fromkeys(kinds):
            if k == "why":
                answers.append(self._tree_why())
            else:  # what I play, what they should play: the plan from here
                answers.append([f"The plan from here: {plan}.", f"{plan[0].upper()}{plan[1:]}."])
        options = []
        path = self.view.get("path") or []
        if said and said[-1].named:
            labels_on_path = [lab for _w, lab in self._rest]
            if said[-1].named == labels_on_path[:len(said[-1].named)] or said[-1].named == labels_on_path:
                options = [f"Agreed: {plan}, {ending}.", f"Yes: {plan}."]
            else:
                options = [f"Thinking backwards from the end: {plan}, {ending}. Promises against that are not "
                           "credible, so that is what I will do.", f"No: {plan}; anything else is not credible."]
        elif not any(who == "me" for who, _ in self.log):
            options = [f"Thinking backwards from the end: {plan}, {ending}. That is the stable plan." if not path
                       else f"Now that {' then '.join(path)} is played, my plan from here: {plan}, {ending}."]
        if options:  # the plan is in the line already: only "why?" needs more
            answers = [self._tree_why()] if "why" in kinds else []
        return self._compose(answers, options, None, True, bool(self.heard))

    def _tree_choice(self) -> str:
        strategy, _p, _v = self.spe()
        return strategy[tuple(self.view["path"])]

    # --- the brain interface ------------------------------------------------------------------------------------
    def talk(self):
        return self._matrix_talk() if self.view["game"]["kind"] == "matrix" else self._tree_talk()

    def choose(self) -> str:
        return self._matrix_choice() if self.view["game"]["kind"] == "matrix" else self._tree_choice()
