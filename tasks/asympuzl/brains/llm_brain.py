"""The paper's prompted agent ("llm"): any OpenAI-compatible model. Each turn's prompt holds the instructions, the
seat's clues (re-injected every turn, read-only), its current working hypothesis, the recent conversation (`history`
messages of each side; the paper used 1), the feedback of the previous turn and the answer format
{"message": ..., "actions": [{"replace": p, "by": {"shape": s, "color": c}}]}. The answer comes as a structured
JSON object (the schema below); an action naming an unknown position, shape or colour goes back to the model once
with the error. An LLM that fails falls back visibly to the share-all policy (`llm_fallback`)."""
from __future__ import annotations

from typing import Optional

from tasks.core import ChatShown, Message

from ..game import NOISY_PREFIX, feedback_text
from ..parse import parse_replace
from .symbolic import PuzzleBrain

INSTRUCTIONS = (
    "You are {me} in a two-player cooperative puzzle. There is a hidden row of {n} positions; each position holds "
    "one shape in one colour. Player A knows the correct shape at each position but no colours. Player B knows the "
    "correct shape-colour pairs but not their positions (its clues list them in a random order){extra}. Each player "
    "keeps a working hypothesis of the whole row, which starts as a copy of its own clues; only you can change "
    "yours, with actions. Your partner receives only your message, never your actions or hypothesis. You both "
    "succeed when both hypotheses equal the hidden row. Turns alternate, A first; the game ends after {limit} "
    "rounds.\n"
    "Shapes: {shapes}.\nColours: {colours}.\n"
    "Answer with a JSON object: {{\"message\": \"what you tell your partner\", \"actions\": [{{\"replace\": "
    "<position>, \"by\": {{\"shape\": <shape>, \"color\": <colour>}}}}, ...]}}. Actions edit your own hypothesis; "
    "use an empty list when nothing should change.")
DISTRACTORS = "; some clues hold distractor shapes or colours that are not in the hidden row"

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


class LLMBrain(PuzzleBrain):
    name = "llm"
    needs_llm = True
    uses_llm = True

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.said: list[tuple[str, str]] = []  # (who, text) in order

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
        me = "Player A" if v["role"] == "A" else "Player B"
        system = INSTRUCTIONS.format(me=me, n=v["size"], limit=v["turn_limit"], shapes=", ".join(v["shapes"]),
                                     colours=", ".join(v["colours"]),
                                     extra=DISTRACTORS if v.get("distractors") else "")
        hyp = " ".join(f"Position {i + 1}: {s or '?'} {c or '(colour unknown)'}." for i, (s, c)
                       in enumerate(v["hypothesis"]))
        convo = "\n".join(self.history_lines()) or "(nothing yet)"
        fb = feedback_text(v["feedback"]) if v.get("feedback") else "none"
        user = (f"Your clues (read-only): {v['clue_text']}\n\nYour current working hypothesis: {hyp}\n\n"
                f"Recent conversation:\n{convo}\n\nFeedback from the previous turn: {fb}\n\n"
                f"Round {v['round']} of {v['turn_limit']}. It is your turn. Answer with the JSON object.")
        if error:
            user += f"\n\nYour previous answer was not valid: {error} Answer again."
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def act(self):
        if not self.my_turn():
            return []
        asks, heard = self.digest()  # the symbolic beliefs stay current, for a fallback
        return self.llm_or_symbolic("turn", self._ask, lambda: self.decide(asks, heard))

    def _ask(self, act) -> list:
        v, error = self.view, None
        for _ in range(2):
            out = self.llm.chat_json(self.prompt(error), SCHEMA, usage=act)
            try:
                moves = []
                for a in out.get("actions") or []:
                    by = a.get("by") or {}
                    p, s, c = parse_replace([str(a.get("replace")), str(by.get("shape")), str(by.get("color"))],
                                            v["shapes"], v["colours"], v["size"])
                    moves.append(self.command("replace", str(p), s, c, first=not moves))
            except ValueError as exc:
                error = str(exc)
                continue
            text = str(out.get("message") or "").strip()
            moves.append(self.say(text, first=not moves) if text else self.command("done", first=not moves))
            return moves
        raise ValueError(f"invalid actions after a repair round: {error}")


__all__ = ["LLMBrain", "SCHEMA", "INSTRUCTIONS"]
