"""Reading itinerary proposals ("/propose Rose Garden, NULL, Book Barn": forgiving names, empty slots) and writing
them and their scorecards as text."""
from __future__ import annotations

import difflib
import re
from typing import Optional

EMPTY = {"", "null", "none", "empty", "-", "_", "?", "nothing"}


class ProposalError(ValueError):
    pass


def find_site(name: str, names: list[str]) -> Optional[int]:
    """Exact (case and punctuation insensitive), then a unique prefix, then fuzzy (ratio > 0.8)."""
    def norm(s: str) -> str:
        return re.sub(r"[^a-z0-9 ]", "", s.lower().replace("&", "and")).strip()
    want = norm(name)
    normed = [norm(n) for n in names]
    if want in normed:
        return normed.index(want)
    starts = [i for i, n in enumerate(normed) if want and n.startswith(want)]
    if len(starts) == 1:
        return starts[0]
    best = max(range(len(names)), key=lambda i: difflib.SequenceMatcher(None, want, normed[i]).ratio())
    if difflib.SequenceMatcher(None, want, normed[best]).ratio() > 0.8:
        return best
    return None


def parse_itinerary(text: str, names: list[str]) -> list[Optional[int]]:
    """Up to 3 comma-separated site names (also ';', '->', '|' or a released "[A, B, C]"); NULL, '-' or nothing
    for an empty slot. Raises ProposalError with what is wrong."""
    t = (text or "").strip()
    if t.startswith("[") and t.endswith("]"):
        t = t[1:-1]
    parts = [p.strip() for p in re.split(r",|;|->|→|\|", t)]
    if len(parts) > 3:
        raise ProposalError(f"An itinerary has 3 slots; you gave {len(parts)}.")
    parts += [""] * (3 - len(parts))
    slots: list[Optional[int]] = []
    for p in parts:
        if p.lower().strip("'\"") in EMPTY:
            slots.append(None)
            continue
        i = find_site(p, names)
        if i is None:
            close = difflib.get_close_matches(p, names, n=2, cutoff=0.5)
            raise ProposalError(f"No site called {p!r}." + (f" Did you mean {' or '.join(close)}?" if close else ""))
        slots.append(i)
    used = [s for s in slots if s is not None]
    if not used:
        raise ProposalError("Propose at least one site, e.g. /propose Rose Garden, Book Barn, NULL.")
    if len(set(used)) != len(used):
        raise ProposalError(f"{names[next(s for s in used if used.count(s) > 1)]} is in the itinerary twice; "
                            "each site can be visited once.")
    return slots


def format_itinerary(slots: list, names: list[str]) -> str:
    return ", ".join("NULL" if s is None else names[s] for s in slots)


def signed(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def _word(v) -> str:
    """A feature value as people read it: yes/no, not Python's True/False."""
    return ("yes" if v else "no") if isinstance(v, bool) else str(v)


def card_text(pid: int, slots: list, sites: list, card: dict) -> str:
    """The user's scorecard of one proposal as chat text (the page draws the same data)."""
    lines = [f"Proposal {pid}:"]
    for k in range(5):
        if k % 2 == 0:
            s = slots[k // 2]
            if s is None:
                lines.append(f"{k + 1}) empty")
            else:
                site = sites[s]
                feats = ", ".join(f"{f}: {_word(v)}" for f, v in sorted(site["features"].items()))
                lines.append(f"{k + 1}) ({signed(card['by_slot'][k])}) {site['name']} ({site['etype']}, "
                             f"${site['price']}; {feats})")
        else:
            d = card["legs"][k // 2]
            lines.append(f"{k + 1}) " + ("-" if d is None else f"({signed(card['by_slot'][k])}) travel {d} mi"))
    for c in card["checklist"]:
        lines.append(f"{'YES' if c['met'] else 'NO'} ({signed(c['score'])}) {c['desc']}")
    lines.append(f"Total price ${card['price']}. TOTAL SCORE: {card['total']}")
    return "\n".join(lines)
