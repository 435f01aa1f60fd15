"""This project's own prompts for the paper's four LLM agents (prompts="ours"; paper_prompts.py has the paper's
structure): the turn prompt's system part and worked example, and the grounding module's stable prefix. Each is
written from the seat's view, so one house's letters and coin range appear and nothing else changes it."""
from __future__ import annotations

import json

from ..board import ROOM_NAMES
from .knowledge import ekey
from .llm_actions import MAX_ACTIONS, MESSAGE_CHARS, THOUGHT_CHARS


def own_coins(v: dict) -> str:
    return ", ".join(f"{k}: {w}" for k, w in v["my_coins"].items())


def grounding_prefix(v: dict) -> list[dict]:
    """The grounding module's stable prefix: instructions for this house and one worked example (made up)."""
    rooms = [r["id"] for r in v["rooms"]]
    wmin, wmax = v.get("coin_range") or (1, 10)
    names = ", ".join(f"{r} = {ROOM_NAMES.get(r, r)}" for r in rooms)
    system = (
        "You keep track of the coins one player has revealed in a cooperative route-planning game. Rooms "
        f"(letter = name): {names}. Every pair of rooms is joined by a hallway, and every player has their "
        f"own number of coins ({wmin}-{wmax}) on each hallway. You get one message by the player, the coins "
        "of that player you already know, and the room where the agreed path currently ends (for phrases "
        "like 'from there'). List only coins the player states as their OWN and that are new or changed; "
        "never sums of both players. Hallways are undirected; use room letters. Answer with JSON: "
        '{"thought": "...", "coins": [{"hallway": ["L", "K"], "coins": 5}]}; an empty list when nothing '
        "is new.")
    a, b, c = rooms[0], rooms[1], rooms[2]
    lo, hi = int(wmin), int(wmax)
    x, y = min(hi, lo + 3), lo
    user = (f"[Message]: My coins: {ekey((b, c))} is {x}, and from there to {a} I have {y}.\n"
            f"[Known]: nothing yet\n[Loc]: {a}")
    answer = {"thought": f"{ekey((b, c))} is {x}; 'from there' is from {c}, so {ekey((a, c))} is {y}.",
              "coins": [{"hallway": [b, c], "coins": x}, {"hallway": [c, a], "coins": y}]}
    return [{"role": "system", "content": system}, {"role": "user", "content": user},
            {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}]


def turn_example(v: dict, stable_prefix: bool) -> list[dict]:
    """One worked example of a turn (made-up coins, this house's letters): part of the stable prefix."""
    rooms = [r["id"] for r in v["rooms"]]
    a, b, c = rooms[0], rooms[1], rooms[2]
    wmin, wmax = v.get("coin_range") or (1, 10)

    def w(x: int) -> int:
        return max(int(wmin), min(int(wmax), x))

    own = (f"(example; made-up coins: your own {ekey((a, c))} is {w(6)})" if stable_prefix else
           f"(example with made-up coins)\n[World-state-own]: {ekey((a, b))}: {w(2)}, {ekey((a, c))}: {w(6)}, "
           f"{ekey((b, c))}: {w(3)}")
    user = f"{own}\n[Open-proposal]: none\n[Observation]: Partner: Hi! I have {w(5)} coins on {ekey((a, c))}."
    answer = {"thought": f"{ekey((a, c))} is rich for both of us: suggest it and share my coins there.",
              "actions": [{"type": "suggest", "args": [a, c]}, {"type": "inform", "args": [a, c]}],
              "message": f"Nice, I have {w(6)} on {ekey((a, c))} too. Shall we go from {a} to {c} first?"}
    return [{"role": "user", "content": user},
            {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}]


def system_prompt(v: dict, variant: dict, stable_prefix: bool) -> str:
    """The turn prompt's system part: the rules, what each turn's input holds, the answer's form (and, with a
    stable prefix, the seat's own coins, which never change)."""
    rooms = [r["id"] for r in v["rooms"]]
    start = v["start"]
    wmin, wmax = v.get("coin_range") or (1, 10)
    world = v["world"]
    other = "ghost" if world == "light" else "light"
    limit = v.get("turn_limit")
    room_list = ", ".join(f"{r} {ROOM_NAMES.get(r, r)}" for r in rooms)
    inputs = [] if stable_prefix else ["[World-state-own] your coins on every hallway"]
    if variant["partner_ws"]:
        inputs.append("[World-state-partner] your partner's coins revealed so far")
    if variant["history"]:
        inputs.append("[History] your actions in earlier turns")
    if variant["state"]:
        inputs.append("[Visited] the agreed path so far")
        inputs.append(f"[Remaining] the rooms still to visit ({start} stays until the tour is closed)")
    if variant["ibp"]:
        inputs.append("[IBP] the intermediate best path: the best full tour that begins with [Visited], computed "
                      "by an exact solver from your coins plus the partner's known ones; use it as your "
                      "reference when you suggest rooms or ask about coins")
    inputs.append("[Open-proposal] the proposal waiting for an answer, and who made it")
    inputs.append("[Observation] what your partner wrote and the game announced since your last turn")
    turn_rule = f"At most {limit} turns each: " if limit else ""
    return (
        f"You are an adventurer in a house with {len(rooms)} rooms: {room_list}. You live in the {world} world, "
        f"your partner in the {other} world. Every two rooms are joined by a hallway holding {wmin}-{wmax} coins "
        "in each world; you see only your own world's coins. Together you agree on ONE round trip from "
        f"{start} through every other room exactly once and back to {start}. You collect the coins of BOTH worlds "
        "on every hallway you walk, so the best tour depends on coins you cannot see: talk about them. The game "
        f"keeps one agreed path from {start}: either of you proposes the next room(s) or a whole tour, the other "
        "agrees or rejects; when the agreed path is a complete tour, both submit it. "
        f"{turn_rule}be efficient.\n"
        "Each turn you get: " + "; ".join(inputs) + ".\n"
        "Answer with one JSON object {\"thought\": \"your private reasoning\", \"actions\": [{\"type\": ..., "
        "\"args\": [...]}], \"message\": \"what you say to your partner\"}. Action types: suggest (args: the "
        f"rooms of a path, e.g. [\"{start}\", \"K\"], or a whole tour); agree-inner (accept your partner's open "
        "proposal); reject (decline it); visit (args: [room], the room agreed next); end (submit; args: the full "
        f"tour from and back to {start}); ask (ask for your partner's coins; args: two rooms per hallway, e.g. "
        "[\"L\", \"K\"]); inform (reveal your coins; args: two rooms per hallway); agree-outer (your partner "
        "accepted your proposal; bookkeeping only). Only agree to your partner's proposals; end only with a "
        "complete agreed tour. Your partner sees only your message and the game's announcements. Thought under "
        f"{THOUGHT_CHARS} characters, message under {MESSAGE_CHARS}, at most {MAX_ACTIONS} actions."
        + (f"\n[World-state-own]: {own_coins(v)}" if stable_prefix else ""))
