"""The `llm` agent under the paper's protocol (preset `paper`: task option protocol=paper, reference §7), with the
paper's own prompt text read from its release at run time (tasks/dond/paper_prompt.py, `--paper-prompts PATH`).

A turn is one free-text message, as the release builds it: the game description with the seat's values, the turn
instruction, then the earlier messages ("<Alice's line> in round N: ..."); the message is what the answer holds
between its first <s> and last </s> (bounded retries). Then the paper's extraction, its own LLM use "extract":
does the message propose a concrete deal (a yes or no in answer tags), and if so which (the three counts in deal
tags, what the speaker gets); the deal is played as the seat's `/propose` (the game tracks it for the paper's stop rule,
and the partner's prompt never shows it), before the message, which closes the turn. "halt negotiation" is just a
message: the game applies the paper's halting rule. When the talk is over the seat is asked the release's "present
deal" question (use "present") and answers with `/present`.

Departures: the release sends the extraction to a hard-coded gpt-4o; here the configured model answers it. A
message the model cannot produce within the retries falls back visibly to `bayes` (or makes the game invalid under
`strict_llm`); an extraction or a presented deal it cannot produce leaves the proposal out or presents the symbolic
choice, and that act counts as invalid.
"""
from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Optional

from tasks.core import ChatShown

from .. import items as I
from ..paper_prompt import PaperPrompts, read_release

DEAL = re.compile(r"<deal>(.*?)</deal>", re.S)
ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)


def between_tags(text: str) -> Optional[str]:
    """The release's parse: from the first <s> to the last </s>; None without both."""
    start, end = (text or "").find("<s>"), (text or "").rfind("</s>")
    if start < 0 or end < start + 3:
        return None
    return text[start + 3:end]


def parse_deal(text: str, counts) -> tuple:
    """The counts in the deal tags ("<deal>" item=count ... "</deal>") as a tuple; ValueError when absent or not a
    split of `counts`."""
    m = DEAL.search(text or "")
    if not m:
        raise ValueError("no <deal>...</deal> in the answer")
    nums = [int(p.split("=", 1)[1]) for p in m.group(1).split()]
    if len(nums) != len(counts) or not I.valid_split(counts, nums):
        raise ValueError(f"deal {nums} is not a split of {list(counts)}")
    return tuple(nums)


class PaperSession:
    """One seat's side of the paper's protocol: its message history and the release's prompts."""

    def __init__(self, brain):
        self.brain = brain
        root = brain.options.get("paper_prompts")
        if not root:
            raise ValueError("the paper protocol reads the release's prompts: pass --paper-prompts PATH")
        self.prompts: PaperPrompts = read_release(str(root), bool(brain.options.get("special_prompting")))
        self.previous: list[str] = []      # the release's previous_message list, in its own words
        self.said = {"alice": 0, "bob": 0}

    # --- the release's prompt pieces, filled for this seat ---------------------------------------------------------
    def fields(self, message: str = "") -> dict:
        """The names the release's placeholders use, as this seat's game (see paper_prompt.Template.render)."""
        v = self.brain.view
        me = SimpleNamespace(example_count=list(v["counts"]), agent_values=list(v["values"]), name=v["me_name"],
                             the_other_player=v["partner_name"],
                             max_negotiation_round=v.get("max_rounds", self.prompts.max_rounds))
        return {"self": me, "negotiation_message": message,
                "translate_values": lambda counts, values: self.prompts.values.render(
                    {"example_count": counts, "values": values}),
                "compute_score": lambda values, counts: I.utility(counts, values)}

    def game(self) -> str:
        return self.prompts.game.render(self.fields())

    def history(self, always: bool = False) -> str:
        if not self.previous and not always:
            return ""
        return self.prompts.history.render({}) + "\n".join(self.previous)

    def observe(self, effect) -> None:
        if isinstance(effect, ChatShown) and effect.seat in self.said:
            self.said[effect.seat] += 1
            line = self.prompts.said if effect.seat == "alice" else self.prompts.replied
            self.previous.append(line.format(self.said[effect.seat]) + effect.text)

    def ask(self, act, use: str, prompt: str, parse):
        """One prompt, answered until `parse` accepts it (the release's retry loop, bounded by `retries`)."""
        b = self.brain
        error = None
        for _ in range(max(1, int(b.options.get("retries", 10)))):
            text = b.llm.chat([{"role": "system", "content": self.prompts.system}, {"role": "user", "content": prompt}],
                              usage=act, **b.sampling(use))
            try:
                return parse(text)
            except ValueError as exc:
                error = exc
        raise ValueError(f"no usable answer after the retries: {error}")

    # --- a turn ----------------------------------------------------------------------------------------------------
    def message(self, act, extra: str = "") -> str:
        """The turn's message; `extra` goes between the game and the turn instruction (the workflow's blocks)."""
        prompt = self.game() + extra + self.prompts.negotiate.render(self.fields()) + self.history()

        def parse(text):
            found = between_tags(text)
            if found is None or not found.strip():
                raise ValueError("no <s>...</s> in the answer")
            return found
        return self.ask(act, "turn", prompt, parse)

    def extract(self, act, message: str) -> Optional[tuple]:
        """The release's two extraction questions: is there a concrete proposal, and which (what I get)."""
        asked = self.game() + self.history(always=True) + self.prompts.has_deal.render(self.fields(message))

        def yes_no(text):
            m = ANSWER.search(text or "")
            if not m:
                raise ValueError("no <answer>...</answer> in the answer")
            return m.group(1).strip()
        if self.ask(act, "extract", asked, yes_no) == "no":
            return None
        summary = (self.game() + self.prompts.message.render(self.fields(message))
                   + self.prompts.summarize.render(self.fields(message)))
        return self.ask(act, "extract", summary, lambda text: parse_deal(text, self.brain.counts))

    def present(self, act) -> tuple:
        prompt = self.game() + self.history(always=True) + self.prompts.present.render(self.fields())
        return self.ask(act, "present", prompt, lambda text: parse_deal(text, self.brain.counts))


__all__ = ["PaperSession", "between_tags", "parse_deal"]
