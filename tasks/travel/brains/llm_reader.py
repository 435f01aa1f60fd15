"""Reading chat with an LLM (when one is configured): the structured-output schema, the prompt, and the mapping of
the answer onto a reader.Reading (validated: rooms of this house, coin range). The rule-based reader stands in when
the LLM fails."""
from __future__ import annotations

import json
from typing import Optional, Sequence

from ..board import ROOM_NAMES, edge
from . import reader as rule_reader


def reading_schema(rooms: Sequence[str], wmin: int, wmax: int) -> dict:
    """What the LLM reader extracts from one chat message, for this house's rooms and coin range. Written once per
    seat (`SolverBrain`), sent as the structured-output schema and used to validate the answer; bounded
    throughout, so the client can size max_tokens. An empty path means none."""
    room = {"type": "string", "enum": list(rooms)}
    pair = {"type": "array", "items": room, "minItems": 2, "maxItems": 2}
    coins = list(range(int(wmin), int(wmax) + 1))
    return {
        "title": "reading",
        "type": "object",
        "properties": {
            "coins": {"type": "array", "maxItems": 4, "items": {
                "type": "object",
                "properties": {"hallway": pair, "coins": {"type": "integer", "enum": coins}},
                "required": ["hallway", "coins"], "additionalProperties": False}},
            "asks": {"type": "array", "maxItems": 4, "items": pair},
            "ask_all": {"type": "boolean"},
            "cap": {"enum": [None] + coins},
            "path": {"type": "array", "items": room, "maxItems": len(rooms) + 1},
            "yes": {"type": "boolean"},
            "no": {"type": "boolean"},
            "defer": {"type": "boolean"},
            "question": {"type": "boolean"},
        },
        # (defer is optional: readers written before it still validate; the client's json_schema is not strict)
        "required": ["coins", "asks", "ask_all", "cap", "path", "yes", "no", "question"],
        "additionalProperties": False,
    }


# The schema for the paper's preset house (documentation and simple fakes; brains build their own per seat).
READING_SCHEMA = reading_schema(list("LEBKCA"), 1, 10)


class _Tally:
    """Collects token counts from an LLM client (it calls .add(delta) with prompt_tokens, completion_tokens...)."""

    FIELDS = ("prompt_tokens", "completion_tokens", "calls", "failures")

    def __init__(self):
        for f in self.FIELDS:
            setattr(self, f, 0)

    def add(self, other) -> "_Tally":
        for f in self.FIELDS:
            setattr(self, f, getattr(self, f) + int(getattr(other, f, 0) or 0))
        return self

    def into(self, usage: dict) -> None:
        for f in self.FIELDS:
            usage[f] = usage.get(f, 0) + getattr(self, f)


def reader_messages(text: str, rooms: Sequence[str], wmin: int, wmax: int) -> list[dict]:
    """The reader's prompt: a stable prefix (instructions for this house, one worked example) and the message."""
    names = ", ".join(f"{r} = {ROOM_NAMES.get(r, r)}" for r in rooms)
    a, b, c = rooms[0], rooms[1], rooms[2]
    lo, hi = int(wmin), int(wmax)
    example_text = f"I have {min(hi, lo + 3)} coins on {a}-{b}. What are yours on {b}-{c}? Let's go {a} {b} next."
    example = {"coins": [{"hallway": [a, b], "coins": min(hi, lo + 3)}], "asks": [[b, c]], "ask_all": False,
               "cap": None, "path": [a, b], "yes": False, "no": False, "defer": False, "question": True}
    return [
        {"role": "system", "content": (
            "You read one chat message from a player of a cooperative route-planning game and extract its content "
            f"as JSON. Rooms (letter = name): {names}. Hallways connect two rooms; each player has their own coins "
            f"({wmin}-{wmax}) on every hallway. Extract: coins = hallways whose coins the speaker states as their "
            "OWN (not sums); asks = hallways the speaker asks the listener about; ask_all = the speaker asks for all "
            "of the listener's coins; cap = N if the speaker says their other hallways have at most N coins, else "
            "null; path = the room letters the speaker suggests visiting, in order, else []; yes/no = agreement or "
            "disagreement; defer = the speaker leaves the choice to the listener (\"you choose\"); "
            "question = the message asks something. Use room letters only; people write lower case, room names "
            "and typos.")},
        {"role": "user", "content": example_text},
        {"role": "assistant", "content": json.dumps(example)},
        {"role": "user", "content": text},
    ]


def read_with_llm(llm, text: str, rooms: Sequence[str], wmin: int, wmax: int, usage, schema: Optional[dict] = None):
    """Read one partner message with the LLM into a reader.Reading (validated: rooms of this house, coin range).
    `usage`: a dict of counts, or an object with .add (an `LLMAct`) that the client fills directly."""
    schema = schema or reading_schema(rooms, wmin, wmax)
    messages = reader_messages(text, rooms, wmin, wmax)
    if hasattr(usage, "add"):
        out = llm.chat_json(messages, schema, usage=usage)
    else:
        tally = _Tally()
        try:
            out = llm.chat_json(messages, schema, usage=tally)
        finally:
            tally.into(usage)
    r = rule_reader.Reading(text=text)
    allowed = set(rooms)

    def hall(pair):
        a, b = (str(x).strip().upper()[:1] for x in pair)
        if a in allowed and b in allowed and a != b:
            return edge(a, b)
        return None

    for item in out.get("coins") or []:
        e = hall(item.get("hallway") or ["", ""])
        w = item.get("coins")
        if e and isinstance(w, int) and wmin <= w <= wmax:
            r.coins[e] = w
    for pair in out.get("asks") or []:
        e = hall(pair)
        if e and e not in r.asks:
            r.asks.append(e)
    r.ask_all = bool(out.get("ask_all"))
    cap = out.get("cap")
    r.cap = cap if isinstance(cap, int) and wmin <= cap <= wmax else None
    p = [str(x).strip().upper()[:1] for x in (out.get("path") or [])]
    r.path = p if p and all(x in allowed for x in p) else None
    r.yes, r.no, r.question = bool(out.get("yes")), bool(out.get("no")), bool(out.get("question"))
    r.defer = bool(out.get("defer"))
    return r
