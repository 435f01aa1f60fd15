"""Draw one seat's Gnomes at Night view as an inline SVG (used by replay transcripts).

A size×size grid (9×9) with the walls this seat sees, the start cell, the token, and the treasure when this seat sees
it. Coordinates are 0-indexed (x right, y down). Walls: {"right": [[x, y], ...]} is a wall on the right of (x, y),
{"below": [...]} a wall below it ("vertical"/"horizontal" are accepted as aliases). Missing keys draw what is there.
"""
from __future__ import annotations

import html
import textwrap
from typing import Any, Optional

CELL = 32
PAD = 10


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _xy(v: Any) -> Optional[tuple[int, int]]:
    if isinstance(v, dict) and "x" in v and "y" in v:
        v = (v["x"], v["y"])
    if isinstance(v, (list, tuple)) and len(v) == 2:
        try:
            return int(v[0]), int(v[1])
        except (TypeError, ValueError):
            return None
    return None


def _walls(walls: Any) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    right: list = []
    below: list = []
    if isinstance(walls, dict):
        for key, bucket in (("right", right), ("vertical", right), ("below", below), ("horizontal", below)):
            for p in walls.get(key) or []:
                xy = _xy(p)
                if xy:
                    bucket.append(xy)
    return right, below


def render_view(view: dict) -> str:
    view = view if isinstance(view, dict) else {}
    try:
        size = max(1, min(30, int(view.get("size") or 9)))
    except (TypeError, ValueError):
        size = 9
    right, below = _walls(view.get("walls"))
    token = _xy(view.get("token"))
    treasure = _xy(view.get("treasure"))
    start = _xy(view.get("start"))

    header = []
    if view.get("round") is not None:
        header.append(f"round {view.get('round')}" + (f"/{view['rounds']}" if view.get("rounds") else ""))
    if view.get("seat") is not None:
        header.append(f"{view['seat']}'s side")
    if view.get("finished"):
        header.append("finished")
    elif view.get("turn") is not None:
        header.append("your turn" if view.get("your_turn") else f"turn: {view.get('turn')}")
    if view.get("turns") is not None:
        header.append(f"turns {view.get('turns')}" + (f"/{view['turn_cap']}" if view.get("turn_cap") else ""))
    lines = []
    last = view.get("last")
    if isinstance(last, dict) and last:
        if "action" in last:
            lines.append(f"last move: {last.get('seat')} {last.get('action')}"
                         + (" (blocked by a wall)" if last.get("blocked") else ""))
        else:
            lines.append(f"last move by {last.get('seat')}")
    if "sees_treasure" in view and not view.get("finished"):
        lines.append("you see the treasure" if view.get("sees_treasure") else "your partner sees the treasure")
    results = view.get("results")
    if isinstance(results, list) and results:
        done = [r for r in results if isinstance(r, dict)]
        lines.append("rounds: " + "; ".join(
            f"{r.get('round')}: {r.get('status')} in {r.get('turns')}" + (f" (best {r['optimum']})" if r.get("optimum")
                                                                           is not None else "") for r in done))

    grid = size * CELL
    top = 24 if header else PAD
    width = grid + 2 * PAD
    lines = [part for text in lines for part in textwrap.wrap(text, max(20, int(grid / 6.4)), subsequent_indent="  ")]
    height = top + grid + PAD + 14 * len(lines) + 8
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="sans-serif" font-size="12" class="gnomes-board">']
    if header:
        out.append(f'<text x="{PAD}" y="16" font-weight="bold">{_e(" · ".join(header))}</text>')
    out.append(f'<g transform="translate({PAD},{top})">')
    out.append(f'<rect x="0" y="0" width="{grid}" height="{grid}" fill="#fbfaf4" stroke="none"/>')
    for i in range(1, size):
        out.append(f'<line x1="{i * CELL}" y1="0" x2="{i * CELL}" y2="{grid}" stroke="#e4e1d3" stroke-width="1"/>')
        out.append(f'<line x1="0" y1="{i * CELL}" x2="{grid}" y2="{i * CELL}" stroke="#e4e1d3" stroke-width="1"/>')
    if start and 0 <= start[0] < size and 0 <= start[1] < size:
        sx, sy = start
        out.append(f'<rect x="{sx * CELL + 2}" y="{sy * CELL + 2}" width="{CELL - 4}" height="{CELL - 4}" '
                   f'fill="#e8f0ff"/><text x="{sx * CELL + 4}" y="{sy * CELL + 12}" font-size="9" fill="#6b7fa8">'
                   f'start</text>')
    for x, y in right:
        if 0 <= x < size and 0 <= y < size:
            out.append(f'<line x1="{(x + 1) * CELL}" y1="{y * CELL}" x2="{(x + 1) * CELL}" y2="{(y + 1) * CELL}" '
                       f'stroke="#5a3e1b" stroke-width="4" stroke-linecap="round" class="wall"/>')
    for x, y in below:
        if 0 <= x < size and 0 <= y < size:
            out.append(f'<line x1="{x * CELL}" y1="{(y + 1) * CELL}" x2="{(x + 1) * CELL}" y2="{(y + 1) * CELL}" '
                       f'stroke="#5a3e1b" stroke-width="4" stroke-linecap="round" class="wall"/>')
    out.append(f'<rect x="0" y="0" width="{grid}" height="{grid}" fill="none" stroke="#5a3e1b" stroke-width="3"/>')
    if treasure and 0 <= treasure[0] < size and 0 <= treasure[1] < size:
        tx, ty = treasure
        c = CELL / 2
        pts = " ".join(f"{tx * CELL + c + dx:.1f},{ty * CELL + c + dy:.1f}"
                       for dx, dy in ((0, -11), (3, -3.5), (11, -3.5), (4.5, 2), (7, 10.5), (0, 5.5), (-7, 10.5),
                                      (-4.5, 2), (-11, -3.5), (-3, -3.5)))
        out.append(f'<polygon points="{pts}" fill="#f2c200" stroke="#8a6d00" class="treasure">'
                   f'<title>treasure at {_e(tx)},{_e(ty)}</title></polygon>')
    if token and 0 <= token[0] < size and 0 <= token[1] < size:
        x, y = token
        out.append(f'<circle cx="{x * CELL + CELL / 2}" cy="{y * CELL + CELL / 2}" r="{CELL / 2 - 6}" fill="#d62828" '
                   f'stroke="#7a0d0d" stroke-width="1.5" class="token"><title>token at {_e(x)},{_e(y)}</title>'
                   f'</circle>')
    out.append("</g>")
    y = top + grid + PAD
    for text in lines:
        y += 14
        out.append(f'<text x="{PAD}" y="{y}" fill="#333">{_e(text)}</text>')
    out.append("</svg>")
    return "".join(out)
