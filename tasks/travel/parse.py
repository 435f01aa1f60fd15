"""Reading what people type in TRAVELING ADVENTURERS: room letters and names ("L K B", "living room then kitchen"),
and the arguments of the game's commands (/propose, /share, /submit) as a rule error a person can act on."""
from __future__ import annotations

import re
from typing import Iterable, Sequence, Union

from tasks.core import RuleError

from .board import ROOM_ALIASES, ROOM_NAMES, Board, edge_key, is_valid_tour

_MAX_ALIAS_WORDS = max(len(a.split()) for a in ROOM_ALIASES)
# Words people put between rooms ("L then K and back to L"); checked after names, before letter runs.
_FILLER = {"the", "then", "and", "back", "via", "to", "go", "from"}


_SPLIT = re.compile(r"[\s\-\u2013\u2014>\u2192<,;:/|.()\[\]{}\"+*&=]+")


def _allowed(board: Union[Board, Iterable[str], None]) -> tuple[str, ...]:
    if board is None:
        return tuple(ROOM_NAMES)
    if isinstance(board, Board):
        return board.rooms
    return tuple(str(r).upper() for r in board)


def _not_here(letter: str, allowed: Sequence[str]) -> ValueError:
    where = f" (rooms here: {', '.join(allowed)})"
    desc = ROOM_NAMES.get(letter)
    if desc:
        return ValueError(f"room {letter} ({desc}) is not in this house{where}")
    return ValueError(f"room {letter} is not in this house{where}")


def _parse_text(text: str, allowed: Sequence[str]) -> list[str]:
    raw = [w for w in _SPLIT.split(text.replace("\u2019", "'")) if w]
    words = [w.strip("'").lower() for w in raw]
    raw = [w.strip("'") for w in raw]
    allowed_set = set(allowed)
    out: list[str] = []
    i = 0
    while i < len(words):
        if not words[i]:
            i += 1
            continue
        # Longest room name first, so "wine cellar" is one room and "play room" is not "play" + "room".
        for k in range(min(_MAX_ALIAS_WORDS, len(words) - i), 0, -1):
            letter = ROOM_ALIASES.get(" ".join(words[i:i + k]))
            if letter:
                if letter not in allowed_set:
                    raise _not_here(letter, allowed)
                out.append(letter)
                i += k
                break
        else:
            w, r = words[i], raw[i]
            i += 1
            if w in _FILLER and not (r.isupper() and len(r) > 1 and all(c in allowed_set for c in w.upper())):
                continue  # "then", "to"... unless typed as capitals that are all rooms here ("THE" = T, H, E)
            if not w.isalpha() or not w.isascii():
                raise ValueError(f"unknown room {r!r} (rooms here: {', '.join(allowed)})")
            letters = list(w.upper())
            if len(letters) == 1 or r.isupper() or all(c in allowed_set for c in letters):
                # A letter or a run of letters ("LKB"); upper case is read as letters even if one is wrong.
                for c in letters:
                    if c not in allowed_set:
                        raise _not_here(c, allowed)
                out.extend(letters)
            else:
                raise ValueError(f"unknown room {r!r} (rooms here: {', '.join(allowed)})")
    return out


def parse_rooms(text_or_list: Union[str, Sequence[str]], board: Union[Board, Iterable[str], None] = None) -> list[str]:
    """Room letters from what a person typed: "L K B", "L-K-B", "LKB", "l, k, b", ["L", "kitchen"], "living room
    then kitchen". Case-insensitive; full room names map to letters. Raises ValueError naming the unknown room.
    `board` limits the rooms to that house (a Board or a list of letters; None allows every ROOM_NAMES room)."""
    allowed = _allowed(board)
    if isinstance(text_or_list, str):
        items: list = [text_or_list]
    else:
        items = list(text_or_list)
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"rooms must be given as text, not {item!r}")
        out.extend(_parse_text(item, allowed))
    return out


# -- command arguments ------------------------------------------------------------------------------------------

def rooms_arg(args: Sequence[str], board: Board) -> list[str]:
    """The rooms a command names, or a RuleError saying which room is not in this house."""
    try:
        rooms = parse_rooms(list(args), board)
    except ValueError as exc:
        raise RuleError(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None
    if not rooms:
        raise RuleError("Name at least one room.")
    return rooms


def edges_arg(args: Sequence[str], board: Board) -> list[str]:
    """The hallways of `/share L-K [B-A ...]` (or `/share all`) as edge keys, each once, in the order named."""
    if not args:
        raise RuleError("Usage: /share L-K [B-A ...] or /share all")
    if len(args) == 1 and args[0].lower() == "all":
        return [edge_key(e) for e in board.edges]
    out = []
    for token in " ".join(args).replace(",", " ").split():
        parts = token.split("-") if "-" in token else (list(token) if len(token) == 2 else [token])
        if len(parts) != 2 or not all(parts):
            raise RuleError(f"{token!r} is not a hallway; write it as two rooms like L-K (or /share all).")
        a, c = rooms_arg([parts[0]], board), rooms_arg([parts[1]], board)
        if len(a) != 1 or len(c) != 1 or a[0] == c[0]:
            raise RuleError(f"{token!r} is not a hallway; write it as two rooms like L-K.")
        out.append(edge_key((a[0], c[0])))
    return list(dict.fromkeys(out))


def tour_arg(args: Sequence[str], board: Board) -> list[str]:
    """The complete tour of `/submit`; the closing start room may be left out."""
    tour = rooms_arg(args, board)
    if len(tour) == board.n and len(set(tour)) == board.n and tour[0] == board.start:
        tour = tour + [board.start]
    ok, reason = is_valid_tour(board, tour)
    if not ok:
        raise RuleError(f"That is not a complete tour: {reason}.")
    return tour
