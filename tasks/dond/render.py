"""A seat's page state, always in the viewer's frame ("me" / "partner", what I get), and the same view drawn as HTML
for transcripts. Only the seat's own values and score are ever in it (the contract's view keys, plus the page's
conveniences: seat, names, offer ids and my value of each offer)."""
from __future__ import annotations

from tasks.core import esc

from .items import ITEMS, PLURALS, TOTAL_VALUE, rest, utility


def _offer_for(game, seat: str, o: dict) -> dict:
    mine = list(game.take_of(seat, o))
    return {"id": o["id"], "by": "me" if o["by"] == seat else "partner", "mine": mine,
            "theirs": list(rest(game.counts, mine)), "status": o["status"], "reason": o["reason"],
            "round": o["round"], "my_value": utility(mine, game.values[seat])}


def seat_view(game, seat: str) -> dict:
    partner = game.partner(seat)
    result = None
    if game.over:
        mine = game.deal[seat] if game.deal else None
        result = {"deal": game.deal is not None, "mine": mine, "theirs": game.deal[partner] if game.deal else None,
                  "my_score": utility(mine, game.values[seat]) if mine else 0, "reason": game.end_reason}
    standing = game.standing(partner)
    return {
        "seat": seat, "me_name": game.seat_names[seat], "partner_name": game.seat_names[partner],
        "counts": list(game.counts), "values": list(game.values[seat]), "items": list(ITEMS),
        "max_value": TOTAL_VALUE,
        "round": game.round, "max_rounds": game.max_rounds, "first": "me" if seat == game.seats[0] else "partner",
        "last_round": game.runs >= 2 * game.max_rounds - 1,
        "offers": [_offer_for(game, seat, o) for o in game.offers],
        "can_accept": standing["id"] if standing is not None and game.phase == "negotiating" else None,
        "phase": game.phase, "protocol": game.protocol,
        "presented": game.presented.get(seat), "partner_presented": partner in game.presented,
        "result": result,
    }


def _split_text(split) -> str:
    return ", ".join(f"{n} {name if n != 1 else name[:-1]}" for n, name in zip(split, PLURALS))


def render_view(view: dict) -> str:
    if not view or "counts" not in view:
        return "<p>(waiting)</p>"
    rows = "".join(f"<tr><th>{esc(name)}</th><td>{esc(c)}</td><td>{esc(v)}</td></tr>"
                   for name, c, v in zip(view["items"], view["counts"], view["values"]))
    out = [f"<table class=\"dond\"><tr><th>item</th><th>count</th><th>my value</th></tr>{rows}</table>",
           f"<p>Round {esc(view['round'])} of {esc(view['max_rounds'])}.</p>"]
    offers = "".join(f"<li>#{esc(o['id'])} by {esc(o['by'])}: I get {esc(_split_text(o['mine']))} "
                     f"(worth {esc(o['my_value'])}), {esc(o['status'])}"
                     + (f": {esc(o['reason'])}" if o.get("reason") else "") + "</li>" for o in view["offers"])
    if offers:
        out.append(f"<ul>{offers}</ul>")
    res = view.get("result")
    if res:
        out.append(f"<p>Deal: I get {esc(_split_text(res['mine']))}, score {esc(res['my_score'])}.</p>"
                   if res["deal"] else "<p>No deal: score 0.</p>")
    return "".join(out)
