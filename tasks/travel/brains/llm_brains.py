"""The paper's four LLM agents as brains: baseline, grounding, state-tracking, problem-solving.

Inputs per variant (the paper's Fig. 4):
    baseline         own world state, action history, observation
    grounding        + partner world state (coins extracted from each partner message by an LLM grounding module)
    state-tracking   own + partner world state, Visited / Remaining instead of the history
    problem-solving  + the intermediate best path (IBP) from the exact solver
The prompts are our own wording. Output: one JSON object {"thought", "actions": [{"type", "args"}], "message"} checked
against ACTION_SCHEMA by the client (`llm.chat_json`). Every action is mapped onto game commands on its own, so one
bad action does not drop the others: suggest -> /propose, agree-inner -> /agree (when it matches the partner's open
proposal), reject -> /reject, visit -> /agree when the partner proposed that room (else nothing: the game applies
agreements itself), end -> /submit <tour>, inform -> /share of the hallways it names (the game reveals the true
coins) plus chat, ask and message -> chat. Hallways are normalised, so (B, E) and (E, B) are the same.

Differences from the paper, on purpose: the agreed path is the game's (both agents see the same Visited); the
partner world state is keyed by normalised hallways and overwritten, never added; the IBP uses the partner coins
known so far and 0 for the rest as in the paper (option ibp_unknown="estimate" uses the budget estimate instead).

Without an LLM (llm=None), or when a call fails (any exception, e.g. bots.llm.LLMError), a brain plays that turn
with the solver policy and notes "llm_fallback". `llm` is duck-typed: any object with chat_json(messages, schema,
usage=...) works; usage objects get .add(delta) calls with prompt_tokens / completion_tokens.
"""
from __future__ import annotations

import json
from typing import Optional, Sequence

from tasks.core import Brain, ChatShown, Message, View

from ..board import ROOM_NAMES, edge, parse_rooms
from ..solver import best_tour
from . import reader as rule_reader
from .solver_brain import SolverBrain, _Tally, ekey, key_edge

ACTION_TYPES = ("suggest", "agree-inner", "agree-outer", "reject", "visit", "end", "ask", "inform")

ACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "thought": {"type": "string"},
        "actions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"type": {"type": "string", "enum": list(ACTION_TYPES)}, "args": {"type": "array"}},
                "required": ["type"],
            },
        },
        "message": {"type": "string"},
    },
    "required": ["thought", "actions", "message"],
}

GROUNDING_SCHEMA = {
    "type": "object",
    "properties": {
        "thought": {"type": "string"},
        "coins": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "hallway": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
                    "coins": {"type": "integer"},
                },
                "required": ["hallway", "coins"],
            },
        },
    },
    "required": ["coins"],
}

VARIANTS = {
    "baseline": {"partner_ws": False, "history": True, "state": False, "ibp": False},
    "grounding": {"partner_ws": True, "history": True, "state": False, "ibp": False},
    "state-tracking": {"partner_ws": True, "history": False, "state": True, "ibp": False},
    "problem-solving": {"partner_ws": True, "history": False, "state": True, "ibp": True},
}

COMMAND_ORDER = {"share": 0, "reject": 1, "agree": 2, "propose": 3, "submit": 4}


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


class LLMBrain(Brain):
    """One of the paper's agents; `name` selects the variant."""

    name = "baseline"

    def __init__(self, seat: str, seed: int = 0, llm=None, options: Optional[dict] = None):
        super().__init__(seat, seed, llm, options)
        self.variant = VARIANTS[self.name]
        o = self.options
        self.history_turns = int(o.get("history_turns", 6))  # past exchanges kept in the prompt
        self.ibp_unknown = o.get("ibp_unknown", "zero")
        self.fallback = SolverBrain(seat, seed, None, o)
        self.view: Optional[dict] = None
        self._dirty = False
        self._observations: list[str] = []
        self._partner_msgs: list[str] = []
        self.partner_ws: dict = {}        # edge -> partner coins (from /share and the grounding module)
        self.actions_history: list[str] = []
        self.turns: list[tuple[str, str]] = []  # (user input, assistant answer) for the prompt history
        self._noted_missing = False

    # ------------------------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        self.fallback.observe(effect)
        if isinstance(effect, View) and effect.seat == self.seat and "rooms" in effect.data:
            prev, self.view = self.view, effect.data
            for k, w in (effect.data.get("partner_coins") or {}).items():
                self.partner_ws[key_edge(k)] = int(w)
            if prev is None:
                self._dirty = self._dirty or self.seat == "light"
            elif SolverBrain._partner_moved(prev, effect.data):
                self._dirty = True
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            self._observations.append(f"Partner: {effect.text}")
            self._partner_msgs.append(effect.text)
            self._dirty = True
        elif isinstance(effect, Message) and (effect.to is None or effect.to == self.seat):
            prefix = "Game (to you)" if effect.to else "Game"
            self._observations.append(f"{prefix}: {effect.text}")

    def act(self):
        v = self.view
        if not self._dirty or v is None or v.get("result") or (v.get("core") or {}).get("phase") != "playing":
            return []
        self._dirty = False
        if self.llm is None:
            if not self._noted_missing:
                self._noted_missing = True
                self.note("llm_fallback", error="no LLM configured")
            return self._fallback_moves()
        try:
            if self.variant["partner_ws"]:
                self._ground()
            user = self._input()
            messages = [{"role": "system", "content": self._system_prompt()}]
            for u, a in self.turns[-self.history_turns:]:
                messages += [{"role": "user", "content": u}, {"role": "assistant", "content": a}]
            messages.append({"role": "user", "content": user})
            tally = _Tally()
            try:
                out = self.llm.chat_json(messages, ACTION_SCHEMA, usage=tally)
            finally:
                tally.into(self.usage)
            if not isinstance(out, dict) or not isinstance(out.get("actions", []), list):
                raise ValueError("the answer is not an action object")
        except Exception as exc:  # bots.llm.LLMError and anything malformed: play this turn with the solver
            self.note("llm_fallback", error=f"{type(exc).__name__}: {exc}"[:300])
            return self._fallback_moves()
        self._observations = []
        answer = json.dumps(out, ensure_ascii=False)
        self.turns.append((user, answer))
        try:
            return self._apply(out)
        except Exception as exc:  # defensive: a mapping bug must not stop the room
            self.note("error", error=f"{type(exc).__name__}: {exc}"[:300])
            return []

    def _fallback_moves(self):
        self._observations = []
        self._partner_msgs = []
        self.fallback._dirty = True
        return self.fallback.act()

    # ------------------------------------------------------------------------------------------------------------
    # grounding module: the partner's coins from each message

    def _ground(self) -> None:
        msgs, self._partner_msgs = self._partner_msgs, []
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        wmin, wmax = v.get("coin_range") or (1, 10)
        for text in msgs:
            try:
                found = self._ground_one(text, rooms, wmin, wmax)
            except Exception as exc:  # the rule-based reader stands in for a failed extraction
                self.note("grounding_fallback", error=f"{type(exc).__name__}: {exc}"[:300])
                found = rule_reader.read(text, rooms, wmin, wmax).coins
            shared = {key_edge(k) for k in (v.get("partner_coins") or {})}
            for e, w in found.items():
                if e not in shared:  # /share values are authoritative
                    self.partner_ws[e] = w

    def _ground_one(self, text: str, rooms: Sequence[str], wmin: int, wmax: int) -> dict:
        v = self.view
        partner_world = "ghost" if self.seat == "light" else "light"
        known = ", ".join(f"{ekey(e)}: {w}" for e, w in sorted(self.partner_ws.items())) or "nothing yet"
        names = ", ".join(f"{r} = {ROOM_NAMES.get(r, r)}" for r in rooms)
        system = (
            "You keep track of the coins one player has revealed in a cooperative route-planning game. Rooms "
            f"(letter = name): {names}. Every pair of rooms is joined by a hallway, and every player has their own "
            f"number of coins ({wmin}-{wmax}) on each hallway. You get one message by the player, the coins of that "
            "player you already know, and the room where the agreed path currently ends (for phrases like 'from "
            "there'). List only coins the player states as their OWN and that are new or changed; never sums of both "
            "players. Hallways are undirected; use room letters. Answer with JSON: "
            '{"thought": "...", "coins": [{"hallway": ["L", "K"], "coins": 5}]}; an empty list when nothing is new.')
        user = (f"[Message]: {text}\n[Known]: {known}\n[Loc]: {(v.get('agreed') or [v['start']])[-1]}\n"
                f"[World]: {partner_world}")
        tally = _Tally()
        try:
            out = self.llm.chat_json([{"role": "system", "content": system}, {"role": "user", "content": user}],
                                     GROUNDING_SCHEMA, usage=tally)
        finally:
            tally.into(self.usage)
        found = {}
        allowed = set(rooms)
        for item in out.get("coins") or []:
            pair = [str(x).strip().upper()[:1] for x in item.get("hallway") or []]
            w = item.get("coins")
            if len(pair) == 2 and all(p in allowed for p in pair) and pair[0] != pair[1] and isinstance(w, int) \
                    and wmin <= w <= wmax:
                found[edge(*pair)] = w
        return found

    # ------------------------------------------------------------------------------------------------------------
    # prompts

    def _system_prompt(self) -> str:
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        start = v["start"]
        wmin, wmax = v.get("coin_range") or (1, 10)
        world = v["world"]
        other = "ghost" if world == "light" else "light"
        limit = v.get("turn_limit")
        room_list = "; ".join(f"{r}: the {ROOM_NAMES.get(r, r)}" for r in rooms)
        inputs = ["[World-state-own]: your own coins on every hallway."]
        if self.variant["partner_ws"]:
            inputs.append("[World-state-partner]: your partner's coins as far as they have revealed them.")
        if self.variant["history"]:
            inputs.append("[History]: the actions you took in your earlier turns.")
        if self.variant["state"]:
            inputs.append("[Visited]: the agreed path so far (both of you agreed to it).")
            inputs.append("[Remaining]: the rooms still to visit (the start room stays until the tour is closed).")
        if self.variant["ibp"]:
            inputs.append("[IBP]: the intermediate best path: the best full tour that begins with [Visited], computed "
                          "by an exact solver from your coins plus the partner coins known so far. Always use it as "
                          "your reference when you suggest rooms or ask about coins.")
        inputs.append("[Open-proposal]: the proposal waiting for an answer, if any, and who made it.")
        inputs.append("[Observation]: what your partner wrote and what the game announced since your last turn.")
        turn_rule = f"You have at most {limit} turns; " if limit else ""
        return (
            f"You are an adventurer in a house with {len(rooms)} rooms ({room_list}). You live in the {world} world; "
            f"your partner lives in the {other} world. Every two rooms are joined by a hallway. In each world a "
            f"hallway holds some coins ({wmin} to {wmax}); you see only your own world's coins and your partner only "
            "theirs. Together you must agree on ONE round trip that starts in "
            f"{start}, visits every other room exactly once and returns to {start}. You collect the coins of BOTH "
            "worlds on every hallway you walk, so the best tour depends on coins you cannot see: talk about them.\n"
            "The game keeps one agreed path, starting at the start room. Either of you proposes the next room(s) or a "
            "whole tour; the other agrees or rejects. When the agreed path is a complete tour, both of you end the "
            f"game by submitting the same tour. {turn_rule}be efficient.\n\n"
            "Each turn you get:\n" + "\n".join(inputs) + "\n\n"
            "Answer with one JSON object: {\"thought\": \"your private reasoning\", \"actions\": [{\"type\": ..., "
            "\"args\": [...]}], \"message\": \"what you say to your partner\"}. Action types:\n"
            "- suggest: propose a path: args = rooms, e.g. [\"" + start + "\", \"K\"] or a whole tour.\n"
            "- agree-inner: you accept your partner's open proposal (args = that path).\n"
            "- agree-outer: your partner accepted your proposal (bookkeeping only).\n"
            "- reject: you decline your partner's open proposal.\n"
            "- visit: a room both of you agreed to go to next (args = [room]).\n"
            "- end: submit the final tour, args = the full tour from and back to " + start + ".\n"
            "- ask: ask your partner about their coins, args = hallways like [[\"L\", \"K\"]].\n"
            "- inform: reveal your own coins on hallways, args = hallways like [[\"L\", \"K\"]].\n"
            "Rules: only agree to a proposal your partner made; do not repeat agree-inner for the same path; end only "
            "with a complete tour you both agreed on. Your partner sees only your message and the game's "
            "announcements, never your thought or actions.")

    def _own_ws(self) -> str:
        return ", ".join(f"{k}: {w}" for k, w in self.view["my_coins"].items())

    def _partner_ws_text(self) -> str:
        return ", ".join(f"{ekey(e)}: {w}" for e, w in sorted(self.partner_ws.items())) or "unknown"

    def _ibp(self) -> list:
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        agreed = v.get("agreed") or [v["start"]]
        if len(agreed) == len(rooms) + 1:
            return list(agreed)
        if self.ibp_unknown == "estimate":
            w = self.fallback.k.weights("est") if self.fallback.k else None
        else:
            w = None
        if w is None:
            w = {key_edge(k): c + self.partner_ws.get(key_edge(k), 0) for k, c in v["my_coins"].items()}
        tour, _ = best_tour(w, rooms, v["start"], prefix=tuple(agreed))
        return tour

    def _input(self) -> str:
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        parts = [f"[World-state-own]: {self._own_ws()}"]
        if self.variant["partner_ws"]:
            parts.append(f"[World-state-partner]: {self._partner_ws_text()}")
        if self.variant["history"]:
            parts.append(f"[History]: {'; '.join(self.actions_history[-12:]) or 'none'}")
        agreed = v.get("agreed") or [v["start"]]
        if self.variant["state"]:
            # As in the paper, the start room stays in Remaining until the tour is closed.
            remaining = [r for r in rooms if r not in agreed[1:]]
            parts.append(f"[Visited]: {json.dumps(agreed)}")
            parts.append(f"[Remaining]: {json.dumps(remaining)}")
        if self.variant["ibp"]:
            parts.append(f"[IBP]: {json.dumps(self._ibp())}")
        p = v.get("pending")
        if p:
            who = "you" if p["mine"] else "your partner"
            parts.append(f"[Open-proposal]: {json.dumps(p['path'])} by {who}")
        else:
            parts.append("[Open-proposal]: none")
        if not self.variant["state"]:
            parts.append(f"[Agreed-path]: {json.dumps(agreed)}")
        subs = v.get("submitted") or {}
        if subs.get("me") or subs.get("partner"):
            parts.append(f"[Submitted]: you {json.dumps(subs.get('me'))}, partner "
                         f"{json.dumps(v.get('partner_submitted'))}")
        tl = v.get("turns_left") or {}
        if tl.get("me") is not None:
            parts.append(f"[Turns-left]: you {tl.get('me')}, partner {tl.get('partner')}")
        obs = "\n".join(self._observations[-12:]) or ("<START>" if not self.turns else "(nothing new)")
        parts.append(f"[Observation]: {obs}")
        return "\n".join(parts)

    # ------------------------------------------------------------------------------------------------------------
    # actions -> moves

    def _rooms(self, args) -> list[str]:
        rooms = [r["id"] for r in self.view["rooms"]]
        words = [_strip_list_text(str(a)) for a in _flatten(args) if isinstance(a, str)]
        if not words:
            raise ValueError("no rooms given")
        return parse_rooms(words, rooms)

    def _hallways(self, args) -> list[str]:
        """Hallways named in args: [["L","K",5]], ["L-K"], [["L","K"],["B","A"]], "LK"."""
        rooms = [r["id"] for r in self.view["rooms"]]
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

    def _full_path(self, rooms: list[str]) -> list[str]:
        v = self.view
        start = v["start"]
        agreed = list(v.get("agreed") or [start])
        if rooms[0] == start:
            path = rooms
        elif rooms[0] == agreed[-1]:
            path = agreed + rooms[1:]
        else:
            path = agreed + [r for r in rooms if r not in agreed]
        n = len(v["rooms"])
        if len(path) == n and len(set(path)) == n:
            path = path + [start]
        body = path[:-1] if len(path) == n + 1 and path[-1] == start else path
        if len(set(body)) != len(body):
            raise ValueError(f"the path {'-'.join(path)} repeats a room")
        return path

    def _matches_pending(self, args, pending) -> bool:
        if not args:
            return True
        try:
            rooms = self._rooms(args)
        except ValueError:
            return False
        path = pending["path"]
        if rooms == path or rooms == path[::-1]:
            return True
        return len(rooms) <= len(path) and path[-len(rooms):] == rooms

    def _apply(self, out: dict) -> list:
        v = self.view
        pending = v.get("pending")
        partner_pending = pending if pending and not pending["mine"] else None
        cmds: list[tuple] = []
        shares: list[str] = []
        texts: list[str] = []
        agreed_now = False
        summary = []
        for a in out.get("actions") or []:
            kind = a.get("type") if isinstance(a, dict) else None
            args = a.get("args", []) if isinstance(a, dict) else []
            summary.append(f"{kind}({json.dumps(args, ensure_ascii=False)})")
            try:
                if kind == "suggest":
                    path = self._full_path(self._rooms(args))
                    if partner_pending and path == partner_pending["path"]:
                        if not agreed_now:
                            cmds.append(("agree", ()))
                            agreed_now = True
                    elif not (pending and pending["mine"] and pending["path"] == path) and path != v.get("agreed"):
                        cmds = [c for c in cmds if c[0] != "propose"]  # one proposal per turn: the last one counts
                        cmds.append(("propose", tuple(path)))
                elif kind in ("agree-inner", "visit"):
                    if partner_pending and not agreed_now:
                        if self._matches_pending(args, partner_pending):
                            cmds.append(("agree", ()))
                            agreed_now = True
                        elif kind == "agree-inner":
                            raise ValueError("agree-inner does not match the open proposal "
                                             f"{'-'.join(partner_pending['path'])}")
                elif kind == "reject":
                    if partner_pending and not agreed_now:
                        cmds.append(("reject", ()))
                elif kind == "end":
                    rooms = [r["id"] for r in v["rooms"]]
                    tour = self._rooms(args) if args else []
                    if tour:
                        if tour[0] != v["start"]:
                            raise ValueError("the tour must start in " + v["start"])
                        if len(tour) == len(rooms) and len(set(tour)) == len(rooms):
                            tour = tour + [v["start"]]
                        if len(tour) != len(rooms) + 1 or tour[-1] != v["start"] or len(set(tour[:-1])) != len(rooms):
                            raise ValueError(f"{'-'.join(tour)} is not a complete tour")
                    cmds.append(("submit", tuple(tour)))
                elif kind == "inform":
                    shares.extend(h for h in self._hallways(args) if h not in shares)
                elif kind == "ask":
                    if not (out.get("message") or "").strip():
                        hs = self._hallways(args)
                        if hs:
                            texts.append("What are your coins on " + ", ".join(hs) + "?")
                elif kind == "agree-outer":
                    pass  # the game records the partner's agreement itself
                else:
                    raise ValueError(f"unknown action type {kind!r}")
            except Exception as exc:  # one bad action must not drop the others
                self.note("bad_action", action=a, error=f"{type(exc).__name__}: {exc}"[:200])
        self.actions_history.append(", ".join(summary) or "none")
        message = (out.get("message") or "").strip()
        if message:
            texts.insert(0, message)
        already = set(v.get("my_shared") or [])
        shares = [s for s in shares if s not in already]
        moves = []
        if shares:
            moves.append(self.command("share", ",".join(shares)))
        if texts:
            moves.append(self.say(" ".join(texts)))
        cmds.sort(key=lambda c: COMMAND_ORDER.get(c[0], 9))
        for name, args in cmds:
            moves.append(self.command(name, *args))
        return moves


class BaselineBrain(LLMBrain):
    name = "baseline"


class GroundingBrain(LLMBrain):
    name = "grounding"


class StateTrackingBrain(LLMBrain):
    name = "state-tracking"


class ProblemSolvingBrain(LLMBrain):
    name = "problem-solving"


LLM_BRAINS = {cls.name: cls for cls in (BaselineBrain, GroundingBrain, StateTrackingBrain, ProblemSolvingBrain)}
