"""The dialogue discipline every agent brain keeps with a person, and the audit that measures it.

A brain composes one `Discipline` per person it talks to (a small object, never a base class) and tells it what
happens: `said(line)` for each line it sends, `heard(line, told=...)` for each of the person's lines, `announce(move)`
when it says what it will play. The object answers four questions:

(a) `may_ask()`: may the agent's move end on a question with nothing for the person to click? Not when its last
    question went without an answer (the person wrote something that told nothing new, or wrote nothing and the
    agent was woken again): then it acts on what it knows (a proposal), and asks, if at all, beside it.
(b) `fresh(line)` / `pick(*lines)`: no line is sent twice in a game, paraphrases included ("got it. anything else?"
    and "Got it! Anything else" are the same line; "flight 3" and "flight 4" are not: numbers and names must match).
(c) `check(move)`: an announced or agreed move is the move played. None when `move` keeps the last statement, else
    the statement the agent must withdraw (it says its change of mind before it plays).
(d) `owed()` / `answered()`: every question from the person gets an answer (`is_question`: a "?", or an opening
    such as why / what / how / is / can, typos included).

`audit(rows, people)` counts the same things in a played game's log (its `game_input` rows): repeated agent lines,
person questions the agent never answered, and stalls (notes of kind "stall" that scripted people write when they
waited for the agent more than one turn, plus a game that ended "stalled").
"""
from __future__ import annotations

import json
import re
from typing import Iterable, Optional

from rapidfuzz import fuzz

# two lines whose normalised forms are this similar (0-100) and carry the same numbers and names are one line
SAME_LINE = 88
QUESTION_WORDS = ("why", "what", "whats", "how", "hows", "is", "isnt", "are", "arent", "can", "could", "would",
                  "will", "do", "does", "did", "dont", "which", "where", "when", "who", "should", "shall", "any",
                  "anything", "may", "have", "has", "was", "were", "wouldnt", "couldnt")
TYPOS = {"wht": "what", "wat": "what", "wut": "what", "whta": "what", "waht": "what", "wy": "why", "whyy": "why",
         "y": "why", "hw": "how", "hwo": "how", "cn": "can", "cna": "can", "si": "is", "iz": "is", "r": "are",
         "wich": "which", "whcih": "which", "wher": "where", "hwat": "what", "coudl": "could", "woudl": "would"}
# openings that look like questions but are not: "whatever works", "anything is fine", "how about" is a wish
NOT_QUESTION = re.compile(r"^\s*((is|are) a must\b|(would|could|will|should|might|can|is|are) be (nice|great|good|fine|ok|cool|"
                          r"better|lovely|important|a must)\b(?!.*\?)|whatever|don'?t (really )?(care|mind)|anything (works|is fine|goes)|any (is|works)|is fine|are fine|"
                          r"do (it|that|whatever)|can'?t (make|do|go|miss)|could be (better|worse)|will do|"
                          r"have (a|to|an)\b|has to|was |were |did (it|that)\b)", re.I)
# mid-line question clauses: "ok but why that one", "also is there anything cheaper"
INNER = re.compile(r"(^|[.!,;]\s*|\b(but|and|also|so|ok|okay|hmm|hm)\s+)(why|what|how|which|is there|are there|"
                   r"can (you|we|i)|could (you|we)|would (you|it)|do (you|we)|does (it|that|this))\b", re.I)
# a person leaving the choice to the agent ("you pick", "whatever works", "surprise me", "up to u")
DEFERRAL = re.compile(r"\b(you (pick|choose|decide)|(up to|your call|trust) (you|u)\b|whatever|surprise me|"
                      r"(don'?t|do not) (really )?care(\s+(which|what|where)\b|\s*[.!,]?\s*$)|"
                      r"no (strong )?(preference|feelings)|"
                      r"go ahead and (pick|choose)|either (is|works)|anything (works|is fine)|i'?m easy)", re.I)
_KEY = re.compile(r"\$?\d[\d.,:]*|\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")


def normalise(text: str) -> str:
    """Lower case, words only (punctuation, emoji and repeated spaces gone)."""
    return " ".join(re.sub(r"[^a-z0-9$ ]+", " ", text.lower().replace("'", "")).split())


def _keys(text: str) -> list:
    """The numbers and names in a line, in order ("2 books and 1 ball" is not "1 book and 2 balls"; a sentence's
    first word does not count as a name)."""
    body = re.sub(r"(^|[.!?]\s+)[A-Z][a-z]+", r"\1", text.strip())
    return [k.strip().lower() for k in _KEY.findall(body) if k.strip().lower() not in ("i", "ok")]


def same_line(a: str, b: str) -> bool:
    """Whether two lines say the same (a paraphrase by punctuation, case or a word or two)."""
    na, nb = normalise(a), normalise(b)
    if not na or not nb:
        return na == nb
    if na == nb:
        return True
    return _keys(a) == _keys(b) and fuzz.ratio(na, nb) >= SAME_LINE


def first_word(text: str) -> str:
    words = normalise(text).split()
    if not words:
        return ""
    return TYPOS.get(words[0], words[0])


def is_question(text: str) -> bool:
    """A person's line that asks something: a question mark, a question word first (typos too), or a question
    clause after "but" / "also" / a full stop ("ok but why that one")."""
    t = text.strip()
    if not t:
        return False
    if "?" in t:
        return True
    if NOT_QUESTION.search(t):
        return False
    if first_word(t) in QUESTION_WORDS and len(normalise(t).split()) >= 2:
        return True
    return bool(INNER.search(t))


def is_deferral(text: str) -> bool:
    return bool(DEFERRAL.search(text.replace("’", "'")))


class Discipline:
    """The discipline towards one person (see the module docstring). Picklable (brains are snapshotted)."""

    def __init__(self) -> None:
        self.lines: list[str] = []           # every line sent to this person
        self.open_question: Optional[str] = None  # our last question, while unanswered
        self.ignored = 0                     # our questions the person let pass without telling anything
        self.questions: list[str] = []       # the person's questions not yet answered
        self.statement: Optional[tuple] = None  # (move, line): what we last said we would play

    # (b) no line twice
    def fresh(self, line: str) -> bool:
        return not any(same_line(line, old) for old in self.lines)

    def pick(self, *lines: str) -> Optional[str]:
        """The first of `lines` not sent before (None when all were)."""
        return next((ln for ln in lines if ln and self.fresh(ln)), None)

    def said(self, line: str) -> None:
        """Record a line sent to the person; a question in it is open until the person answers."""
        self.lines.append(line)
        if "?" in line:
            self.open_question = line

    # (a) never wait on an unanswered question
    def heard(self, line: str, told: bool = True) -> None:
        """The person wrote `line`; `told`: it told the agent something new (an answer to its question)."""
        if self.open_question is not None and not told:
            self.ignored += 1
        self.open_question = None
        if is_question(line):
            self.questions.append(line)

    def silent(self) -> None:
        """The agent was woken and the person said nothing since its question: the question went unanswered."""
        if self.open_question is not None:
            self.ignored += 1
            self.open_question = None

    def may_ask(self) -> bool:
        """False once the person let one of our questions pass: act (propose) instead of asking again."""
        return self.ignored == 0

    # (d) every question answered
    def owed(self) -> list[str]:
        return list(self.questions)

    def answered(self) -> None:
        self.questions = []

    # (c) an announced move is the move played
    def announce(self, move, line: str = "") -> None:
        self.statement = (move, line)

    def check(self, move) -> Optional[str]:
        """None when playing `move` keeps the last statement; else that statement's line (to withdraw first)."""
        if self.statement is None or self.statement[0] == move:
            return None
        return self.statement[1] or str(self.statement[0])


# --- the audit of played games ------------------------------------------------------------------------------------

def chat_rows(rows: Iterable[dict]) -> list[dict]:
    """The inputs of a log in order: {"seat", "text" or "command", "to"} (game_input rows) and people's notes."""
    out = []
    for r in rows:
        if r.get("event") == "game_input":
            inp = r["data"]["input"]
            if inp.get("type") == "Chat":
                out.append({"seat": inp["seat"], "text": inp["text"], "to": inp.get("to")})
            elif inp.get("type") == "Command":
                out.append({"seat": inp["seat"], "command": inp["name"]})
        elif r.get("event") == "agent_note":
            out.append({"seat": r["data"].get("seat"), "note": r["data"].get("kind")})
        elif r.get("event") == "game_end":
            out.append({"end": (r.get("data") or {}).get("status")})
    return out


def audit(rows: Iterable[dict], people: Iterable[str]) -> dict:
    """Counts in one game's log: `repeats` (agent lines to a person that repeat an earlier one, paraphrases
    included), `questions` (the people's questions), `unanswered` (questions no agent line to that person followed
    before the person's next line or the end), `stalls` (people's "stall" notes, and a game that ended "stalled")."""
    people = set(people)
    sent: dict = {}
    out = {"repeats": 0, "questions": 0, "unanswered": 0, "stalls": 0}
    open_q: dict = {}
    for r in chat_rows(rows):
        if "end" in r:
            out["stalls"] += r["end"] == "stalled"
            continue
        seat = r["seat"]
        if r.get("note") == "stall" and seat in people:
            out["stalls"] += 1
        if "text" not in r:
            continue
        if seat in people:
            if open_q.get(seat):
                out["unanswered"] += 1
            open_q[seat] = is_question(r["text"])
            out["questions"] += open_q[seat]
            continue
        for p in (r["to"] or people):
            if p not in people:
                continue
            old = sent.setdefault((seat, p), [])
            out["repeats"] += any(same_line(r["text"], o) for o in old)
            old.append(r["text"])
            open_q[p] = False
    out["unanswered"] += sum(1 for v in open_q.values() if v)
    return out


def audit_log(path: str, people: Iterable[str]) -> dict:
    with open(path, encoding="utf-8") as fh:
        return audit((json.loads(line) for line in fh if line.strip()), people)


def audit_columns(audits: list[dict]) -> dict:
    """Population table columns from the audits of a set of games (totals over the games)."""
    total = {k: sum(a.get(k, 0) for a in audits) for k in ("stalls", "repeats", "questions", "unanswered")}
    return {"stalls": total["stalls"], "repeated lines": total["repeats"], "questions": total["questions"],
            "unanswered": total["unanswered"]}


class Waiting:
    """A scripted person's count of the agent's turns it waited through with nothing to click and nothing left to
    say (for the audit: it notes a "stall" when that reaches two)."""

    def __init__(self) -> None:
        self.turns = 0

    def after(self, moved: bool, heard: bool, can_click: bool) -> bool:
        """Record one of the person's turns; True exactly when it has now waited more than one agent turn."""
        if moved or can_click:
            self.turns = 0
            return False
        if heard:
            self.turns += 1
        return heard and self.turns == 2


def repeated(lines: list[str]) -> list[str]:
    """The lines that repeat an earlier one (paraphrases included), in order."""
    return [ln for i, ln in enumerate(lines) if any(same_line(ln, old) for old in lines[:i])]


def pipe_table(rows: list[dict]) -> str:
    """Rows (dicts with the same keys) as a plain "a | b" table: the tasks' population tables with people."""
    cols = list(rows[0]) if rows else []
    return "\n".join(" | ".join(str(r.get(c, c) if r else c) for c in cols) for r in [{}, *rows])
