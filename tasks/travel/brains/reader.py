"""A rule-based reader of plain English in TRAVELING ADVENTURERS (no LLM needed).

`read(text, rooms)` returns a `Reading`: the rooms mentioned, a suggested path ("What about L E A B K C L?", "let's go
to the kitchen next"), the speaker's coin statements ("for K-A I've got five", "kitchen attic 5", "l-k 3", "the
hallway between the kitchen and the attic has 7 coins"), the hallways the speaker asks about ("whats ur coins on
e-l"), a request for all coins, a cap on the speaker's unrevealed coins ("my other hallways have at most 5"), and
agreement, refusal and "you choose". Room names may carry typos ("kitchn", "bathrom"): rapidfuzz matches them
against this house's room names; room letters may be lower case. Numbers may be words ("five"). It stays
conservative: a number is read as coins only next to a hallway, and amounts said to be joint ("together") are not
the speaker's own coins. The phrase corpus tests/fixtures/phrases/travel.yaml measures it
(tests/test_travel_people_reader.py, bench/bench_travel_reader.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from rapidfuzz import fuzz, process

from ..board import ROOM_ALIASES, edge
from . import phrases as P

_TOKEN_RE = re.compile(r"\d+|[A-Za-z]+(?:'[A-Za-z]+)?|[-\u2013\u2014>\u2192:=/]+|[?!.;,&]")
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
    defer: bool = False                                   # "you choose", "up to you"
    question: bool = False                                # the speaker asks something that needs an answer

    def to_json(self) -> dict:
        return {"rooms": self.rooms, "path": self.path,
                "coins": {f"{u}-{v}": w for (u, v), w in self.coins.items()},
                "asks": [f"{u}-{v}" for u, v in self.asks], "ask_all": self.ask_all, "cap": self.cap,
                "yes": self.yes, "no": self.no, "defer": self.defer, "question": self.question}


@dataclass
class _Tok:
    kind: str  # room, pair, run, num, word, sep, punct
    value: object
    raw: str


def _fuzzy_room(word: str, allowed: set) -> Optional[str]:
    """A misspelt room name ("kitchn", "bathrom", "gardn") -> its letter, for this house's rooms only."""
    if len(word) < 4 or word in P.NOT_ROOMS or word in P.FILLER_WORDS:
        return None
    choices = {a: l for a, l in ROOM_ALIASES.items() if l in allowed and " " not in a and len(a) >= 4}
    hit = process.extractOne(word, list(choices), scorer=fuzz.ratio, score_cutoff=80 if len(word) > 4 else 85)
    return choices[hit[0]] if hit else None


def _tokens(sentence: str, rooms: Sequence[str]) -> list[_Tok]:
    allowed = set(rooms)
    start = rooms[0] if rooms else ""
    raw = _TOKEN_RE.findall(sentence)
    low = [w.lower() for w in raw]
    out: list[_Tok] = []
    i = 0
    while i < len(raw):
        w, lw = raw[i], low[i]
        hit = None
        for k in range(min(_ALIAS_WORDS, len(raw) - i), 0, -1):  # room names, longest phrase first
            letter = ROOM_ALIASES.get(" ".join(low[i:i + k]))
            if letter in allowed and not (k == 1 and len(lw) == 1):
                hit = (letter, k)
                break
        if hit is None and len(lw) > 5 and lw.endswith("room") and ROOM_ALIASES.get(lw[:-4]) in allowed:
            hit = (ROOM_ALIASES[lw[:-4]], 1)  # "emptyroom", "kidsroom"
        if hit is None and lw.isalpha() and len(lw) > 2:
            letter = _fuzzy_room(lw, allowed)
            hit = (letter, 1) if letter else None
        if hit:
            j = i + hit[1]
            while j < len(raw) and low[j] in P.ROOM_WORDS:  # "livng room", "kids rooom"
                j += 1
            out.append(_Tok("room", hit[0], " ".join(raw[i:j])))
            i = j
            continue
        if w.isdigit():
            out.append(_Tok("num", int(w), w))
        elif lw in P.NUMBER_WORDS:
            out.append(_Tok("num", P.NUMBER_WORDS[lw], w))
        elif len(w) == 1 and w.upper() in allowed and w != "I":
            out.append(_Tok("room", w.upper(), w))
        elif len(w) == 2 and all(c in allowed for c in w.upper()) and w[0].upper() != w[1].upper() \
                and lw not in P.NOT_PAIRS and (w.isupper() or _pair_context(low, i)):
            out.append(_Tok("pair", (w[0].upper(), w[1].upper()), w))  # "LK", "lk 4": a hallway
        elif len(w) >= 3 and all(c in allowed for c in w.upper()) and (
                (w.isupper() and lw not in P.NOT_RUNS) or (len(w) >= len(allowed) and lw[0] == start.lower())):
            out.append(_Tok("run", [c for c in w.upper()], w))  # "LABCKEL": a path
        elif w in "?!.;,":
            out.append(_Tok("punct", w, w))
        elif not w[0].isalnum() or w == "&":
            out.append(_Tok("sep", w, w))
        else:
            out.append(_Tok("word", lw, w))
        i += 1
    _articles(out)
    return out


def _pair_context(low: list[str], i: int) -> bool:
    nxt = low[i + 1] if i + 1 < len(low) else ""
    prev = low[i - 1] if i > 0 else ""
    return nxt.isdigit() or nxt in P.NUMBER_WORDS or nxt in (":", "=", "is", "has") or prev in ("on", "for", "and")


def _articles(out: list[_Tok]) -> None:
    """An "a"/"A" that reads as the article is no attic: "a 7 on E-K", "A good start". It is a room next to a hyphen,
    in a run of single letters ("l e a b k c l"), or after "and"/"to" that follows a room ("between l and a")."""
    for i, t in enumerate(out):
        if t.kind != "room" or t.raw not in ("a", "A"):
            continue
        prev = out[i - 1] if i else None
        nxt = out[i + 1] if i + 1 < len(out) else None
        if (prev and prev.kind == "sep") or (nxt and nxt.kind == "sep"):
            continue
        near = [x for x in out[max(0, i - 2):i + 3] if x.kind != "punct"]
        if sum(1 for x in near if x.kind == "room" and len(x.raw) == 1) >= 3:
            continue
        if prev and prev.kind == "word" and prev.value in P.BETWEEN | {"from"}:
            continue
        after = out[i + 2] if nxt is not None and nxt.kind == "word" and nxt.value in ("to", "and") \
            and i + 2 < len(out) else nxt
        if after is not None and after.kind == "room":  # "a to garden is 10", "a kitchen 10"
            continue
        if prev and prev.kind == "word" and prev.value in ("and", "to") and i >= 2 and out[i - 2].kind == "room" \
                and (nxt is None or nxt.kind in ("punct", "num")):
            continue
        if t.raw == "a" or (nxt is not None and nxt.kind in ("word", "num")) or (prev and prev.kind == "word"):
            out[i] = _Tok("word", "a", t.raw)


def _runs(toks: list[_Tok]) -> list[list[int]]:
    """Maximal runs of room tokens joined only by separators, commas or nothing ("L-E-A", "l e a", "l, c, k")."""
    runs, cur, joints = [], [], []  # joints[k]: what joins cur[k] to cur[k+1]
    for i, t in enumerate(toks + [_Tok("end", None, "")]):
        if t.kind == "room":
            if cur and len(joints) < len(cur):
                joints.append(" ")
            cur.append(i)
        elif cur and (t.kind == "sep" or (t.kind == "punct" and t.value == ",") or
                      (t.kind == "word" and t.value == "then")):
            if len(joints) < len(cur):
                joints.append("," if t.value == "," else "-")
        else:
            if cur:
                if "," in joints and "-" in joints:  # "K-L, A-B and C-E": a list of hallways
                    cuts = [0] + [k + 1 for k, j in enumerate(joints[:len(cur) - 1]) if j == ","] + [len(cur)]
                    runs.extend(cur[a:b] for a, b in zip(cuts, cuts[1:]))
                else:
                    runs.append(cur)
            cur, joints = [], []
    # A path names each room once (the start may close it): "L-K, L-E and L-A" are hallways, not a path.
    return [r for r in runs if _once([toks[i].value for i in r])]


def _once(path: list) -> bool:
    body = path[:-1] if len(path) > 2 and path[-1] == path[0] else path
    return len(set(body)) == len(body)


def _edges(toks: list[_Tok]) -> list[tuple[int, int, tuple[str, str]]]:
    """Hallway mentions as (first token index, last token index, edge)."""
    in_chain = {i for r in _runs(toks) if len(r) >= 3 for i in r}
    found = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "pair":
            found.append((i, i, edge(*t.value)))
        elif t.kind == "word" and t.value in P.BETWEEN:
            j = i + 1
            while j < len(toks) and toks[j].kind == "word" and toks[j].value in ("the", "a"):
                j += 1
            k = j + 1
            while k < len(toks) and (toks[k].kind == "sep" or toks[k].kind == "word" and toks[k].value in
                                     ("and", "the", "to")):
                k += 1
            if j < len(toks) and k < len(toks) and toks[j].kind == toks[k].kind == "room" \
                    and toks[j].value != toks[k].value:
                found.append((i, k, edge(toks[j].value, toks[k].value)))
                i = k + 1
                continue
        elif t.kind == "room" and i not in in_chain:
            j = i + 1
            while j < len(toks) and (toks[j].kind == "sep" or
                                     (toks[j].kind == "word" and toks[j].value in ("to", "and", "the"))):
                j += 1
            if j < len(toks) and toks[j].kind == "room" and toks[j].value != t.value and \
                    (j > i + 1 or _number_follows(toks, j)):
                found.append((i, j, edge(t.value, toks[j].value)))
                i = j + 1
                continue
        i += 1
    return found


def _number_follows(toks: list[_Tok], j: int) -> bool:
    """"kitchen attic 5": two rooms side by side are a hallway when coins follow."""
    k = j + 1
    while k < len(toks) and (toks[k].kind == "sep" or toks[k].kind == "word" and toks[k].value in P.FILLER_WORDS):
        k += 1
    return k < len(toks) and toks[k].kind == "num"


def _coin_statements(toks: list[_Tok], mentions) -> dict:
    out: dict = {}
    used: set[int] = set()
    # (a) "5 coins on L-K": a number, then only coin words/prepositions, then the hallway.
    for a, b, e in mentions:
        j = a - 1
        while j >= 0 and toks[j].kind == "word" and toks[j].value in P.PREP_AFTER_NUM:
            j -= 1
        direct = toks[a].kind == "word"  # "3 between kitchen and bathroom"
        if 0 <= j and (j < a - 1 or direct) and toks[j].kind == "num" and j not in used:
            out[e] = toks[j].value
            used.add(j)
    # (b) "L-K is 5", "L-K: 5", "for K-A I've got five": the hallway, a few filler words, a number.
    for a, b, e in mentions:
        if e in out:
            continue
        j = b + 1
        while j < len(toks) and (toks[j].kind == "sep" or (toks[j].kind == "word" and toks[j].value in
                                                           P.FILLER_WORDS)):
            j += 1
        if j < len(toks) and toks[j].kind == "num" and j not in used:
            out[e] = toks[j].value
            used.add(j)
    return out


def _sentences(text: str) -> list[tuple[str, bool]]:
    """Split into (sentence, ends with a question mark)."""
    out = []
    for p in re.findall(r"[^.?!\n]+[.?!]*", text):
        s = p.strip()
        if s:
            out.append((s, s.endswith("?")))
    return out


def read(text: str, rooms: Sequence[str], wmin: int = 0, wmax: int = 10 ** 6) -> Reading:
    """Read one chat message. `rooms` are the letters of this house (the start room first); coin values outside
    [wmin, wmax] are dropped."""
    r = Reading(text=text)
    r.yes, r.no, r.defer = P.attitude(text)
    rooms = list(rooms)
    last: list = []  # hallways of the previous sentence
    for sentence, q in _sentences(text):
        toks = _tokens(sentence, rooms)
        if not toks:
            continue
        if toks[0].kind == "num" and len(last) == 1 and not _edges(toks) and wmin <= toks[0].value <= wmax:
            # "playroom-bathroom? 3 for me": the number answers the hallway just named, no question to me
            r.coins[last[0]] = toks[0].value
            r.asks = [e for e in r.asks if e != last[0]]
            last = []
            continue
        low = sentence.lower()
        words = [t.value for t in toks if t.kind == "word"]
        first = words[0] if words and toks[0].kind == "word" else ""
        about_you = bool(set(words) & P.YOU)
        asking = q or (first in P.QUESTION_STARTS and about_you) or first in P.REQUESTS
        sent_rooms: list[str] = []
        for t in toks:
            if t.kind == "room":
                sent_rooms.append(t.value)
            elif t.kind in ("pair", "run"):
                sent_rooms.extend(t.value)
        r.rooms.extend(sent_rooms)
        mentions = _edges(toks)
        last = [e for _, _, e in mentions]
        joint = bool(set(words) & P.JOINT_WORDS)
        stated = {} if joint else {e: w for e, w in _coin_statements(toks, mentions).items() if wmin <= w <= wmax}
        r.coins.update(stated)
        runs = [x for x in _runs(toks) if len(x) >= 3]
        moving = bool(set(words) & P.MOVE_WORDS) or any(t.kind == "run" for t in toks)
        if sent_rooms and not stated and not any(t.kind == "num" for t in toks) and (
                runs or any(t.kind == "run" for t in toks) or (moving and not mentions)):
            r.path = _dedupe_path(sent_rooms)
            if "back" in words and r.path[0] == rooms[0] and r.path[-1] != rooms[0]:
                r.path.append(rooms[0])
            continue  # a suggestion ("what about L E A B K C L?") is no question about coins
        if asking:
            r.question = True
            for _, _, e in mentions:
                if e not in r.asks:
                    r.asks.append(e)
            single = [t.value for t in toks if t.kind == "room"]
            if not mentions and len(single) == 1 and re.search(r"\b(coins?|hallways?|numbers?)\b", low):
                for other in rooms:  # "what are your coins from the kitchen?": every hallway at that room
                    if other != single[0] and edge(single[0], other) not in r.asks:
                        r.asks.append(edge(single[0], other))
            elif not mentions and not single and about_you and r.coins and not {"all", "every"} & set(words):
                r.asks.extend(e for e in r.coins if e not in r.asks)  # "I have 5 on L-E. What about you?"
            elif not mentions and not single and P.ASK_ALL_RE.search(low) and about_you:
                r.ask_all = True
            continue
        m = P.CAP_RE.search(P.digits(low))
        if m and P.CAP_SCOPE.search(low) and not mentions:
            r.cap = int(m.group(1) or m.group(2)) if (m.group(1) or m.group(2)) else int(m.group(3)) - 1
    return r


def _dedupe_path(rooms: list[str]) -> list[str]:
    out: list[str] = []
    for x in rooms:
        if not out or out[-1] != x:
            out.append(x)
    return out
