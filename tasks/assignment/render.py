"""A seat's view of DialOp Assignment as HTML (transcripts): its table, the pending proposal, the result."""
from __future__ import annotations

from tasks.core import esc


def render_view(view: dict) -> str:
    if not view or view.get("table") is None:
        return "<p>(waiting)</p>"
    res = view.get("result") or {}
    table = res.get("pooled") or view["table"]
    pend = (view.get("pending") or {}).get("matching") or res.get("matching")
    best = res.get("best_matching")
    head = "".join(f"<th>{esc(p)}</th>" for p in view["papers"])
    rows = []
    for r, name in enumerate(view["reviewers"]):
        cells = []
        for p, v in enumerate(table[r]):
            style = []
            if pend and pend[r] == p:
                style.append("background:#ffe08a")
            if best and best[r] == p:
                style.append("outline:2px solid #1a7f37")
            cells.append(f"<td style=\"{';'.join(style)}\">{'' if v is None else esc(v)}</td>")
        rows.append(f"<tr><th>{esc(name)}</th>{''.join(cells)}</tr>")
    out = f"<table class=\"assignment\"><tr><th></th>{head}</tr>{''.join(rows)}</table>"
    if res:
        out += (f"<p>Score {esc(res.get('score'))} of {esc(res.get('best'))} in this player's scale "
                f"({esc(res.get('normalized'))}).</p>")
    return out
