"""A seat's page state (everything from that seat's perspective: "me" and "partner", my actions as rows) and the
same view drawn as HTML for transcripts."""
from __future__ import annotations

from tasks.core import esc

from . import solvers


def _tree_for(node, seat: str):
    """The tree with movers as "me" / "partner" and leaves as {"me": u, "them": v}."""
    if solvers.is_leaf(node):
        k = 0 if seat == "alice" else 1
        return {"me": node[k], "them": node[1 - k]}
    return {"mover": "me" if node["player"] == seat else "partner",
            "moves": {label: _tree_for(child, seat) for label, child in node["moves"].items()}}


def _outcome_for(o: dict, seat: str, partner: str) -> dict:
    out = {"trial": o["trial"], "me": o["payoffs"][seat], "them": o["payoffs"][partner],
           "is_ne": o["is_ne"], "po_ne": o["po_ne"], "pareto_optimal": o["pareto_optimal"]}
    if "moves" in o:
        out.update(my_move=o["moves"][seat], their_move=o["moves"][partner])
    else:
        out.update(path=list(o["path"]), spe_path=list(o["spe_path"]))
    return out


def seat_view(game, seat: str) -> dict:
    partner = game.partner(seat)
    k = game.idx(seat)
    talk = game.talk
    stage = game.stage
    v = {
        "game": {"name": game.g["name"], "title": game.g["title"], "kind": game.kind,
                 "description": game.g.get("description", "")},
        "me": seat, "me_name": game.seat_names[seat], "partner_name": game.seat_names[partner],
        "stage": stage, "trial": min(game.trial + 1, game.trials), "trials": game.trials,
        "negotiation": {
            "rounds": game.k, "first": "me" if game.first == seat else "partner",
            "round": talk.said // 2 + 1 if stage == "negotiate" else None,
            "turn": ("me" if talk.current == seat else "partner") if stage == "negotiate" else None,
            "halt_asked": {"me": seat in talk.halt_requests, "partner": partner in talk.halt_requests},
            "messages": [{"who": "me" if m["seat"] == seat else "partner", "text": m["text"], "step": m["step"]}
                         for m in game.messages],
        },
        "outcomes": [_outcome_for(o, seat, partner) for o in game.outcomes],
        "done": stage == "done",
    }
    if game.kind == "matrix":
        mine, theirs = game.g["actions"][k], game.g["actions"][1 - k]
        cell = (lambda i, j: game.g["payoffs"][i][j]) if k == 0 else (lambda i, j: game.g["payoffs"][j][i])
        v["my_actions"], v["their_actions"] = list(mine), list(theirs)
        v["matrix"] = [[{"me": cell(i, j)[k], "them": cell(i, j)[1 - k]} for j in range(len(theirs))]
                       for i in range(len(mine))]
        r = game.reveal
        sealed = None
        if r.is_open and r.committed(seat):
            sealed = next(s for s in reversed(game.sealed) if s["seat"] == seat)
        v["commit"] = {"open": r.is_open and stage == "move", "me": r.committed(seat) if r.is_open else False,
                       "partner": r.committed(partner) if r.is_open else False, "sealed": sealed,
                       "closes_at": r.closes_at()}
        v["moves"] = list(mine) if stage == "move" and not (r.is_open and r.committed(seat)) else []
    else:
        v["tree"] = _tree_for(game.g["tree"], seat)
        v["path"] = list(game.path)
        mover = game.mover()
        v["mover"] = None if mover is None else ("me" if mover == seat else "partner")
        v["moves"] = game.labels(seat) if stage == "move" and mover == seat else []
    return v


def _matrix_html(view: dict) -> str:
    head = "".join(f"<th>{esc(a)}</th>" for a in view["their_actions"])
    rows = []
    for i, a in enumerate(view["my_actions"]):
        cells = "".join(f"<td>{esc(c['me'])}, {esc(c['them'])}</td>" for c in view["matrix"][i])
        rows.append(f"<tr><th>{esc(a)}</th>{cells}</tr>")
    return (f"<table class=\"matrix-game\"><tr><th>me \\ {esc(view['partner_name'])}</th>{head}</tr>"
            f"{''.join(rows)}</table>")


def _tree_html(node, depth: int = 0) -> str:
    if "mover" not in node:
        return f"(me {esc(node['me'])}, them {esc(node['them'])})"
    items = "".join(f"<li>{esc(node['mover'])}: {esc(label)} &rarr; {_tree_html(child, depth + 1)}</li>"
                    for label, child in node["moves"].items())
    return f"<ul>{items}</ul>"


def render_view(view: dict) -> str:
    if not view or "game" not in view:
        return "<p>(waiting)</p>"
    body = _matrix_html(view) if view["game"]["kind"] == "matrix" else _tree_html(view["tree"])
    outs = "".join(f"<li>trial {esc(o['trial'])}: me {esc(o['me'])}, them {esc(o['them'])}"
                   f"{' (NE)' if o['is_ne'] else ''}</li>" for o in view.get("outcomes") or [])
    return f"<h3>{esc(view['game']['title'])}</h3>{body}" + (f"<ul>{outs}</ul>" if outs else "")
