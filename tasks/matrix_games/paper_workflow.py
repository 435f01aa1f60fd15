"""The prompts of the release's LLM workflow for simultaneous games (`llm-workflow` under `wording: paper`), read at
run time from src/workflow_design.py (reference game-theory-negotiation.md §4), never bundled.

Read: the workflow agent's own game setting, rule sentences, negotiation and action prompts and history lines (the
same pieces as the plain agent's, in `set_game`, `create_simultaneous_rule_description`, `simultaneous_negotiate`,
`make_simultaneous_action` and `Simultaneous_Game.play`), the two chain questions (`other_conditioned_action`:
what the partner does after my choice; `your_conditioned_action`: what I do after theirs), the two chain sentences of
`perspective_wise_reasoning_template`, the summary prompt of `summarizer` and the strategy text its
`beautify_strategy` returns, which goes after the game setting of every negotiation and action prompt.
The release's sequential workflow is not read: trees keep our wording under `llm-workflow`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tasks.core.release_text import ReleaseFile, Template

from . import release
from .paper_wording import AgentPrompts, PaperWording, simultaneous_prompts

WORKFLOW = release.WORKFLOW_FILE
SIMULTANEOUS_GAME = "self.args.game_type == 'simultaneous'"  # set_game's test for the simultaneous setting
# The release builds the chains from Alice's perspective first: a seat's own choices come first only for Alice.
FIRST_PERSPECTIVE = "Alice"


@dataclass(frozen=True)
class WorkflowPrompts:
    agent: AgentPrompts
    their_reply: Template   # the question: what does the partner pick after `your_action`?
    my_reply: Template      # the question: what do I pick after the partner's `other_action`?
    after_mine: Template    # the chain sentence for a choice of mine
    after_theirs: Template  # the chain sentence for a choice of the partner's
    summary: Template
    strategy: Template


@lru_cache(maxsize=8)
def read(root: str) -> WorkflowPrompts:
    f = ReleaseFile(release.require(root, "The workflow's prompts"), WORKFLOW, release.RELEASE)
    fn = f.function
    perspective, summarizer = fn("Agent.perspective_wise_reasoning_template"), fn("Agent.summarizer")
    return WorkflowPrompts(
        agent=simultaneous_prompts(f, f.branch(fn("Agent.set_game"), SIMULTANEOUS_GAME),
                                   fn("Agent.create_simultaneous_rule_description"), fn("Agent.make_simultaneous_action"),
                                   fn("Agent.simultaneous_negotiate"), fn("Simultaneous_Game.play")),
        their_reply=f.string(fn("Agent.other_conditioned_action"), "conditional_action_prompt"),
        my_reply=f.string(fn("Agent.your_conditioned_action"), "conditional_action_prompt"),
        after_mine=f.string(f.branch(perspective, "player != self.name", False), "template"),
        after_theirs=f.string(f.branch(perspective, "player != self.name"), "template"),
        summary=f.string(summarizer, "summary_prompt"),
        strategy=f.returned(summarizer, "beautify_strategy"))


class WorkflowWording(PaperWording):
    """The release workflow's prompts for one seat's view of a simultaneous game."""
    kinds = ("matrix",)

    def __init__(self, root):
        super().__init__(root)
        read(self.root)  # stops now, naming what is missing, not mid-game

    def _prompts(self, v: dict) -> AgentPrompts:
        return read(self.root).agent

    def own_first(self, v: dict) -> bool:
        return v["me_name"] == FIRST_PERSPECTIVE

    def their_reply(self, v: dict, mine: str) -> str:
        return self.setting(v) + "\n" + read(self.root).their_reply.render({"self": self._seat(v), "your_action": mine})

    def my_reply(self, v: dict, theirs: str) -> str:
        return self.setting(v) + "\n" + read(self.root).my_reply.render({"self": self._seat(v), "other_action": theirs})

    def chain(self, v: dict, mine: bool, condition: str, action: str, reason: str) -> str:
        p = read(self.root)
        return (p.after_mine if mine else p.after_theirs).render(
            {"self": self._seat(v), "condition": condition, "action": action, "reason": reason})

    def summary(self, v: dict, chains: list[str]) -> str:
        return self.setting(v) + "\n" + read(self.root).summary.render({"thoughts": "\n".join(chains)})

    def strategy(self, text: str) -> str:
        return read(self.root).strategy.render({"strategy": text})
