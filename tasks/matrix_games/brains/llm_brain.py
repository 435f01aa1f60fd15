"""The paper's prompted baseline (`llm`): the game and its points (one line per outcome), the negotiation history
("Alice said in round r: ..."), chain-of-thought and the answer between <s> and </s>. Under `wording: ours` (the
default) every prompt is in our words; under `wording: paper` (the `paper` preset) every prompt is the release's
own, read at run time (paper_wording.py; the system prompt and anti-negotiation prompts: release.py).
Departures, for a working game: retries are bounded (`retries`, default 3) and the halt check compares the tag's
text with "halt negotiation" (the original compared it with the tagged string, so it never fired). An answer that
never parses falls back visibly to the workflow agent's policy (`llm_fallback`: tables say `llm+fallback`).

Brain options: `personality` (the system prompt's adjective, default rational: the paper's personality probe);
`wording` (ours, or paper: the release's wording, read at run time); `negotiation_prompt`
(0 none, or the paper's anti-negotiation Prompt 1..6, appended to the action prompt after a negotiation; the
release's wording, so it needs `paper_prompts`); `sampling` (per use: negotiate, move, chain, summary; the
`paper` preset's temperature 1.0 and 2,000 tokens). Every call of an act carries the act's sampling.
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from .. import release
from ..paper_wording import PaperWording
from ..parse import ActionError, parse_action
from .workflow import WorkflowBrain

OUR_SYSTEM = "Play the game below as a {personality} player: think each question through, then answer it."
WORDINGS = ("ours", "paper")
TAG = re.compile(r"<s>(.*?)</s>", re.S | re.I)
REASON = re.compile(r"<r>(.*?)</r>", re.S | re.I)
PERSONALITY = re.compile(r"[A-Za-z][A-Za-z -]{0,39}")
MAX_TOKENS = 2000  # the paper's output limit (original release, src/model.py), so the chain of thought fits


def rules_text(view: dict) -> str:
    me, other = view["me_name"], view["partner_name"]
    if view["game"]["kind"] == "matrix":
        mine, theirs = view["my_actions"], view["their_actions"]
        lines = [f"One round: you and {other} each pick an option at the same moment. You play {me}. Your "
                 f"{len(mine)} options: {', '.join(mine)}. {other}'s {len(theirs)} options: {', '.join(theirs)}. "
                 "Aim for the most points for yourself.", "### Points"]
        for i, a in enumerate(mine):
            for j, b in enumerate(theirs):
                c = view["matrix"][i][j]
                lines.append(f"- You pick {a}, {other} picks {b}: you get {c['me']}, {other} gets {c['them']}.")
        return "### The Game\n" + "\n".join(lines)
    lines = [f"You and {other} decide in turn, one after the other, and each decision has options of its own. You "
             f"play {me}. Aim for the most points for yourself.", "### Points"]

    def walk(node, said):
        if "mover" not in node:
            lines.append(f"- {'; '.join(said)}: you get {node['me']}, {other} gets {node['them']}.")
            return
        who = me if node["mover"] == "me" else other
        for label, child in node["moves"].items():
            walk(child, said + [f"{who} picks {label}"])
    walk(view["tree"], [])
    return "### The Game\n" + "\n".join(lines)


class LLMBrain(WorkflowBrain):
    name = "llm"
    needs_llm = True
    uses_llm = True
    wording_class = PaperWording  # what `wording: paper` reads: the release agent's prompts

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        o = self.options
        personality = str(o.get("personality") or "rational")
        if not PERSONALITY.fullmatch(personality):
            raise ValueError(f"personality is one or a few words (letters), got {personality!r}")
        wording = str(o.get("wording") or "ours")
        if wording not in WORDINGS:
            raise ValueError(f"wording must be one of {', '.join(WORDINGS)}, got {wording!r}")
        root = o.get("paper_prompts")
        self.system = (release.system_prompt(root, personality) if wording == "paper"
                       else OUR_SYSTEM.format(personality=personality))
        self.probe = int(o.get("negotiation_prompt") or 0)
        if self.probe:
            release.negotiation_prompt(root, self.probe, "")  # stops now, naming the missing files, not mid-game
        self.paper: Optional[PaperWording] = self.wording_class(root) if wording == "paper" else None
        self.last_reason = ""  # the <r>...</r> of the last usable answer (the workflow's thinking chains)

    def _history(self) -> str:
        v = self.view
        k = v["negotiation"]["rounds"]
        out = []
        for n, (who, text) in enumerate(self.log):
            name = v["me_name"] if who == "me" else v["partner_name"]
            out.append(f"{name} said in round {n // 2 + 1}: {text}")
        head = ""
        if v["game"]["kind"] == "tree" and v.get("path"):
            head = "### Moves So Far\n" + ", then ".join(v["path"]) + "\n"
        msgs = ("### What Was Said\n" + "\n".join(out) + "\n") if out else ""
        return head + msgs if k else head

    def _ask(self, instruction: str, use: str, paper: Optional[Callable[[dict], str]] = None) -> Optional[str]:
        """One act: up to `retries` calls until the <s>...</s> answer is usable; None when it never was. The prompt is
        ours around `instruction`, or `paper(view)` under the paper wording. Under `strict_llm` a failed act ends the
        game, so the acts after it in the same turn (the workflow's further chain steps) are not asked: they would
        only spend calls on a game already invalid."""
        if self.llm is None:
            self.llm_fallback(self.llm_missing(use), error="no LLM configured")
            return None
        prompt = (paper(self.view) if paper
                  else rules_text(self.view) + "\n" + self.preamble() + self._history() + instruction)
        if self.strict_llm and any(a.failed for a in self.llm_acts):  # after the preamble: its chains may fail
            return None
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": prompt}]
        act = None
        try:
            with self.llm_act(use) as act:
                for _ in range(int(self.options.get("retries", 3))):
                    text = self.llm.chat(messages, usage=act, **self.sampling_of(use))
                    m = TAG.findall(text or "")
                    if m and self._usable(use, m[-1].strip()):
                        reason = REASON.findall(text)
                        self.last_reason = reason[-1].strip() if reason else ""
                        return m[-1].strip()
                raise ValueError("no usable <s>...</s> answer")
        except Exception as exc:
            self.llm_fallback(act, exc)
            return None

    def sampling_of(self, use: str) -> dict:
        """The client's keyword arguments for a call of this act (`sampling`, keyed by the use without its labels)."""
        kw = {"max_tokens": int(self.options.get("max_tokens", MAX_TOKENS))}
        kw.update(self.sampling(use.split(":", 1)[0]))
        return kw

    def preamble(self) -> str:
        """Text put before the history in every prompt (the workflow agent's derived strategy)."""
        return ""

    def _usable(self, use: str, answer: str) -> bool:
        if use in ("negotiate", "summary"):
            return bool(answer)
        if use.startswith("chain:"):
            try:
                parse_action(answer, use.split(":", 1)[1].split("|"))
                return True
            except ActionError:
                return False
        try:
            parse_action(answer, self.view["moves"])
            return True
        except ActionError:
            return False

    def talk(self):
        v, w = self.view, self.paper
        other, k = v["partner_name"], v["negotiation"]["rounds"]
        answer = self._ask(f"### Negotiation\nBefore anyone moves you may talk with {other}, for at most {k} rounds, "
                           "to do as well as you can. Think it over, then write your message between <s> and </s>, "
                           "e.g. <s>Hello there.</s> To stop talking, answer <s>halt negotiation</s>.", "negotiate",
                           paper=w and (lambda view: w.negotiate(view, self.preamble())))
        if answer is None:
            return super().talk()
        if answer.lower().strip(" .!") == "halt negotiation":
            return None, True
        return answer[:500], False

    def agree_to_halt(self) -> bool:
        # A halt request keeps the asker's turn, so the asker's partner must answer it or the talk stalls (two LLM
        # agents under halt=both did); it agrees, as every agent does (base.py): nobody is kept talking.
        return True

    def choose(self) -> str:
        v, w = self.view, self.paper
        probe = (release.negotiation_prompt(self.options.get("paper_prompts"), self.probe, v["partner_name"],
                                            exact=bool(w)) if self.probe else "")
        answer = self._ask("### Your Action\nWeigh the game and anything said above, then pick the option that "
                           f"does best for you, one of: {', '.join(v['moves'])}. Put your pick between <s> and </s>, "
                           f"e.g. <s>{v['moves'][0]}</s>." + ("\n" + probe if probe and self.log else ""), "move",
                           paper=w and (lambda view: w.action(view, probe, self.preamble())))  # after a talk only
        if answer is None:
            return super().choose()
        return parse_action(answer, v["moves"])
