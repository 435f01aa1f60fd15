"""`llm-workflow` under preset `paper`: the release's `negotiate_with_feedback` turn (reference §8), sent in the
release's own words (tasks/dond/paper_workflow.py reads them at run time) with the numbers our solver computes
(PossibilitySets, llm_workflow.py) rendered where the release renders them.

A turn once both sides have proposed (the release's lists: every proposal extracted from a seat's messages, here
the seats' /propose moves in their order, in this seat's frame):
1. the possibility sets are updated with my last proposal M and theirs O; P(envy) and P(greed) are |R1| and |R2|
   over |R1 ∪ R2|, rounded to two places as the release does;
2. the message prompt is the raw agent's with the "last round / analysis" block of the reasons that are possible
   between the game and the turn instruction (LLM use "turn");
3. the draft goes through the raw agent's extraction (use "extract"); no proposal: it is sent as it is;
4. a deal already drafted in this turn, or a 10th update, ends the turn with that deal; otherwise the reflection
   on the deal (my reward, their expected value and envy under each possible reason, whether I envy them, the
   options they may accept, flagged when rejected before) goes into the release's update question (use
   "reflect"): <answer>no</answer> sends the draft with the deal, <answer>yes</answer> and a new <s>message</s>
   replaces the draft and the turn goes back to 3.
Before both sides have proposed, a turn is the raw agent's (the release's `negotiate_without_feedback`).

Departures: the release retries every answer until it parses (its exit is inside the retried block); here the
`retries` bound holds: a failed update question sends the draft with its deal (the act is invalid; the game is
invalid under `strict_llm`), and an updated message that is empty counts as unparsed. Where the release would divide
by zero (no candidate valuation left), the turn is played without the workflow's blocks.
"""
from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Optional

from tasks.core.limits import MAX_CHAT_CHARS

from .. import items as I
from ..belief import ef_for_partner
from ..paper_workflow import WorkflowPrompts, read_workflow

UPDATES = 10  # the release's update_number_max: drafts updated at most this often in a turn
YES, NO = "<answer>yes</answer>", "<answer>no</answer>"


def updated_message(text: str) -> Optional[str]:
    """The release's parse of the update answer: None to keep the draft, else the new message (from the first
    <s> to the first </s>); ValueError when it is neither."""
    text = text or ""
    if NO in text:
        return None
    if YES in text and "<s>" in text and "</s>" in text:
        new = text[text.index("<s>") + 3:text.index("</s>")]
        if new.strip():
            return new
    raise ValueError("no <answer>no</answer>, nor <answer>yes</answer> with a <s>message</s>")


class PaperWorkflow:
    """One `llm-workflow` seat's paper turns; `brain` is its LLMWorkflowBrain (with `paper`, a PaperSession)."""

    def __init__(self, brain):
        self.brain = brain
        self.prompts: WorkflowPrompts = read_workflow(str(brain.options.get("paper_prompts")))
        self.p_envy = self.p_greed = 0.0
        self.active = False  # this turn is a workflow turn (both sides have proposed)

    # --- the release's lists and arithmetic, in this seat's frame ------------------------------------------------
    @property
    def mine(self) -> list:
        return self.brain.offers_by("me")

    @property
    def theirs(self) -> list:
        return self.brain.offers_by("partner")

    def splits(self) -> list:
        """Every split I could get in the release's order (gen_choices: Alice's shares, or the rest for Bob)."""
        c = self.brain.counts
        shares = itertools.product(*(range(n + 1) for n in c))
        return [tuple(s) if self.brain.seat == "alice" else I.rest(c, s) for s in shares]

    def ef_probability(self, pool, deal) -> float:
        c = self.brain.counts
        return round(sum(ef_for_partner(c, deal, v) for v in pool) / len(pool), 2)

    def expectation(self, pool, deal) -> float:
        theirs = I.rest(self.brain.counts, deal)
        return round((1 / len(pool)) * sum(I.utility(theirs, v) for v in pool), 2)

    def acceptance(self, pool, deal) -> float:
        times = self.mine.count(deal) if deal not in self.theirs else 0
        rate = float(self.brain.options.get("deteriorate", 0.0))
        return round(round(self.ef_probability(pool, deal) * (1 - rate) ** times, 2), 2)

    def fair_options(self, pool, deal) -> list:
        """Splits I do not envy that they accept with probability > 0.5, other than `deal`."""
        out = [(s, self.acceptance(pool, s)) for s in self.splits() if s != deal and self.brain.ef_for_me(s)]
        return [(s, a) for s, a in out if a > 0.5]

    def gain_options(self, pool, deal) -> list:
        """Splits worth more to me than `deal` that I do not envy, with acceptance > 0."""
        better = [s for s in self.splits() if self.brain.u(s) > self.brain.u(deal) and self.brain.ef_for_me(s)]
        return [(s, a) for s, a in ((s, self.acceptance(pool, s)) for s in better) if a > 0]

    def rejected_times(self, s) -> int:
        return 0 if s in self.theirs else self.mine.count(s)

    # --- the release's names, filled ------------------------------------------------------------------------------
    def names(self, **more) -> dict:
        b, session = self.brain, self.brain.paper
        me = SimpleNamespace(name=b.view["me_name"], the_other_player=b.view["partner_name"],
                             example_count=list(b.counts), agent_values=list(b.values),
                             my_previous_proposals=[list(s) for s in self.mine],
                             the_other_player_previous_proposals=[list(s) for s in self.theirs],
                             previous_message=session.previous, summarize_previous_negotiation=self.last_round)
        return {"self": me, "compute_score": I.utility, "round": round, "probability_due_to_envy": self.p_envy,
                "probability_due_to_greedy": self.p_greed, **more}

    def last_round(self) -> str:
        agreed, rejected = self.prompts.last_round
        return (agreed if self.mine[-1] == self.theirs[-1] else rejected).render(self.names())

    # --- a turn ------------------------------------------------------------------------------------------------------
    def thinking(self) -> str:
        """Before the message: update the sets; the block the release puts before the turn instruction ("" when
        the turn is the raw agent's)."""
        sets = self.brain.sets
        sets.update(self.brain.latest("me"), self.brain.latest("partner"))
        n = len(sets.r1) + len(sets.r2)
        self.active = bool(self.mine and self.theirs and n)
        if not self.active:
            return ""
        self.p_envy, self.p_greed = round(len(sets.r1) / n, 2), round(len(sets.r2) / n, 2)
        kind = ("both" if self.p_envy > 0 and self.p_greed > 0 else "envy" if self.p_envy > 0 else "greed")
        return self.prompts.thinking[kind].render(self.names())

    def reflection(self, deal: tuple) -> str:
        """The release's self-reflection on the drafted `deal`, piece by piece in its order."""
        p, b, sets = self.prompts.reflection, self.brain, self.brain.sets
        r1, r2 = sets.r1, sets.r2
        names = self.names(proposed_deal=list(deal))
        out = p["start"].render(names)
        if self.p_envy > 0 and self.p_greed > 0:
            out += p["unfair"].render({**names, "other_player_expectation_if_envy": self.expectation(r1, deal),
                                       "other_player_expectation_if_greedy": self.expectation(r2, deal)})
        # With one reason only, the release assigns its "unfair?" text to workflow_aided_initial_thinking, which
        # is never sent again (reference §8 point 5): nothing is added here, as in the release.
        out += (p["fair_to_me"] if b.ef_for_me(deal) else p["unfair_to_me"]).render(names)
        for n, (prob, pool) in enumerate(((self.p_envy, r1), (self.p_greed, r2)), 1):
            if prob > 0:
                out += p[f"envy_under_{n}"].render(
                    {**names, f"other_player_envy_free_probability_possibility_{n}": self.ef_probability(pool, deal)})
        pool = r1 + r2
        fair = self.fair_options(pool, deal)
        if fair:
            out += p["fair_heading"].render(names)
        for i, (s, a) in enumerate(fair):
            out += self.option(p["fair_option"], p["fair_rejected"], names, i, s, a)
            if not self.rejected_times(s) and a > 0.6:
                out += p["fair_high"].render(names)
        out += p["gain_heading"].render(names)
        gain = self.gain_options(pool, deal)
        if not gain:
            return out + p["gain_none"].render(names)
        out += p["gain_intro"].render(names)
        for i, (s, a) in enumerate(gain):
            out += self.option(p["gain_option"], p["gain_rejected"], names, i, s, a)
            if not self.rejected_times(s):
                out += p["gain_low" if a <= 0.4 else "gain_high" if a >= 0.6 else "gain_moderate"].render(names)
        return out

    def option(self, fresh, rejected, names: dict, i: int, s: tuple, a: float) -> str:
        times = self.rejected_times(s)
        return (rejected if times else fresh).render({**names, "id": i, "other_possibility": list(s),
                                                      "the_other_player_accept_probability": a,
                                                      "rejected_times": times})

    def update_prompt(self, draft: str, reflection: str) -> str:
        session = self.brain.paper
        earlier = (self.prompts.history.render({}) + "\n".join(session.previous)) if session.previous else ""
        return session.game() + earlier + self.prompts.update.render(
            self.names(negotiation_message=draft, workflow_aided_reflection=reflection))

    def answer(self, message: str) -> tuple:
        """(line, move) after the draft `message`: the release's extraction and reflection loop."""
        b = self.brain
        tried: list = []
        updates = 0
        while True:
            move = b.paper_proposal(message)  # the raw agent's extraction, its own "extract" act
            if move is None:
                return message, None
            deal = move[1]
            if deal in tried or updates >= UPDATES:
                return message, move
            tried.append(deal)
            act = None
            try:
                with b.llm_act("reflect") as act:
                    new = b.paper.ask(act, "reflect", self.update_prompt(message, self.reflection(deal)),
                                      updated_message)
            except Exception as exc:  # noqa: BLE001 (recorded on the act): the draft goes with its deal
                if b.strict_llm:
                    b.llm_fallback(act, exc)
                return message, move
            if new is None:
                return message, move
            updates += 1
            message = new[:MAX_CHAT_CHARS]


__all__ = ["PaperWorkflow", "UPDATES", "updated_message"]
