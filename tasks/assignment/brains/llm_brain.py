"""Our prompted LLM agent ("llm"; the default, labelled ours: the paper's protocol is brains/paper.py under
`--preset paper`): any OpenAI-compatible model, prompted with the instructions, two worked
examples from the released human dialogues rendered in this game's text format (read at run time from the data
path; the project bundles no data), the player's table, the history and the proposal format. One JSON act per turn
({"act": message|propose|accept|reject, "text", "proposal"}). An invalid move (a proposal that does not parse, or a
move the rules refuse) goes back to the model with the error, as the paper did; an LLM that fails falls back
visibly to the optimizer's policy (`llm_fallback`, so tables label the game `llm+fallback`)."""
from __future__ import annotations

import os
from typing import Optional

from tasks.core import ChatShown, Message
from tasks.dialop.acts import act_schema

from ..names import PAPERS, REVIEWERS, TITLES
from ..parse import ProposalError, format_proposal, parse_proposal
from .optimizer import OptimizerBrain

INSTRUCTIONS = (
    "You and your partner chair a conference's reviewing together: give each of 8 papers one of 8 reviewers, "
    "every reviewer once. Each of you sees some reviewer-paper similarity scores (blank = you do not know it), in your own "
    "private scale: the same similarity shows as different numbers to each of you. Talk to find the matching with "
    "the highest total similarity, then one of you proposes a full matching; the other must accept or reject it. "
    "Accepting ends the game. The final score is the matching's value out of the best possible, from 0 to 1.\n"
    "Answer with one JSON act: {\"act\": \"message\", \"text\": ...} to talk, {\"act\": \"propose\", \"proposal\": "
    "\"BLEU=Ava Li, Electra=Daniel Nguyen, ...\"} (all 8 papers), or {\"act\": \"accept\"} / {\"act\": \"reject\"} "
    "when your partner has proposed.")

SCHEMA = act_schema("assignment_act", {"text": {"type": "string", "maxLength": 600},
                                       "proposal": {"type": "string", "maxLength": 600}})


def render_table(table) -> str:
    head = "," + ",".join(TITLES)
    rows = [REVIEWERS[r] + "," + ",".join("" if v is None else str(v) for v in row) for r, row in enumerate(table)]
    return "Reviewer Paper Similarity Scores:\n" + "\n".join([head, *rows])


def render_example(record: dict, player: int = 0) -> str:
    """A released dialogue from one player's side, in the text format of the prompt."""
    scale = record["scale1" if player == 0 else "scale2"]
    mask = record["mask1" if player == 0 else "mask2"]
    table = [[int(v * scale) if mask[r][p] else None for p, v in enumerate(row)] for r, row in enumerate(record["table"])]
    lines = [render_table(table), ""]
    for a in record.get("action_log") or []:
        who = "You" if int(a.get("player", 0)) == player else "Partner"
        if "message" in a:
            lines.append(f"{who}: [message] {a['message'].get('data', '')}")
        elif "proposal_ids" in a:
            m = [0] * 8
            for r, p in a["proposal_ids"]:
                m[int(r)] = int(p)
            lines.append(f"{who}: [propose] {format_proposal(m)}")
        elif "response" in a:
            lines.append(f"{who}: [{'accept' if a['response'].get('accept') else 'reject'}]")
    lines.append(f"Final Score: {round(float(record['result']['norm']), 2)}")
    return "\n".join(lines)


def load_examples(path: Optional[str], n: int = 2) -> list[str]:
    try:
        from tasks.dialop.data import default_path, read_records

        path = path or default_path()
        if not os.path.exists(path):
            return []
        out = []
        for rec in read_records(path, "assignment"):
            if rec["result"]["norm"] >= 0.99 and 6 <= len(rec["action_log"]) <= 16:
                out.append(render_example(rec))
            if len(out) == n:
                break
        return out
    except Exception:  # the examples are optional: no data, no examples
        return []


class LLMBrain(OptimizerBrain):
    name = "llm"
    needs_llm = True

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.history: list[str] = []
        self.examples = load_examples(self.options.get("dialop_data"))
        self._errors: list[str] = []
        self._noted_missing = False

    def observe(self, effect) -> None:
        super().observe(effect)
        if isinstance(effect, ChatShown):
            who = "You" if effect.seat == self.seat else "Partner"
            self.history.append(f"{who}: [message] {effect.text}")
        elif isinstance(effect, Message):
            if effect.kind == "error" and effect.to == self.seat:
                self._errors.append(effect.text)
            else:
                self.history.append(f"Game: {effect.text}")

    def _prompt(self, error: Optional[str] = None) -> list[dict]:
        ex = "".join(f"EXAMPLE {i + 1}.\n{e}\n\n" for i, e in enumerate(self.examples))
        v = self.view
        state = render_table(v["table"]) + "\n\n" + "\n".join(self.history[-60:])
        if v.get("must_respond"):
            state += "\nYour partner has proposed: you must [accept] or [reject]."
        if v.get("words_left") is not None:
            state += f"\nWords left: {v['words_left']}."
            if v.get("final"):
                state += " You must make your best final proposal now."
        for e in self._errors[-2:] + ([error] if error else []):
            state += f"\nError: {e}"
        self._errors = []
        return [{"role": "system", "content": INSTRUCTIONS},
                {"role": "user", "content": f"{ex}EXAMPLE {len(self.examples) + 1}.\n{state}\nYou:"}]

    def act(self):
        if self._over() or self.k is None:
            return []
        v = self.view
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me" and not v.get("must_respond"):
            return []
        if not self.inbox and not v.get("must_respond") and self.opened and not self._errors:
            return []
        if self.llm is None:
            act = self.llm_missing("action")
            if not self.llm_fallback(act, error="no LLM configured"):
                return []
            return super().act()
        act = None
        try:
            with self.llm_act("action") as act:
                moves = self._ask(act)
        except Exception as exc:
            if not self.llm_fallback(act, exc):
                return []
            return super().act()
        self.opened = True
        self.inbox = []
        return moves

    def _ask(self, act) -> list:
        error = None
        for _ in range(2):  # one repair round with the error, as the paper regenerated on invalid moves
            out = self.llm.chat_json(self._prompt(error), SCHEMA, usage=act)
            kind = out.get("act")
            if kind == "message" and (out.get("text") or "").strip():
                return [self.say(out["text"].strip())]
            if kind in ("accept", "reject"):
                if not self.view.get("must_respond"):
                    error = "There is no proposal of your partner to answer."
                    continue
                return [self.command(kind)]
            if kind == "propose":
                try:
                    matching = parse_proposal(out.get("proposal") or "")
                except ProposalError as exc:
                    error = str(exc)
                    continue
                return [self.command("propose", format_proposal(matching))]
            error = "Answer with one act: message (with text), propose (with proposal), accept or reject."
        raise ValueError(f"invalid act after a repair round: {error}")


__all__ = ["LLMBrain", "render_example", "load_examples", "PAPERS"]
