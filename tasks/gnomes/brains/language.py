"""Language for Gnomes at Night: intent flags, a rule-based reader, templates, and optional LLM helpers.

Flags (the paper's F): the five moves stay, right, up, left, down, plus Accept, Reject, Inquiry and None.
Messages are read into flags (rule-based, or by an LLM classifier when one is configured) and written from
templates ("Can you move right?", "I cannot move left: a wall blocks that side.").

The reader also pulls out what flags cannot carry: the direction a Reject names ("I cannot move LEFT"), a treasure
hint ("the treasure is up and to the right"), and a wall line ("In this row I can only move down in columns 0 and
8.", a template of ours beyond the paper's: walls come in lines, and naming the openings saves a rejection per
cell).

`llm` is any object with `chat(messages, usage=None) -> str` and `chat_json(messages, schema, usage=None) -> dict`
that raises on failure; callers fall back to the rules (this module never imports the bot runtime). The flag schema
(`FLAG_SCHEMA`, an enum) goes out as the structured-output request and validates the answer; the answer to a
question is free text, asked with a small `max_tokens` (ANSWER_MAX_TOKENS) when the client takes one. Both prompts
start with a stable prefix (the system prompt, then the worked examples), so a server's prefix cache reuses it.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Optional

from . import reader
from ..maze import ACTIONS, DOWN, LEFT, RIGHT, STAY, UP

FLAGS = ("stay", "right", "up", "left", "down", "Accept", "Reject", "Inquiry", "None")
MOVE_FLAGS = FLAGS[:5]
ACCEPT, REJECT, INQUIRY, NONE = "Accept", "Reject", "Inquiry", "None"

PHRASE = {STAY: "stay put", RIGHT: "move right", UP: "move up", LEFT: "move left", DOWN: "move down"}


# --- templates ---------------------------------------------------------------------------------------------------
def suggest(action: int) -> str:
    return f"Can you {PHRASE[action]}?"


def suggest_again(action: int) -> str:
    return f"And {ACTIONS[action]} again, please."


def wall_reject(action: int) -> str:
    return f"I cannot {PHRASE[action]}: a wall blocks that side."


def wall_line(action: int, opens: list[int]) -> str:
    """Where in the token's row (up/down) or column (left/right) we can make `action`: one wall rarely comes
    alone, and this saves the partner from trying the cells one by one."""
    scope, unit = ("row", "column") if action in (UP, DOWN) else ("column", "row")
    if not opens:
        return f"I cannot {PHRASE[action]} anywhere in this {scope}."
    nums = [str(i) for i in sorted(opens)]
    listed = nums[0] if len(nums) == 1 else ", ".join(nums[:-1]) + " and " + nums[-1]
    return f"In this {scope} I can only {PHRASE[action]} in {unit}{'s' if len(nums) > 1 else ''} {listed}."


_LINE_ONLY_RE = re.compile(r"\bin\s+this\s+(row|column),?\s+i\s+can\s+only\s+(?:move\s+|go\s+)?(right|up|left|down)\s+"
                           r"(?:in|at|from)\s+(?:the\s+)?(?:columns?|rows?)\s+([0-9\s,and]+)", re.I)
_LINE_NONE_RE = re.compile(r"\bi\s+(?:cannot|can'?t|can\s+not)\s+(?:move\s+|go\s+)?(right|up|left|down)\s+"
                           r"anywhere\s+in\s+this\s+(row|column)\b", re.I)
_WORD_ACTION = {"right": RIGHT, "up": UP, "left": LEFT, "down": DOWN}


def _read_line(text: str) -> Optional[tuple[int, tuple[int, ...]]]:
    m = _LINE_ONLY_RE.search(text)
    if m:
        idx = tuple(sorted({int(n) for n in re.findall(r"[0-9]+", m.group(3)) if 0 <= int(n) < 9}))
        return _WORD_ACTION[m.group(2).lower()], idx
    m = _LINE_NONE_RE.search(text)
    if m:
        return _WORD_ACTION[m.group(1).lower()], ()
    return None


ASK_TREASURE = "Where is the treasure?"
ONLY_YOU_SEE = "Only you see the treasure this round. Which way should we go?"


def treasure_direction(token: tuple[int, int], treasure: tuple[int, int]) -> str:
    """A truthful, general answer: the direction of the treasure from the token (as the paper's prompt asks)."""
    dx, dy = treasure[0] - token[0], treasure[1] - token[1]
    parts = []
    if dy:
        parts.append("up" if dy < 0 else "down")
    if dx:
        parts.append("to the right" if dx > 0 else "to the left")
    if not parts:
        return "The treasure is right where the token is."
    if len(parts) == 1:
        where = {"up": "straight up from", "down": "straight down from"}.get(parts[0], f"straight {parts[0]} of")
        return f"The treasure is {where} the token."
    return f"The treasure is {parts[0]} and {parts[1]} of the token."


# --- rule-based reader -------------------------------------------------------------------------------------------
_DIR_WORDS = [
    (STAY, r"stay(?:\s+put)?|wait|hold(?:\s+on)?|don'?t\s+move|do\s+not\s+move|pass|remain|no\s*op"),
    (RIGHT, r"right|east|→"),
    (LEFT, r"left|west|←"),
    (UP, r"up|upward|upwards|north|above|↑|top"),
    (DOWN, r"down|downward|downwards|south|below|under|underneath|beneath|↓|bottom"),
]
_DIR_RE = re.compile(r"\b(" + "|".join(f"(?P<d{a}>{p})" for a, p in _DIR_WORDS) + r")(?!\w)", re.I)
# Uses of "right" that are not a direction.
_NOT_DIRECTION = re.compile(r"\b(all\s+right|alright|that'?s\s+right|you'?re\s+right|right\s+now|right\s+away|"
                            r"right\s+there|right\s+here|right\s+where|the\s+right\s+(?:way|move|one|path))\b", re.I)
_ACCEPT_RE = re.compile(r"^\W*(ok(?:ay)?|k|sure|yes|yeah|yep|yup|done|i\s+did|did\s+it|got\s+it|will\s+do|"
                        r"alright|all\s+right|fine|great|good|perfect|thanks?|thank\s+you|sounds\s+good|agreed|"
                        r"of\s+course|no\s+problem|roger|cool|correct|that'?s\s+right|you'?re\s+right)\b", re.I)
_REJECT_RE = re.compile(r"\b(wall|walls|blocked|block|blocking|can'?t|cannot|can\s+not|couldn'?t|unable|"
                        r"impossible|won'?t\s+work|not\s+possible|no\s+way|didn'?t\s+move|doesn'?t\s+move|stuck)\b",
                        re.I)
_NO_RE = re.compile(r"^\W*(no|nope|nah|negative)\b", re.I)
_QUESTION_WORDS = re.compile(r"\b(where|which\s+way|which\s+direction|what\s+direction|what\s+way|how\s+far|"
                             r"what\s+should|where\s+should|should\s+i|shall\s+i|do\s+you\s+see|can\s+you\s+see|"
                             r"what\s+now|any\s+idea|help)\b", re.I)
_REQUEST_RE = re.compile(r"\b(can|could|would|will)\s+you\b|\bplease\b|\b(move|go|step|try|head)\b|"
                         r"\bfirst\s+move\b|\bnext\b", re.I)
_FIRST_MOVE_RE = re.compile(r"\bfirst\s+(?:move|step)\s+(?:should\s+be|is|:)?\s*", re.I)
_TREASURE_RE = re.compile(r"\b(treasure|it'?s|it\s+is|goal|target)\b", re.I)
_STRAIGHT_RE = re.compile(r"\b(straight|directly|exactly|just)\b", re.I)
_SENTENCE_RE = re.compile(r"(?<=[.!?;])\s+|\n+|\s+but\s+|,\s*(?=(?:can|could|would|will)\s+you\b|please\b|so\b|"
                          r"then\b|instead\b)", re.I)
# The writer describes its own move ("moving up now", "I'll go left"): information, not a request.
_SELF_RE = re.compile(r"^\W*(?:(?:yes|ok(?:ay)?|sure)\W+)?(?:(?:i'?m|i\s+am)\s+(?:moving|going)|(?:i'?ll|i\s+will)\s+"
                      r"(?:move|go)|i\s+(?:moved|went|move|go)|moving|going|moved|went)\b", re.I)
_ASKS_SELF_RE = re.compile(r"\b(should|shall|can|may|do)\s+i\b", re.I)
_THEN_RE = re.compile(r"^\W*(?:and\s+)?(?:then|after\s+that|next)\b", re.I)
# A yes/no question about the game ("is it in the top row?", "are we close?").
_YES_NO_RE = re.compile(r"^\W*(is|are|do|does|did|was|were|have|has)\s+(it|the|we|you|there|that)\b", re.I)
# Leaving the choice to us: agreement to whatever we do next.
_DEFER_RE = re.compile(r"\b(you\s+(?:choose|decide|pick|lead)|up\s+to\s+you|your\s+call|whatever\s+you|"
                       r"(?:you|u)\s+know\s+best|follow\s+you)\b", re.I)


def _directions(text: str) -> list[int]:
    text = _NOT_DIRECTION.sub(" ", text)
    out = []
    for m in _DIR_RE.finditer(text):
        for a, _ in _DIR_WORDS:
            if m.group(f"d{a}"):
                out.append(a)
                break
    return out


@dataclass
class Reading:
    """What the rules read from one message."""

    flag: str = NONE                           # the primary flag
    flags: list = field(default_factory=list)  # one flag per sentence, in order
    reject_direction: Optional[int] = None     # the move a Reject names
    hint: Optional[set] = None                 # treasure directions from a statement
    straight: bool = False
    # Where along the token's row (for up/down) or column (for left/right) the writer can make a move:
    # (action, open indices); an empty tuple means nowhere in that line.
    line: Optional[tuple[int, tuple[int, ...]]] = None
    location: Optional[tuple] = None           # (column, row) of the treasure, either part None when not said
    moves: list = field(default_factory=list)  # a request spelled out: "left twice then down" -> [3, 3, 4]
    walls: list = field(default_factory=list)  # every direction a wall sentence names ("walls up and left")
    info: bool = False                         # a statement about the treasure (information, not a request)
    question: bool = False                     # the text asks something (a "?" or a question word)
    asks_about: Optional[int] = None           # the move a question asks about ("should I go left?")

    @property
    def unclear(self) -> bool:
        """Nothing the game can use: no flag, place, hint or wall line ("hmm", "asdf")."""
        return (self.flag == NONE and not self.flags and not self.info and self.location is None
                and self.line is None and not self.hint and not self.walls)


def read(text: str) -> Reading:
    """Rule-based reading of one chat message (typos, shorthand and case are normalized first)."""
    text = reader.normalize((text or "").strip())
    r = Reading()
    if not text:
        return r
    r.line = _read_line(text)
    r.question = "?" in text or bool(_QUESTION_WORDS.search(text))
    r.location = None if r.line else reader.location(text)
    if r.location is not None and not _ASKS_SELF_RE.search(text) and not re.search(r"\bis\s+it\b", text):
        r.info = True
        text = reader.strip_location(text)
    else:
        r.location = None
    for sentence in [s for s in _SENTENCE_RE.split(text) if s and s.strip()]:
        f = _read_sentence(sentence, r)
        if f != NONE:
            r.flags.append(f)
    if r.flags:
        # A direction request is what the partner wants next, so it beats an acknowledgement ("OK. Go down.");
        # a Reject or an Inquiry always matters and is kept in `flags` for the caller.
        moves = [f for f in r.flags if f in MOVE_FLAGS]
        for pref in (REJECT, INQUIRY):
            if pref in r.flags and not moves:
                r.flag = pref
                break
        else:
            r.flag = moves[0] if moves else r.flags[0]
    return r


def _read_sentence(s: str, r: Reading) -> str:
    if _read_line(s):
        return NONE  # information about walls, not a request
    dirs = _directions(s)
    question = "?" in s or bool(_QUESTION_WORDS.search(s))
    mentions_treasure = bool(re.search(r"\btreasure|goal|target\b", s, re.I))
    # A statement about where the treasure is: a hint for our belief (and, as the paper's flags would have it,
    # its first direction).
    if not question and dirs and _TREASURE_RE.search(s) and (mentions_treasure or not _REQUEST_RE.search(s)) \
            and not _REJECT_RE.search(s):
        hint = {a for a in dirs if a != STAY}
        if hint:
            r.hint = (r.hint or set()) | hint
            r.straight = r.straight or bool(_STRAIGHT_RE.search(s))
            r.info = True
            return NONE  # where the treasure is: information for our belief, not a move request
    if r.info and not dirs and not question and not _REJECT_RE.search(s):
        return NONE  # the rest of a location statement ("it is at ...")
    if _DEFER_RE.search(s):
        return ACCEPT
    if question and ((mentions_treasure or not dirs) and _QUESTION_WORDS.search(s) or mentions_treasure
                     or _ASKS_SELF_RE.search(s) or _YES_NO_RE.search(s)):
        if dirs and _ASKS_SELF_RE.search(s) and r.asks_about is None:
            r.asks_about = dirs[0]
        return INQUIRY
    if _REJECT_RE.search(s) and not mentions_treasure:
        if dirs and r.reject_direction is None:
            r.reject_direction = next((a for a in dirs if a != STAY), None)
        r.walls += [a for a in dirs if a != STAY and a not in r.walls]
        return REJECT
    if dirs and _SELF_RE.search(s) and not re.search(r"\byou\b", s, re.I):
        return ACCEPT
    if dirs:
        mv = reader.moves(s)
        m = _FIRST_MOVE_RE.search(s)
        if m:
            after = _directions(s[m.end():])
            if after:
                mv = reader.moves(s[m.end():]) or [after[0]]
                dirs = after
        if not mv or mv[0] != dirs[0]:
            mv = [dirs[0]]
        if not r.moves:
            r.moves = mv
        elif _THEN_RE.match(s):
            r.moves = (r.moves + mv)[:8]  # "go up, then left" was split at the comma
        return ACTIONS[dirs[0]]
    if _NO_RE.search(s):
        return REJECT
    if _ACCEPT_RE.search(s):
        return ACCEPT
    if question:
        return INQUIRY
    return NONE


def read_flag(text: str) -> str:
    return read(text).flag


# --- LLM helpers -------------------------------------------------------------------------------------------------
# Few-shot examples written for this suite (in the spirit of the paper's prompt, not copied from it).
_EXAMPLES = [
    ("Go right first, then we head down.", "right"),
    ("could you take one step to the left", "left"),
    ("Which way is the treasure from here?", "Inquiry"),
    ("Please don't move this turn.", "stay"),
    ("okay, done", "Accept"),
    ("There's a wall on my side, I can't go there.", "Reject"),
    ("up please", "up"),
    ("lol", "None"),
]

CLASSIFIER_SYSTEM = (
    "You read one chat message from a cooperative maze game in which two players take turns moving a shared "
    "token. Label what the writer wants from their partner with exactly one flag: stay, right, up, left, down "
    "(a move they ask the partner to make; use stay only when they explicitly ask the partner not to move), "
    "Accept (agreement or confirmation), Reject (they cannot or will not do what was asked, e.g. a wall), "
    "Inquiry (they ask for information, such as where the treasure is), or None (anything else)."
)

FLAG_SCHEMA = {
    "title": "flag",
    "type": "object",
    "properties": {"flag": {"type": "string", "enum": list(FLAGS)}},
    "required": ["flag"],
    "additionalProperties": False,
}


def classifier_messages(text: str, context: str = "") -> list[dict]:
    shots = "\n".join(f'Message: "{m}"\nFlag: {f}' for m, f in _EXAMPLES)
    ctx = f"\nEarlier in the conversation:\n{context}\n" if context else ""
    user = (f"Examples:\n{shots}\n{ctx}\nNow label this message. Answer as JSON {{\"flag\": ...}}.\n"
            f'Message: "{text}"\nFlag:')
    return [{"role": "system", "content": CLASSIFIER_SYSTEM}, {"role": "user", "content": user}]


def llm_flag(llm, text: str, context: str = "", usage: Optional[dict] = None, **sampling) -> str:
    """The LLM's flag for a message; raises when the call fails or the answer is not a flag. `sampling`: the
    brain's settings for this use (Brain.sampling)."""
    if not text.strip():
        return NONE
    out = llm.chat_json(classifier_messages(text, context), FLAG_SCHEMA, usage=usage, **sampling)
    flag = out.get("flag") if isinstance(out, dict) else None
    if flag not in FLAGS:
        # Accept a differently-cased answer but nothing else.
        flag = next((f for f in FLAGS if isinstance(flag, str) and f.lower() == flag.strip().lower()), None)
    if flag is None:
        raise ValueError(f"not a flag: {out!r}")
    return flag


ANSWER_SYSTEM = (
    "You help a player in the cooperative maze game Gnomes at Night. Answer their question in at most 30 words. "
    "Point out the general direction rather than exact steps, and mention that walls may be in the way. "
    "Coordinates are (x, y) from (0, 0) at the top-left; x grows to the right and y grows downward."
)


def answer_messages(question: str, token: tuple[int, int], treasure: Optional[tuple[int, int]]) -> list[dict]:
    seen = (f"The treasure is at {list(treasure)}; you can see it and your partner cannot." if treasure
            else "You cannot see the treasure this round; your partner can.")
    user = (f"The token is at {list(token)}. {seen}\n"
            f'Your partner asks: "{question}"\nReply to your partner:')
    return [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": user}]


def template_answer(token: tuple[int, int], treasure: Optional[tuple[int, int]]) -> str:
    """Where the treasure is, by the board's axis numbers and as a direction from the token (people use both)."""
    if not treasure:
        return ONLY_YOU_SEE
    where = treasure_direction(token, treasure)
    return f"The treasure is at column {treasure[0]}, row {treasure[1]}. " + where.replace("The treasure is", "It is")


def place(location: tuple) -> str:
    col, row = location
    return " and ".join(p for p in (f"column {col}" if col is not None else "",
                                    f"row {row}" if row is not None else "") if p)


# What the agent says to people beyond the paper's templates.
CLARIFY = ("Sorry, I did not understand that. You can ask me to move (left, right, up, down or stay), tell me "
           "where the treasure is (for example column 4, row 0), or tell me about a wall on your side.")


FOLLOW = "You can see the treasure this round, so you know best: I will follow your lead."


def thanks_location(location: tuple) -> str:
    return f"Thanks! I will head for {place(location)}."


def own_way(action: int) -> str:
    return f"I can see the treasure from here, so I will {PHRASE[action]} instead."


def yes_no(best: bool, action: Optional[int]) -> str:
    if best:
        return "Yes, that is a good move."
    return "No, better not." + (f" Can you {PHRASE[action]} instead?" if action is not None else "")


ANSWER_MAX_TOKENS = 64  # "at most 30 words" (the answer is cut at max_words anyway)


def _takes(fn, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def llm_answer(llm, question: str, token, treasure, usage: Optional[dict] = None, max_words: int = 40,
               **sampling) -> str:
    kw = {"max_tokens": ANSWER_MAX_TOKENS} if _takes(llm.chat, "max_tokens") else {}
    text = llm.chat(answer_messages(question, token, treasure), usage=usage, **{**kw, **sampling})
    text = " ".join(str(text).split())
    if not text:
        raise ValueError("empty answer")
    words = text.split(" ")
    return " ".join(words[:max_words]) + ("…" if len(words) > max_words else "")
