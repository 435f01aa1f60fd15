"""The `workflow` agent: the paper's workflow with every reasoning step computed exactly (best-response tables,
dominance, the pure and mixed equilibria, backward induction with the strategy off the path), negotiating in plain
English toward the Pareto-optimal equilibrium.

Simultaneous games: a strictly dominant action is played whatever is said (cheap talk cannot move it). Otherwise
the agent proposes the PO-NE best for itself, accepts any PO-NE the partner proposes (and any NE that no other NE
beats for both), counters a dominated NE with the PO-NE, declines what is not an equilibrium, concedes to the
partner's favourite when its own proposal is refused, and plays its part of an agreed equilibrium (it keeps its
word). Without talk, both seats fall back on the same convention: the PO-NE with the highest joint payoff, then
the most even one, then Alice's favourite. Sequential games: it plays the subgame-perfect strategy from the current
node and says so; promises that the backward induction shows are not credible are declined.
"""
from __future__ import annotations

from typing import Optional

from .. import solvers
from ..parse import read_talk
from .base import SeatBrain


class WorkflowBrain(SeatBrain):
    name = "workflow"

    def new_step(self, view) -> None:
        self.proposed: Optional[tuple[int, int]] = None  # (my action, their action) I put forward
        self.agreed: Optional[tuple[int, int]] = None
        self.announced: Optional[int] = None  # the partner's own move as they announced it

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

    def _matrix_talk(self) -> tuple[Optional[str], bool]:
        p = self.bimatrix()
        mine, theirs = self.view["my_actions"], self.view["their_actions"]
        dom = solvers.dominant_action(p, 0)
        if dom is not None:
            br = solvers.best_responses(p, 1)[dom][0]
            return (f"Whatever you choose, {mine[dom]} is my best move, so I will play {mine[dom]}. "
                    f"Your best reply to that is {theirs[br]}."), True
        ne = solvers.pure_nash(p)
        pone = self._pone()
        said = [read_talk(t, mine, theirs) for t in self.heard]
        talk = said[-1] if said else None
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
            if joint is None and talk.agree and self.proposed is not None:
                self.agreed = self.proposed
                return f"Great, agreed: {self._say_joint(self.agreed)}.", True
            if joint is not None:
                if joint in pone or (joint in ne and not any(solvers.dominates(p[c[0]][c[1]], p[joint[0]][joint[1]])
                                                             for c in ne)):
                    self.agreed = joint
                    return f"Deal: {self._say_joint(joint)}. Neither of us gains by deviating.", True
                better = [c for c in pone if solvers.dominates(p[c[0]][c[1]], p[joint[0]][joint[1]])] or pone
                if better:
                    self.proposed = max(better, key=lambda c: p[c[0]][c[1]][0])
                    why = ("we both do better with" if joint in ne else
                           "that is not stable (one of us would gain by switching); instead")
                    return f"Hmm, {why}: {self._say_joint(self.proposed)}. Agreed?", False
            if talk.refuse and self.proposed is not None and len(pone) > 1:
                # they want the other equilibrium: conceding beats missing each other
                self.proposed = min(pone, key=lambda c: p[c[0]][c[1]][0])
                return f"All right, let's do it your way: {self._say_joint(self.proposed)}.", False
        if self.agreed is not None:
            return f"Agreed: {self._say_joint(self.agreed)}.", True
        if self.proposed is not None:
            return f"My proposal stands: {self._say_joint(self.proposed)}.", True
        target = self.favourite()
        if target is None:
            return "There is no pure equilibrium here, so I will mix my moves at random.", True
        self.proposed = target
        return f"Let's agree: {self._say_joint(target)}. It is an equilibrium: neither of us gains by switching.", False

    def _matrix_choice(self) -> str:
        p = self.bimatrix()
        mine = self.view["my_actions"]
        dom = solvers.dominant_action(p, 0)
        if dom is not None:
            return mine[dom]
        if self.agreed is not None:
            return mine[self.agreed[0]]  # keep my word
        ne = solvers.pure_nash(p)
        if self.announced is not None:
            br = solvers.best_responses(p, 0)[self.announced][0]
            if (br, self.announced) in ne:
                return mine[br]
        if self.proposed is not None and self.proposed in ne and not self.heard:
            return mine[self.proposed[0]]
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

    def _tree_talk(self) -> tuple[Optional[str], bool]:
        plan, leaf = self._tree_plan()
        labels = list(solvers.subtree(self.tree(), tuple(self.view["path"]))["moves"])
        said = [read_talk(t, labels, labels) for t in self.heard]
        ending = f"ending with {leaf[0]} for me and {leaf[1]} for you"
        if any(who == "me" for who, _ in self.log) and not (said and said[-1].named):
            return f"As I said: {plan}.", True  # the plan stands; no need to repeat the reasoning
        if said and said[-1].named:
            labels_on_path = [lab for _w, lab in self._rest]
            if said[-1].named == labels_on_path[:len(said[-1].named)] or said[-1].named == labels_on_path:
                return f"Agreed: {plan}, {ending}.", True
            return (f"Thinking backwards from the end: {plan}, {ending}. Promises against that are not credible, "
                    "so that is what I will do."), True
        return f"Thinking backwards from the end: {plan}, {ending}. That is the stable plan.", True

    def _tree_choice(self) -> str:
        strategy, _p, _v = self.spe()
        return strategy[tuple(self.view["path"])]

    # --- the brain interface ------------------------------------------------------------------------------------
    def talk(self):
        return self._matrix_talk() if self.view["game"]["kind"] == "matrix" else self._tree_talk()

    def choose(self) -> str:
        return self._matrix_choice() if self.view["game"]["kind"] == "matrix" else self._tree_choice()
