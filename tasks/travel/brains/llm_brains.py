"""The paper's four LLM agents as brains: baseline, grounding, state-tracking, problem-solving.

Inputs per variant (the paper's Fig. 4):
    baseline         own world state, action history, observation
    grounding        + partner world state (coins extracted from each partner message by an LLM grounding module)
    state-tracking   own + partner world state, Visited / Remaining instead of the history
    problem-solving  + the intermediate best path (IBP) from the exact solver
The prompts are our own wording. Output: one JSON object {"thought", "actions": [{"type", "args"}], "message"} checked
against the seat's action schema (`action_schema`: written once per seat from its rooms, sent as a structured-output
request and used to validate the answer; strings and lists are bounded, so the client can size max_tokens). Every action is mapped onto game commands on its own, so one
bad action does not drop the others: suggest -> /propose, agree-inner -> /agree (when it matches the partner's open
proposal), reject -> /reject, visit -> /agree when the partner proposed that room (else nothing: the game applies
agreements itself), end -> /submit <tour>, inform -> /share of the hallways it names (the game reveals the true
coins) plus chat, ask and message -> chat. Hallways are normalised, so (B, E) and (E, B) are the same.

Differences from the paper, on purpose: the agreed path is the game's (both agents see the same Visited); the
partner world state is keyed by normalised hallways and overwritten, never added; the IBP uses the partner coins
known so far and 0 for the rest as in the paper (option ibp_unknown="estimate" uses the budget estimate instead).

Prompts that servers can cache (option stable_prefix, default True): the turn prompt is the seat's one conversation,
a stable prefix (the system prompt with the rules and the seat's own coins, which never change, then one worked
example) followed by an append-only history of
the seat's turns, so each request extends the seat's previous one and a server's prefix cache (vLLM, llama.cpp with
a prompt cache) reuses it; the history is trimmed in blocks (when it holds 2 x history_turns turns, or the prompt
grows beyond prompt_chars characters, the older half goes), never slid by one. stable_prefix=False is the layout
before: the own coins in every turn's input, and a sliding window of the last history_turns turns (from the
(history_turns+1)-th turn on, every request differs from the previous one right after the prefix). The grounding module's prompt is the same
in both: its own stable prefix (instructions for this house, one worked example), then the message.

Prompt styles (brain option prompts = "paper" | "ours"; default: "paper" when the game plays the paper's rules, its
view["rules"] == "paper", else "ours"). "paper" is the paper's structure per variant (paper_prompts.py: the
variant's input flags, Thought-DRAFT / Thought-MISSING / solve for baseline and grounding, no agreed path for them, a
worked example conversation in the system prompt, the paper's GSM for the grounding module) with the paper's
defaults: the full history (history_turns / prompt_chars options cut it), temperature 1 (option temperature),
max_tokens 1200 per turn and 600 per reading (options max_tokens, grounding_max_tokens); inform never becomes /share
(the message carries the coins, as in the paper). "ours" is the layout described above.

Without an LLM (llm=None), or when a call fails (any exception, e.g. bots.llm.LLMError), a brain plays that turn
with the solver policy and notes "llm_fallback" (under the brain option strict_llm the act fails instead and the
game is reported invalid). So does a valid answer that makes no move at all (it would leave the partner waiting):
that act counts as valid and as a fallback. Every use of the LLM is an LLM act (`Brain.llm_act`: "action" or "grounding") with its
validity, tokens and time. `llm` is duck-typed: any object with chat_json(messages, schema, usage=...) works; usage
objects get .add(delta) calls with prompt_tokens / completion_tokens.
"""
from __future__ import annotations

import json
from typing import Optional, Sequence

from tasks.core import Brain, ChatShown, Message, View

from ..board import ROOM_NAMES, edge, parse_rooms
from ..solver import best_tour
from . import paper_prompts as paper
from . import reader as rule_reader
from .solver_brain import SolverBrain, ekey, key_edge

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

VARIANTS = {
    "baseline": {"partner_ws": False, "history": True, "state": False, "ibp": False},
    "grounding": {"partner_ws": True, "history": True, "state": False, "ibp": False},
    "state-tracking": {"partner_ws": True, "history": False, "state": True, "ibp": False},
    "problem-solving": {"partner_ws": True, "history": False, "state": True, "ibp": True},
}

COMMAND_ORDER = {"share": 0, "reject": 1, "agree": 2, "propose": 3, "submit": 4}


OBSERVATION_CHARS = 160  # the game's announcements are long (the welcome); the state lines carry the facts


def _short(line: str) -> str:
    """A game announcement cut to OBSERVATION_CHARS (the partner's words are kept whole)."""
    if line.startswith("Partner:") or len(line) <= OBSERVATION_CHARS:
        return line
    return line[:OBSERVATION_CHARS - 1].rstrip() + "…"


def _flag(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in ("0", "false", "no", "off", "")
    return bool(value)


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
    uses_llm = True
    needs_llm = True  # an LLM agent: without a model `--agents baseline` stops instead of reporting the solver

    def __init__(self, seat: str, seed: int = 0, llm=None, options: Optional[dict] = None):
        super().__init__(seat, seed, llm, options)
        self.variant = VARIANTS[self.name]
        o = self.options
        self.stable_prefix = _flag(o.get("stable_prefix", True))
        self._style: Optional[str] = None  # "paper" or "ours": settled by the first view (the game's rules)
        self.history_turns = 1  # past turns kept in the prompt (see the docstring); paper style: all of them
        # stable prefix: the history is trimmed when prefix + history exceed this many characters (~1.5k tokens)
        self.prompt_chars: Optional[int] = 4000
        self.ibp_unknown = o.get("ibp_unknown", "zero")
        self.fallback = SolverBrain(seat, seed, None, o)
        self.view: Optional[dict] = None
        self._dirty = False
        self._observations: list[str] = []
        self._partner_msgs: list[str] = []
        self.partner_ws: dict = {}        # edge -> partner coins (from /share and the grounding module)
        self.actions_history: list[str] = []
        self.turns: list[tuple[str, str]] = []  # (user input, assistant answer) of the turns: the history
        self._history_start = 0  # stable prefix: the history in the prompt starts here (moved by _trim)
        self._prefix: Optional[list[dict]] = None  # the turn prompt's stable prefix, built once
        self._gprefix: Optional[list[dict]] = None  # the grounding prompt's stable prefix, built once
        self._schemas: Optional[tuple[dict, dict]] = None  # (action, grounding) schemas, built once
        self._noted_missing = False

    # ------------------------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        self.fallback.observe(effect)
        if isinstance(effect, View) and effect.seat == self.seat and "rooms" in effect.data:
            prev, self.view = self.view, effect.data
            if prev is None:
                self._settle_style(effect.data)
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

    def _settle_style(self, view: dict) -> None:
        """The prompt style and its defaults, once: the option, else the game's rules."""
        o = self.options
        style = str(o.get("prompts") or ("paper" if view.get("rules") == "paper" else "ours")).lower()
        if style not in ("paper", "ours"):
            raise ValueError(f"unknown prompts {style!r}; use paper or ours")
        self._style = style
        full = style == "paper"  # the paper keeps the whole conversation
        h = o.get("history_turns")
        self.history_turns = (None if full else 1) if h is None else int(h)
        pc = o.get("prompt_chars")
        self.prompt_chars = (None if full else 4000) if pc is None else int(pc)

    @property
    def paper_style(self) -> bool:
        return self._style == "paper"

    def _call_options(self, use: str) -> dict:
        """Paper style: the paper's temperature 1 and max_tokens (1200 per turn, 600 per reading), as options.
        Ours: only what the options set (the client's configuration otherwise)."""
        o = self.options
        out = {}
        t = o.get("temperature", 1.0 if self.paper_style else None)
        if t is not None:
            out["temperature"] = float(t)
        key, default = ("grounding_max_tokens", 600) if use == "grounding" else ("max_tokens", 1200)
        m = o.get(key, default if self.paper_style else None)
        if m is not None:
            out["max_tokens"] = int(m)
        return out

    def schemas(self) -> tuple[dict, dict]:
        """(action schema, grounding schema) of this seat's house, written once."""
        if self._schemas is None:
            v = self.view
            rooms = [r["id"] for r in v["rooms"]]
            wmin, wmax = v.get("coin_range") or (1, 10)
            answer = paper.answer_schema(rooms, self.name) if self.paper_style else action_schema(rooms)
            # the paper's GSM lists every new coin of a message (people state many at once without /share)
            most = min(20, len(rooms) * (len(rooms) - 1) // 2) if self.paper_style else MAX_GROUNDED
            self._schemas = (answer, grounding_schema(rooms, wmin, wmax, most))
        return self._schemas

    def act(self):
        v = self.view
        if not self._dirty or v is None or v.get("result") or (v.get("core") or {}).get("phase") != "playing":
            return []
        self._dirty = False
        if self.llm is None:
            act = self.llm_missing("action")
            if not self._noted_missing or self.strict_llm:
                self._noted_missing = True
                if not self.llm_fallback(act, error="no LLM configured"):
                    return []
            else:
                act.fallback = True
            return self._fallback_moves()
        if self.variant["partner_ws"] and not self._ground():
            return []  # strict mode: a failed reading ends the game
        act = None
        try:
            with self.llm_act("action") as act:
                user = self._input()
                messages = self._turn_messages(user)
                out = self.llm.chat_json(messages, self.schemas()[0], usage=act, **self._call_options("action"))
                if not isinstance(out, dict) or not isinstance(out.get("actions", []), list):
                    raise ValueError("the answer is not an action object")
        except Exception as exc:  # bots.llm.LLMError and anything malformed: play this turn with the solver
            if not self.llm_fallback(act, exc):
                self._observations = []
                return []
            return self._fallback_moves()
        self._observations = []
        answer = json.dumps(out, ensure_ascii=False)
        self.turns.append((user, answer))
        try:
            moves = self._apply(out)
        except Exception as exc:  # defensive: a mapping bug must not stop the room
            self.note("error", error=f"{type(exc).__name__}: {exc}"[:300])
            moves = []
        if not moves and not self.strict_llm:
            # A valid answer that makes no move (nothing said, nothing done) would leave the partner waiting for
            # ever: the solver plays this turn, and the act counts as a fallback (its answer stays valid).
            act.fallback = True
            self.note("llm_fallback", error="the answer makes no move")
            return self._fallback_moves()
        return moves

    def _fallback_moves(self):
        self._observations = []
        self._partner_msgs = []
        self.fallback._dirty = True
        return self.fallback.act()

    # ------------------------------------------------------------------------------------------------------------
    # the conversation

    def _turn_messages(self, user: str) -> list[dict]:
        """The stable prefix, the history (append-only, or the sliding window), this turn's input."""
        if self._prefix is None:
            if self.paper_style:  # the worked example is part of the paper's system prompt
                self._prefix = [{"role": "system", "content": paper.system_prompt(self.name, self.view)}]
            else:
                self._prefix = [{"role": "system", "content": self._system_prompt()}] + self._example()
        if self.history_turns is None and self.prompt_chars is None:
            past = self.turns  # the paper: the whole conversation
        elif self.stable_prefix:
            self._trim()
            past = self.turns[self._history_start:]
        elif self.history_turns is None:
            past = self.turns
        else:
            past = self.turns[-self.history_turns:] if self.history_turns > 0 else []
        messages = list(self._prefix)
        for u, a in past:
            messages += [{"role": "user", "content": u}, {"role": "assistant", "content": a}]
        messages.append({"role": "user", "content": user})
        return messages

    def _trim(self) -> None:
        """When the history grew too long, drop its older half in one go, so the prompt stays the same prefix of the
        next one for many turns in a row."""
        keep = max(1, self.history_turns or 1)
        kept = self.turns[self._history_start:]
        size = sum(len(m["content"]) for m in self._prefix or []) + sum(len(u) + len(a) for u, a in kept)
        too_long = self.prompt_chars is not None and size > self.prompt_chars
        too_many = self.history_turns is not None and len(kept) >= 2 * keep
        if too_many or (too_long and len(kept) > 1):
            self._history_start = len(self.turns) - max(1, min(keep, len(kept) // 2))

    # ------------------------------------------------------------------------------------------------------------
    # grounding module: the partner's coins from each message

    def _ground(self) -> bool:
        """Read the partner's new messages; False when strict mode refused a fallback (the act failed)."""
        msgs, self._partner_msgs = self._partner_msgs, []
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        wmin, wmax = v.get("coin_range") or (1, 10)
        for text in msgs:
            act = None
            try:
                with self.llm_act("grounding") as act:
                    found = self._ground_one(text, rooms, wmin, wmax, act)
            except Exception as exc:  # the rule-based reader stands in for a failed extraction
                if not self.llm_fallback(act, exc, where="grounding"):
                    return False
                found = rule_reader.read(text, rooms, wmin, wmax).coins
            shared = {key_edge(k) for k in (v.get("partner_coins") or {})}
            for e, w in found.items():
                if e not in shared:  # /share values are authoritative
                    self.partner_ws[e] = w
        return True

    def _ground_one(self, text: str, rooms: Sequence[str], wmin: int, wmax: int, usage=None) -> dict:
        v = self.view
        loc = (v.get("agreed") or [v["start"]])[-1]
        if self.paper_style:  # the paper's GSM: [Message] [OWS] ([Loc]) [World]
            known_d = {ekey(e): w for e, w in sorted(self.partner_ws.items())}
            other = "ghost" if v["world"] == "light" else "light"
            user = paper.grounding_input(text, known_d, loc if self.variant["state"] else None, other)
        else:
            known = ", ".join(f"{ekey(e)}: {w}" for e, w in sorted(self.partner_ws.items())) or "nothing yet"
            user = f"[Message]: {text}\n[Known]: {known}\n[Loc]: {loc}"
        out = self.llm.chat_json(self._grounding_prefix() + [{"role": "user", "content": user}],
                                 self.schemas()[1], usage=usage, **self._call_options("grounding"))
        found = {}
        allowed = set(rooms)
        for item in out.get("coins") or []:
            pair = [str(x).strip().upper()[:1] for x in item.get("hallway") or []]
            w = item.get("coins")
            if len(pair) == 2 and all(p in allowed for p in pair) and pair[0] != pair[1] and isinstance(w, int) \
                    and wmin <= w <= wmax:
                found[edge(*pair)] = w
        return found

    def _grounding_prefix(self) -> list[dict]:
        """The grounding module's stable prefix: instructions for this house and one worked example (made up)."""
        if self._gprefix is None and self.paper_style:
            self._gprefix = [{"role": "system", "content": paper.grounding_system(self.name, self.view)}]
        if self._gprefix is None:
            v = self.view
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
            self._gprefix = [{"role": "system", "content": system}, {"role": "user", "content": user},
                             {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}]
        return list(self._gprefix)

    # ------------------------------------------------------------------------------------------------------------
    # prompts

    def _example(self) -> list[dict]:
        """One worked example of a turn (made-up coins, this house's letters): part of the stable prefix."""
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        a, b, c = rooms[0], rooms[1], rooms[2]
        wmin, wmax = v.get("coin_range") or (1, 10)

        def w(x: int) -> int:
            return max(int(wmin), min(int(wmax), x))

        own = (f"(example; made-up coins: your own {ekey((a, c))} is {w(6)})" if self.stable_prefix else
               f"(example with made-up coins)\n[World-state-own]: {ekey((a, b))}: {w(2)}, {ekey((a, c))}: {w(6)}, "
               f"{ekey((b, c))}: {w(3)}")
        user = f"{own}\n[Open-proposal]: none\n[Observation]: Partner: Hi! I have {w(5)} coins on {ekey((a, c))}."
        answer = {"thought": f"{ekey((a, c))} is rich for both of us: suggest it and share my coins there.",
                  "actions": [{"type": "suggest", "args": [a, c]}, {"type": "inform", "args": [a, c]}],
                  "message": f"Nice, I have {w(6)} on {ekey((a, c))} too. Shall we go from {a} to {c} first?"}
        return [{"role": "user", "content": user},
                {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}]

    def _system_prompt(self) -> str:
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        start = v["start"]
        wmin, wmax = v.get("coin_range") or (1, 10)
        world = v["world"]
        other = "ghost" if world == "light" else "light"
        limit = v.get("turn_limit")
        room_list = ", ".join(f"{r} {ROOM_NAMES.get(r, r)}" for r in rooms)
        inputs = [] if self.stable_prefix else ["[World-state-own] your coins on every hallway"]
        if self.variant["partner_ws"]:
            inputs.append("[World-state-partner] your partner's coins revealed so far")
        if self.variant["history"]:
            inputs.append("[History] your actions in earlier turns")
        if self.variant["state"]:
            inputs.append("[Visited] the agreed path so far")
            inputs.append(f"[Remaining] the rooms still to visit ({start} stays until the tour is closed)")
        if self.variant["ibp"]:
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
            + (f"\n[World-state-own]: {self._own_ws()}" if self.stable_prefix else ""))

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

    def _paper_input(self) -> str:
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        agreed = list(v.get("agreed") or [v["start"]])
        remaining = [r for r in rooms if r not in agreed[1:]]
        partner = {ekey(e): w for e, w in sorted(self.partner_ws.items())}
        obs = "\n".join(_short(o) for o in self._observations) or ("<START>" if not self.turns else "(nothing new)")
        return paper.input_block(self.name, dict(v["my_coins"]), partner, self.actions_history, agreed, remaining,
                                 self._ibp() if self.variant["ibp"] else None, obs)

    def _input(self) -> str:
        if self.paper_style:
            return self._paper_input()
        v = self.view
        rooms = [r["id"] for r in v["rooms"]]
        # Stable prefix: the own coins never change, so they are stated once, in the system prompt.
        parts = [] if self.stable_prefix else [f"[World-state-own]: {self._own_ws()}"]
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
        obs = "\n".join(_short(o) for o in self._observations[-12:]) or ("<START>" if not self.turns
                                                                        else "(nothing new)")
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
                    elif self.paper_style and list(v.get("agreed") or [])[:len(path)] == path:
                        pass  # the paper's agents (no agreed path in baseline, grounding) repeat agreed steps
                    elif not (pending and pending["mine"] and pending["path"] == path) and path != v.get("agreed"):
                        cmds = [c for c in cmds if c[0] != "propose"]  # one proposal per turn: the last one counts
                        cmds.append(("propose", tuple(path)))
                elif kind in ("agree-inner", "visit"):
                    if partner_pending and not agreed_now:
                        if self._matches_pending(args, partner_pending):
                            cmds.append(("agree", ()))
                            agreed_now = True
                        elif kind == "agree-inner" and not self.paper_style:  # paper: also its own suggestions
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
                elif kind == "inform" and (self.paper_style or v.get("share") is False):
                    pass  # the paper: the message carries the coins (and its rules have no /share)
                elif kind == "solve":
                    pass  # the paper's Thought-DRAFT found a full tour: bookkeeping only (kept in the history)
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
