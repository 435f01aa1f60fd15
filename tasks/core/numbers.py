"""Numbers people type, read the same way by every task: ASCII digits only.

`str.isdigit()` and `\\d` also take superscripts, circled digits and other scripts' digits, and `int()` / `float()`
take some of those, underscores, signs, spaces, "nan" and "inf": a parser that checks with one and converts with
the other raises on "¹" (the room then counted it as a fault). Here a number is what these patterns match, and
everything they match converts. Tasks add their own number words.
"""
from __future__ import annotations

import re
from typing import Optional

MAX_DIGITS = 9  # no count, price or id people type is longer; int() of a long digit run costs more than linear time
_INT = re.compile(r"[0-9]{1,%d}" % MAX_DIGITS)
_DECIMAL = re.compile(r"[0-9]{1,%d}(?:\.[0-9]{1,6})?|\.[0-9]{1,6}" % MAX_DIGITS)


def is_int(text: str) -> bool:
    """Whether `text` is a whole number in ASCII digits (no sign, no spaces)."""
    return _INT.fullmatch(text) is not None


def to_int(text: str) -> Optional[int]:
    """The whole number `text` spells in ASCII digits, else None."""
    return int(text) if _INT.fullmatch(text) else None


def to_number(text: str) -> Optional[float]:
    """A decimal number in ASCII digits (`12`, `12.5`, `.5`), else None."""
    return float(text) if _DECIMAL.fullmatch(text) else None
