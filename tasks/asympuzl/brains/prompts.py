"""The `llm` agent's prompts, in our own words (the paper published no code and no prompt files; its text describes
the prompt's parts, which both formats keep in its order: instructions, the seat's clues re-injected every turn, its
working hypothesis, the recent conversation, the previous turn's feedback, the answer format).

Two answer formats (brain option `answer`):
- "json" (ours, the default): a JSON object only, sent as a structured-output request; nothing before it.
- "paper": free text that reasons first and ends with the JSON object, as the paper's agents answered; the harness
  reads the last JSON object of the text.
The single-agent control (task option single_agent) tells one agent it sees both views and has no partner.
"""
from __future__ import annotations

import re
from typing import Optional

from ..game import feedback_text

ANSWER_FORMATS = ("json", "paper")

RULES = (
    "You are {me} in a two-player cooperative puzzle. There is a hidden row of {n} positions; each position holds "
    "one shape in one colour. Player A knows the correct shape at each position but no colours. Player B knows the "
    "correct shape-colour pairs but not their positions (its clues list them in a random order){extra}. Each player "
    "keeps a working hypothesis of the whole row, which starts as a copy of its own clues; only you can change "
    "yours, with actions. Your partner receives only your message, never your actions or hypothesis. You both "
    "succeed when both hypotheses equal the hidden row. Turns alternate, A first; the game ends after {limit} "
    "rounds.\n")
CONTROL_RULES = (
    "You are solving a puzzle alone. There is a hidden row of {n} positions; each position holds one shape in one "
    "colour{extra}. You see everything needed: the correct shape at each position, and the correct colour of each "
    "shape (listed in a random order). You keep a working hypothesis of the whole row, which only your actions "
    "change. You succeed when your hypothesis equals the hidden row; you have {limit} turns. Nobody reads your "
    "message.\n")
VOCABULARY = "Shapes: {shapes}.\nColours: {colours}.\n"
DISTRACTORS = "; some clues hold distractor shapes or colours that are not in the hidden row"

# The placeholders of the answer formats: a message equal to one of them is the format copied, not a message.
OURS_PLACEHOLDER = "what you tell your partner"
PAPER_PLACEHOLDER = "<your message to your partner>"
PLACEHOLDERS = (OURS_PLACEHOLDER, PAPER_PLACEHOLDER, "your message", "message")
ACTION_FORM = ('{{"replace": <position>, "by": {{"shape": <shape>, "color": <colour>}}}}')
OURS_FORMAT = (
    "Answer with a JSON object: {{\"message\": \"" + OURS_PLACEHOLDER + "\", \"actions\": [" + ACTION_FORM +
    ", ...]}}. Actions edit your own hypothesis; use an empty list when nothing should change.")
PAPER_FORMAT = (
    "How to answer: first think it through in plain text (what you know, what your partner has told you, what is "
    "still missing and what to say). Then end your answer with one JSON object, with nothing after it:\n"
    "{{\"message\": \"" + PAPER_PLACEHOLDER + "\", \"actions\": [" + ACTION_FORM + ", ...]}}\n"
    "Your partner receives only the message. Each action replaces one position of your own working hypothesis; "
    "an empty list changes nothing.")


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.casefold()).strip()


_PLACEHOLDER_FORMS = {_normal(p) for p in PLACEHOLDERS}


def is_placeholder(message: str) -> bool:
    """The message is one of the answer formats' placeholders (case, quotes, brackets and punctuation aside)."""
    return _normal(message) in _PLACEHOLDER_FORMS


def system_prompt(view: dict, answer: str) -> str:
    extra = DISTRACTORS if view.get("distractors") else ""
    if view.get("single_agent"):
        rules = CONTROL_RULES.format(n=view["size"], limit=view["turn_limit"], extra=extra)
    else:
        me = "Player A" if view["role"] == "A" else "Player B"
        rules = RULES.format(me=me, n=view["size"], limit=view["turn_limit"], extra=extra)
    text = rules + VOCABULARY.format(shapes=", ".join(view["shapes"]), colours=", ".join(view["colours"]))
    # ours states the format with the rules; the paper's format comes last, after the turn's state
    return text + ("" if answer == "paper" else OURS_FORMAT.format())


def user_prompt(view: dict, conversation: list[str], answer: str, error: Optional[str] = None) -> str:
    hyp = " ".join(f"Position {i + 1}: {s or '?'} {c or '(colour unknown)'}." for i, (s, c)
                   in enumerate(view["hypothesis"]))
    fb = feedback_text(view["feedback"]) if view.get("feedback") else "none"
    parts = [f"Your clues (read-only): {view['clue_text']}", f"Your current working hypothesis: {hyp}"]
    if not view.get("single_agent"):
        parts.append("Recent conversation:\n" + ("\n".join(conversation) or "(nothing yet)"))
    parts.append(f"Feedback from the previous turn: {fb}")
    turn = f"Round {view['round']} of {view['turn_limit']}. It is your turn."
    if answer == "paper":
        parts += [turn, PAPER_FORMAT.format()]
    else:
        parts.append(turn + " Answer with the JSON object.")
    text = "\n\n".join(parts)
    if error:
        text += f"\n\nYour previous answer was not valid: {error} Answer again."
    return text


__all__ = ["ANSWER_FORMATS", "PLACEHOLDERS", "is_placeholder", "system_prompt", "user_prompt"]
