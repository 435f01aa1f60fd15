"""A seat's view of AsymPuzl as HTML (transcripts): its clues, its answer row and its feedback."""
from __future__ import annotations

from tasks.core import esc

from .game import feedback_text


def _cell(shape, colour, hexes: dict) -> str:
    style = f"border:2px solid {esc(hexes.get(colour, '#999'))};padding:2px 4px" if colour else "padding:2px 4px"
    return f"<td style=\"{style}\">{esc(shape or '?')}<br>{esc(colour or '?')}</td>"


def render_view(view: dict) -> str:
    if not view or "hypothesis" not in view:
        return "<p>(waiting)</p>"
    hexes = view.get("palette") or {}
    head = "".join(f"<th>{i + 1}</th>" for i in range(view["size"]))
    row = "".join(_cell(s, c, hexes) for s, c in view["hypothesis"])
    out = [f"<p>Player {esc(view['role'])}. Clues: {esc(view.get('clue_text', ''))}</p>",
           f"<table class=\"asympuzl\"><tr>{head}</tr><tr>{row}</tr></table>"]
    if view.get("feedback"):
        out.append(f"<p>Feedback: {esc(feedback_text(view['feedback']))}</p>")
    res = view.get("result")
    if res:
        out.append(f"<p>{'Solved' if res['success'] else 'Not solved'} (round {esc(res.get('rounds'))}).</p>")
    return "".join(out)
