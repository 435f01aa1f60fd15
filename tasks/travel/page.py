"""The travel page in two parts: the Python twin of `combine` in plugins/travel.js (tests check they agree).

The shared part says things in seat-absolute terms ("pending.by", "turns_left" per seat); a seat's view says them
relative to the seat ("pending.mine", "turns_left.me"). combine(shared, own) == TravelGame.view(seat).
"""
from __future__ import annotations


def combine(shared: dict, own: dict) -> dict:
    seat = own["world"]
    other = next((s for s in own["seats"] if s != seat), seat)
    pending = shared.get("pending")
    return {
        "rooms": own["rooms"],
        "start": own["start"],
        "world": seat,
        "my_coins": own["my_coins"],
        "partner_coins": own["partner_coins"],
        "agreed": shared["agreed"],
        "pending": None if pending is None else {"id": pending["id"], "by": pending["by"],
                                                 "mine": pending["by"] == seat, "path": pending["path"],
                                                 "kind": pending["kind"]},
        "submitted": {"me": own["my_tour"], "partner": shared["submitted"][other]},
        "turns_left": {"me": shared["turns_left"][seat], "partner": shared["turns_left"][other]},
        "result": shared["result"],
        "my_shared": own["my_shared"],
        "partner_submitted": own["partner_submitted"],
        "coin_range": own["coin_range"],
        "turn_limit": own["turn_limit"],
        "rules": own["rules"],
        "share": own["share"],
    }
