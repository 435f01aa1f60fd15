"""Our prompted LLM agent ("llm", either seat; the default, labelled ours: the paper's protocol is brains/paper.py,
`--preset paper`): any OpenAI-compatible model, one JSON step per call, with private think steps and, for the
assistant, a search step. The worked example is one released human dialogue from the seat's side (read at run time
from the data path; the project bundles no data): people wrote no think or search steps, so the example has none,
unlike the paper's prompt files. The assistant's prompt lists every site (name, type, price) as its page shows them;
features come from searches.

One JSON step per call: the assistant {"act": think|search|message|propose, "text", "query", "itinerary"}, the
user {"act": think|message|accept|reject, "text"}. A think step is kept in the act's scratchpad and the model is
asked again (at most 3 in a row); a search goes to the game as /search (logged, replayed; the private result comes
back as the next observation, so the model reads the real query engine's answer); an invalid step gets the error
back once. Without a usable LLM the seat's symbolic agent (planner or simuser) stands in visibly (`llm_fallback`,
tables label the game `llm+fallback`).
"""
from __future__ import annotations

import os
from typing import Optional

from tasks.core import Brain, ChatShown, Message, View
from tasks.dialop.acts import MOVES, act_schema

from .planner import PlannerBrain
from .simuser import SimUserBrain

COMMON = ("You are planning a day out of 3 stops in a city. The user has travel preferences only they can see; "
          "the assistant sees every site's name, type and price (listed in its prompt) and searches them for "
          "features and distances. Only the assistant "
          "proposes itineraries ([A, B, C]; NULL for an empty slot makes it a suggestion). The user must accept or "
          "reject a full proposal; accepting ends the game. The score is how good the itinerary is for the user's "
          "preferences, out of the best possible. ")
ROLE = {
    "assistant": COMMON + "You are the ASSISTANT. Ask about what matters, search, then propose. Answer with one JSON "
    "step: {\"act\": \"think\", \"text\": ...} (private), {\"act\": \"search\", \"query\": \"type == cafe, has wifi, "
    "price <= 20, sort_by=distance_to(Site), limit=3\"} (private; fields: name, type, price and the features), "
    "{\"act\": \"message\", \"text\": ...} or {\"act\": \"propose\", \"itinerary\": \"A, B, C\"}.",
    "user": COMMON + "You are the USER. Tell the assistant what matters to you (in your own words), and accept or "
    "reject its full proposals by their score. Answer with one JSON step: {\"act\": \"think\", \"text\": ...} "
    "(private), {\"act\": \"message\", \"text\": ...}, {\"act\": \"accept\"} or {\"act\": \"reject\"}.",
}
SCHEMA = act_schema("planning_step", {"text": {"type": "string", "maxLength": 800},
                                      "query": {"type": "string", "maxLength": 300},
                                      "itinerary": {"type": "string", "maxLength": 300}},
                    moves=("think", "search", *MOVES))


def render_example(record: dict, seat: str) -> str:
    """A released dialogue from one seat's side, in the prompt's text format."""
    lines = []
    if seat == "user":
        lines += ["Travel Preferences:"] + [p[0] for p in record["preferences"]] + [""]
    me = 0 if seat == "user" else 1
    for a in record.get("action_log") or []:
        kind = a.get("type")
        if kind == "message":
            who = "You" if int(a["message"].get("from_player", a.get("player", 0))) == me else "Partner"
            lines.append(f"{who}: [message] {a['message'].get('data', '')}")
        elif kind == "proposal":
            names = [(s or {}).get("name") or "NULL" for s in a["proposal"][0::2]]
            lines.append(f"{'You' if me == 1 else 'Partner'}: [propose] [{', '.join(names)}]")
            if seat == "user":
                lines.append(f"Proposal score: {a['scores']['total']}")
        elif kind == "proposal_response":
            ok = (a.get("response") or {}).get("accept")
            lines.append(f"{'You' if me == 0 else 'Partner'}: [{'accept' if ok else 'reject'}]")
    lines.append(f"FINAL SCORE: {round(100 * float(record['result']['norm']))}/100")
    return "\n".join(lines)


def load_example(path: Optional[str], seat: str) -> str:
    try:
        from tasks.dialop.data import default_path, read_records

        path = path or default_path()
        if not os.path.exists(path):
            return ""
        for rec in read_records(path, "planning"):
            if rec["result"]["norm"] >= 0.95 and 8 <= len(rec["action_log"]) <= 16:
                return render_example(rec, seat)
    except Exception:  # the example is optional: no data, no example
        return ""
    return ""


class LLMBrain(Brain):
    name = "llm"
    needs_llm = True
    max_thinks = 3

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.symbolic = (PlannerBrain if seat == "assistant" else SimUserBrain)(seat, seed, None, options)
        self.history: list[str] = []
        self.errors: list[str] = []
        self.example = load_example(self.options.get("dialop_data"), seat)
        self.news = False
        self.answered: set = set()

    def observe(self, effect) -> None:
        self.symbolic.briefing = self.briefing  # the fallback simulated user knows what this seat's agent knows
        self.symbolic.observe(effect)
        if isinstance(effect, View):
            self.view = effect.data
        elif isinstance(effect, ChatShown):
            self.history.append(f"{'You' if effect.seat == self.seat else 'Partner'}: [message] {effect.text}")
            self.news = self.news or effect.seat != self.seat
        elif isinstance(effect, Message):
            if effect.kind == "error" and effect.to == self.seat:
                self.errors.append(effect.text)
            else:
                tool = effect.to == self.seat and effect.text.startswith("Search Results")
                self.history.append(("Tool: " if tool else "Game: ") + effect.text)
            self.news = True

    def _state(self) -> str:
        v = self.view or {}
        out = []
        if self.seat == "user":
            out += ["Travel Preferences:"] + list(v.get("preferences", [])) + [""]
        else:
            out += ["Sites (name | type | price):"] + [f"{s['name']} | {s['etype']} | ${s['price']}"
                                                      for s in v.get("sites") or []] + [""]
        out += self.history[-40:]
        p = v.get("pending")
        if self.seat == "user" and p:
            out.append("A full proposal is open: you must [accept] or [reject] it.")
        if v.get("words_left") is not None:
            out.append(f"Words left: {v['words_left']}." + (" You must make your best final proposal now."
                                                          if v.get("final") else ""))
        return "\n".join(out)

    def _prompt(self, scratch: list[str]) -> list[dict]:
        ex = f"EXAMPLE 1.\n{self.example}\n\nEXAMPLE 2.\n" if self.example else ""
        tail = "".join(f"\nYou: [think] {t}" for t in scratch)
        tail += "".join(f"\nError: {e}" for e in self.errors[-2:])
        self.errors = []
        return [{"role": "system", "content": ROLE[self.seat]},
                {"role": "user", "content": f"{ex}{self._state()}{tail}\nYou:"}]

    def _fallback(self, act=None, exc=None, error=None):
        if not self.llm_fallback(act, exc, **({"error": error} if error else {})):
            return []
        return self.symbolic.act()

    def act(self):
        v = self.view
        if v is None or v.get("result") is not None:
            return []
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me" and not (
                self.seat == "user" and v.get("pending")):
            self.symbolic.act()  # keep the stand-in's reading of the dialogue up to date
            return []
        pending = (v.get("pending") or {}).get("id")
        must = self.seat == "user" and pending is not None and pending not in self.answered
        if not self.news and not must and (self.history or self.seat == "assistant"):
            return []
        self.news = False
        if self.llm is None:
            return self._fallback(self.llm_missing("action"), error="no LLM configured")
        act = None
        try:
            with self.llm_act("action") as act:
                moves = self._ask(act)
        except Exception as exc:
            return self._fallback(act, exc)
        if must and moves and getattr(moves[0], "name", "") in ("accept", "reject"):
            self.answered.add(pending)
        return moves

    def _ask(self, act) -> list:
        scratch: list[str] = []
        for _ in range(self.max_thinks + 2):
            out = self.llm.chat_json(self._prompt(scratch), SCHEMA, usage=act)
            kind = out.get("act")
            text = (out.get("text") or "").strip()
            if kind == "think" and len(scratch) < self.max_thinks:
                scratch.append(text)
                continue
            if kind == "message" and text:
                return [self.say(text)]
            if kind == "search" and self.seat == "assistant" and (out.get("query") or "").strip():
                return [self.command("search", out["query"].strip())]
            if kind == "propose" and self.seat == "assistant" and (out.get("itinerary") or "").strip():
                return [self.command("propose", out["itinerary"].strip().strip("[]"))]
            if kind in ("accept", "reject") and self.seat == "user" and (self.view or {}).get("pending"):
                return [self.command(kind)]
            self.errors.append("That step is not possible now; answer with one valid JSON step.")
        raise ValueError("no valid step after the repair rounds")
