"""A rule-based reader for chat from people (or other agents) in TRAVELING ADVENTURERS.

`read(text, rooms)` returns a `Reading`: the rooms mentioned, a suggested path, the speaker's coin statements
("L-K is 5", "the hallway between the kitchen and the attic has 7 coins", "K to B: 3", "5 coins on L-K"), the
hallways the speaker asks about ("what are your coins on L-K?", "how many between kitchen and attic?"), a request
for all coins, a cap on the speaker's unrevealed coins ("my other hallways have at most 5"), and yes/no words.
It is deliberately conservative: a number is only read as coins when it sits next to a hallway, and amounts said
to be joint ("together", "in total") are not taken as the speaker's own coins.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..board import ROOM_ALIASES, edge

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
                "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}
YES_WORDS = {"yes", "yeah", "yep", "yup", "ok", "okay", "sure", "agreed", "agree", "fine", "deal", "great",
             "perfect", "good", "correct", "right", "alright", "absolutely", "definitely", "accept", "accepted"}
JOINT_WORDS = {"together", "total", "joint", "combined", "both", "sum", "altogether", "overall"}
QUESTION_STARTS = {"what", "how", "could", "can", "would", "will", "which", "do", "does", "tell", "share", "give",
                   "please", "may", "is", "are", "whats", "what's", "let", "show", "reveal"}
MOVE_WORDS = {"go", "visit", "next", "then", "how", "about", "let's", "lets", "suggest", "propose", "try",
              "route", "path", "tour", "head", "move", "continue", "start", "via", "after", "plan", "order"}
CAP_RE = re.compile(
    r"(?:at most|no more than|not more than|up to|max(?:imum)?(?: of)?|<=|≤)\s*(\d+)"
    r"|(\d+)\s*(?:or less|or fewer|or below|or lower|max\b)"
    r"|(?:less than|fewer than|below|under|<)\s*(\d+)")
CAP_SCOPE = re.compile(r"\b(other|others|rest|remaining|unshared|all of my|all my|every other|everything else|"
                       r"the others)\b")
ASK_ALL_RE = re.compile(r"\b(all|every|each)\b.*\b(coins?|hallways?|numbers?|values?|weights?)\b"
                        r"|\b(your|ur)\s+(coins|numbers|values|weights|hallways)\b")

_TOKEN_RE = re.compile(r"\d+|[A-Za-z]+(?:'[a-z]+)?|[-\u2013\u2014>\u2192:=/]+|[?!.;,]")
_ALIAS_WORDS = max(len(a.split()) for a in ROOM_ALIASES)


@dataclass
class Reading:
    text: str
    rooms: list[str] = field(default_factory=list)        # rooms mentioned, in order
    path: Optional[list[str]] = None                      # a suggested path (room sequence) when the text suggests one
    coins: dict = field(default_factory=dict)             # edge -> coins the speaker states as their own
    asks: list = field(default_factory=list)              # edges the speaker asks the listener about
    ask_all: bool = False                                 # "share all your coins"
    cap: Optional[int] = None                             # "my other hallways have at most N coins"
    yes: bool = False
    no: bool = False
    question: bool = False

    def to_json(self) -> dict:
        return {"rooms": self.rooms, "path": self.path,
                "coins": {f"{u}-{v}": w for (u, v), w in self.coins.items()},
                "asks": [f"{u}-{v}" for u, v in self.asks], "ask_all": self.ask_all, "cap": self.cap,
                "yes": self.yes, "no": self.no, "question": self.question}


@dataclass
class _Tok:
    kind: str  # room, num, word, sep, punct
    value: object
    raw: str


def _tokens(sentence: str, rooms: Sequence[str]) -> list[_Tok]:
    allowed = set(rooms)
    raw = _TOKEN_RE.findall(sentence)
    low = [w.lower() for w in raw]
    out: list[_Tok] = []
    i = 0
    while i < len(raw):
        w, lw = raw[i], low[i]
        # Room names first, longest phrase first ("play room" before "play").
        hit = None
        for k in range(min(_ALIAS_WORDS, len(raw) - i), 0, -1):
            phrase = " ".join(low[i:i + k])
            letter = ROOM_ALIASES.get(phrase)
            if letter in allowed and not (k == 1 and len(phrase) == 1):
                hit = (letter, k)
                break
        if hit:
            out.append(_Tok("room", hit[0], " ".join(raw[i:i + hit[1]])))
            i += hit[1]
            continue
        if w.isdigit():
            out.append(_Tok("num", int(w), w))
        elif lw in NUMBER_WORDS:
            out.append(_Tok("num", NUMBER_WORDS[lw], w))
        elif len(w) == 1 and w.isupper() and w in allowed:
            out.append(_Tok("room", w, w))
        elif len(w) == 2 and w.isupper() and all(c in allowed for c in w) and w[0] != w[1] and w != "OK":
            out.append(_Tok("pair", (w[0], w[1]), w))  # "LK" as a hallway
        elif w in "?!.;,":
            out.append(_Tok("punct", w, w))
        elif not w[0].isalnum():
            out.append(_Tok("sep", w, w))
        else:
            out.append(_Tok("word", lw, w))
        i += 1
    # A sentence-initial "A" followed by an ordinary word is the article, not the attic.
    if out and out[0].kind == "room" and out[0].raw == "A" and len(out) > 1 and out[1].kind == "word" \
            and out[1].value not in ("to", "and", "is", "has", "-", "k"):
        out[0] = _Tok("word", "a", "A")
    return out


def _edges(toks: list[_Tok]) -> list[tuple[int, int, tuple[str, str]]]:
    """Hallway mentions as (first token index, last token index, edge)."""
    found = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "pair":
            found.append((i, i, edge(*t.value)))
            i += 1
            continue
        if t.kind == "word" and t.value == "between":
            # between R1 and R2
            j = i + 1
            while j < len(toks) and toks[j].kind == "word" and toks[j].value in ("the", "a"):
                j += 1
            if j < len(toks) and toks[j].kind == "room":
                k = j + 1
                while k < len(toks) and toks[k].kind == "word" and toks[k].value in ("and", "the", "&"):
                    k += 1
                if k < len(toks) and toks[k].kind == "room" and toks[k].value != toks[j].value:
                    found.append((i, k, edge(toks[j].value, toks[k].value)))
                    i = k + 1
                    continue
        if t.kind == "room":
            j = i + 1
            connectors = 0
            while j < len(toks) and ((toks[j].kind == "sep") or
                                     (toks[j].kind == "word" and toks[j].value in ("to", "and", "the"))):
                connectors += 1
                j += 1
            if connectors and j < len(toks) and toks[j].kind == "room" and toks[j].value != t.value:
                # A chain "L-K-B" is a path, not a hallway, unless a number follows directly.
                chain = j + 1 < len(toks) and toks[j + 1].kind == "sep" and j + 2 < len(toks) \
                    and toks[j + 2].kind == "room"
                if not chain:
                    found.append((i, j, edge(t.value, toks[j].value)))
                    i = j + 1
                    continue
        i += 1
    return found


_FILLER_BEFORE_NUM = {"is", "are", "has", "have", "had", "with", "there", "i", "my", "it", "its", "it's", "holds",
                      "hold", "gives", "give", "got", "get", "worth", "of", "about", "for", "me", "mine", "coins",
                      "coin", "hallway", "hallways", "in", "on", "at", "the", "world", "light", "ghost", "only",
                      "just", "be", "would", "will", "equals", "exactly", "carries", "contains"}
_PREP_AFTER_NUM = {"coins", "coin", "on", "in", "for", "at", "between", "along", "through", "across", "from"}


def _coin_statements(toks: list[_Tok], mentions) -> dict:
    out: dict = {}
    used: set[int] = set()
    # (a) "5 coins on L-K": a number, then only coin words/prepositions, then the hallway.
    for a, b, e in mentions:
        j = a - 1
        while j >= 0 and toks[j].kind == "word" and toks[j].value in _PREP_AFTER_NUM | {"the", "hallway"}:
            j -= 1
        if j >= 0 and j < a - 1 and toks[j].kind == "num" and j not in used:
            out[e] = toks[j].value
            used.add(j)
    # (b) "L-K is 5", "L-K: 5", "between L and K I have 7 coins": the hallway, a few filler words, a number.
    for a, b, e in mentions:
        if e in out:
            continue
        j = b + 1
        while j < len(toks) and (toks[j].kind == "sep" or (toks[j].kind == "word" and toks[j].value in
                                                           _FILLER_BEFORE_NUM)):
            j += 1
        if j < len(toks) and toks[j].kind == "num" and j not in used:
            out[e] = toks[j].value
            used.add(j)
    return out


def _sentences(text: str) -> list[tuple[str, bool]]:
    """Split into (sentence, is_question)."""
    parts = re.findall(r"[^.?!\n]+[.?!]*", text)
    out = []
    for p in parts:
        s = p.strip()
        if s:
            out.append((s, s.endswith("?")))
    return out


def read(text: str, rooms: Sequence[str], wmin: int = 0, wmax: int = 10 ** 6) -> Reading:
    """Read one chat message. `rooms` are the letters of this house; coin values outside [wmin, wmax] are dropped."""
    r = Reading(text=text)
    r.yes, r.no = _yes_no(text)
    for sentence, q in _sentences(text):
        toks = _tokens(sentence, rooms)
        if not toks:
            continue
        first = next((t.value for t in toks if t.kind == "word"), "")
        low = sentence.lower()
        question = q or (toks[0].kind == "word" and toks[0].value in QUESTION_STARTS and
                         bool(re.search(r"\b(you|your|yours|ur)\b", low)))
        r.question = r.question or question
        sent_rooms = [t.value for t in toks if t.kind == "room"] + [c for t in toks if t.kind == "pair"
                                                                  for c in t.value]
        r.rooms.extend(sent_rooms)
        mentions = _edges(toks)
        joint = bool(set(re.findall(r"[a-z]+", low)) & JOINT_WORDS)
        about_you = bool(re.search(r"\b(you|your|yours|ur)\b", low))
        if question or (about_you and toks[0].kind == "word" and toks[0].value in QUESTION_STARTS):
            for _, _, e in mentions:
                if e not in r.asks:
                    r.asks.append(e)
            if not mentions:
                single = [t.value for t in toks if t.kind == "room"]
                if len(single) == 1 and re.search(r"\b(coins?|hallways?|numbers?)\b", low):
                    # "what are your coins from the kitchen?": every hallway at that room.
                    for other in rooms:
                        if other != single[0] and edge(single[0], other) not in r.asks:
                            r.asks.append(edge(single[0], other))
                elif ASK_ALL_RE.search(low) and about_you:
                    r.ask_all = True
            continue
        m = CAP_RE.search(low)
        if m and CAP_SCOPE.search(low) and not mentions:
            if m.group(1) or m.group(2):
                r.cap = int(m.group(1) or m.group(2))
            else:
                r.cap = int(m.group(3)) - 1
        if not joint:
            for e, w in _coin_statements(toks, mentions).items():
                if wmin <= w <= wmax:
                    r.coins[e] = w
        # A path suggestion: rooms in order, no coin numbers, and a movement word or a chain of 3+ rooms.
        if sent_rooms and not r.coins and not any(t.kind == "num" for t in toks):
            moving = bool(set(t.value for t in toks if t.kind == "word") & MOVE_WORDS) or first in MOVE_WORDS
            if moving or len(sent_rooms) >= 3:
                r.path = _dedupe_path(sent_rooms)
    return r


NEGATIONS = {"not", "don't", "dont", "do't", "can't", "cannot", "won't", "never", "hardly"}
NO_FIRST = {"no", "nope", "nah", "nay"}
NO_WORDS = {"disagree", "reject", "rejected", "decline", "wrong", "worse", "instead", "rather", "bad"}


def _yes_no(text: str) -> tuple[bool, bool]:
    """(yes, no): a yes-word counts unless negated just before it ("I don't agree" is a no)."""
    words = re.findall(r"[a-z']+", text.lower())
    yes = no = False
    for i, w in enumerate(words):
        if w in YES_WORDS:
            if set(words[max(0, i - 2):i]) & NEGATIONS:
                no = True
            else:
                yes = True
    if words and words[0] in NO_FIRST and words[:2] != ["no", "problem"]:
        no, yes = True, False
    if set(words) & NO_WORDS:
        no = True
    if "sounds good" in text.lower() or "let's do it" in text.lower():
        yes = True
    return yes, no


def _dedupe_path(rooms: list[str]) -> list[str]:
    out: list[str] = []
    for x in rooms:
        if not out or out[-1] != x:
            out.append(x)
    return out
