"""Reading AsymPuzl talk: plain English from people ("position 3 is the red circle", "the triangle is green",
"3rd one: square", typos), the agents' own lists ("Shapes by position, 1 to 5: circle, square or hexagon, ..."),
`/replace` arguments. The noisy channel and its readers are in channel.py.

Both readers turn text into a stream of mentions (numbers, shapes, colours, "or", clause breaks, "?") and one
interpreter turns mentions into facts, so the clean reader and the noise-aware reader agree on meaning:

- `read(text, shapes, colours)`: word tokens, exact or fuzzy (rapidfuzz, >= 80) against the vocabularies.
- `channel.read_noisy(...)` and `channel.read_list_noisy(...)`: the noise-aware readers (channel.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from rapidfuzz import fuzz

NUMBER_WORDS = {w: i + 1 for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}
ORDINALS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split())}
# English words a fuzzy match would take for a shape or colour
STOP = {"start", "started", "bring", "string", "heard", "across", "narrow", "great", "greet", "read", "back",
        "fellow", "stay", "kit", "ok", "okay", "sure", "tell", "time", "like", "pick", "good", "bold", "ready",
        "right", "thing", "drops", "order", "other", "colour", "color", "shape", "shapes", "share", "where",
        "there", "here", "scare", "cycle"}
ALIASES = {"gray": "grey", "violet": "purple", "circel": "circle", "sqaure": "square", "tri": "triangle",
           "blu": "blue", "gren": "green", "yelow": "yellow"}
QUESTION = {"what", "which", "where", "whats", "what's", "colour?", "color?"}


@dataclass
class Fact:
    pos: Optional[int] = None              # 1-based position, when said
    shapes: tuple = ()                     # one shape, or alternatives ("the square or the hexagon")
    colour: Optional[str] = None


@dataclass
class Reading:
    facts: list = field(default_factory=list)
    asks: list = field(default_factory=list)  # Facts the partner asked about (what colour / where is ...)


# --- mentions -------------------------------------------------------------------------------------------------------
def _singular(tok: str) -> str:
    return tok[:-1] if len(tok) > 4 and tok.endswith("s") and not tok.endswith("ss") else tok


def _term(tok: str, vocab: list[str]) -> Optional[str]:
    tok = ALIASES.get(tok, tok)
    if tok in vocab:
        return tok
    s = _singular(tok)
    if s in vocab:
        return s
    if len(tok) < 4 or tok in STOP or not tok.isalpha():
        return None
    best, score = None, 0.0
    for v in vocab:
        if " " in v:
            continue
        r = fuzz.ratio(s, v)
        if r > score:
            best, score = v, r
    return best if score >= 80 else None


def mentions(text: str, shapes: list[str], colours: list[str]) -> list[tuple]:
    """(kind, value) in order: ("num", n), ("shape", s), ("colour", c), ("or",), ("range",), ("stop",), ("ask",)."""
    text = re.sub(r"(?<=[a-zA-Z])[^\w\s](?=[a-zA-Z])", "", text.lower())  # "squ#are", "isn't"
    toks = re.findall(r"[a-z]+|[0-9]+(?:st|nd|rd|th)?|[?.;:,\n!]|-", text)
    out: list[tuple] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        two = f"{t} {toks[i + 1]}" if i + 1 < len(toks) else ""
        if two in shapes:
            out.append(("shape", two)); i += 2; continue
        between = bool(out) and out[-1][0] == "num" and i + 1 < len(toks) and toks[i + 1][0].isdigit()
        if t in (",", "and") and between:
            pass  # "positions 1, 2 and 3": one list of numbers, not three clauses
        elif t in (".", ";", "\n", "!", ","):
            out.append(("stop", t))
        elif t == "?":
            out.append(("ask",))
        elif t in ("to", "through", "-") and out and out[-1][0] == "num":
            out.append(("range",))
        elif t[0].isdigit():
            out.append(("num", int(re.match(r"[0-9]+", t).group(0))))
        elif t == "one" and not (i and toks[i - 1] in ("position", "number", "pos", "place", "is")):
            pass  # "the red one", "3rd one": a pronoun
        elif t in NUMBER_WORDS or t in ORDINALS:
            out.append(("num", NUMBER_WORDS.get(t) or ORDINALS[t]))
        elif t in ("or", "either"):
            out.append(("or",))
        elif t in ("and", "but", "also", "then"):
            out.append(("stop", t))
        elif t in QUESTION:
            out.append(("ask",))
        else:
            m = _term(t, colours)
            if m:
                out.append(("colour", m))
            else:
                m = _term(t, shapes)
                if m:
                    out.append(("shape", m))
        i += 1
    return out


# --- facts ----------------------------------------------------------------------------------------------------------
def _items(seq: list[tuple]) -> list[tuple]:
    """Shape items of a list: consecutive shapes joined by "or" form one item of alternatives."""
    items: list[list[str]] = []
    joined = False
    for m in seq:
        if m[0] == "shape":
            if joined and items:
                items[-1].append(m[1])
            else:
                items.append([m[1]])
            joined = False
        elif m[0] == "or":
            joined = True
    return [tuple(i) for i in items]


def interpret(ms: list[tuple], size: int) -> Reading:
    out = Reading()
    # A list: "positions 1 to 5: circle, square or hexagon, ..." (order gives the positions)
    for k in range(len(ms) - 2):
        if ms[k][0] == "num" and ms[k + 1] == ("range",) and ms[k + 2][0] == "num":
            rest = ms[k + 3:]
            items = _items(rest)
            colours = [m for m in rest if m[0] == "colour"]
            if len(items) >= 2 and not colours:
                start = ms[k][1] if ms[k][1] + len(items) - 1 <= size else 1
                if len(items) == size:
                    start = 1
                out.facts += [Fact(start + j, it, None) for j, it in enumerate(items) if start + j <= size]
                ms = ms[:k]
                break
    # clauses
    clause: list[tuple] = []
    for m in ms + [("stop", "end")]:
        if m[0] != "stop":
            clause.append(m)
            continue
        if clause:
            _clause(clause, out, size)
        clause = []
    return out


def _clause(c: list[tuple], out: Reading, size: int) -> None:
    ask = any(m[0] == "ask" for m in c)
    nums = [m[1] for m in c if m[0] == "num" and 1 <= m[1] <= size]
    colours = [m[1] for m in c if m[0] == "colour"]
    target = out.asks if ask else out.facts
    if len(nums) <= 1:
        items = _items(c)
        pos = nums[0] if nums else None
        if pos is not None and len(items) <= 1 and len(colours) <= 1:
            if items or colours or ask:
                target.append(Fact(pos, items[0] if items else (), colours[0] if colours else None))
            return
        if pos is None:
            singles = [m for m in c if m[0] in ("shape", "colour")]
            # pair each shape with the colour next to it ("red circle", "circle is red", "blue square")
            used: set[int] = set()
            for j, m in enumerate(singles):
                if m[0] != "shape":
                    continue
                colour = None
                for k in (j - 1, j + 1):
                    if 0 <= k < len(singles) and singles[k][0] == "colour" and k not in used:
                        if k == j - 1 and j + 1 < len(singles) and singles[j + 1][0] == "colour" and len(colours) == 1:
                            pass
                        colour = singles[k][1]
                        used.add(k)
                        break
                if colour or ask:
                    target.append(Fact(None, (m[1],), colour))
            return
        return
    # several numbers: each number starts a group ("1 circle 2 square", "3 red and 4 blue")
    groups: list[list[tuple]] = []
    for m in c:
        if m[0] == "num":
            groups.append([m])
        elif groups:
            groups[-1].append(m)
    for g in groups:
        if 1 <= g[0][1] <= size:
            _clause(g + ([("ask",)] if ask else []), out, size)  # "which shapes are at 1, 2 and 3?": all asked


def read(text: str, shapes: list[str], colours: list[str], size: int) -> Reading:
    return interpret(mentions(text, shapes, colours), size)


# --- /replace ---------------------------------------------------------------------------------------
def parse_replace(args, shapes: list[str], colours: list[str], size: int) -> tuple[int, str, str]:
    """`3 circle red`, `3 red circle`, `position 3 large star gold` -> (3, shape, colour); ValueError otherwise."""
    ms = mentions(" ".join(str(a) for a in args), shapes, colours)
    nums = [m[1] for m in ms if m[0] == "num"]
    sh = [m[1] for m in ms if m[0] == "shape"]
    co = [m[1] for m in ms if m[0] == "colour"]
    if len(nums) != 1 or not 1 <= nums[0] <= size:
        raise ValueError(f"Say which position (1 to {size}), e.g. /replace 3 circle red.")
    if len(sh) != 1 or len(co) != 1:
        raise ValueError("Say one shape and one colour, e.g. /replace 3 circle red. Shapes: "
                         + ", ".join(shapes) + ". Colours: " + ", ".join(colours) + ".")
    return nums[0], sh[0], co[0]
