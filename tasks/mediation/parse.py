"""Reading DialOp Mediation proposals and plain English about times, importance, price and arrival.

`parse_proposal("3 7")`, `"user 1: 3, user 2: 7"`, `"user 0: id 2, user 1: id 6"` (the released format, 0-based ids)
-> the pair of flight numbers as shown (1-based). `read_message` turns a chat line into facts for the agents: busy
spans ("thu 2:30-4:30pm (7)", "friday 12pm to 12:30pm, very important", "wed morning"), free or blocked days
("i can't do thursday", "friday works"), how much price and arriving together matter ("price matters a lot, 13/20"),
and whether the line asks a question or just acknowledges. Lower case, short forms and small typos are fine.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Optional


class ProposalError(ValueError):
    pass


def parse_proposal(text: str, counts: Optional[tuple[int, int]] = None) -> tuple[int, int]:
    """Two flight numbers (1-based, as shown), for user 1 and user 2."""
    t = (text or "").lower().replace("#", " ")
    pairs = re.findall(r"user\s*([0-3])\s*[:=]?\s*(?:id|flight|no\.?|number)?\s*([0-9]+)", t)
    if len(pairs) == 2:
        users = [int(u) for u, _ in pairs]
        base = 0 if 0 in users else 1  # the released format numbers users and flights from 0
        order = {int(u) - base: int(n) + (1 if base == 0 else 0) for u, n in pairs}
        if set(order) != {0, 1}:
            raise ProposalError("Name one flight for user 1 and one for user 2, e.g. /propose 3 7.")
        pair = (order[0], order[1])
    else:
        nums = [int(n) for n in re.findall(r"[0-9]+", t)]
        if len(nums) != 2:
            raise ProposalError("Name two flight numbers, user 1's then user 2's, e.g. /propose 3 7.")
        pair = (nums[0], nums[1])
    if counts is not None:
        for u in range(2):
            if not 1 <= pair[u] <= counts[u]:
                raise ProposalError(f"User {u + 1} has flights 1 to {counts[u]}; there is no flight {pair[u]}.")
    return pair


# --- plain English ------------------------------------------------------------------------------------------------
DAYS = {0: ("wednesday", "wed", "weds", "5/31", "may 31", "31st", "first day", "day 1"),
        1: ("thursday", "thu", "thur", "thurs", "6/1", "6/01", "june 1", "1st", "second day", "day 2"),
        2: ("friday", "fri", "6/2", "6/02", "june 2", "2nd", "last day", "third day", "day 3")}
_DAY_WORDS = {w: d for d, ws in DAYS.items() for w in ws if " " not in w and "/" not in w}
PARTS = {"morning": (9 * 60, 12 * 60), "afternoon": (12 * 60, 17 * 60), "evening": (17 * 60, 22 * 60),
         "night": (18 * 60, 24 * 60), "noon": (11 * 60 + 30, 13 * 60 + 30), "all day": (9 * 60, 21 * 60)}
_T = r"([0-9]{1,2})(?:[:.]([0-9]{2}))?\s*(a\.?m\.?|p\.?m\.?)?"
_RANGE = re.compile(_T + r"\s*(?:-|–|to|until|till|til)\s*" + _T)
_SINGLE = re.compile(r"(?:at|around|from)?\s*" + r"([0-9]{1,2})(?:[:.]([0-9]{2}))?\s*(a\.?m\.?|p\.?m\.?)")
_IMPORTANCE_NUM = re.compile(r"\(([0-9]{1,2})\)|(?:importance|imp|priority|prio|level)\s*(?:is|of|:)?\s*([0-9]{1,2})"
                             r"|([0-9]{1,2})\s*(?:/|out of)\s*10\b")
_WORD = re.compile(r"[a-z]+")
_DAY_SPLIT = re.compile(r"(?=\b(?:wed|weds|wednesday|thu|thur|thurs|thursday|fri|friday|5/31|6/0?1|6/0?2)\b)")

ACK_WORDS = {"ok", "okay", "k", "sure", "thanks", "thank", "you", "ty", "great", "cool", "sounds", "good", "perfect",
             "got", "it", "alright", "yes", "yep", "yeah", "fine", "no", "problem", "np", "awesome", "hi", "hello",
             "hey", "will", "do", "nice", "lol", "haha", "and", "that", "works", "sounds"}
NOT_IMPORTANT = ("not important", "not very important", "not that important", "not really important", "unimportant",
                 "can skip", "could skip", "skippable", "optional", "can miss", "could miss", "doesn't matter",
                 "low importance", "low priority", "not a big deal", "no big deal")
VERY_IMPORTANT = ("very important", "super important", "really important", "crucial", "critical", "can't miss",
                  "cant miss", "cannot miss", "must attend", "high importance", "high priority", "top priority")


@dataclass
class Span:
    day: int
    start: int           # minutes since midnight of that day
    end: int
    importance: Optional[int] = None
    vague: bool = False  # a part of a day ("thursday morning"), not a meeting's exact times

    def absolute(self) -> tuple[int, int]:
        return self.day * 1440 + self.start, self.day * 1440 + self.end


@dataclass
class Reading:
    busy: list = field(default_factory=list)      # Span
    free_days: list = field(default_factory=list)
    free_spans: list = field(default_factory=list)  # Span: times a user would like to fly
    blocked_days: list = field(default_factory=list)
    price: Optional[int] = None      # 1..20
    arrival: Optional[int] = None    # 1..10
    question: bool = False
    ack: bool = False
    defer: bool = False              # "you choose", "whatever works"
    accept: bool = False
    reject: bool = False

    @property
    def informative(self) -> bool:
        return bool(self.busy or self.free_spans or self.free_days or self.blocked_days or self.price or self.arrival or self.defer)


def _fix_typos(text: str) -> str:
    out = []
    vocab = [w for w in list(_DAY_WORDS) + ["important", "importance", "morning", "afternoon", "evening", "price",
                                            "meeting", "expensive", "arrive", "arrival", "together", "priority"]
             if len(w) >= 5]
    for m in re.finditer(r"[A-Za-z]+|[^A-Za-z]+", text):
        w = m.group(0)
        lw = w.lower()
        if w[0].isalpha() and len(lw) >= 5 and lw not in vocab:
            close = difflib.get_close_matches(lw, vocab, n=1, cutoff=0.8)
            out.append(close[0] if close else lw)
        else:
            out.append(lw)
    return "".join(out)


def _day_of(clause: str) -> Optional[int]:
    for d, ws in DAYS.items():
        for w in ws:
            if ("/" in w or " " in w) and re.search(r"(?<![a-z0-9/])" + re.escape(w) + r"(?![0-9])", clause):
                return d
    for w in _WORD.findall(clause):
        if w in _DAY_WORDS:
            return _DAY_WORDS[w]
    return None


def _hm(h: str, m: Optional[str], ampm: Optional[str]) -> Optional[int]:
    hour, minute = int(h), int(m or 0)
    if hour > 23 or minute > 59:
        return None
    a = (ampm or "").replace(".", "")
    if a == "pm" and hour < 12:
        hour += 12
    elif a == "am" and hour == 12:
        hour = 0
    elif not a and 1 <= hour <= 7:
        hour += 12  # "2-4" in a day of meetings from 9:00 to 20:30 means the afternoon
    return hour * 60 + minute


def _importance(clause: str) -> Optional[int]:
    m = _IMPORTANCE_NUM.search(clause)
    if m:
        v = int(next(g for g in m.groups() if g))
        if 1 <= v <= 10:
            return v
    if any(p in clause for p in NOT_IMPORTANT):
        return 2
    if any(p in clause for p in VERY_IMPORTANT):
        return 9
    if "somewhat important" in clause or "kinda important" in clause or "moderately" in clause:
        return 5
    if "important" in clause or "need to be there" in clause:
        return 7
    return None


def _spans(clause: str, day: int) -> list[Span]:
    out = []
    imp = _importance(clause)
    for m in _RANGE.finditer(clause):
        a1, a2 = m.group(3), m.group(6)
        if a2 and not a1:  # "2-4pm": the start takes the end's half of the day when that keeps it earlier
            s = _hm(m.group(1), m.group(2), a2)
            e = _hm(m.group(4), m.group(5), a2)
            if s is not None and e is not None and s > e:
                s = _hm(m.group(1), m.group(2), "am")
        else:
            s = _hm(m.group(1), m.group(2), a1)
            e = _hm(m.group(4), m.group(5), a2 or a1)
        if s is None or e is None:
            continue
        if e <= s:
            e += 12 * 60 if e + 12 * 60 > s else 24 * 60
        out.append(Span(day, s, e, imp))
    if not out:
        for m in _SINGLE.finditer(clause):
            s = _hm(m.group(1), m.group(2), m.group(3))
            if s is not None:
                out.append(Span(day, s, s + 60, imp))
    if not out:
        for part, (s, e) in PARTS.items():
            if part in clause:
                out.append(Span(day, s, e, imp, vague=True))
    return out


def _level(text: str, scale: int) -> Optional[int]:
    m = re.search(r"([0-9]{1,2})\s*(?:/|out of)\s*" + str(scale), text)
    if m and 1 <= int(m.group(1)) <= scale:
        return int(m.group(1))
    k = scale / 20
    if re.search(r"(don't|dont|do not|doesn't|doesnt|not)\s+(really\s+)?(care|matter|mind)|money is no object", text):
        return max(1, round(3 * k))
    if re.search(r"a lot|very|really|super|most|tight|strict|cheap", text):
        return round(17 * k)
    if re.search(r"quite|fair bit|pretty|fairly|important|somewhat", text):
        return round(12 * k)
    if re.search(r"a bit|a little|slightly|kind of|kinda|some", text):
        return round(7 * k)
    return None


def read_message(text: str) -> Reading:
    t = _fix_typos(text or "")
    r = Reading()
    r.question = "?" in t
    r.ack = bool(_WORD.findall(t)) and all(w in ACK_WORDS for w in _WORD.findall(t))
    r.defer = bool(re.search(r"you (choose|pick|decide)|up to you|whatever (works|is best)|anything works|"
                             r"i'?m flexible|dont mind|don't mind which", t))
    r.accept = bool(re.search(r"\b(accept|looks good|works for me|i'?ll take it|deal)\b", t))
    r.reject = bool(re.search(r"\b(reject|doesn'?t work|does not work|no good|won'?t work|can'?t do that)\b", t))
    clauses = re.split(r"[;\n?!]|\.(?![0-9])|,(?!\s*[0-9]{1,2}\s*(?:am|pm))|\band\b(?=\s+(?:on\s+)?[a-z]*day)", t)
    last_day: Optional[int] = None
    split = []
    for clause in clauses:  # "wed or thu evening / maybe thursday morning": one clause per day named
        parts = _DAY_SPLIT.split(clause)
        split += [parts[0] + parts[1]] + parts[2:] if len(parts) > 2 else [clause]
    for clause in split:
        c = clause.strip()
        if not c:
            continue
        own_day = _day_of(c)
        day = last_day if own_day is None else own_day
        last_day = day
        if re.search(r"\bprice|cost|money|budget|cheap|expensive|\$", c):
            lv = _level(c, 20)
            if lv is not None:
                r.price = lv
        if re.search(r"arriv|same time|together|land", c) and not _RANGE.search(c):
            lv = _level(c, 10)
            if lv is not None:
                r.arrival = lv
        if day is None:
            continue
        spans = _spans(c, day)
        if own_day is None and not _RANGE.search(c) and not _SINGLE.search(c):
            imp = _importance(c)
            if imp is not None and r.busy and r.busy[-1].importance is None:
                r.busy[-1].importance = imp  # "wed 9-11:30, very important": the importance follows the times
            if not any(s.vague is False for s in spans):
                continue
        wish = re.search(r"\b(flight|fly|flying|book|leave|depart|travel|prefer|would like|want|do something|"
                         r"arrive|land|free|open|available|works?|good|fine|best|great|ok|okay)\b", c)
        no = re.search(r"can'?t|cannot|busy|booked|packed|not (free|available|good)|no good|bad|avoid|meeting|"
                       r"class|appointment|important|importance|\([0-9]", c)
        if spans and (no or not (wish or all(sp.vague for sp in spans))):
            r.busy += spans
        elif spans:
            r.free_spans += spans  # "friday night looks good", "a flight thursday morning"
            r.free_days.append(day)
        elif no:
            r.blocked_days.append(day)
        elif wish:
            r.free_days.append(day)
    return r


__all__ = ["parse_proposal", "ProposalError", "read_message", "Reading", "Span", "DAYS"]
