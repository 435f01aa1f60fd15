"""What the paper's LLM agents answer and how it becomes moves: the turn's answer schema (thought, actions, message)
and the grounding module's schema, both written per seat from its rooms; and `plan_moves`, which maps every action
onto game commands on its own (one bad action does not drop the others): suggest -> /propose, agree-inner -> /agree
(when it matches the partner's open proposal), reject -> /reject, visit -> /agree when the partner proposed that
room, end -> /submit <tour>, inform -> /share of the hallways it names plus chat, ask and message -> chat."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..parse import parse_rooms
from .knowledge import ekey

ACTION_TYPES = ("suggest", "agree-inner", "agree-outer", "reject", "visit", "end", "ask", "inform")

THOUGHT_CHARS = 100   # the private reasoning, kept short: small models otherwise ramble to max_tokens
MESSAGE_CHARS = 200   # one chat line to the partner
MAX_ACTIONS = 3
MAX_GROUNDED = 4      # hallways read from one message


def action_schema(rooms: Sequence[str]) -> dict:
    """The turn's answer: a short thought, up to MAX_ACTIONS actions whose args are room letters of this house (a
    path, a tour, or two letters per hallway), and a message. Written once per seat; bounded throughout."""
    room = {"type": "string", "enum": list(rooms)}
    return {
        "title": "turn",
        "type": "object",
        "properties": {
            "thought": {"type": "string", "maxLength": THOUGHT_CHARS},
            "actions": {
                "type": "array", "maxItems": MAX_ACTIONS,
                "items": {
                    "type": "object",
                    "properties": {"type": {"type": "string", "enum": list(ACTION_TYPES)},
                                   "args": {"type": "array", "items": room, "maxItems": max(len(rooms) + 1, 6)}},
                    "required": ["type", "args"],
                    "additionalProperties": False,
                },
            },
            "message": {"type": "string", "maxLength": MESSAGE_CHARS},
        },
        "required": ["thought", "actions", "message"],
        "additionalProperties": False,
    }


def grounding_schema(rooms: Sequence[str], wmin: int, wmax: int, max_items: int = MAX_GROUNDED) -> dict:
    """What the grounding module reads from one partner message: the partner's own coins per hallway (room
    letters of this house, coins in the game's range). Written once per seat; bounded throughout."""
    room = {"type": "string", "enum": list(rooms)}
    return {
        "title": "reading",
        "type": "object",
        "properties": {
            "thought": {"type": "string", "maxLength": 60},
            "coins": {
                "type": "array", "maxItems": max_items,
                "items": {
                    "type": "object",
                    "properties": {"hallway": {"type": "array", "items": room, "minItems": 2, "maxItems": 2},
                                   "coins": {"type": "integer", "enum": list(range(int(wmin), int(wmax) + 1))}},
                    "required": ["hallway", "coins"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["thought", "coins"],
        "additionalProperties": False,
    }


# The schemas for the paper's preset house (documentation and simple fakes; brains build their own per seat).
ACTION_SCHEMA = action_schema(list("LEBKCA"))
GROUNDING_SCHEMA = grounding_schema(list("LEBKCA"), 1, 10)

COMMAND_ORDER = {"share": 0, "reject": 1, "agree": 2, "propose": 3, "submit": 4}


# A message at least this long (in said_key characters) is sent once: found whole in the prompt, it was copied from
# the worked example; sent before, it is a repeat. Shorter lines ("ok", "Fine.", "yes") are answers that may recur.
COPY_CHARS = 20


def said_key(text: str) -> str:
    """A chat line as compared for repeats: lower case, words only."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def stale_text(text: str, said: set, prompt_key: str) -> Optional[str]:
    """Why a message must not be sent: "repeated" when the seat already sent the same line, "copied" when the
    whole message stands in the prompt (its worked example); None to send it (and for short lines, see COPY_CHARS)."""
    key = said_key(text)
    if len(key) < COPY_CHARS:
        return None
    if key in said:
        return "repeated"
    return "copied" if key in prompt_key else None


def _flatten(args) -> list:
    out = []
    for a in args if isinstance(args, (list, tuple)) else [args]:
        if isinstance(a, (list, tuple)):
            out.extend(_flatten(a))
        else:
            out.append(a)
    return out


def _strip_list_text(s: str) -> str:
    """Accept '["L", "K"]' or "L-K" as text."""
    return s.replace("[", " ").replace("]", " ").replace('"', " ").replace("'", " ").replace(",", " ")


@dataclass
class MovePlan:
    """The moves one answer makes: hallways to share, one chat text, game commands in the order they are sent, the
    answer's actions as one line (the agent's history) and the actions that could not be used, with why."""

    shares: list = field(default_factory=list)
    text: str = ""
    commands: list = field(default_factory=list)
    summary: str = "none"
    errors: list = field(default_factory=list)


def rooms_of(view: dict, args) -> list[str]:
    rooms = [r["id"] for r in view["rooms"]]
    words = [_strip_list_text(str(a)) for a in _flatten(args) if isinstance(a, str)]
    if not words:
        raise ValueError("no rooms given")
    return parse_rooms(words, rooms)


def hallways_of(view: dict, args) -> list[str]:
    """Hallways named in args: [["L","K",5]], ["L-K"], [["L","K"],["B","A"]], "LK"."""
    rooms = [r["id"] for r in view["rooms"]]
    out: list[str] = []
    items = args if isinstance(args, (list, tuple)) else [args]
    pending: list[str] = []
    for item in items:
        if isinstance(item, (list, tuple)):
            names = [x for x in _flatten(item) if isinstance(x, str)]
            rs = parse_rooms([_strip_list_text(x) for x in names], rooms)
            if len(rs) == 2 and rs[0] != rs[1]:
                out.append(ekey(rs))
            else:
                raise ValueError(f"{item!r} is not a hallway")
        elif isinstance(item, str):
            rs = parse_rooms(_strip_list_text(item), rooms)
            if len(rs) == 2 and rs[0] != rs[1]:
                out.append(ekey(rs))
            elif len(rs) == 1:
                pending.append(rs[0])
            else:
                raise ValueError(f"{item!r} is not a hallway")
    # ["L", "K"] flat: pairs of single rooms
    for a, b in zip(pending[::2], pending[1::2]):
        if a != b:
            out.append(ekey((a, b)))
    return list(dict.fromkeys(out))


def full_path(view: dict, rooms: list[str]) -> list[str]:
    start = view["start"]
    agreed = list(view.get("agreed") or [start])
    if rooms[0] == start:
        path = rooms
    elif rooms[0] == agreed[-1]:
        path = agreed + rooms[1:]
    else:
        path = agreed + [r for r in rooms if r not in agreed]
    n = len(view["rooms"])
    if len(path) == n and len(set(path)) == n:
        path = path + [start]
    body = path[:-1] if len(path) == n + 1 and path[-1] == start else path
    if len(set(body)) != len(body):
        raise ValueError(f"the path {'-'.join(path)} repeats a room")
    return path


def next_room(view: dict, pending: dict) -> Optional[str]:
    """The room a proposal adds right after the agreed path (the start room when it closes the tour); None for a
    proposal that revises the agreed path."""
    agreed = list(view.get("agreed") or [view["start"]])
    path = pending["path"]
    return path[len(agreed)] if len(path) > len(agreed) and path[:len(agreed)] == agreed else None


def matches_pending(view: dict, args, pending: dict) -> bool:
    """Does an agreement naming `args` answer the partner's open proposal? The whole path (either direction), its
    last steps, or one room: the next room the proposal adds (so "visit L" on the agreed path [L] is not an
    agreement to the partner's whole tour, which merely ends in L)."""
    if not args:
        return True
    try:
        rooms = rooms_of(view, args)
    except ValueError:
        return False
    path = pending["path"]
    if len(rooms) == 1:
        return rooms[0] == next_room(view, pending)
    if rooms == path or rooms == path[::-1]:
        return True
    return len(rooms) <= len(path) and path[-len(rooms):] == rooms


def _end_tour(v: dict, args) -> list[str]:
    rooms = [r["id"] for r in v["rooms"]]
    tour = rooms_of(v, args) if args else []
    if tour:
        if tour[0] != v["start"]:
            raise ValueError("the tour must start in " + v["start"])
        if len(tour) == len(rooms) and len(set(tour)) == len(rooms):
            tour = tour + [v["start"]]
        if len(tour) != len(rooms) + 1 or tour[-1] != v["start"] or len(set(tour[:-1])) != len(rooms):
            raise ValueError(f"{'-'.join(tour)} is not a complete tour")
    return tour


def plan_moves(v: dict, out: dict, paper_style: bool) -> MovePlan:
    """The moves of one answer `out` in view `v`. `paper_style`: the paper's agents (their suggestions may repeat
    agreed steps, agree-inner may name their own suggestion, inform never becomes /share)."""
    pending = v.get("pending")
    partner_pending: Optional[dict] = pending if pending and not pending["mine"] else None
    cmds: list[tuple] = []
    shares: list[str] = []
    texts: list[str] = []
    errors: list[tuple] = []
    agreed_now = False
    summary = []
    for a in out.get("actions") or []:
        kind = a.get("type") if isinstance(a, dict) else None
        args = a.get("args", []) if isinstance(a, dict) else []
        summary.append(f"{kind}({json.dumps(args, ensure_ascii=False)})")
        try:
            if kind == "suggest":
                path = full_path(v, rooms_of(v, args))
                if partner_pending and path == partner_pending["path"]:
                    if not agreed_now:
                        cmds.append(("agree", ()))
                        agreed_now = True
                elif paper_style and list(v.get("agreed") or [])[:len(path)] == path:
                    pass  # the paper's agents (no agreed path in baseline, grounding) repeat agreed steps
                elif not (pending and pending["mine"] and pending["path"] == path) and path != v.get("agreed"):
                    cmds = [c for c in cmds if c[0] != "propose"]  # one proposal per turn: the last one counts
                    cmds.append(("propose", tuple(path)))
            elif kind in ("agree-inner", "visit"):
                if partner_pending and not agreed_now:
                    if matches_pending(v, args, partner_pending):
                        cmds.append(("agree", ()))
                        agreed_now = True
                    elif kind == "agree-inner" and not paper_style:  # paper: also its own suggestions
                        raise ValueError("agree-inner does not match the open proposal "
                                         f"{'-'.join(partner_pending['path'])}")
            elif kind == "reject":
                if partner_pending and not agreed_now:
                    cmds.append(("reject", ()))
            elif kind == "end":
                cmds.append(("submit", tuple(_end_tour(v, args))))
            elif kind == "inform" and (paper_style or v.get("share") is False):
                pass  # the paper: the message carries the coins (and its rules have no /share)
            elif kind == "solve":
                pass  # the paper's Thought-DRAFT found a full tour: bookkeeping only (kept in the history)
            elif kind == "inform":
                shares.extend(h for h in hallways_of(v, args) if h not in shares)
            elif kind == "ask":
                if not (out.get("message") or "").strip():
                    hs = hallways_of(v, args)
                    if hs:
                        texts.append("What are your coins on " + ", ".join(hs) + "?")
            elif kind == "agree-outer":
                pass  # the game records the partner's agreement itself
            else:
                raise ValueError(f"unknown action type {kind!r}")
        except Exception as exc:  # one bad action must not drop the others
            errors.append((a, f"{type(exc).__name__}: {exc}"[:200]))
    message = (out.get("message") or "").strip()
    if message:
        texts.insert(0, message)
    already = set(v.get("my_shared") or [])
    cmds.sort(key=lambda c: COMMAND_ORDER.get(c[0], 9))
    return MovePlan(shares=[s for s in shares if s not in already], text=" ".join(texts), commands=cmds,
                    summary=", ".join(summary) or "none", errors=errors)
