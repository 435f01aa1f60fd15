"""Reading moves and plain English about moves.

`parse_action` maps what a person types for a move to one of the labels ("defect", "Stag", "2", "choice 2",
"second", "q3", a typo such as "footbal"). `read_talk` reads a negotiation line: which actions it proposes for
whom ("let's both go stag", "I'll take football if you come next time", "you wait, I go"), and whether it agrees
or refuses. Pure functions, no state.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from rapidfuzz import fuzz, process

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "one": 1, "two": 2,
            "three": 3, "four": 4, "five": 5, "six": 6}
YES = ("ok", "okay", "deal", "agreed", "agree", "sure", "yes", "yep", "yeah", "sounds good", "fine", "alright",
       "all right", "let's do it", "lets do it", "great", "perfect", "you got it", "i'm in", "im in")
NO = ("no", "nope", "not", "won't", "wont", "never", "don't", "dont", "rather not", "disagree", "refuse")


class ActionError(ValueError):
    pass


def _norm(text: str) -> str:
    return re.sub(r"[_\-]+", " ", text.lower()).strip()


def parse_action(text: str, labels: Sequence[str]) -> str:
    """The label `text` names; ActionError with the choices otherwise."""
    t = _norm(text).strip(" .!?\"'<>/")
    by_norm = {_norm(lab): lab for lab in labels}
    if t in by_norm:
        return by_norm[t]
    t = re.sub(r"^(i )?(choose|play|pick|take|go( for)?|move|choice|action)\b\s*", "", t).strip()
    by_norm = {_norm(lab): lab for lab in labels}
    if t in by_norm:
        return by_norm[t]
    number = re.fullmatch(r"(?:choice |action |option |q)?([0-9]+)", t)
    n = int(number.group(1)) if number else ORDINALS.get(t)
    if n is not None and 1 <= n <= len(labels):
        return labels[n - 1]
    if len(t) >= 3:
        starts = [lab for lab in labels if _norm(lab).startswith(t)]
        if len(starts) == 1:
            return starts[0]
        best = process.extractOne(t, list(by_norm), scorer=fuzz.ratio)
        if best and best[1] >= 75:
            return by_norm[best[0]]
    raise ActionError(f"{text!r} is not one of your moves: {', '.join(labels)} (or their numbers 1-{len(labels)}).")


def find_actions(text: str, labels: Sequence[str]) -> list[tuple[int, str]]:
    """(position, label) of every move named in free text, in order of appearance (words, not numbers, except
    "choice 2" / "option 2" / "q2")."""
    low = " " + _norm(text) + " "
    found = []
    for lab in labels:
        for m in re.finditer(r"(?<![a-z0-9])" + re.escape(_norm(lab)) + r"(?![a-z0-9])", low):
            found.append((m.start(), lab))
    for m in re.finditer(r"\b(?:choice|option|action|q)\s?([0-9]+)\b", low):
        n = int(m.group(1))
        if 1 <= n <= len(labels) and not any(abs(p - m.start()) < 3 for p, _ in found):
            found.append((m.start(), labels[n - 1]))
    if not found:  # typos: compare word by word
        for m in re.finditer(r"[a-z]{4,}", low):
            best = process.extractOne(m.group(0), [_norm(lab) for lab in labels], scorer=fuzz.ratio)
            if best and best[1] >= 80:
                found.append((m.start(), labels[best[2]]))
    return sorted(found)


@dataclass
class Talk:
    """What one negotiation line says. `mine` / `theirs` are from the READER's side: `mine` is what the speaker
    asks the reader to play, `theirs` what the speaker says they will play themselves."""

    mine: Optional[str] = None
    theirs: Optional[str] = None
    agree: bool = False
    refuse: bool = False
    halt: bool = False
    named: list = field(default_factory=list)


def _has(low: str, words: Sequence[str]) -> bool:
    return any(re.search(r"(?<![a-z'])" + re.escape(w) + r"(?![a-z'])", low) for w in words)


def read_talk(text: str, reader_labels: Sequence[str], speaker_labels: Sequence[str]) -> Talk:
    """Read a partner's line. In symmetric games the labels are the same for both; then "both"/"let's"/"we"
    proposes the named move for each, "I'll X" is the speaker's own, "you X" the reader's."""
    low = " " + _norm(text.replace("’", "'")) + " "
    talk = Talk(halt="halt negotiation" in low or "stop negotiating" in low)
    talk.agree = _has(low, YES)
    talk.refuse = _has(low, NO) and not talk.agree
    same = [_norm(a) for a in reader_labels] == [_norm(a) for a in speaker_labels]
    clauses = re.split(r"[.;!?,]| but | and | then | while | if | so ", low)
    for clause in clauses:
        c = " " + clause.strip() + " "
        if same:
            acts = find_actions(c, reader_labels)
        else:
            acts = sorted([(p, ("r", a)) for p, a in find_actions(c, reader_labels)]
                          + [(p, ("s", a)) for p, a in find_actions(c, speaker_labels)])
        if not acts:
            continue
        pos, act = acts[0]
        label = act if same else act[1]
        talk.named.append(label)
        before = c[:pos]
        negated = _has(c[:pos], ("not", "don't", "dont", "won't", "wont", "never", "no"))
        if negated:
            continue
        me = _has(before, ("i", "i'll", "ill", "i will", "i'm", "im", "me", "my"))
        you = _has(before, ("you", "u", "your")) and not me
        both = not me and not you and _has(c, ("both", "we", "let's", "lets", "us", "together", "each", "how about",
                                                "what about", "shall we", "should we"))
        if not same:
            side = act[0]
            if side == "r" and talk.mine is None:
                talk.mine = label
            elif side == "s" and talk.theirs is None:
                talk.theirs = label
            continue
        if both:
            talk.mine = talk.mine or label
            talk.theirs = talk.theirs or label
        elif you:
            talk.mine = talk.mine or label
        elif talk.theirs is None:
            talk.theirs = label
    # "I'll take football if you come next time": the coming is the speaker's wish for the reader, now or later;
    # one named move in a game with the same labels proposes it for both when the speaker asks to coordinate.
    if same and talk.theirs and talk.mine is None and _has(low, ("you come", "join me", "come with", "you too",
                                                                "with me", "same", "meet")):
        talk.mine = talk.theirs
    return talk
