"""Binding an answer (accept, reject, agree) to the offer it answers.

A page sends the id of the offer its person saw (`accept 5`); an answer whose offer is no longer the open one is
refused (a RuleError: nothing changes) with a message that names the current offer, so a click that crossed a newer
offer in flight never accepts what the person did not see. A typed answer without an id answers the open offer, the
newest one the person was shown (every offer is announced to whoever must answer it as it is made), and the game's
confirmation names the offer it answered.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from .mechanisms import RuleError

_ID = re.compile(r"#?([0-9]{1,9})")  # ASCII digits only: int() reads other scripts too


def answer_id(args: Sequence[str]) -> Optional[int]:
    """The offer id an answer gives as its first argument (`5` or `#5`), None when it gives none. Only the first
    argument counts, so a typed reason ("/reject I need 2 hats") is never read as an id."""
    if not args:
        return None
    m = _ID.fullmatch(str(args[0]).strip())
    return int(m.group(1)) if m else None


def answer_words(args: Sequence[str]) -> list[str]:
    """The arguments after the offer id (a reason), or all of them when no id was given."""
    return [str(a) for a in args[1:]] if answer_id(args) is not None else [str(a) for a in args]


def check_answer(wanted: Optional[int], current_id: Optional[int], current: str = "",
                 noun: str = "proposal") -> None:
    """Refuse an answer to offer `wanted` unless it is the open one (`current_id`, described as `current`)."""
    if wanted is None or wanted == current_id:
        return
    if current_id is None:
        now = f"There is no open {noun} now."
    else:
        now = f"The open {noun} is #{current_id}" + (f": {current}." if current else ".")
    raise RuleError(f"{noun[0].upper()}{noun[1:]} #{wanted} is no longer open, so your answer was not counted. {now}")


__all__ = ["answer_id", "answer_words", "check_answer"]
