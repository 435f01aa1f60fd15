"""The paper's protocol with the paper's own prompts (preset `paper`, brain option `paper_prompts` = a checkout of
the release): the system prompts come from the release (release_text.py), the turn input is the release harness's
input block, and the model answers in free text with the paper's flags, parsed here.

Input blocks as the release's self-play harnesses build them (facts: ../shared/reference/traveling-adventurers.md
§4.1; Python list reprs, in these orders):
    baseline         [World-state-own] [History] [Observation]          (no colons after the flags)
    grounding        [World-state-own]: [World-state-user]: [History]: [Observation]:
    state-tracking   [World-state-own]: [World-state-user]: [Visited]: [Remaining]: [Observation]:
    problem-solving  [World-state-own]: [World-state-user]: [Remaining]: [Visited]: [IBP]: [Observation]:
The grounding module (the paper's GSM) gets [Message]: [OWS]: ([Loc]: for state-tracking and problem-solving)
[World]:LIGHT|GHOST and answers [Thought]: ... [NWS]: [[room, room, coins], ...].

Answers: [Thought-DRAFT] / [Thought-MISSING] (baseline, grounding) or [Thought], then [Action] with the actions as
calls (suggest(["L", "B"]), visit("B"), end([...])) and [Message]. An answer with neither an action nor a message is
unusable (the act is invalid). Unlike the release, one unreadable action does not drop the ones after it.
"""
from __future__ import annotations

import ast
import re
from typing import Optional, Sequence

from .release_text import AGENT_FUNCTION, GSM_FUNCTION, PROMPT_FILES, ReleaseError, render

RELEASE_ROOMS = ("L", "B", "E", "K", "C", "A")  # the rooms the release's prompts describe
FLAGS = ("Thought-DRAFT", "Thought-MISSING", "Thought", "Action", "Message", "NWS")
_FLAG = re.compile(r"\[(" + "|".join(re.escape(f) for f in FLAGS) + r")\]\s*:?", re.I)
_CALL = re.compile(r"([a-z]+(?:-[a-z]+)?)\s*\(([^()]*)\)", re.I)
_QUOTED_ROOM = re.compile(r"[\"']\s*([A-Za-z])\s*[\"']")


def release_files() -> tuple[str, ...]:
    return tuple(PROMPT_FILES.values())


def _params(view: dict) -> dict:
    rooms = [r["id"] for r in view["rooms"]]
    strange = [r for r in rooms if r not in RELEASE_ROOMS]
    if strange:
        raise ReleaseError(f"the paper's prompts describe the rooms {', '.join(RELEASE_ROOMS)} only, not "
                           f"{', '.join(strange)}: play its preset boards (--boards preset)")
    return {k.replace("-", ""): w for k, w in view["my_coins"].items()}


def system_prompt(root: str, variant: str, view: dict) -> str:
    return render(root, variant, AGENT_FUNCTION[view["world"]], _params(view), len(view["rooms"]))


def grounding_prompt(root: str, variant: str, view: dict) -> str:
    return render(root, variant, GSM_FUNCTION, {}, len(view["rooms"]))


def triples(coins: dict) -> list:
    """{"L-E": 6} -> [["L", "E", 6]] (the release's board lists)."""
    return [[*k.split("-"), w] for k, w in coins.items()]


def input_block(variant: str, own: dict, partner: dict, history: Sequence[str], visited: Sequence[str],
                remaining: Sequence[str], ibp: Optional[Sequence[str]], observation: str) -> str:
    fields = [("World-state-own", triples(own))]
    if variant != "baseline":
        fields.append(("World-state-user", triples(partner)))
    if variant in ("baseline", "grounding"):
        fields.append(("History", list(history)))
    elif variant == "state-tracking":
        fields += [("Visited", list(visited)), ("Remaining", list(remaining))]
    else:
        fields += [("Remaining", list(remaining)), ("Visited", list(visited)), ("IBP", list(ibp or []))]
    sep = "" if variant == "baseline" else ":"
    return "\n".join(f"[{k}]{sep} {v}" for k, v in fields) + f"\n[Observation]{sep} {observation}"


def grounding_input(message: str, known: dict, loc: Optional[str], world: str) -> str:
    lines = [f"[Message]: {message}", f"[OWS]: {triples(known)}"]
    if loc:
        lines.append(f"[Loc]: {loc}")
    return "\n".join(lines) + f"\n[World]:{world.upper()}"


def fields(text: str) -> dict:
    """The answer's flagged fields (the first of each flag), stripped."""
    marks = list(_FLAG.finditer(text or ""))
    out: dict = {}
    for m, nxt in zip(marks, marks[1:] + [None]):
        key = next(f for f in FLAGS if f.lower() == m.group(1).lower())
        out.setdefault(key, text[m.end():nxt.start() if nxt else len(text)].strip())
    return out


def _rooms(arg: str) -> list[str]:
    found = _QUOTED_ROOM.findall(arg) or re.findall(r"\b([A-Z])\b", arg)
    return [r.upper() for r in found]


def parse_answer(text: str) -> dict:
    """A free-text answer as the brains' answer object {"thought...", "actions": [{"type", "args"}], "message"};
    ValueError when it holds neither an action nor a message."""
    f = fields(text)
    actions = [{"type": m.group(1).lower(), "args": _rooms(m.group(2))} for m in _CALL.finditer(f.get("Action", ""))]
    message = f.get("Message", "")
    if not actions and not message:
        raise ValueError("the answer has no [Action] and no [Message]")
    out = {"actions": actions, "message": message}
    for flag, key in (("Thought", "thought"), ("Thought-DRAFT", "thought_draft"),
                      ("Thought-MISSING", "thought_missing")):
        if flag in f:
            out[key] = f[flag]
    return out


def parse_coins(text: str) -> list[dict]:
    """The grounding module's [NWS] as [{"hallway": [room, room], "coins": n}]; ValueError when it has none."""
    nws = fields(text).get("NWS")
    if nws is None:
        raise ValueError("the reading has no [NWS]")
    nws = re.sub(r"[^a-zA-Z0-9\s\[\]\(\)\"',]", "", nws)  # the release's own clean-up before literal_eval
    start, end = nws.find("["), nws.rfind("]")
    try:
        items = ast.literal_eval(nws[start:end + 1]) if start >= 0 and end > start else []
    except (ValueError, SyntaxError) as exc:
        raise ValueError(f"[NWS] is not a list: {nws[:80]!r}") from exc
    return [{"hallway": [str(i[0]), str(i[1])], "coins": i[2]} for i in items
            if isinstance(i, (list, tuple)) and len(i) == 3]
