"""Plain English about the reviewer x paper table, as the agents read it: `read_message` turns a chat line into
facts about the speaker's table (numbers, cells it does not know, graded words such as "decent" or "dark green",
pairs put forward, its best for a paper, its top number), questions, requests ("you choose") and agreement.
People write lists ("GLUE: Daniel would be best, Ava good, Joseph bad"), typos, lower case and pronouns ("she isn't
good at glove"); statements are cut at commas with their topic carried, and "he" / "she" is the reviewer named
last.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ..names import N, REVIEWERS
from ..parse import Mention, ProposalError, mentions, parse_proposal


_NEG = re.compile(r"\b(don'?t|dont|do not|doesn'?t|no|not|never|unknown|blank|empty|nothing|none|n/a|idk|no idea|"
                  r"no clue|no info|no information|no data|can'?t see|cannot see|missing)\b")
_UNKNOWN = re.compile(r"(don'?t|dont|do not) (know|have|see)|\bno (idea|clue|info|information|data|number|value|"
                      r"values|numbers|score|scores)\b|\bunknown\b|\bblank\b|\bempty\b|can'?t see|cannot see|\bidk\b|"
                      r"\bnothing (for|on|about)\b|\bmissing\b|\bno \w+ for\b|\bnot sure\b|\bunsure\b")
_BEST = re.compile(r"\b(best|top|highest|strongest|biggest|max|maximum|favou?rite|most)\b")
_TOPNUM = re.compile(r"\b(highest|biggest|largest|top|max|maximum|best)\b.{0,25}\b(number|value|score|"
                     r"cell|one|is|in my table|i have|i see)\b")
_QUESTION = re.compile(r"\?|\b(what|which|how|who|do you|does|can you|could you|tell me|any info|anything)\b")
_YES = re.compile(r"^\s*(ok(ay)?|sure|yes|yeah|yep|sounds good|good|great|agreed?|deal|perfect|fine|alright|"
                  r"let'?s do (it|that)|go ahead|cool)\b")
_ASKWORD = re.compile(r"\b(what|which|how|who|do you|does|can you|could you|tell me|any|know|have|see|value|"
                      r"number|score)\b")
_CAP = re.compile(r"\b(everything else|all (the )?(others|rest)|the rest|other (cells|ones|numbers))\b.{0,30}"
                  r"\b(lower|below|less|smaller|worse|low|bad)\b")
_HELLO = re.compile(r"^\s*(hi|hello|hey|yo|good (morning|afternoon|evening))\b")
# "you choose", "just propose", "go ahead and propose": the speaker hands the proposal over
_REQUEST = re.compile(r"\b(you (choose|decide|pick|propose)|(just|go ahead( and)?|please|pls|can you|could you|why don'?t "
                      r"you) (propose|send|make)|send (a|the|your) proposal|propose (something|away|now|it|please)|"
                      r"your call|up to you|make (a|the) proposal)\b|^\s*propose\b")
# Graded words (true 0..99 units; people rarely give numbers). The values are the mean true affinity of the cells
# people described with such words in the released dialogues.
_LEVELS = [
    (15, r"\b(terrible|awful|horrible|very (bad|poor|low)|really (bad|poor|low)|worst|dark red|zero|useless)\b"),
    (38, r"\b(not (very |that |so |too )?(good|great|strong|high|solid)|poor|low|weak|below average|meh|light red|"
         r"not much|bad|red)\b"),
    (86, r"\b(excellent|perfect|amazing|fantastic|great|dark green|very (good|high|strong)|really (good|high|strong)|"
         r"super|ideal|awesome|outstanding|superb|top|best|strongest|highest|supreme|locked?|killing it|crushing|"
         r"excels?|shines?|big ones?|expert)\b"),
    (66, r"\b(decent|ok(ay)?|fine|middling|average|mid|medium|moderate|so-so|yellow|not bad|alright|fair|"
         r"slightly worse|above average)\b"),
    (78, r"\b(good|green|solid|strong|high|nice|fits?|pretty good|well|likes?|confident|works?|expertise)\b"),
]
_LEVELS = [(v, re.compile(rx)) for v, rx in _LEVELS]


_NOT = re.compile(r"\b(not|no|never|isn'?t|aren'?t|wasn'?t|wouldn'?t|won'?t|doesn'?t|don'?t|nothing)\b")


def level_of(text: str) -> Optional[int]:
    """The value a graded word in `text` suggests (true units), None without one; a negated good word is low
    ("wouldn't be very good") and "not bad" is middling."""
    if re.search(r"\bnot (that |so |too )?(bad|terrible|awful)\b", text):
        return 66
    for v, rx in _LEVELS:
        if rx.search(text):
            return 38 if v >= 66 and _NOT.search(text) else v
    return None


@dataclass
class Reading:
    """What a chat line says about the speaker's table (values in the speaker's own scale)."""

    values: dict = field(default_factory=dict)       # (r, p) -> number in the speaker's scale
    unknown: set = field(default_factory=set)        # (r, p) the speaker does not know
    best_in_paper: dict = field(default_factory=dict)     # p -> r: the speaker's best known reviewer for p
    best_of_reviewer: dict = field(default_factory=dict)  # r -> p
    good: set = field(default_factory=set)           # (r, p) said to be good (no number)
    bad: set = field(default_factory=set)            # (r, p) said to be bad
    top: Optional[int] = None                        # the biggest number of the speaker's table
    asked_cells: set = field(default_factory=set)    # cells asked about
    asked_rows: set = field(default_factory=set)     # reviewers asked about (whole row)
    asked_cols: set = field(default_factory=set)     # papers asked about (whole column)
    question: bool = False
    yes: bool = False
    hello: bool = False
    matching: Optional[list] = None                  # a full matching suggested in chat
    cap_rest: bool = False                           # "everything else I see is lower"
    suggested: set = field(default_factory=set)      # (r, p) put forward without a number ("Ethan on QuAC")
    rated: dict = field(default_factory=dict)        # (r, p) -> value a graded word suggests ("decent", "red")
    request: bool = False                            # "you choose", "just propose"
    asked_top: bool = False                          # "what's your highest number?"
    asked_any: bool = False                          # "what do you have?", "any good ones?"

    @property
    def empty(self) -> bool:
        return not (self.values or self.unknown or self.best_in_paper or self.best_of_reviewer or self.good
                    or self.bad or self.top is not None or self.asked_cells or self.asked_rows or self.asked_cols
                    or self.matching or self.cap_rest or self.rated or self.suggested)


def _cells_of(ms: list[Mention]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Pairs of adjacent reviewer/paper mentions, then lone reviewers and lone papers."""
    seq = [m for m in ms if m.kind in "rp"]
    pairs, lone_r, lone_p = [], [], []
    rs = [m.value for m in seq if m.kind == "r"]
    ps = [m.value for m in seq if m.kind == "p"]
    if len(rs) == 1 and ps:
        return [(rs[0], p) for p in ps], [], []
    if len(ps) == 1 and rs:
        return [(r, ps[0]) for r in rs], [], []
    i = 0
    while i < len(seq):
        a = seq[i]
        b = seq[i + 1] if i + 1 < len(seq) else None
        if b is not None and a.kind != b.kind:
            pairs.append((a.value, b.value) if a.kind == "r" else (b.value, a.value))
            i += 2
        else:
            (lone_r if a.kind == "r" else lone_p).append(a.value)
            i += 1
    return pairs, lone_r, lone_p


_PRONOUN = re.compile(r"\b(he|she|him|her|hes|he'?s|she'?s)\b")


def resolve_pronouns(low: str, prev: Optional[int] = None) -> str:
    """ "he/she/him/her" -> the first name of the reviewer last named before it (in this line, else `prev`, the
    last reviewer of the line before), so "she isn't good at glove" is about Ava."""
    out, last, at = [], prev, 0
    for m in _PRONOUN.finditer(low):
        for x in mentions(low[at:m.start()]):
            if x.kind == "r":
                last = x.value
        out.append(low[at:m.start()])
        out.append(REVIEWERS[last].split()[0].lower() if last is not None else m.group(0))
        at = m.end()
    out.append(low[at:])
    return "".join(out)


def last_reviewer(text: str) -> Optional[int]:
    rs = [m.value for m in mentions((text or "").lower()) if m.kind == "r"]
    return rs[-1] if rs else None


def read_message(text: str, prev: Optional[int] = None) -> Reading:
    """`prev`: the reviewer named last in the line before (for a leading "he" / "she")."""
    out = Reading()
    low = resolve_pronouns((text or "").lower(), prev)
    out.hello = bool(_HELLO.search(low))
    out.cap_rest = bool(_CAP.search(low))
    if _YES.search(low) and not mentions(low):
        out.yes = True
    try:
        if len([m for m in mentions(low) if m.kind == "r"]) == N:
            out.matching = parse_proposal(re.sub(r"(?i)\b(how about|what about|let'?s do|i propose|propose)\b", "",
                                                 text))
            return out
    except ProposalError:
        pass
    out.request = bool(_REQUEST.search(low))
    for raw in re.split(r"[.;!\n]+|\s/\s", low):
        for clause in re.split(r"(?<=\?)", raw):
            topic = None
            for part in _statements(clause):
                topic = _read_clause(_with_topic(part, topic), out)
    return out


def _statements(clause: str) -> list[str]:
    """A clause cut at commas (and "but") into statements: a part starts a new statement when it names someone and
    says something (a number or a graded word) and the statement so far did too; lists ("Sofia, Morgan and Noah")
    and tails ("..., like 80") stay with their statement."""
    out: list[str] = []
    says = False
    # what the statement so far holds, kept up to date as it grows (reading it again for every part was quadratic)
    head: dict = {}
    for part in re.split(r",|\bbut\b|\bwhile\b|\bwhereas\b|\bso\b", clause):
        ms = mentions(part)
        now = {"r": any(m.kind == "r" for m in ms), "p": any(m.kind == "p" for m in ms),
               "unknown": bool(_UNKNOWN.search(part)), "question": bool(_QUESTION.search(part))}
        named = now["r"] or now["p"]
        pair = now["r"] and now["p"]
        tells = any(m.kind == "n" for m in ms) or level_of(part) is not None or now["unknown"]
        others = not named and re.search(r"\b(other|others|rest|else)\b", part)  # "the others aren't great"
        # a list after "I don't know ..." / "what do you have for ..." shares that head; other pairs stand alone
        head_pair = head.get("r") and head.get("p")
        shared = out and (head["unknown"] or head["question"] or now["question"]) and (head_pair or not pair)
        if out and not ((named and tells and says) or (pair and says and not shared) or others):
            out[-1] += "," + part
            says = says or tells or pair
            head = {k: head[k] or v for k, v in now.items()}
        else:
            out.append(part)
            says = named and (tells or pair)
            head = now
    return out


def _with_topic(part: str, topic: Optional[str]) -> str:
    """ "GLUE: Daniel would be best, Ava would be good": the second statement is about GLUE too."""
    if topic is None:
        return part
    ms = [m for m in mentions(part) if m.kind in "rp"]
    if ms and all(m.kind != topic[0] for m in ms):
        return f"{topic[1]} {part}"
    return part


def _read_clause(c: str, out: Reading) -> Optional[tuple]:
    """Read one statement into `out`; returns its topic (("p", "glue") or ("r", "ava")) when it has exactly one
    paper or one reviewer, for the next statement of the clause."""
    if not c.strip():
        return None
    ms = mentions(c)
    names = [m for m in ms if m.kind in "rp"]
    _read_statement(c, ms, names, out)
    ps = [m for m in names if m.kind == "p"]
    rs = [m for m in names if m.kind == "r"]
    if len(ps) == 1 and rs:
        return ("p", c[ps[0].pos:ps[0].end])   # later parts naming only reviewers are about this paper
    if len(rs) == 1 and ps:
        return ("r", c[rs[0].pos:rs[0].end])
    return None


def _read_statement(c: str, ms: list, names: list, out: Reading) -> None:
    nums = [m for m in ms if m.kind == "n"]
    question = bool(_QUESTION.search(c))
    if not names:
        if nums and _TOPNUM.search(c):
            out.top = max(m.value for m in nums)
        if question:
            out.question = True
            if re.search(r"\b(highest|biggest|largest|top|max|maximum|best)\b", c) and not nums:
                out.asked_top = True
            elif re.search(r"\b(what|which|any|anything|who)\b.*\b(have|see|good|strong|high|great|know)\b", c):
                out.asked_any = True
        return
    unk = _UNKNOWN.search(c)
    if unk and not nums and level_of(c[unk.end():]) is None:  # "no info other than that she isn't good at X"
        pairs, lone_r, lone_p = _cells_of(ms)
        if question:  # "do you know X?" is a question, not a statement
            out.question = True
            _ask(out, pairs, lone_r, lone_p)
            return
        for r, p in pairs:
            out.unknown.add((r, p))
        for r in lone_r:
            out.unknown.update((r, p) for p in range(N))
        for p in lone_p:
            out.unknown.update((r, p) for r in range(N))
        return
    if nums:
        # sequential grouping: whenever a reviewer, a paper and a number have been seen, that is one value
        r = p = None
        rs = [m.value for m in names if m.kind == "r"]
        ps = [m.value for m in names if m.kind == "p"]
        if len(rs) == 1 and len(ps) == 1 and len(nums) >= 1:
            out.values[(rs[0], ps[0])] = nums[0].value
            return
        pending_n = None
        for m in ms:
            if m.kind == "r":
                r = m.value
            elif m.kind == "p":
                p = m.value
            else:
                pending_n = m.value
            if r is not None and p is not None and pending_n is not None:
                out.values[(r, p)] = pending_n
                if len(rs) == 1:
                    p = None
                elif len(ps) == 1:
                    r = None
                else:
                    r = p = None
                pending_n = None
        return
    pairs, lone_r, lone_p = _cells_of(ms)
    if _BEST.search(c) and len(names) == 2 and not question:
        rs = [m.value for m in names if m.kind == "r"]
        ps = [m.value for m in names if m.kind == "p"]
        if len(rs) == 1 and len(ps) == 1:
            out.best_in_paper[ps[0]] = rs[0]
            out.rated[(rs[0], ps[0])] = 86
            return
    rel = re.search(r"\b(better|stronger|higher|worse|weaker|lower)\b.{0,20}\b(than|then)\b", c)
    rs = [m for m in names if m.kind == "r"]
    ps = [m for m in names if m.kind == "p"]
    if rel and len(rs) == 2 and len(ps) == 1 and not question:
        # "Noah is better than Ava for BLEU": the first one high, the other middling (or the reverse)
        first, second = (rs[0].value, rs[1].value)
        if rel.group(1) in ("worse", "weaker", "lower"):
            first, second = second, first
        out.rated[(first, ps[0].value)] = 78
        out.rated[(second, ps[0].value)] = 55
        out.good.add((first, ps[0].value))
        return
    if question:
        out.question = True
        _ask(out, pairs, lone_r, lone_p)
        if not _ASKWORD.search(c):
            out.suggested.update(pairs)  # "Joseph for RoBERTa?" puts the pair forward
        return
    level = level_of(c)
    for cell in pairs:
        if level is not None:
            out.rated[cell] = level
    if level is not None and level <= 38 or (level is None and _NEG.search(c)):
        out.bad.update(pairs)
    elif level is not None and level >= 78:
        out.good.update(pairs)
    else:
        out.suggested.update(pairs)


def _ask(out: Reading, pairs, lone_r, lone_p) -> None:
    out.asked_cells.update(pairs)
    out.asked_rows.update(lone_r)
    out.asked_cols.update(lone_p)
