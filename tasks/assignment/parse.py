"""Reading proposals and plain English about the reviewer x paper table.

Forgiving names: full names, first or last names, short paper names or titles, any case, punctuation ignored, and
small typos ("Noha", "Glvoe", "robrta"). `parse_proposal` reads a full matching ("BLEU=Ava Li, Electra=Daniel, ..."
or the released data's "Proposal:<br/>&emsp; - BLEU: Noah Wilson<br/>..."); `mentions` finds the reviewers,
papers and numbers of a chat line (the agents' reading of plain English builds on it: `brains/english.py`).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Optional

from .names import N, PAPERS, REVIEWERS

_WORD = re.compile(r"[a-z0-9]+")
# English words that look like a name under a typo-tolerant match: never read them as names.
_STOP = {"read", "red", "need", "seed", "reef", "have", "lava", "java", "each", "noah's", "smooth", "ethan's",
         "blue", "love", "glad", "also", "like", "swag", "sweet", "salt", "grove", "sofa", "north", "daniels",
         "more", "most", "good", "best", "rest", "glove", "gloves", "santa", "agree", "great", "quack", "ever",
         "auto", "mail", "all", "ask", "and", "aha", "guys", "glow", "plus", "else", "every"}
# ... and the false matches seen in the released dialogues ("better than" is not Ethan, "no clue" not GLUE)
_STOP |= {"than", "then", "them", "there", "these", "they", "thank", "thanks", "swap", "swaps", "free", "agreed",
          "able", "quick", "resend", "redo", "reds", "select", "clue", "quad"}
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
            if not text[max(0, pos - 1):pos] == "#":  # "the #1 stand-out" is a rank, not a value
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
    if re.fullmatch(r"\s*([0-9]+\s*:\s*[0-9]+[\s,;]*)+", text):
        pairs = [(int(a), int(b)) for a, b in re.findall(r"([0-9]+)\s*:\s*([0-9]+)", text)]
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
