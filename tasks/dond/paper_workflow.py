"""The prompt text of the release's Deal-or-No-Deal workflow (`llm-workflow` under preset `paper`), read at run time
from src/deal_no_deal/deal_no_deal.py (reference game-theory-negotiation.md §8), never bundled.

Read from `Agent.negotiate_with_feedback`: the three "last round / analysis" blocks put before the turn instruction
(both rejection reasons possible, only envy, only greed) and the pieces the reflection is built from, in the
order the code appends them (REFLECTION names them); from `Agent.summarize_previous_negotiation` the two summaries
of the last round (agreed, or rejected with a counter-proposal); from `Agent.update_negotiation_message` the
question whether to update the draft and the heading of the earlier messages it uses.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tasks.core.release_text import ReleaseFile, Template, require

from .paper_prompt import GAME_FILE, RELEASE

BOTH = "probability_due_to_envy > 0 and probability_due_to_greedy > 0"
ENVY, GREED = "probability_due_to_envy > 0", "probability_due_to_greedy > 0"
AGREED = "self.check_agreement(self.my_previous_proposals[-1])"
# What negotiate_with_feedback appends to `workflow_aided_reflection`, in source order (its first assignment is
# the empty start). When only one rejection reason is possible the release assigns its "unfair?" text to another
# variable, which is never sent (reference §8 point 5), so only the two-reason text is among these.
REFLECTION = ("start", "unfair", "fair_to_me", "unfair_to_me", "envy_under_1", "envy_under_2",
              "fair_heading", "fair_option", "fair_high", "fair_rejected",
              "gain_heading", "gain_intro", "gain_option", "gain_low", "gain_high", "gain_moderate", "gain_rejected",
              "gain_none")


@dataclass(frozen=True)
class WorkflowPrompts:
    thinking: dict      # "both" | "envy" | "greed" -> the block before the turn instruction
    last_round: tuple   # summarize_previous_negotiation: (agreed, rejected)
    reflection: dict    # REFLECTION name -> piece
    update: Template    # the question: update the draft? (<answer>no</answer>, or yes and a new <s>...</s>)
    history: Template   # the heading of the earlier messages in that question


@lru_cache(maxsize=8)
def read_workflow(root: str) -> WorkflowPrompts:
    """The workflow's pieces from the checkout at `root`; ReleaseError naming the file and the release otherwise."""
    f = ReleaseFile(require(root, (GAME_FILE,), RELEASE, "The workflow's prompt text"), GAME_FILE, RELEASE)
    fn = f.function
    flow, update = fn("Agent.negotiate_with_feedback"), fn("Agent.update_negotiation_message")
    think = "workflow_aided_initial_thinking"
    only_one = f.branch(flow, BOTH, False)
    pieces = f.pieces(flow, "workflow_aided_reflection")
    if len(pieces) != len(REFLECTION):
        raise f.error(f"expected {len(REFLECTION)} pieces of the reflection, found {len(pieces)}")
    summary = fn("Agent.summarize_previous_negotiation")
    return WorkflowPrompts(
        thinking={"both": f.string(f.branch(flow, BOTH), think), "envy": f.string(f.branch(only_one, ENVY), think),
                  "greed": f.string(f.branch(f.branch(only_one, ENVY, False), GREED), think)},
        last_round=(f.string(f.branch(summary, AGREED), "history"),
                    f.string(f.branch(summary, AGREED, False), "history")),
        reflection=dict(zip(REFLECTION, pieces)),
        update=f.string(update, "update_or_not_prompt"),
        history=f.string(update, "previous_messages"))


__all__ = ["REFLECTION", "WorkflowPrompts", "read_workflow"]
