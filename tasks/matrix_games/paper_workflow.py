"""The prompts of the release's LLM workflow (`llm-workflow` under `wording: paper`), read at run time from
src/workflow_design.py (reference game-theory-negotiation.md §4), never bundled.

Read: the workflow agent's own game setting, rule sentences, negotiation and action prompts and history lines (the
same pieces as the plain agent's, in `set_game`, `create_simultaneous_rule_description`, `simultaneous_negotiate`,
`make_simultaneous_action` and `Simultaneous_Game.play`), the two chain questions (`other_conditioned_action`:
what the partner does after my choice; `your_conditioned_action`: what I do after theirs), the two chain sentences of
`perspective_wise_reasoning_template`, the summary prompt of `summarizer` and the strategy text its
`beautify_strategy` returns, which goes after the game setting of every negotiation and action prompt.
Sequential games (`sequential_game_workflow`, its LLM-driven backward induction): the workflow's tree setting, rules,
prompts and history lines, the decision question without and with the decisions already made below (the move list
"First, ... Then ...", the "Notice that if ..." notes, the closing note for a move that ends the game, the I/my
rewrite the release applies to that whole prompt) and the thinking-chain sentences, which go after the strategy text.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

from tasks.core.release_text import ReleaseFile, Template

from . import release
from .paper_wording import AgentPrompts, PaperWording, ordinal, sequential_prompts, simultaneous_prompts

WORKFLOW = release.WORKFLOW_FILE
SIMULTANEOUS_GAME = "self.args.game_type == 'simultaneous'"  # set_game's tests for the two settings
SEQUENTIAL_GAME = "self.args.game_type == 'sequential'"
MOVER_IS_ME = "player == self.name"
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
    tree: "TreeWorkflowPrompts"


@dataclass(frozen=True)
class TreeWorkflowPrompts:
    agent: AgentPrompts
    step: tuple             # a move before the decision ("{name} chooses {action}."): (plain, with notes)
    first: Template         # put before the first move of the list
    then: Template          # and before each later one
    ask: tuple              # the decision question (the seat's own, the partner's), without notes
    ask_noted: tuple        # with the notes on the decisions made below
    notice: tuple           # a move's note (own, partner's)
    decision: tuple         # a decision made below (own, partner's)
    ends: Template          # the note for a move that ends the game
    rewrite: tuple          # (old, new) replacements the release applies to the whole noted prompt
    thought: tuple          # a thinking-chain sentence (own, partner's)


def _own_first(f: ReleaseFile, scope, target: str, index: int = 0) -> tuple:
    """(own, partner's) of the `index`-th `a if test else b` assigned to `target`, by whether the test asks "is it
    me" or "is it not me"."""
    found = f.alternatives(scope, target)
    if len(found) <= index:
        raise f.error(f"no conditional string assigned to {target}")
    test, yes, no = found[index]
    return (no, yes) if "!=" in test else (yes, no)


def _rewrite(f: ReleaseFile, scope) -> tuple:
    """The `.replace(old, new)` calls applied to the finished prompt, innermost first."""
    pairs = []
    for value in f.assigned(scope, "action_prompt"):
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "replace":
            pairs.insert(0, tuple(ast.literal_eval(a) for a in value.args))
            value = value.func.value
    if not pairs:
        raise f.error("no rewrite of the noted decision prompt")
    return tuple(pairs)


def _read_tree(f: ReleaseFile) -> TreeWorkflowPrompts:
    fn = f.function
    plain, noted = fn("Agent.chain_conditioned_actions"), fn("Agent.chain_conditioned_actions_with_decisions_made")
    return TreeWorkflowPrompts(
        agent=sequential_prompts(f, f.branch(fn("Agent.set_game"), SEQUENTIAL_GAME),
                                 fn("Agent.create_sequential_rule_description"), fn("Agent.make_sequential_action"),
                                 fn("Agent.sequential_negotiate"), fn("Sequential_Game.play_next")),
        step=(f.listed(plain, "chain"), f.listed(noted, "_text_chain")),
        first=f.string(f.branch(plain, "i == 0"), "text_chain"),
        then=f.string(f.branch(plain, "i == 0", False), "text_chain"),
        ask=tuple(f.string(f.branch(plain, MOVER_IS_ME, own), "conditioned_action_prompt") for own in (True, False)),
        ask_noted=tuple(f.string(f.branch(noted, MOVER_IS_ME, own), "conditioned_action_prompt")
                        for own in (True, False)),
        notice=_own_first(f, noted, "choice_result_text"),
        decision=_own_first(f, noted, "choice_result_text", 1),
        ends=f.strings(noted, "choice_result_text")[-1],
        rewrite=_rewrite(f, noted),
        thought=_own_first(f, fn("Agent.sequential_game_workflow"), "thinking_chains[i]"))


@lru_cache(maxsize=8)
def read(root: str) -> WorkflowPrompts:
    f = ReleaseFile(release.require(root, "The workflow's prompts"), WORKFLOW, release.RELEASE)
    fn = f.function
    perspective, summarizer = fn("Agent.perspective_wise_reasoning_template"), fn("Agent.summarizer")
    return WorkflowPrompts(
        agent=simultaneous_prompts(f, f.branch(fn("Agent.set_game"), SIMULTANEOUS_GAME),
                                   fn("Agent.create_simultaneous_rule_description"),
                                   fn("Agent.make_simultaneous_action"),
                                   fn("Agent.simultaneous_negotiate"), fn("Simultaneous_Game.play")),
        their_reply=f.string(fn("Agent.other_conditioned_action"), "conditional_action_prompt"),
        my_reply=f.string(fn("Agent.your_conditioned_action"), "conditional_action_prompt"),
        after_mine=f.string(f.branch(perspective, "player != self.name", False), "template"),
        after_theirs=f.string(f.branch(perspective, "player != self.name"), "template"),
        summary=f.string(summarizer, "summary_prompt"),
        strategy=f.returned(summarizer, "beautify_strategy"),
        tree=_read_tree(f))


class WorkflowWording(PaperWording):
    """The release workflow's prompts for one seat's view."""

    def __init__(self, root):
        super().__init__(root)
        read(self.root)  # stops now, naming what is missing, not mid-game

    def _prompts(self, v: dict) -> AgentPrompts:
        p = read(self.root)
        return p.agent if v["game"]["kind"] == "matrix" else p.tree.agent

    # --- simultaneous games: the reply chains -------------------------------------------------------------------
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

    # --- sequential games: the decisions, deepest first -----------------------------------------------------------
    def decision(self, v: dict, player: str, chain: tuple, choices: list, decided: dict | None) -> str:
        """The question for `player`'s decision among `choices` after the moves `chain` (keys "Alice_choice_2");
        `decided` (the decisions made below, (name, choice, reason) lists by the moves leading to them) adds the
        notes, None asks without them, as the release does when nothing below this decision was decided yet."""
        t, me = read(self.root).tree, self._seat(v)
        own = 0 if player == v["me_name"] else 1
        steps = [t.step[decided is not None].render({"name": k.split("_")[0], "action": k[k.index("_") + 1:]})
                 for k in chain]
        names = {"self": me, "text_actions": ", ".join(c.replace(player + "_", "") for c in choices),
                 "text_chain": "".join((t.first if i == 0 else t.then).render({}) + one for i, one in enumerate(steps))}
        if decided is None:
            return self.setting(v) + "\n" + t.ask[own].render(names)
        notes = ""
        for choice in choices:
            notes += t.notice[own].render({"a": choice.replace(player + "_", ""), "player": player})
            below = decided.get(tuple(chain) + (choice,))
            if below is None:
                notes += t.ends.render({})
            for made in below or ():
                notes += t.decision[0 if made[0] == v["me_name"] else 1].render({"decision_will_be_made": made})
        prompt = self.setting(v) + "\n" + t.ask_noted[own].render({**names, "choice_result_text": notes})
        for old, new in t.rewrite:
            prompt = prompt.replace(old, new)
        return prompt

    def thought(self, v: dict, n: int, made: tuple) -> str:
        """The `n`-th (1-based) sentence of the derived path: (name, choice, reason)."""
        t = read(self.root).tree
        return t.thought[0 if made[0] == v["me_name"] else 1].render(
            {"ordinal_number": ordinal(n).capitalize(), "thinking_chains": [made], "i": 0})

    # --- both: the summary and the strategy text ------------------------------------------------------------------
    def summary(self, v: dict, chains: list[str]) -> str:
        return self.setting(v) + "\n" + read(self.root).summary.render({"thoughts": "\n".join(chains)})

    def strategy(self, v: dict, text: str, chains: list[str]) -> str:
        """What goes after the game setting: the strategy text, and in trees the thinking chains too."""
        out = read(self.root).strategy.render({"strategy": text})
        return out if v["game"]["kind"] == "matrix" else out + "\n" + "\n".join(chains)
