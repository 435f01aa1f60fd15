"""A seat's view of DialOp Mediation as HTML (transcripts): calendars, flights, the pending proposal, the result."""
from __future__ import annotations

from tasks.core import esc


def _events(events: list) -> str:
    rows = "".join(f"<tr><td>{esc(e['id'])}</td><td>{esc(e['when'])}</td>"
                   f"<td>{esc(e.get('importance', ''))}</td><td>{'shared' if e.get('shared', True) else 'private'}"
                   f"</td></tr>" for e in events)
    return f"<table class=\"md-cal\"><tr><th>event</th><th>when</th><th>importance</th><th></th></tr>{rows}</table>"


def _flights(flights: list, mark=()) -> str:
    hi = ' style="background:#ffe08a"'
    rows = "".join(f"<tr{hi if f['id'] in mark else ''}><td>{esc(f['id'])}</td>"
                   f"<td>{esc(f['carrier'])}</td><td>${esc(f['price'])}</td><td>{esc(f['when'])}</td></tr>"
                   for f in flights)
    return f"<table class=\"md-flights\"><tr><th>#</th><th>carrier</th><th>price</th><th>when</th></tr>{rows}</table>"


def render_view(view: dict) -> str:
    if not view or "role" not in view:
        return "<p>(waiting)</p>"
    res = view.get("result") or {}
    if view["role"] == "assistant":
        pair = (view.get("pending") or {}).get("pair") or res.get("pair") or [None, None]
        out = "".join(f"<h4>{esc(u['seat'])}</h4>{_events(u['calendar'])}{_flights(u['flights'], (pair[k],))}"
                      for k, u in enumerate(view["users"]))
    else:
        p = view.get("pending") or {}
        mark = (p["flight"]["id"],) if p else ((res["flight"]["id"],) if res.get("flight") else ())
        out = _events(view["calendar"]) + _flights(view["flights"], mark)
        if p:
            b = p["breakdown"]
            out += (f"<p>Proposal: meetings {esc(b['calendar'])}, price {esc(b['price'])}, arrival "
                    f"{esc(b['arrival'])}, total {esc(b['total'])}</p>")
    if res:
        out += f"<p>Group score {esc(res['group'])} (best {esc(res['best'])}, normalised {esc(res['normalized'])}).</p>"
    return out
