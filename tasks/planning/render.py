"""A seat's view of DialOp Planning as HTML (transcripts): the user's preferences and scorecards, or the
assistant's proposals and searches; the result. Every text from the game or from people is escaped."""
from __future__ import annotations

from tasks.core import esc


def _itinerary(p: dict, names: list) -> str:
    return " → ".join("(empty)" if s is None else esc(names[s] if names else s) for s in p["slots"])


def render_view(view: dict) -> str:
    if not view or view.get("role") not in ("user", "assistant"):
        return "<p>(waiting)</p>"
    out = []
    if view["role"] == "user":
        out.append("<h4>Preferences</h4><ul>" + "".join(f"<li>{esc(t)}</li>" for t in view["preferences"]) + "</ul>")
        for p in view.get("proposals", []):
            names = [None if s is None else s["name"] for s in p["sites"]]
            card = p["card"]
            stops = " → ".join("(empty)" if n is None else esc(n) for n in names)
            checks = "".join(f"<li>{'YES' if c['met'] else 'NO'} ({esc(c['score'])}) {esc(c['desc'])}</li>"
                             for c in card["checklist"])
            out.append(f"<p>Proposal {esc(p['id'])} [{esc(p['status'])}]: {stops}; per slot "
                       f"{esc(card['by_slot'])}; total <b>{esc(card['total'])}</b></p><ul>{checks}</ul>")
    else:
        names = [s["name"] for s in view.get("sites", [])]
        for p in view.get("proposals", []):
            out.append(f"<p>Proposal {esc(p['id'])} [{esc(p['status'])}]: {_itinerary(p, names)}</p>")
        for s in view.get("searches", []):
            out.append(f"<pre>/search {esc(s['query'])}\n{esc(s['text'])}</pre>")
    res = view.get("result")
    if res:
        out.append(f"<p>Result: {esc(res.get('status'))}, normalised {esc(res.get('normalized'))}"
                   + (f", score {esc(res.get('score'))} (best {esc(res.get('best'))}, worst {esc(res.get('worst'))})"
                      if "score" in res else "") + "</p>")
    return "".join(out)
