"""The noisy channel of AsymPuzl and the readers that know it.

The channel inserts a random character after each character of a message with probability `rate` (seeded per
move); it never deletes or changes one, so every word sent is a subsequence of what arrived. The readers use that:
- `read_noisy`: vocabulary terms found as tight subsequences of the character stream (no word boundaries trusted;
  a number counts only after "position"; a digit run gives its longest in-range number), then the same
  interpreter as the plain reader (parse.interpret).
- `read_list_noisy`: the share-all lists, decoded whole by a beam search over the items (one per position, or one
  colour-shape pair each), so a damaged item never shifts the others.
"""
from __future__ import annotations

import random
import re
import string
from typing import Optional

from .parse import Fact, Reading, interpret

NOISE_CHARS = string.ascii_letters + string.digits + ",.;:!?-#*"
_DIGITS = re.compile(r"[0-9]+")


def add_noise(text: str, rate: float, rng: random.Random) -> str:
    """The noisy channel: after each character, with probability `rate`, one random character is inserted."""
    if rate <= 0:
        return text
    out = []
    for ch in text:
        out.append(ch)
        if rng.random() < rate:
            out.append(rng.choice(NOISE_CHARS))
    return "".join(out)


def _embed(s: str, term: str, i: int) -> Optional[int]:
    """Characters skipped when `term` is found as a subsequence of s starting exactly at i (None: not found)."""
    j = i
    for ch in term:
        k = s.find(ch, j)
        if k < 0 or k - i > 2 * len(term):
            return None
        j = k + 1
    return (j - i) - len(term), j


def noisy_mentions(text: str, shapes: list[str], colours: list[str], size: int) -> list[tuple]:
    """Mentions of a text damaged by inserted characters: vocabulary terms found as tight subsequences."""
    s = text.lower()
    kw = {"position": None, "shapes": None, "pairs": None, "colour": None, "the": None,
          "is": None, "my": None, "by": None}
    terms = ([(w, ("colour", w)) for w in colours] + [(w, ("shape", w)) for w in shapes] +
             [(w, None) for w in kw] + [("or", ("or",)), ("to", ("range",))] +
             [(str(n), ("num", n)) for n in range(1, size + 1)])
    terms.sort(key=lambda t: -len(t[0]))
    out: list[tuple] = []
    i = 0
    end = len(s.rstrip())  # a "?" at or after this is the last thing said (found once: linear)
    while i < len(s):
        if s[i] == "?" and i + 1 >= end:
            out.append(("ask",))
        best = None
        if "0" <= s[i] <= "9":  # an ASCII digit run: the longest in-range number it holds (inserted digits are rarer)
            run = _DIGITS.match(s, i).group(0)
            cands = sorted({int("".join(run[k] for k in range(len(run)) if mask >> k & 1))
                            for mask in range(1, 1 << min(len(run), 6))}, key=lambda n: -len(str(n)))
            num = next((n for n in cands if 1 <= n <= size and str(n)[0] != "0"), None)
            if num is not None and out and out[-1][0] in ("kw", "range"):
                out.append(("num", num))
            i += len(run)
            continue
        if i == 0 or not s[i - 1].isalpha() or (i > 1 and not s[i - 2].isalpha()):
            for word, m in terms:
                if word[0] != s[i]:
                    continue
                got = _embed(s, word, i)
                if got is None or got[0] > len(word) // 3 + (len(word) > 3):
                    continue
                if best is None or len(word) - 3 * got[0] > len(best[0]) - 3 * best[2]:
                    best = (word, m, got[0], got[1])
        if best is None:
            i += 1
            continue
        m = best[1]
        if best[0].startswith("position"):
            m = ("kw",)
        if m is not None and m[0] == "num" and not (out and out[-1][0] in ("kw", "range")):
            m = None  # inserted digits: a number counts only after "position" (or in a range)
        if m is not None and not (m == ("range",) and not (out and out[-1][0] == "num")):
            out.append(m)
        i = best[3]
    return out


def read_noisy(text: str, shapes: list[str], colours: list[str], size: int) -> Reading:
    return interpret([m for m in noisy_mentions(text, shapes, colours, size) if m[0] != "kw"], size)


# --- the agents' own lists through the noisy channel ----------------------------------------------------------------
def _embed_near(s: str, term: str, pos: int, window: int, limit: Optional[int] = None) -> Optional[tuple]:
    """(start, end, skipped) of `term` as a subsequence of s whose first letter lies within `window` of pos and
    that skips at most len(term) // 3 + 1 inserted characters; the tightest such start."""
    best = None
    limit = len(term) // 2 + 1 if limit is None else limit
    for i in range(pos, min(len(s), pos + window + 1)):
        if s[i] != term[0]:
            continue
        j, skipped = i + 1, 0
        for ch in term[1:]:
            k = s.find(ch, j, j + limit - skipped + 1)
            if k < 0:
                break
            skipped += k - j
            j = k + 1
        else:
            if best is None or skipped < best[2]:
                best = (i, j, skipped)
            if skipped == 0:
                break
    return best


def _beam(s: str, pos: int, slots: list[list[str]], sep: str, alternatives: bool, beam: int = 24) -> Optional[list]:
    """Decode `slots` (one vocabulary per slot) separated by `sep` from s[pos:]: the sequence of terms that is a
    subsequence of the damaged text and explains most of it (beam search). Items are tuples of terms; with
    `alternatives`, an item may be "X or Y" (two terms of the same slot)."""
    states = [(0.0, pos, [])]
    for n, vocab in enumerate(slots):
        nxt = []
        for score, p, items in states:
            window = (len(sep) if n else 0) + 6
            for term in vocab:
                got = _embed_near(s, term, p, window)
                if got is None:
                    continue
                i, j, sk = got
                sc = score - 2.0 * sk - max(0, i - p - (len(sep) if n else 0))  # every skipped character costs
                nxt.append((sc, j, items + [(term,)]))
                if alternatives:
                    orr = _embed_near(s, " or ", j, 3, limit=2)
                    if orr:
                        for t2 in vocab:
                            g2 = _embed_near(s, t2, orr[1], 3)
                            if g2 and t2 != term:
                                nxt.append((sc - 2.0 * (g2[2] + orr[2]) - (orr[0] - j) - (g2[0] - orr[1]), g2[1],
                                         items + [(term, t2)]))
            cut = s.find(sep.strip() or sep, p + 1)  # an unreadable item keeps the others in place
            if cut > 0:
                nxt.append((score - 12.0, cut, items + [("?",)]))
        if not nxt:
            return None
        nxt.sort(key=lambda x: -x[0])
        seen: set = set()
        states = []
        for st in nxt:  # one state per text position: the beam keeps different readings, not copies
            if st[1] not in seen:
                seen.add(st[1])
                states.append(st)
            if len(states) == beam:
                break
    states.sort(key=lambda x: -(x[0] - max(0, len(s) - x[1] - 1)))  # the list ends the message
    return states[0][2]


A_HEADER = "shapes by position, 1 to {n}: "
B_HEADER = "my shape-colour pairs: "


def _header_end(s: str, header: str) -> Optional[int]:
    j = 0
    for ch in header:
        k = s.find(ch, j, j + 4)
        if k < 0:
            return None
        j = k + 1
    return j


def read_list_noisy(text: str, shapes: list[str], colours: list[str], size: int, pairs: int) -> Optional[Reading]:
    """The share-all lists (`A_HEADER`, `B_HEADER`) decoded from a damaged message; None when it is not one."""
    s = text.lower()
    end = _header_end(s, A_HEADER.format(n=size))
    if end is not None:
        items = _beam(s, end, [list(shapes)] * size, ", ", True)
        if items:
            return Reading([Fact(i + 1, it, None) for i, it in enumerate(items) if it != ("?",)])
    end = _header_end(s, B_HEADER)
    if end is not None:
        slots = [list(colours), list(shapes)] * pairs
        terms = _beam(s, end, slots, " ", False)
        if terms:
            flat = [t[0] for t in terms]
            return Reading([Fact(None, (flat[k + 1],), flat[k]) for k in range(0, len(flat), 2)
                            if "?" not in (flat[k], flat[k + 1])])
    return None
