"""Draw one seat's Traveling Adventurers view as an inline SVG (used by replay transcripts).

The rooms sit on a circle (start room on top); every hallway is a line labelled with the seat's coins, and with the
partner's coins where the partner shared them. The agreed path is drawn thick, a pending proposal dashed. Missing or
malformed keys are skipped, so older or partial views still draw. All text is escaped.
"""
from __future__ import annotations

import html
import json
import math
from typing import Any, Optional

MY_COLOR = "#1f4e9c"
PARTNER_COLOR = "#c2571a"
AGREED_COLOR = "#2e9d4f"
LABEL_ALL_EDGES_UP_TO = 12  # rooms; bigger boards label only the highlighted hallways (all have hover titles)


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _rooms(view: dict) -> list[tuple[str, str]]:
    out = []
    for r in view.get("rooms") or []:
        if isinstance(r, dict) and r.get("id") is not None:
            out.append((str(r["id"]), str(r.get("name") or r["id"])))
        elif isinstance(r, str):
            out.append((r, r))
    return out


def _edge(key: Any) -> Optional[tuple[str, str]]:
    if isinstance(key, str) and key.count("-") == 1:
        a, b = key.split("-")
    elif isinstance(key, (list, tuple)) and len(key) == 2:
        a, b = map(str, key)
    else:
        return None
    return (a, b) if a <= b else (b, a)


def _coins(d: Any) -> dict[tuple[str, str], Any]:
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            e = _edge(k)
            if e:
                out[e] = v
    return out


def _pairs(path: Any) -> list[tuple[str, str]]:
    if not isinstance(path, (list, tuple)):
        return []
    rooms = [str(r) for r in path]
    return [(a, b) for a, b in zip(rooms, rooms[1:]) if a != b]


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return " \u2192 ".join(map(str, v)) if v else "-"
    if isinstance(v, dict):
        return ", ".join(f"{k} {_fmt(x)}" for k, x in v.items())
    return str(v)


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, break_long_words=True, subsequent_indent="  ") or [""]


def _short(name: str, limit: int = 16) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


def render_view(view: dict) -> str:
    view = view if isinstance(view, dict) else {}
    rooms = _rooms(view)
    mine = _coins(view.get("my_coins"))
    theirs = _coins(view.get("partner_coins"))
    ids = [r for r, _ in rooms]
    for a, b in list(mine) + list(theirs):  # hallways to rooms missing from the list still get a node
        for x in (a, b):
            if x not in ids:
                ids.append(x)
                rooms.append((x, x))
    names = dict(rooms)
    start = str(view.get("start")) if view.get("start") is not None else None
    if start in ids:
        k = ids.index(start)
        ids = ids[k:] + ids[:k]
    n = len(ids)
    radius = max(110, 22 * n)
    width = 2 * (radius + 90)  # room names sit left and right of the circle
    size = 2 * (radius + 45)
    cx, cy = width / 2, size / 2
    pos = {r: (cx + radius * math.cos(-math.pi / 2 + 2 * math.pi * i / max(1, n)),
               cy + radius * math.sin(-math.pi / 2 + 2 * math.pi * i / max(1, n))) for i, r in enumerate(ids)}

    agreed = _pairs(view.get("agreed"))
    pending = view.get("pending") if isinstance(view.get("pending"), dict) else None
    pend_path = list(pending.get("path") or []) if pending else []
    if pending and len(pend_path) == 1 and view.get("agreed"):
        pend_path = [view["agreed"][-1]] + pend_path
    pend = _pairs(pend_path)
    pend_color = MY_COLOR if pending and pending.get("mine") else PARTNER_COLOR
    highlighted = {tuple(sorted(p)) for p in agreed + pend}

    header = []
    world = view.get("world")
    if world is not None:
        header.append(f"{world} world")
    if "turns_left" in view:
        header.append(f"turns left: {_fmt(view.get('turns_left'))}")
    lines = []
    if view.get("agreed"):
        lines.append(("agreed: " + _fmt(view.get("agreed")), AGREED_COLOR))
    if pending:
        who = "you" if pending.get("mine") else str(pending.get("by") or "partner")
        lines.append((f"pending {pending.get('kind') or 'proposal'} by {who}: {_fmt(pending.get('path'))}", pend_color))
    sub = view.get("submitted")
    if isinstance(sub, dict) and (sub.get("me") or sub.get("partner")):
        lines.append((f"submitted: you {_fmt(sub.get('me'))}; partner {_fmt(sub.get('partner'))}", "#333"))
    elif sub not in (None, False, {}, []) and not isinstance(sub, dict):
        lines.append((f"submitted: {_fmt(sub)}", "#333"))
    res = view.get("result")
    if isinstance(res, dict):
        keys = ("status", "score", "optimum", "percentile", "optimal", "identical", "correct")
        shown = ", ".join(f"{k} {_fmt(res[k])}" for k in keys if k in res)
        lines.append((f"result: {shown or json.dumps(res, sort_keys=True, default=str)}", "#000"))
    elif res is not None:
        lines.append((f"result: {_fmt(res)}", "#000"))

    top = 22 if header else 4
    per_line = max(20, int((width - 16) / 6.6))
    wrapped = [(part, color) for text, color in lines for part in _wrap(text, per_line)]
    height = size + top + 16 * len(wrapped) + 12
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12" class="travel-board">']
    if header:
        out.append(f'<text x="8" y="16" font-weight="bold">{_e(" · ".join(header))}</text>')
    out.append(f'<g transform="translate(0,{top})">')
    edges = sorted(set(mine) | set(theirs))
    # hallways
    for a, b in edges:
        if a not in pos or b not in pos:
            continue
        (x1, y1), (x2, y2) = pos[a], pos[b]
        tip = f"{a}\u2013{b}: your coins {_fmt(mine.get((a, b)))}" + (
            f", partner's {_fmt(theirs[(a, b)])}" if (a, b) in theirs else "")
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#cfcfcf" '
                   f'stroke-width="1"><title>{_e(tip)}</title></line>')
    for a, b in agreed:
        if a in pos and b in pos:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{AGREED_COLOR}" '
                       f'stroke-width="6" stroke-opacity="0.65" stroke-linecap="round" class="agreed"/>')
    for a, b in pend:
        if a in pos and b in pos:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{pend_color}" '
                       f'stroke-width="3" stroke-dasharray="7 5" class="pending"/>')
    # coin labels: at the middle of the hallway, or slid along it when another label is already there (the
    # diagonals of an even board all cross in the centre)
    placed: list[tuple[float, float]] = []
    for a, b in edges:
        if a not in pos or b not in pos or (n > LABEL_ALL_EDGES_UP_TO and (a, b) not in highlighted):
            continue
        (x1, y1), (x2, y2) = pos[a], pos[b]
        spots = [(x1 + (x2 - x1) * t, y1 + (y2 - y1) * t) for t in (0.5, 0.36, 0.64, 0.28, 0.72)]
        mx, my = next((p for p in spots if all(math.hypot(p[0] - q[0], p[1] - q[1]) >= 18 for q in placed)),
                      spots[0])
        placed.append((mx, my))
        parts = []
        if (a, b) in mine:
            parts.append(f'<tspan fill="{MY_COLOR}">{_e(mine[(a, b)])}</tspan>')
        if (a, b) in theirs:
            parts.append(f'<tspan fill="{PARTNER_COLOR}">{"/" if parts else ""}{_e(theirs[(a, b)])}</tspan>')
        out.append(f'<text x="{mx:.1f}" y="{my + 4:.1f}" text-anchor="middle" font-size="11" stroke="#fff" '
                   f'stroke-width="3" paint-order="stroke">{"".join(parts)}</text>')
    # rooms
    for r in ids:
        x, y = pos[r]
        is_start = r == start
        if is_start:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="20" fill="none" stroke="#b08900" stroke-width="2"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="15" fill="{"#fff5cc" if is_start else "#fff"}" '
                   f'stroke="#333" stroke-width="1.5"><title>{_e(r)}: {_e(names.get(r, r))}'
                   f'{" (start)" if is_start else ""}</title></circle>')
        out.append(f'<text x="{x:.1f}" y="{y + 4.5:.1f}" text-anchor="middle" font-weight="bold">{_e(r)}</text>')
        dx, dy = x - cx, y - cy
        d = math.hypot(dx, dy) or 1
        lx, ly = x + dx / d * 34, y + dy / d * 30
        anchor = "middle" if abs(dx / d) < 0.3 else ("start" if dx > 0 else "end")
        out.append(f'<text x="{lx:.1f}" y="{ly + 4:.1f}" text-anchor="{anchor}" font-size="10" fill="#555">'
                   f'{_e(_short(names.get(r, r)))}</text>')
    out.append("</g>")
    y = top + size + 4
    for text, color in wrapped:
        y += 16
        out.append(f'<text x="8" y="{y:.0f}" fill="{color}">{_e(text)}</text>')
    out.append("</svg>")
    partner = f' / <span style="color:{PARTNER_COLOR}">partner&#39;s (shared)</span>' if theirs else ""
    legend = (f'<div style="font-size:11px;color:#666">coins: <span style="color:{MY_COLOR}">yours</span>{partner}; '
              f'<span style="color:{AGREED_COLOR}">agreed path</span>; dashed: pending proposal</div>')
    return "".join(out) + legend
