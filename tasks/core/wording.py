"""Wording helpers for messages in games with two or three seats.

A two-seat game talks about "your partner"; a three-seat game must name who is meant ("Alice and Bob"). These
helpers pick the right words so rules and mechanisms do not each re-invent them. `names` is a mapping from seat to
display name (or a callable seat -> name); seats without a name are shown as they are.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping, Optional, Union

Names = Optional[Union[Mapping[str, str], Callable[[str], str]]]


def name_of(seat: str, names: Names = None) -> str:
    """The display name of a seat: names[seat] (or names(seat)), else the seat itself."""
    if names is None:
        return seat
    if callable(names):
        return names(seat)
    return names.get(seat, seat)


def join_names(items: Iterable[str]) -> str:
    """"A", "A and B", "A, B and C" ("" for nothing)."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def plural(n: int, one: str, many: str) -> str:
    """`one` when n == 1, else `many` (e.g. plural(len(waiting), "has", "have"))."""
    return one if n == 1 else many


def others(seat: Optional[str], seats: Iterable[str], names: Names = None, many: Optional[str] = None) -> str:
    """How to refer to every seat but `seat`, talking to `seat`.

    One other seat: "your partner". Several: their names joined ("Alice and Bob") when `names` are given, else
    `many` (default "the others"). `seat` None (talking to nobody in particular) counts every seat as other.
    """
    rest = [s for s in seats if s != seat]
    if len(rest) == 1 and seat is not None:
        return "your partner"
    if names is not None and rest:
        return join_names(name_of(s, names) for s in rest)
    return many if many is not None else "the others"


def waiting_text(waiting: Iterable[str], names: Names = None) -> str:
    """"Waiting for Bob." / "Waiting for Alice and Bob." ("" when nobody is awaited)."""
    who = join_names(name_of(s, names) for s in waiting)
    return f"Waiting for {who}." if who else ""


def who_to_wait_for(seat: Optional[str], waiting: Iterable[str], seats: Iterable[str], names: Names = None) -> str:
    """The words for "wait for ..." said to `seat`: "your partner" in a two-seat game (unless `names` are given),
    else the awaited seats' names ("Alice and Bob"), or "the others" when there is no name and several seats."""
    seats = tuple(seats)
    waiting = [s for s in waiting if s != seat]
    if not waiting:
        return others(seat, seats, names)
    if names is None and len(seats) == 2 and seat in seats:
        return "your partner"
    if names is None and len(waiting) > 1:
        return "the others"
    return join_names(name_of(s, names) for s in waiting)


# Characters that make Slurk's markdown (showdown) or HTML do something: links, emphasis, code, headings, tags.
_NAME_KEEP = frozenset("-_.' ")
MAX_NAME_CHARS = 40


def plain_name(name, fallback: str = "a participant") -> str:
    """A person-supplied name made inert wherever the bot shows it (chat is rendered as markdown, and HTML).

    Keeps letters, digits, spaces and `- _ . '` (Unicode letters included), drops everything else (so
    `[x](javascript:alert(3))` becomes `xjavascriptalert3`), collapses whitespace, cuts to MAX_NAME_CHARS, and never
    starts with `-`, `_` or `.` (list markers, emphasis). Underscores are kept only between letters/digits."""
    text = "" if name is None else str(name)
    out = []
    for ch in text:
        if ch.isalnum() or ch in _NAME_KEEP:
            out.append(" " if ch.isspace() else ch)
        elif ch.isspace():
            out.append(" ")
    cleaned = " ".join("".join(out).split())
    # `_x_` would still be emphasis: keep an underscore only with letters or digits on both sides.
    cleaned = "".join(c for i, c in enumerate(cleaned) if c != "_" or (
        0 < i < len(cleaned) - 1 and cleaned[i - 1].isalnum() and cleaned[i + 1].isalnum()))
    cleaned = cleaned.lstrip("-_.' ")[:MAX_NAME_CHARS].rstrip()
    return cleaned or fallback


def seat_label(game, seat: str) -> str:
    """The name a game gives a seat when it talks to people ("Player 2", "User 1", "Alice"): the game class's
    `seat_names`, else the seat id title-cased. Pages, game-master lines and agents' chat prefixes all use this one
    name, so a person is never called by two names (their Slurk login name is only Slurk's own label)."""
    named = getattr(game, "seat_names", None) or {}
    return named.get(seat) or seat.replace("_", " ").title()


def seat_labels(game) -> dict:
    """seat -> seat_label for every seat of a game (class or instance)."""
    return {s: seat_label(game, s) for s in game.seats}
