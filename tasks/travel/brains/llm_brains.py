"""The paper's four LLM agents as brains: baseline, grounding, state-tracking, problem-solving.

Inputs per variant (the paper's Fig. 4):
    baseline         own world state, action history, observation
    grounding        + partner world state (coins extracted from each partner message by an LLM grounding module)
    state-tracking   own + partner world state, Visited / Remaining instead of the history
    problem-solving  + the intermediate best path (IBP) from the exact solver
The prompts are our own wording. Output: one JSON object {"thought", "actions": [{"type", "args"}], "message"} checked
against the seat's action schema and mapped onto game commands action by action (llm_actions.py).

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
worked example conversation in the system prompt, the paper's GSM for the grounding module) with the full history
(history_turns / prompt_chars options cut it); inform never becomes /share (the message carries the coins, as in
the paper). With brain option paper_prompts (a checkout of the paper's release; preset `paper` needs it) the paper
style uses the paper's own prompts and free-text answers with its flags (paper_release.py) instead of our wording
and JSON. "ours" is the layout described above. Sampling (temperature, max_tokens, seed, ...) is brain option
`sampling` (`Brain.sampling`) for the uses "turn" and "grounding"; preset `paper` sets the paper's (spec.py).

Without an LLM (llm=None), or when a call fails (any exception, e.g. bots.llm.LLMError), a brain plays that turn
with the solver policy and notes "llm_fallback" (under the brain option strict_llm the act fails instead and the
game is reported invalid). So does a valid answer that makes no move at all (it would leave the partner waiting):
that act counts as valid and as a fallback. A message the seat sent before, or one that copies a line of the prompt's
worked example, is not sent again (note "stale_message"; short answers such as "ok" may recur). Every use of the LLM is an LLM act (`Brain.llm_act`: "action" or "grounding") with its
validity, tokens and time. `llm` is duck-typed: any object with chat_json(messages, schema, usage=...) works; usage
objects get .add(delta) calls with prompt_tokens / completion_tokens.
"""
from __future__ import annotations

import json
from typing import Optional, Sequence

from tasks.core import Brain, ChatShown, Message, View

from ..board import edge
from ..solver import best_tour
from . import our_prompts as our
from . import paper_prompts as paper
from . import paper_release as release
from . import reader as rule_reader
from .llm_actions import MAX_GROUNDED, action_schema, grounding_schema, plan_moves, said_key, stale_text
from .solver_brain import SolverBrain, ekey, key_edge

VARIANTS = {
    "baseline": {"partner_ws": False, "history": True, "state": False, "ibp": False},
    "grounding": {"partner_ws": True, "history": True, "state": False, "ibp": False},
    "state-tracking": {"partner_ws": True, "history": False, "state": True, "ibp": False},
    "problem-solving": {"partner_ws": True, "history": False, "state": True, "ibp": True},
}

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
        self.release: Optional[str] = None  # a checkout of the paper's release (paper style with paper_prompts)
        self.history_turns = 1  # past turns kept in the prompt (see the docstring); paper style: all of them
        # stable prefix: the history is trimmed when prefix + history exceed this many characters (~1.5k tokens)
        self.prompt_chars: Optional[int] = 4000
        self.ibp_unknown = o.get("ibp_unknown", "zero")
        self.fallback = SolverBrain(seat, seed, None, o)
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
        self._said: set[str] = set()  # said_key of every line this seat sent: a repeat is not sent again
        self._prefix_key: Optional[str] = None  # said_key of the prompt's prefix (a copied example line)

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
        # the paper's own prompts, read from its release (preset paper): free-text answers with the paper's flags
        self.release = str(o["paper_prompts"]) if style == "paper" and o.get("paper_prompts") else None
        full = style == "paper"  # the paper keeps the whole conversation
        h = o.get("history_turns")
        self.history_turns = (None if full else 1) if h is None else int(h)
        pc = o.get("prompt_chars")
        self.prompt_chars = (None if full else 4000) if pc is None else int(pc)

    @property
    def paper_style(self) -> bool:
        return self._style == "paper"

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
                if self.release:
                    answer = self.llm.chat(messages, usage=act, **self.sampling("turn"))
                    out = release.parse_answer(answer)
                else:
                    out = self.llm.chat_json(messages, self.schemas()[0], usage=act, **self.sampling("turn"))
                    answer = json.dumps(out, ensure_ascii=False)
                if not isinstance(out, dict) or not isinstance(out.get("actions", []), list):
                    raise ValueError("the answer is not an action object")
        except Exception as exc:  # bots.llm.LLMError and anything malformed: play this turn with the solver
            if not self.llm_fallback(act, exc):
                self._observations = []
                return []
            return self._fallback_moves()
        self._observations = []
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
            if self.release:  # the paper's own system prompt, its worked example included
                self._prefix = [{"role": "system", "content": release.system_prompt(self.release, self.name,
                                                                                    self.view)}]
            elif self.paper_style:  # the worked example is part of the paper's system prompt
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
            form = release if self.release else paper
            user = form.grounding_input(text, known_d, loc if self.variant["state"] else None, other)
        else:
            known = ", ".join(f"{ekey(e)}: {w}" for e, w in sorted(self.partner_ws.items())) or "nothing yet"
            user = f"[Message]: {text}\n[Known]: {known}\n[Loc]: {loc}"
        messages = self._grounding_prefix() + [{"role": "user", "content": user}]
        if self.release:
            out = {"coins": release.parse_coins(self.llm.chat(messages, usage=usage, **self.sampling("grounding")))}
        else:
            out = self.llm.chat_json(messages, self.schemas()[1], usage=usage, **self.sampling("grounding"))
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
        if self._gprefix is None and self.release:
            self._gprefix = [{"role": "system", "content": release.grounding_prompt(self.release, self.name,
                                                                                    self.view)}]
        if self._gprefix is None and self.paper_style:
            self._gprefix = [{"role": "system", "content": paper.grounding_system(self.name, self.view)}]
        if self._gprefix is None:
            self._gprefix = our.grounding_prefix(self.view)
        return list(self._gprefix)

    # ------------------------------------------------------------------------------------------------------------
    # prompts

    def _example(self) -> list[dict]:
        return our.turn_example(self.view, self.stable_prefix)

    def _system_prompt(self) -> str:
        return our.system_prompt(self.view, self.variant, self.stable_prefix)

    def _own_ws(self) -> str:
        return our.own_coins(self.view)

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
        seen = [o for o in self._observations if self.variant["state"] or not paper.states_agreed_path(o)]
        if self.release:  # the release's [Observation] is the partner's message (<START> before the first one)
            said = [o[len("Partner: "):] for o in seen if o.startswith("Partner: ")]
            seen = said or (seen if self.turns else [])
        obs = "\n".join(_short(o) for o in seen) or ("<START>" if not self.turns else "(nothing new)")
        form = release if self.release else paper
        return form.input_block(self.name, dict(v["my_coins"]), partner, self.actions_history, agreed, remaining,
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

    def _apply(self, out: dict) -> list:
        plan = plan_moves(self.view, out, self.paper_style)
        for action, error in plan.errors:  # one bad action must not drop the others
            self.note("bad_action", action=action, error=error)
        self.actions_history.append(plan.summary)
        moves = []
        if plan.shares:
            moves.append(self.command("share", ",".join(plan.shares)))
        if self._prefix_key is None:
            self._prefix_key = said_key(" ".join(m["content"] for m in self._prefix or []))
        why = stale_text(plan.text, self._said, self._prefix_key)
        if why:  # a line sent before, or the worked example's: the partner would read it again
            self.note("stale_message", why=why, text=plan.text[:200])
        elif plan.text:
            self._said.add(said_key(plan.text))
            moves.append(self.say(plan.text))
        for name, args in plan.commands:
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
