"""Reading the moves of Deal or No Deal: `/propose` arguments, offer ids of `/accept` / `/reject`, and the hard-case
selection text (`L1<=4`). Commands and page actions only: plain-English reading of chat belongs to `reader.py`.

A split is what the PROPOSER gets, per type (books, hats, balls). Accepted forms, case-insensitive, in any order:
`books=1 hats=2 balls=0`, `book:1, hat:2`, `1 book 2 hats`, `hats 2`, `2 books and the ball` (an item
named without a number is the only one there is), three bare numbers `1 2 0` (book, hat, ball), number words
(`one book`), singular or abbreviated names (`bk`, `h`, `bo`, `ba`, `bl`). A type that is not named counts 0; every
number must fit the counts. Pure functions.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from tasks.core.numbers import to_int

from .items import ITEMS, PLURALS

NUMBER_WORDS = {"zero": 0, "none": 0, "no": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4,
                "five": 5, "six": 6, "seven": 7, "all": -1}
# Abbreviations people type; anything else must be a prefix of a name ("bo" = book, "ba" = ball; "b" is ambiguous).
ALIASES = {"bk": 0, "bks": 0, "h": 1, "bl": 2, "bls": 2}
# Words around the numbers that change nothing ("I get 2 books and the ball"); "you" is no filler: the split is
# always what the proposer gets, and a refusal says so.
FILLER = {"and", "i", "get", "take", "me", "for", "want", "x", "the", "please", "plus", "with", "of", "my", "ok"}
USAGE = "Usage: /propose books=1 hats=2 balls=0 (what YOU get; your partner gets the rest)"


_PAIR = re.compile(r"(?<![A-Za-z])([A-Za-z]+)\s*[=:]\s*(\w+)")


class SplitError(ValueError):
    """A /propose whose arguments do not name a valid split; the message says why, for the person."""


def item_index(word: str) -> Optional[int]:
    """0 / 1 / 2 for a book / hat / ball name (singular, plural, prefix or alias), None if it is no item."""
    w = word.lower().strip(".!?")
    if w in ALIASES:
        return ALIASES[w]
    if w.endswith("s") and len(w) > 3:
        w = w[:-1]
    hits = [k for k, name in enumerate(ITEMS) if len(w) >= 2 and name.startswith(w)]
    return hits[0] if len(hits) == 1 else None


def _number(token: str) -> Optional[int]:
    """A count (ASCII digits or a word), -1 for "all", None if the token is no number."""
    n = to_int(token)
    return n if n is not None else NUMBER_WORDS.get(token.lower())


def parse_split(args: Sequence[str], counts: Sequence[int]) -> tuple[int, ...]:
    """The split (what the proposer takes) that `args` describe; SplitError with a clear reason otherwise."""
    text = " ".join(str(a) for a in args)
    split: list[Optional[int]] = [None, None, None]
    # explicit pairs first: books=1, hat:2 (a pair starts at a word's start: the letter run is tried once per word,
    # not once per letter, so a long word costs linear time, not quadratic)
    for name, num in _PAIR.findall(text):
        k, n = item_index(name), _number(num)
        if k is None or n is None:
            raise SplitError(f"{name}={num} is not an item and a number. {USAGE}.")
        _put(split, k, n, counts)
    text = _PAIR.sub(" ", text)
    tokens = [t for t in re.split(r"[\s,;=:/()\[\]{}]+|(?<=\d)(?=[a-zA-Z])|(?<=[a-zA-Z])(?=\d)", text) if t]
    tokens = [t for t in tokens if t.lower() not in FILLER]
    for t in tokens:
        if item_index(t) is None and _number(t) is None:
            hint = " (a book or a ball? write bo or ba)" if t.lower() == "b" else ""
            raise SplitError(f"{t!r} is not an item or a number{hint}. {USAGE}.")
    numbers = [_number(t) for t in tokens]
    if all(s is None for s in split) and len(tokens) == 3 and all(n is not None and n >= 0 for n in numbers):
        split = list(numbers)
    elif tokens:
        split = _pairs(tokens, split, counts)
    if all(s is None for s in split):
        raise SplitError(USAGE + ".")
    split = [0 if x is None else x for x in split]
    for n, c, name in zip(split, counts, PLURALS):
        if not 0 <= n <= c:
            have = f"is only 1 {name[:-1]}" if c == 1 else f"are only {c} {name}"
            raise SplitError(f"There {have}; you asked for {n}. {USAGE}.")
    return tuple(int(n) for n in split)


def _pairs(tokens: list[str], split: list, counts: Sequence[int]) -> list:
    """Items with their numbers, read as `name number` pairs or as `number name` pairs, whichever reads every token
    (an item without a number is the only one there is: "2 books and the ball"); both reading differently is
    refused as ambiguous."""
    readings, errors = [], []
    for name_first in (True, False):
        try:
            readings.append(_read(tokens, list(split), counts, name_first))
        except SplitError as exc:
            errors.append(exc)
    if not readings:
        raise errors[-1] if len(tokens) > 1 and item_index(tokens[0]) is None else errors[0]
    if len(readings) == 2 and readings[0] != readings[1]:
        raise SplitError(f"{' '.join(tokens)!r} can be read two ways. {USAGE}.")
    return readings[0]


def _read(tokens: list[str], split: list, counts: Sequence[int], name_first: bool) -> list:
    i = 0
    while i < len(tokens):
        k, n = item_index(tokens[i]), _number(tokens[i])
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if k is not None:
            if name_first and nxt is not None and _number(nxt) is not None and item_index(nxt) is None:
                _put(split, k, _number(nxt), counts)
                i += 2
                continue
            _only_one(split, k, counts)
        elif n is not None:
            if name_first or nxt is None or item_index(nxt) is None:
                raise SplitError(f"Which item is the {tokens[i]} for? {USAGE}.")
            _put(split, item_index(nxt), n, counts)
            i += 2
            continue
        i += 1
    return split


def _only_one(split: list, k: int, counts: Sequence[int]) -> None:
    """An item named without a number ("the ball") means the one there is; with several, the number is needed."""
    if counts[k] != 1:
        raise SplitError(f"How many {PLURALS[k]}? {USAGE}.")
    _put(split, k, 1, counts)


def _put(split: list, k: int, n: int, counts: Sequence[int]) -> None:
    if n == -1:  # "all books"
        n = counts[k]
    if split[k] is not None and split[k] != n:
        raise SplitError(f"You named {PLURALS[k]} twice ({split[k]} and {n}). {USAGE}.")
    split[k] = n


def parse_offer_id(args: Sequence[str]) -> Optional[int]:
    """An optional offer id as the first argument (`/accept 3`, `/accept #3`; page buttons send it) so a stale
    button cannot accept a newer offer; other words (`/accept ok thanks`, a reason with numbers) are no id."""
    from tasks.core.offers import answer_id
    return answer_id(args)


def parse_hard(text) -> Optional[int]:
    """The hard-case selection `L1<=4` (also `4`, `l1<=4`, `L1 <= 4`) -> 4; None/''/'off' -> None."""
    if text is None or text is False:
        return None
    t = str(text).strip().lower().replace(" ", "")
    if t in ("", "off", "none", "false"):
        return None
    m = re.fullmatch(r"(?:l1<=?)?(\d{1,2})", t)
    if not m:
        raise ValueError(f"--hard takes a distance such as L1<=4, got {text!r}")
    return int(m.group(1))
