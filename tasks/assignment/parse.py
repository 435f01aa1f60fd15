"""Reading proposals and plain English about the reviewer x paper table.

Forgiving names: full names, first or last names, short paper names or titles, any case, punctuation ignored, and
small typos ("Noha", "Glvoe", "robrta"). `parse_proposal` reads a full matching ("BLEU=Ava Li, Electra=Daniel, ..."
or the released data's "Proposal:<br/>&emsp; - BLEU: Noah Wilson<br/>..."); `read_message` turns a chat line into
facts (values, unknown cells, a player's best for a paper or reviewer, the top number of their table), questions
and agreement, for the agents.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Optional

from .names import N, PAPERS, REVIEWERS

_WORD = re.compile(r"[a-z0-9]+")
# English words that look like a name under a typo-tolerant match: never read them as names.
_STOP = {"read", "red", "need", "seed", "reef", "have", "lava", "java", "each", "noah's", "smooth", "ethan's",
         "blue", "love", "glad", "also", "like", "swag", "sweet", "salt", "grove", "sofa", "north", "daniels",
         "more", "most", "good", "best", "rest", "glove", "gloves", "santa", "agree", "great", "quack", "ever",
         "auto", "mail", "all", "ask", "and", "aha", "guys", "glow", "plus", "else", "every"}
_STOP -= {"glove", "swag", "blue", "quack"}  # real mentions (GloVe, SWAG, BLEU misspelt, QuAC misspelt)

_REV_KEYS: dict[str, int] = {}
for _i, _name in enumerate(REVIEWERS):
    _first, _last = _name.lower().split()
    _REV_KEYS[_first] = _i
    _REV_KEYS[_last] = _i
_PAP_KEYS: dict[str, int] = {p.lower(): j for j, p in enumerate(PAPERS)}
_PAP_KEYS.update({"llama": 4, "quack": 6, "blue": 0, "roberta": 5, "glove": 2, "glue": 3})


def _tokens(text: str) -> list[tuple[str, int]]:
    return [(m.group(0), m.start()) for m in _WORD.finditer(text.lower())]


def _fuzzy(tok: str, keys: dict[str, int], cutoff: float) -> Optional[int]:
    if tok in keys:
        return keys[tok]
    if len(tok) < 4 or tok in _STOP or tok.isdigit():
        return None
    close = difflib.get_close_matches(tok, [k for k in keys if len(k) >= 4], n=1, cutoff=cutoff)
    return keys[close[0]] if close else None


@dataclass
class Mention:
    kind: str    # "r" (reviewer), "p" (paper), "n" (number)
    value: int
    pos: int
    end: int


def mentions(text: str) -> list[Mention]:
    """Reviewers, papers and numbers in the order they occur (a full name counts once)."""
    out: list[Mention] = []
    toks = _tokens(text)
    i = 0
    while i < len(toks):
        tok, pos = toks[i]
        end = pos + len(tok)
        if tok.isdigit():
            out.append(Mention("n", int(tok), pos, end))
            i += 1
            continue
        p = _fuzzy(tok, _PAP_KEYS, 0.75)
        r = _fuzzy(tok, _REV_KEYS, 0.75) if p is None or tok not in _PAP_KEYS else None
        if p is not None and tok in _PAP_KEYS:
            r = None
        if r is not None and (p is None or tok in _REV_KEYS):
            # "Ava Li": the last name right after the first name is the same person
            if i + 1 < len(toks) and _REV_KEYS.get(toks[i + 1][0]) == r:
                end = toks[i + 1][1] + len(toks[i + 1][0])
                i += 1
            out.append(Mention("r", r, pos, end))
        elif p is not None:
            out.append(Mention("p", p, pos, end))
        i += 1
    return out


def reviewer_of(text: str) -> Optional[int]:
    ms = [m for m in mentions(text) if m.kind == "r"]
    return ms[0].value if len(ms) == 1 else None


def paper_of(text: str) -> Optional[int]:
    ms = [m for m in mentions(text) if m.kind == "p"]
    return ms[0].value if len(ms) == 1 else None


class ProposalError(ValueError):
    pass


def parse_proposal(text: str) -> list[int]:
    """A full matching as the paper index per reviewer (`matching[reviewer] = paper`). Raises ProposalError with a
    readable reason. Accepts "BLEU=Ava Li, Electra=Daniel, ...", "Ava: GloVe; Noah: BLEU ...", the released
    "Proposal:<br/>&emsp; - BLEU: Noah Wilson<br/>..." and index pairs "0:2 1:1 ..." (reviewer:paper)."""
    text = re.sub(r"<br\s*/?>|&emsp;|&nbsp;", "\n", text or "")
    text = re.sub(r"(?i)\bproposal\s*:", " ", text)
    pairs: list[tuple[int, int]] = []
    if re.fullmatch(r"\s*(\d+\s*:\s*\d+[\s,;]*)+", text):
        pairs = [(int(a), int(b)) for a, b in re.findall(r"(\d+)\s*:\s*(\d+)", text)]
        if any(not (0 <= a < N and 0 <= b < N) for a, b in pairs):
            raise ProposalError(f"Reviewer and paper numbers run from 0 to {N - 1}.")
    else:
        parts = [p for p in re.split(r"[,;\n]+", text) if p.strip()]
        for part in parts:
            ms = mentions(part)
            rs = [m.value for m in ms if m.kind == "r"]
            ps = [m.value for m in ms if m.kind == "p"]
            if len(rs) == 1 and len(ps) == 1:
                pairs.append((rs[0], ps[0]))
            elif len(rs) == len(ps) and rs:
                # several pairs without separators: pair them in order of appearance
                seq = [m for m in ms if m.kind in "rp"]
                for a, b in zip(seq[::2], seq[1::2]):
                    if {a.kind, b.kind} != {"r", "p"}:
                        raise ProposalError(f"I could not pair reviewers and papers in {part.strip()!r}.")
                    r, p = (a.value, b.value) if a.kind == "r" else (b.value, a.value)
                    pairs.append((r, p))
            elif part.strip(" -:=").strip():
                raise ProposalError(f"I could not read {part.strip()!r} as 'PAPER=Reviewer'.")
    matching: list[Optional[int]] = [None] * N
    for r, p in pairs:
        if matching[r] is not None and matching[r] != p:
            raise ProposalError(f"{REVIEWERS[r]} is given two papers ({PAPERS[matching[r]]} and {PAPERS[p]}).")
        matching[r] = p
    papers = [p for p in matching if p is not None]
    dup = sorted({PAPERS[p] for p in papers if papers.count(p) > 1})
    if dup:
        raise ProposalError(f"{', '.join(dup)} would get two reviewers; each paper gets exactly one.")
    missing = [REVIEWERS[r] for r in range(N) if matching[r] is None]
    if missing:
        free = [PAPERS[p] for p in range(N) if p not in papers]
        raise ProposalError(f"A proposal assigns all {N} papers. Missing: {', '.join(missing)} "
                            f"(papers left: {', '.join(free)}).")
    return [int(p) for p in matching]  # type: ignore[arg-type]


def format_proposal(matching: list[int]) -> str:
    """The command text of a matching, by paper: "BLEU=Noah Wilson, Electra=Daniel Nguyen, ..."."""
    by_paper = {p: r for r, p in enumerate(matching)}
    return ", ".join(f"{PAPERS[p]}={REVIEWERS[by_paper[p]]}" for p in range(N))


# ----------------------------------------------------------------------------------------------------------------
# plain English

_NEG = re.compile(r"\b(don'?t|dont|do not|doesn'?t|no|not|never|unknown|blank|empty|nothing|none|n/a|idk|no idea|"
                  r"no clue|no info|no information|no data|can'?t see|cannot see|missing)\b")
_UNKNOWN = re.compile(r"(don'?t|dont|do not) (know|have|see)|\bno (idea|clue|info|information|data|number|value|"
                      r"values|numbers|score|scores)\b|\bunknown\b|\bblank\b|\bempty\b|can'?t see|cannot see|\bidk\b|"
                      r"\bnothing (for|on|about)\b|\bmissing\b|\bno \w+ for\b")
_BEST = re.compile(r"\b(best|top|highest|strongest|biggest|max|maximum|favou?rite|most)\b")
_TOPNUM = re.compile(r"\b(highest|biggest|largest|top|max|maximum|best)\b.{0,25}\b(number|value|score|"
                     r"cell|one|is|in my table|i have|i see)\b")
_GOOD = re.compile(r"\b(great|good|excellent|strong|high|perfect|amazing|solid|awesome|fantastic|ideal)\b")
_BAD = re.compile(r"\b(bad|terrible|awful|poor|low|weak|horrible|worst|not good|not great)\b")
_QUESTION = re.compile(r"\?|\b(what|which|how|who|do you|does|can you|could you|tell me|any info|anything)\b")
_YES = re.compile(r"^\s*(ok(ay)?|sure|yes|yeah|yep|sounds good|good|great|agreed?|deal|perfect|fine|alright|"
                  r"let'?s do (it|that)|go ahead|cool)\b")
_CAP = re.compile(r"\b(everything else|all (the )?(others|rest)|the rest|other (cells|ones|numbers))\b.{0,30}"
                  r"\b(lower|below|less|smaller|worse|low|bad)\b")
_HELLO = re.compile(r"^\s*(hi|hello|hey|yo|good (morning|afternoon|evening))\b")


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

    @property
    def empty(self) -> bool:
        return not (self.values or self.unknown or self.best_in_paper or self.best_of_reviewer or self.good
                    or self.bad or self.top is not None or self.asked_cells or self.asked_rows or self.asked_cols
                    or self.matching or self.cap_rest)


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"[.;!\n]+|\s/\s|\?", text) if c.strip()]


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


def read_message(text: str) -> Reading:
    out = Reading()
    low = (text or "").lower()
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
    for raw in re.split(r"[.;!\n]+|\s/\s", low):
        for clause in re.split(r"(?<=\?)", raw):
            _read_clause(clause, out)
    return out


def _read_clause(c: str, out: Reading) -> None:
    if not c.strip():
        return
    ms = mentions(c)
    names = [m for m in ms if m.kind in "rp"]
    nums = [m for m in ms if m.kind == "n"]
    question = bool(_QUESTION.search(c))
    if not names:
        if nums and _TOPNUM.search(c):
            out.top = max(m.value for m in nums)
        if question:
            out.question = True
        return
    if _UNKNOWN.search(c) and not nums:
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
            before_for = re.search(r"\b(for|on|at)\b", c)
            out.best_in_paper[ps[0]] = rs[0]
            if before_for and re.search(r"\b(for|on|at)\s+\w*\s*$", c[:c.find(PAPERS[ps[0]].lower())] or "x") is None:
                pass
            return
    if question:
        out.question = True
        _ask(out, pairs, lone_r, lone_p)
        return
    if _BAD.search(c) or _NEG.search(c):
        out.bad.update(pairs)
    elif _GOOD.search(c):
        out.good.update(pairs)
    else:
        out.suggested.update(pairs)


def _ask(out: Reading, pairs, lone_r, lone_p) -> None:
    out.asked_cells.update(pairs)
    out.asked_rows.update(lone_r)
    out.asked_cols.update(lone_p)
