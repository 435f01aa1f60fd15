"""`llm-workflow`: the paper's Bayesian/envy-free workflow for Deal or No Deal (reference §8) with every number
computed exactly (items.py, belief.py) and the model only writing the message and picking among computed options.

The arithmetic, as the paper's code (`negotiate_with_feedback`) does it, over Ω = every integer valuation with
Σ count·value = 10 (items.valuations). With my last proposal M and the partner's last proposal O (both as what I
get), the partner's possible values split into
  R1 (envy): M is not envy-free for them (they value my share of M more than theirs) and O is envy-free for them;
  R2 (greedy): M is envy-free for them and O gives them strictly more than M.
Candidates are re-filtered on every new (M, O) pair (hard elimination); both sets empty: recompute from Ω; still
empty: keep the previous sets; M == O keeps them too. Before I proposed anything the candidates are the v under
which the latest O is envy-free for them, held as R1 (R2 empty), as the release holds them. P(envy) = |R1| /
(|R1| + |R2|) (γ = 1). acceptance(s) = the share of candidates under which s is envy-free for the partner,
× (1 − deteriorate)^(times I proposed s) (option `deteriorate`, 0).

The prompt is the `llm` agent's (the paper's game prompt, values, history) plus the paper's blocks: "### Last Round
of Negotiation", "### Analysis" (the two reasons and their probabilities), the partner's standing offer checked
for envy ("NOT A GOOD DEAL ... you can THREATEN to halt"), and the options: splits I do not envy with acceptance
> 0 (taking nothing worth 0 to me), labelled as the paper does (≤ 0.4 relatively low, ≥ 0.6 relatively high),
rejected ones flagged "REJECTED n time(s)". The paper drafted a message and then reflected on the extracted deal
(up to 10 times); here the options are computed before the draft, so one structured answer {"message", "action":
propose|accept|wait, "option"} does both. A failing model falls back visibly to `bayes` (see llm_brain.py).

Under preset `paper` the seat plays the release's own workflow turn instead, in the release's words, with these
sets' numbers: the draft, its extracted deal and the reflection loop (llm_paper_workflow.py).
"""
from __future__ import annotations

from typing import Optional

from .. import items as I
from ..belief import ef_for_partner
from .base import share_text
from .llm_brain import SYSTEM, LLMBrain, game_prompt
from .llm_paper_workflow import PaperWorkflow

MAX_OPTIONS = 12


def acceptance_label(a: float) -> str:
    return "relatively low" if a <= 0.4 else ("relatively high" if a >= 0.6 else "moderate")


class PossibilitySets:
    """The paper's R1 / R2 possibility sets of the partner's values (hard elimination), in the owner's frame."""

    def __init__(self, counts):
        self.counts = tuple(counts)
        self.omega = I.valuations(self.counts)
        self.r1: list = []
        self.r2: list = []
        self.last = None             # the (M, O) pair last used

    def candidates(self) -> list:
        return (self.r1 + self.r2) or list(self.omega)

    def _sets(self, pool, m, o):
        c = self.counts
        r1 = [v for v in pool if not ef_for_partner(c, m, v) and ef_for_partner(c, o, v)]
        r2 = [v for v in pool if ef_for_partner(c, m, v)
              and I.utility(I.rest(c, o), v) > I.utility(I.rest(c, m), v)]
        return r1, r2

    def update(self, m, o) -> bool:
        """A new (M, O) pair; False when nothing changed."""
        if o is None or (m, o) == self.last:
            return False
        self.last = (m, o)
        if m is None:  # as the release holds it: the only set, from Ω and the latest O (no earlier O counts)
            self.r1, self.r2 = [v for v in self.omega if ef_for_partner(self.counts, o, v)], []
            return True
        if m == o:
            return True
        r1, r2 = self._sets(self.candidates(), m, o)
        if not r1 and not r2:
            r1, r2 = self._sets(self.omega, m, o)
        if r1 or r2:
            self.r1, self.r2 = r1, r2
        return True

    def p_envy(self) -> float:
        n = len(self.r1) + len(self.r2)
        return len(self.r1) / n if n else 0.0

    def acceptance(self, s) -> float:
        pool = self.candidates()
        return sum(ef_for_partner(self.counts, s, v) for v in pool) / len(pool)

    def their_value(self, s, pool) -> float:
        theirs = I.rest(self.counts, s)
        return sum(I.utility(theirs, v) for v in pool) / len(pool) if pool else 0.0


def answer_schema(n_options: int) -> dict:
    return {"title": "dond_workflow_turn", "type": "object", "additionalProperties": False,
            "properties": {"message": {"type": "string", "minLength": 1, "maxLength": 500},
                           "action": {"type": "string", "enum": ["propose", "accept", "wait"]},
                           "option": {"type": "integer", "minimum": 1, "maximum": max(1, n_options)}},
            "required": ["message", "action", "option"]}


class LLMWorkflowBrain(LLMBrain):
    name = "llm-workflow"

    def new_game(self, view):
        super().new_game(view)
        self.sets = PossibilitySets(view["counts"])
        self.proposed: dict = {}         # split -> times I proposed it
        self.options_shown: list = []    # the options of the last prompt (what "option" indexes)
        self.flow: Optional[PaperWorkflow] = None  # preset paper: the release's workflow (llm_paper_workflow.py)
        if self.paper is not None:
            try:
                self.flow = PaperWorkflow(self)
            except ValueError as exc:  # told in every act, as the raw agent's missing release
                self.paper, self.paper_error = None, str(exc)

    # --- preset paper: the release's workflow turn -------------------------------------------------------------------
    def paper_message(self, act) -> str:
        return self.paper.message(act, extra=self.flow.thinking())

    def paper_answer(self, message: str) -> tuple:
        return self.flow.answer(message) if self.flow.active else super().paper_answer(message)

    def latest(self, who: str):
        offers = self.offers_by(who)
        return offers[-1] if offers else None

    def times_rejected(self, s) -> int:
        return sum(1 for o in self.view.get("offers") or []
                   if o["by"] == "me" and tuple(o["mine"]) == tuple(s) and o["status"] == "rejected")

    def acceptance(self, s) -> float:
        rate = float(self.options.get("deteriorate", 0.0))
        return self.sets.acceptance(s) * (1 - rate) ** self.proposed.get(tuple(s), 0)

    def option_list(self) -> list:
        """(split, acceptance): splits I do not envy, with acceptance > 0, taking nothing worth 0 to me; most
        valuable to me first; the most acceptable ones always among them."""
        c, vals = self.counts, self.values
        pool = [s for s in I.all_splits(c) if self.ef_for_me(s) and self.u(s) > 0
                and all(n == 0 or x > 0 for n, x in zip(s, vals))]
        scored = [(s, self.acceptance(s)) for s in pool]
        scored = [x for x in scored if x[1] > 0] or [(s, a) for s, a in scored]
        by_value = sorted(scored, key=lambda x: (-self.u(x[0]), -x[1]))
        by_accept = sorted(scored, key=lambda x: (-x[1], -self.u(x[0])))
        keep = by_value[:MAX_OPTIONS - 4] + [x for x in by_accept if x not in by_value[:MAX_OPTIONS - 4]][:4]
        return sorted(keep, key=lambda x: (-self.u(x[0]), -x[1]))

    def workflow_text(self) -> str:
        other, c = self.view["partner_name"], self.counts
        m, o = self.latest("me"), self.latest("partner")
        out = []
        if m is not None and o is not None and m != o:
            status = next(x["status"] for x in reversed(self.view["offers"]) if x["by"] == "me")
            said = "rejected it" if status == "rejected" else "did not accept it"
            out.append(f"### Last Round of Negotiation\nYou proposed that you get {share_text(m)}. {other} {said} "
                       f"and proposed that you get {share_text(o)} instead.")
            pe = self.sets.p_envy()
            out.append(f"### Analysis of {other}'s Rejection\nPossibility 1: {other} would envy you under your "
                       f"proposal (it is unfair to {other}), probability {pe:.2f} ({len(self.sets.r1)} possible value "
                       f"combinations of {other}). Possibility 2: your proposal is fair to {other}, but {other} wants "
                       f"more (greedy), probability {1 - pe:.2f} ({len(self.sets.r2)} possible value combinations).")
        theirs = self.open_offer()
        if theirs is not None:
            pool = self.sets.candidates()
            txt = (f"### {other}'s Standing Offer\nYou get {share_text(theirs)}: worth {self.u(theirs)} to you; "
                   f"{other} gets {share_text(I.rest(c, theirs))}, expected worth "
                   f"{self.sets.their_value(theirs, pool):.1f} to {other}.")
            if not self.ef_for_me(theirs):
                txt += (" You would envy " + other + ": NOT A GOOD DEAL for you; you can THREATEN to halt the "
                        "negotiation.")
            else:
                txt += " You would not envy " + other + " under it."
            out.append(txt)
        options = self.option_list()
        self.options_shown = [s for s, _ in options]
        lines = []
        for i, (s, a) in enumerate(options, 1):
            n = self.times_rejected(s)
            flag = (f" REJECTED {n} time(s) by {other}: offering it again is unlikely to work." if n else "")
            lines.append(f"{i}. you get {share_text(s)} (worth {self.u(s)} to you), {other} gets "
                         f"{share_text(I.rest(c, s))}; chance {other} finds it fair: {a:.2f} "
                         f"({acceptance_label(a)}).{flag}")
        out.append("### Options You Do Not Envy\n" + "\n".join(lines))
        return "\n".join(out) + "\n"

    def llm_turn(self, act):
        self.sets.update(self.latest("me"), self.latest("partner"))
        other = self.view["partner_name"]
        prompt = (game_prompt(self.view) + self.history() + self.standing_text() + self.workflow_text()
                  + "### Your Turn\n" + self.round_text() + f" Write your next message to {other} (do not reveal "
                  "your values) and choose your move: \"propose\" one of the numbered options (give its number), "
                  f"\"accept\" {other}'s standing offer, or \"wait\" (only talk). Leave {other} the items worth "
                  "nothing to you. Answer with a JSON object {\"message\": ..., \"action\": ..., \"option\": number}.")
        n = len(self.options_shown)
        out = self.llm.chat_json([{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                                 answer_schema(n), usage=act, **self.sampling_for("turn"))
        message, action = str(out["message"]).strip(), out["action"]
        if action == "accept":
            if self.open_offer() is None:
                raise ValueError(f"accept while {other} has no standing offer")
            return self.to_moves(None, None, True)
        split = None
        if action == "propose":
            if not 1 <= int(out["option"]) <= n:
                raise ValueError(f"option {out['option']} is not one of 1..{n}")
            split = tuple(self.options_shown[int(out["option"]) - 1])
            if split != self.my_open_offer():
                self.proposed[split] = self.proposed.get(split, 0) + 1
        return self.to_moves(message, split, False)


__all__ = ["LLMWorkflowBrain", "PossibilitySets"]
