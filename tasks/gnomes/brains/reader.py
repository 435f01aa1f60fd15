"""Plain English as people type it, made readable for the Gnomes at Night rules: typos, lower case, chat
shorthand, numbers in words, treasure locations by column and row, and counted or chained move requests.

`normalize` spells the words the rules key on correctly (a fuzzy match with rapidfuzz's optimal-string-alignment
distance against a small vocabulary, so "rigth", "dwon", "tresure", "colum" and "wal" become words the rules know),
while common English words that are one letter away from a game word ("now", "let", "own", "ship") are left alone.
The extractors then read what flags cannot carry:

- `location`: where the treasure is, as (column, row) with either part possibly unknown: "column 4, row 0",
  "col four row zero", "(4, 0)", "x=4 y=0", "the top row", "second column", "bottom right corner".
- `moves`: a request as a sequence of moves: "go left twice" -> [left, left], "down 3 times",
  "right then down" -> [right, down], "two steps up".

Coordinates are the board's axis numbers (0..8, x = column to the right, y = row downward), which the page shows.
"""
from __future__ import annotations

import re
from typing import Optional

from rapidfuzz import process
from rapidfuzz.distance import OSA

from tasks.core.numbers import to_int

from ..maze import DOWN, LEFT, RIGHT, SIZE, STAY, UP

# Words the game rules look for; a typo is corrected only toward these.
VOCAB = ("right", "left", "down", "up", "stay", "wall", "walls", "treasure", "column", "columns", "row", "rows",
         "move", "please", "where", "which", "blocked", "cannot", "can't", "twice", "three", "times", "again",
         "bottom", "top", "corner", "middle", "center", "step", "steps", "another", "okay", "sorry", "through",
         "should", "there", "above", "below", "under", "north", "south", "east", "west", "direction", "token",
         "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "zero", "four",
         "five", "seven", "eight", "nine", "then", "after", "thanks", "side", "upward", "downward", "going")
_VOCAB_SET = set(VOCAB)
# Everyday words within one edit of a game word: never "corrected". Shorter tokens (<= 3 letters) are never
# corrected either (three-letter words collide too often), except the shorthand and typos listed below.
KEEP = set("""now let own ship sup pup cup tup dawn town gown done dome don lift lest felt lent loft
rift fight light might night sight tight eight wright write bright ride rid rim rig
step stop shop show slow snow stow sway stab stag stat star stir tap tip top tow toy two tea ten tin
row rod rot roe raw rob rub run rue low law lot log lag lug lee led hall ball call fall mall tall wail will
well went wild ward warm wars want what when then than them they thee the tho there their here here's
theirs these those tree trees measure pleasure pleased please where were wear here hear her hers which
witch much such wish with without wit whit white whose who whom why whole while okay stay stray star
side sides said aside tide wide wise time tims tome tone tune some same sane sand send sent seen seem
show shown down mover moves moved mode more most must move cove dove love rove colon cold could would should
shoulder ton torn turn tum top tops tip tips tap taps thee three threw throw through though thought
bottle button bottom corner comer coroner corners center centre cents middle meddle fiddle riddle
first fist fast last lust best rest test west east easy cast past vast list mist least
another other brother mother walk walks talk talks word words warm worm tell wallet walled dawned owned downs ups lefts rights rightly stays stayed moving movie mover
thinks thank think thing things colour color comes coming second seconds stops steps times tiles tries trees stair stairs lower lowest upper mind mine line lines lie lied lay lays play plays plan plans clear wheel where wore wire alright aright upright outright lets let's""".split())
SHORTHAND = {"u": "you", "ur": "your", "pls": "please", "plz": "please", "pl": "please", "thx": "thanks",
             "ty": "thanks", "k": "ok", "kk": "ok", "ok": "ok", "okey": "okay", "okie": "okay", "okk": "ok", "okok": "ok", "teh": "the", "r": "are",
             "cant": "can't", "dont": "don't", "didnt": "didn't", "wont": "won't", "im": "i'm", "ive": "i've",
             "whats": "what's", "wheres": "where's", "its": "it's", "theres": "there's", "lets": "let's",
             "col": "column", "cols": "columns", "rt": "right", "lft": "left", "dwn": "down", "nah": "no",
             "wal": "wall", "dow": "down", "dwo": "down", "lef": "left", "rit": "right", "rgt": "right", "upp": "up",
             "rwo": "row", "rite": "right", "rigt": "right", "tpo": "top", "clm": "column", "whr": "where", "wer": "where", "tre": "treasure",
             "yeah": "yes", "yep": "yes", "yup": "yes", "ya": "yes", "yea": "yes"}

_TOKEN_RE = re.compile(r"[a-z']+|[^a-z']+")
_cache: dict[str, str] = {}


def _correct(word: str) -> str:
    if word in SHORTHAND:
        return SHORTHAND[word]
    if len(word) <= 3 or word in _VOCAB_SET or word in KEEP or "'" in word:
        return word
    hit = _cache.get(word)
    if hit is None:
        limit = 1 if len(word) <= 5 else 2
        best = process.extractOne(word, VOCAB, scorer=OSA.distance, score_cutoff=limit)
        hit = _cache[word] = best[0] if best else word
    return hit


def normalize(text: str) -> str:
    """Lower case, plain quotes, shorthand expanded and game words spelled right; everything else kept."""
    text = (text or "").lower().replace("\u2019", "'").replace("\u2018", "'")
    return "".join(_correct(t) if t[0].isalpha() else t for t in _TOKEN_RE.findall(text))


# --- numbers -----------------------------------------------------------------------------------------------------
CARDINAL = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10}
ORDINAL = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5, "seventh": 6, "eighth": 7,
           "ninth": 8, "last": SIZE - 1, "1st": 0, "2nd": 1, "3rd": 2, "4th": 3, "5th": 4, "6th": 5, "7th": 6,
           "8th": 7, "9th": 8}
TIMES = {"once": 1, "twice": 2, "thrice": 3}
_NUM = r"([0-9]+|" + "|".join(CARDINAL) + r")"
_ORD = r"(" + "|".join(ORDINAL) + r")"


def number(word: str) -> Optional[int]:
    word = word.strip()
    n = to_int(word)
    return n if n is not None else CARDINAL.get(word)


# --- treasure locations ------------------------------------------------------------------------------------------
_COL_NUM = re.compile(r"\b(?:column\s*(?:number\s*|no\.?\s*|#|=|:)?|x\s*[=:])\s*" + _NUM + r"\b")
_ROW_NUM = re.compile(r"\b(?:row\s*(?:number\s*|no\.?\s*|#|=|:)?|y\s*[=:])\s*" + _NUM + r"\b")
_NUM_COL = re.compile(r"\b" + _ORD + r"\s+column\b")
_NUM_ROW = re.compile(r"\b" + _ORD + r"\s+row\b")
_PAIR = re.compile(r"[\(\[]\s*" + _NUM + r"\s*[,;/ ]\s*" + _NUM + r"\s*[\)\]]")
_BARE_PAIR = re.compile(r"\b(?:at|is|in|on|cell|square|position|spot)\s+" + _NUM + r"\s*,\s*" + _NUM + r"\b")
_ROW_WORD = re.compile(r"\b(top|bottom|upper|lower|first|last|middle|center)(?:most)?\s+row\b")
_COL_WORD = re.compile(r"\b(left|right|first|last|middle|center)(?:most)?\s+column\b|\b(leftmost|rightmost)\b")
_CORNER = re.compile(r"\b(top|bottom|upper|lower)[\s-]+(left|right)\s+corner\b|\bcorner\s+(?:at\s+)?(?:the\s+)?"
                     r"(top|bottom|upper|lower)[\s-]+(left|right)\b")
_EDGE_ROW = {"top": 0, "upper": 0, "first": 0, "bottom": SIZE - 1, "lower": SIZE - 1, "last": SIZE - 1,
             "middle": SIZE // 2, "center": SIZE // 2}
_EDGE_COL = {"left": 0, "leftmost": 0, "first": 0, "right": SIZE - 1, "rightmost": SIZE - 1, "last": SIZE - 1,
             "middle": SIZE // 2, "center": SIZE // 2}


def _valid(n: Optional[int]) -> Optional[int]:
    return n if n is not None and 0 <= n < SIZE else None


def location(text: str) -> Optional[tuple[Optional[int], Optional[int]]]:
    """(column, row) of a place the text names, either part None when not said; None when no place is named.
    `text` is normalized."""
    col = row = None
    m = _PAIR.search(text) or _BARE_PAIR.search(text)
    if m:
        col, row = _valid(number(m.group(1))), _valid(number(m.group(2)))
    m = _COL_NUM.search(text)
    if m:
        col = _valid(number(m.group(1)))
    m = _ROW_NUM.search(text)
    if m:
        row = _valid(number(m.group(1)))
    if col is None and (m := _NUM_COL.search(text)):
        col = ORDINAL[m.group(1)]
    if row is None and (m := _NUM_ROW.search(text)):
        row = ORDINAL[m.group(1)]
    if row is None and (m := _ROW_WORD.search(text)):
        row = _EDGE_ROW[m.group(1)]
    if col is None and (m := _COL_WORD.search(text)):
        col = _EDGE_COL[m.group(1) or m.group(2)]
    m = _CORNER.search(text)
    if m:
        v, h = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        row = _EDGE_ROW[v] if row is None else row
        col = _EDGE_COL[h] if col is None else col
    if col is None and row is None:
        return None
    return col, row


# --- move requests -----------------------------------------------------------------------------------------------
_DIR = {"right": RIGHT, "east": RIGHT, "left": LEFT, "west": LEFT, "up": UP, "upward": UP, "upwards": UP,
        "north": UP, "down": DOWN, "downward": DOWN, "downwards": DOWN, "south": DOWN, "stay": STAY}
_DIR_ALT = "|".join(sorted(_DIR, key=len, reverse=True))
_TIMES = r"(?:\s*(?:x\s*" + _NUM + r"|" + _NUM + r"\s*(?:times|x)\b|(once|twice|thrice)|(again)))?"
_MOVE_RE = re.compile(r"(?:\b" + _NUM + r"\s+(?:more\s+)?(?:steps?|times|squares?|cells?|spaces?)\s+(?:to\s+the\s+)?)?"
                      r"\b(" + _DIR_ALT + r")\b" + _TIMES)
# Not a request for this direction: "all right", "right now", "top right corner", "on my left" (a wall's place).
_NOT_MOVE = re.compile(r"\b(?:all|that's|you're|thats)\s+right\b|\bright\s+(?:now|away|there|here|where)\b|"
                       r"\b(?:top|bottom|upper|lower)[\s-]+(?:left|right)\b|\b(?:left|right)(?:most)?\s+column\b")


def moves(text: str) -> list[int]:
    """The moves a request asks for, in order, repeats spelled out: "left twice then down" -> [3, 3, 4].
    Capped at the board size (nobody asks for more than 8 steps at once). `text` is normalized."""
    text = _NOT_MOVE.sub(" ", text)
    out: list[int] = []
    for m in _MOVE_RE.finditer(text):
        pre, word, x_n, n_x, once, again = m.groups()
        n = number(pre or x_n or n_x or "") or TIMES.get(once or "", 1)
        if again and out and out[-1] == _DIR[word]:
            n = 1
        out += [_DIR[word]] * max(1, min(n, SIZE - 1))
    return out[:SIZE - 1]


def strip_location(text: str) -> str:
    """The text without the place it names, so "the top row, column 4" is not also read as a move up."""
    for rx in (_PAIR, _BARE_PAIR, _COL_NUM, _ROW_NUM, _NUM_COL, _NUM_ROW, _ROW_WORD, _COL_WORD, _CORNER):
        text = rx.sub(" ", text)
    return text
