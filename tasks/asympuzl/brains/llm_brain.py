"""The prompted agent ("llm"): any OpenAI-compatible model. Each turn's prompt holds the paper's parts (prompts.py):
instructions, the seat's clues (re-injected every turn, read-only), its current working hypothesis, the recent
conversation (`history` messages of each side; the paper used 1), the feedback of the previous turn and the answer
format {"message": ..., "actions": [{"replace": p, "by": {"shape": s, "color": c}}]}.

Brain options:
- `answer`: "json" (ours, default): a structured JSON answer; an action naming an unknown position, shape or colour
  goes back to the model once with the error, then the act fails. "paper" (preset paper): free text that reasons
  first and ends with the JSON object, read from the last JSON object of the text; no repair round.
- `invalid_answer`: "fallback" (default): a failed act is played by the share-all policy, visibly (`llm_fallback`),
  or fails the game under `strict_llm`. "pass" (preset paper): what the answer held that the rules take is applied
  and the rest is dropped (an answer without a JSON object passes the turn); the act counts as invalid, nothing
  plays in the model's place. The paper does not say what its harness did with such answers; this is our reading.
- `sampling` (tasks/core/presets.py): the "turn" use's temperature, max_tokens, deadline... for every call.
A message equal to a placeholder of the answer format ("what you tell your partner") is not sent (noted).
Every turn logs its tokens counted with one common tokenizer for all models (`turn_tokens` notes, tokens.py).
"""
from __future__ import annotations

import json
from typing import Optional

from tasks.core import ChatShown, Message

from .. import tokens
from ..game import NOISY_PREFIX
from ..parse import parse_replace
from .prompts import ANSWER_FORMATS, is_placeholder, system_prompt, user_prompt
from .symbolic import PuzzleBrain

SCHEMA = {
    "title": "asympuzl_turn", "type": "object", "additionalProperties": False,
    "properties": {
        "message": {"type": "string", "maxLength": 3000},
        "actions": {"type": "array", "maxItems": 120, "items": {
            "type": "object", "additionalProperties": False,
            "properties": {"replace": {"type": "integer", "minimum": 1},
                           "by": {"type": "object", "additionalProperties": False,
                                  "properties": {"shape": {"type": "string"}, "color": {"type": "string"}},
                                  "required": ["shape", "color"]}},
            "required": ["replace", "by"]}},
    },
    "required": ["message", "actions"],
}


def last_json_object(text: str) -> dict:
    """The last top-level JSON object of a free-text answer that has "message" or "actions" (objects nested in
    it, and braces in the reasoning before it, are passed over). ValueError when there is none."""
    decoder, found, i = json.JSONDecoder(), None, 0
    while True:
        i = text.find("{", i)
        if i < 0:
            break
        try:
            obj, end = decoder.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        if isinstance(obj, dict) and ("message" in obj or "actions" in obj):
            found = obj
        i = end
    if found is None:
        raise ValueError('the answer does not end with a JSON object holding "message" and "actions"')
    return found


class LLMBrain(PuzzleBrain):
    name = "llm"
    needs_llm = True
    uses_llm = True

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.said: list[tuple[str, str]] = []  # (who, text) in order
        self.answer = str(self.options.get("answer", "json"))
        if self.answer not in ANSWER_FORMATS:
            raise ValueError(f"brain option answer must be one of {', '.join(ANSWER_FORMATS)}")
        self.passes = str(self.options.get("invalid_answer", "fallback")) == "pass"

    def observe(self, effect) -> None:
        super().observe(effect)
        if isinstance(effect, ChatShown):
            self.said.append(("You" if effect.seat == self.seat else "Partner", effect.text))
        elif isinstance(effect, Message) and effect.to == self.seat and effect.text.startswith(NOISY_PREFIX):
            self.said.append(("Partner", effect.text.split(": ", 1)[1]))

    def history_lines(self) -> list[str]:
        h = int(self.options.get("history", (self.view or {}).get("history", 1)))
        mine = [i for i, (w, _) in enumerate(self.said) if w == "You"][-h:] if h > 0 else []
        theirs = [i for i, (w, _) in enumerate(self.said) if w == "Partner"][-h:] if h > 0 else []
        return [f"{self.said[i][0]}: {self.said[i][1]}" for i in sorted(mine + theirs)]

    def prompt(self, error: Optional[str] = None) -> list[dict]:
        v = self.view
        return [{"role": "system", "content": system_prompt(v, self.answer)},
                {"role": "user", "content": user_prompt(v, self.history_lines(), self.answer, error)}]

    def act(self):
        if not self.my_turn():
            return []
        asks, heard = self.digest()  # the symbolic beliefs stay current, for a fallback
        return self.llm_or_symbolic("turn", self._ask, lambda: self.decide(asks, heard))

    def _ask(self, act) -> list:
        if self.answer == "paper":
            messages = self.prompt()
            text = self.llm.chat(messages, usage=act, **self.sampling("turn"))
            return self._moves(act, messages, text, repairable=False)
        error = None
        for _ in range(2):
            messages = self.prompt(error)
            out = self.llm.chat_json(messages, SCHEMA, usage=act, **self.sampling("turn"))
            try:
                return self._moves(act, messages, out, repairable=True)
            except ValueError as exc:
                error = str(exc)
        raise ValueError(f"invalid actions after a repair round: {error}")

    def _moves(self, act, messages: list[dict], answer, repairable: bool) -> list:
        """The moves of one answer (a dict, or the paper format's text). An invalid action raises ValueError when
        the answer may be repaired or falls back (`invalid_answer` "fallback"); with "pass" it is dropped."""
        text = answer if isinstance(answer, str) else json.dumps(answer)
        problems: list[str] = []
        try:
            out = last_json_object(answer) if isinstance(answer, str) else answer
        except ValueError as exc:
            out = {}
            problems.append(str(exc))
        moves = []
        for a in out.get("actions") or []:
            try:
                moves.append(self._replace(a, first=not moves))
            except ValueError as exc:
                problems.append(str(exc))
        message = str(out.get("message") or "").strip()
        self._count(messages, text, message)
        if problems and (repairable or not self.passes):
            raise ValueError(problems[0])
        if problems:  # "pass": the rest of the answer is applied, the act counts as invalid
            act.valid, act.error = False, problems[0][:300]
            self.note("llm_invalid_answer", error=problems[0][:300], applied=len(moves))
        if message and is_placeholder(message):
            self.note("placeholder_not_sent", message=message[:80])
            message = ""
        moves.append(self.say(message, first=not moves) if message else self.command("done", first=not moves))
        return moves

    def _replace(self, action, first: bool):
        if not isinstance(action, dict):
            raise ValueError(f"an action must be an object like {{\"replace\": 1, \"by\": {{...}}}}, not {action!r}")
        v, by = self.view, action.get("by") if isinstance(action.get("by"), dict) else {}
        p, s, c = parse_replace([str(action.get("replace")), str(by.get("shape")), str(by.get("color"))],
                                v["shapes"], v["colours"], v["size"])
        return self.command("replace", str(p), s, c, first=first)

    def _count(self, messages: list[dict], text: str, message: str) -> None:
        """This turn's tokens with the common tokenizer: the prompt, the whole answer and its message."""
        self.note("turn_tokens", round=self.view["round"], tokenizer=tokens.TOKENIZER,
                  prompt=sum(tokens.count(m["content"]) for m in messages), output=tokens.count(text),
                  message=tokens.count(message))


__all__ = ["LLMBrain", "SCHEMA", "last_json_object"]
