"""Our prompted LLM agent ("llm") for any seat (the default, labelled ours: the paper's protocol is brains/paper.py
under `--preset paper`): any OpenAI-compatible model, prompted with the role's
instructions, one worked example from the released human dialogues rendered from that role's side (read at run
time from the data path; the project bundles no data), the seat's own information and the history. One JSON act
per turn; the assistant chooses the recipient of each message ("to": user1, user2 or both) and proposes with
"flights": [N, M]. A move the rules refuse goes back to the model with the error (one repair round, as the paper
regenerated); an LLM that fails falls back visibly to the symbolic agent of the seat (mediator or simuser:
`llm_fallback`, so tables label the game `llm+fallback`)."""
from __future__ import annotations

import os
from typing import Optional

from tasks.core import Brain, ChatShown, Chat, Message, View
from tasks.dialop.acts import act_schema

from ..generator import from_released, show_time
from ..game import USERS
from .mediator import MediatorBrain
from .simuser import SimUserBrain

ASSISTANT = (
    "You are a travel agent booking one flight for each of two users who travel to the same place. Each user has "
    "a calendar; you see only the events they shared with you and not how important they are. Talk with each user "
    "separately (they cannot see each other's messages) to learn which meetings matter and how much price matters, "
    "then propose one flight per user. The group score counts the importance of the meetings the flights overlap, "
    "the prices and how far apart the two users arrive. Both users must accept; a reject clears the proposal.\n"
    "Answer with one JSON act: {\"act\": \"message\", \"to\": \"user1\" | \"user2\" | \"both\", \"text\": ...} or "
    "{\"act\": \"propose\", \"flights\": [user 1's flight number, user 2's flight number]}.")
USER = (
    "You are traveling with a friend; an assistant books one flight for each of you. You see your whole calendar "
    "(importance 1-10; shared events are visible to the assistant without importance, private ones not at all) and "
    "your flights. Tell the assistant what matters to you; when it proposes a flight you see its score for you. "
    "Answer with one JSON act: {\"act\": \"message\", \"text\": ...} to talk to the assistant, or {\"act\": "
    "\"accept\"} / {\"act\": \"reject\"} when a proposal is waiting for your answer.")

SCHEMA = act_schema("mediation_act", {"to": {"type": "string", "enum": ["user1", "user2", "both"]},
                                      "text": {"type": "string", "maxLength": 600},
                                      "flights": {"type": "array", "items": {"type": "integer"}, "maxItems": 2}})


def _t(e: dict) -> str:
    return f"{show_time(e['start'])} - {show_time(e['end'])}"


def info_assistant(users: list[dict]) -> str:
    out = []
    for k, u in enumerate(users):
        out.append(f"User {k + 1} Information\nFlights:\nid | carrier | price | times")
        out += [f"{f['id']} | {f['carrier']} | {f['price']} | {f.get('when') or _t(f)}" for f in u["flights"]]
        out.append("Calendar (shared events):\nid | times")
        out += [f"{e['id']} | {e.get('when') or _t(e)}" for e in u["calendar"]]
    return "\n".join(out)


def info_user(calendar: list[dict], flights: list[dict], prefs: Optional[dict] = None) -> str:
    out = ["Flights:\nid | carrier | price | times"]
    out += [f"{f['id']} | {f['carrier']} | {f['price']} | {f.get('when') or _t(f)}" for f in flights]
    for title, shared in (("Private calendar:", False), ("Shared calendar (visible to assistant):", True)):
        out.append(title + "\nid | importance | times")
        out += [f"{e['id']} | ({e['importance']}) | {e.get('when') or _t(e)}" for e in calendar if e["shared"] == shared]
    if prefs:
        out.append(f"Price matters {prefs['price_pref']}/20; arriving together matters {prefs['arrival_pref']}/10.")
    return "\n".join(out)


def render_example(record: dict, seat: str, info: bool = True) -> str:
    """A released dialogue from one seat's side, in the prompt's text format (`info=False`: the dialogue only, the
    cut the original made when a prompt overflowed the model's context)."""
    inst = from_released(record, 0)
    lines = []
    if not info:
        pass
    elif seat == "assistant":
        users = [{"flights": [{**f, "id": i + 1} for i, f in enumerate(u["flights"])],
                  "calendar": [{**e, "id": f"{'AB'[k]}{i + 1}"} for i, e in enumerate(u["calendar"]) if e["shared"]]}
                 for k, u in enumerate(inst["users"])]
        lines.append(info_assistant(users))
    else:
        k = USERS.index(seat)
        u = inst["users"][k]
        lines.append(info_user([{**e, "id": f"{'AB'[k]}{i + 1}"} for i, e in enumerate(u["calendar"])],
                               [{**f, "id": i + 1} for i, f in enumerate(u["flights"])]))
    me = 2 if seat == "assistant" else USERS.index(seat)
    for a in record.get("action_log") or []:
        p = int(a.get("player", 2)) if a.get("player") is not None else 2
        if a.get("type") == "message":
            text = a["message"].get("data", "")
            if seat == "assistant":
                who = f"You to user{int(a['vroom']) + 1}" if p == 2 else f"User {p + 1}"
            elif int(a.get("vroom", -1)) != me:
                continue
            else:
                who = "You" if p == me else "Assistant"
            lines.append(f"{who}: [message] {text}")
        elif a.get("type") == "proposal":
            ids = [int(x["flight_id"]) + 1 for x in a["proposals"]]
            if seat == "assistant":
                lines.append(f"You: [propose] flights {ids[0]}, {ids[1]}")
            else:
                c = a["proposals"][me]["cost"]
                lines.append(f"Assistant: [propose] flight {ids[me]}; your score: meetings {c['calendar']}, price "
                             f"{c['price']}, arrival {c['arrival_time']}, total {c['total']}")
        elif a.get("type") == "proposal_response" and (seat == "assistant" or p == me):
            who = f"User {p + 1}" if seat == "assistant" else "You"
            lines.append(f"{who}: [{'accept' if a['response'].get('accept') else 'reject'}]")
    lines.append(f"Final score: {round(float(record['result']['norm']), 2)}")
    return "\n".join(lines)


def load_example(path: Optional[str], seat: str, info: bool = True) -> Optional[str]:
    try:
        from tasks.dialop.data import default_path, read_records

        path = path or default_path()
        if not os.path.exists(path):
            return None
        for rec in read_records(path, "mediation"):
            log = rec["action_log"]
            if rec["result"]["norm"] >= 0.99 and 6 <= len(log) <= 12 and any(a["type"] == "message" for a in log):
                return render_example(rec, seat, info)
    except Exception:  # the example is optional: no data, no example
        return None
    return None


class LLMBrain(Brain):
    name = "llm"
    needs_llm = True

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        fallback = MediatorBrain if seat == "assistant" else SimUserBrain
        self.fallback = fallback(seat, seed, None, options)
        self.history: list[str] = []
        self.example = load_example(self.options.get("dialop_data"), seat)
        self.short_example = load_example(self.options.get("dialop_data"), seat, info=False)
        # a rough budget (2 characters a token: times and prices cost many tokens): over it the example loses its
        # tables, then goes (the original cut an optional span the same way)
        self.max_prompt_tokens = int(self.options.get("max_prompt_tokens", 3200))
        self.news = False
        self.errors: list[str] = []
        self.answered: Optional[int] = None
        self.opened = False

    def observe(self, effect) -> None:
        self.fallback.observe(effect)
        if isinstance(effect, View) and effect.data.get("role"):
            self.view = effect.data
            p = effect.data.get("pending")
            if p is not None and self.seat in USERS and p["id"] != self.answered and not p["mine_accepted"]:
                self.news = True
        elif isinstance(effect, ChatShown):
            if self.seat == "assistant":
                who = "You to " + "/".join(effect.to or USERS) if effect.seat == self.seat else \
                    f"User {USERS.index(effect.seat) + 1}"
            else:
                who = "You" if effect.seat == self.seat else "Assistant"
            self.history.append(f"{who}: [message] {effect.text}")
            self.news |= effect.seat != self.seat
        elif isinstance(effect, Message):
            if effect.kind == "error" and effect.to == self.seat:
                self.errors.append(effect.text)
                self.news = True
            else:
                self.history.append(f"Game: {effect.text}")
                self.news |= "rejected" in effect.text

    def _state(self) -> str:
        v = self.view
        if self.seat == "assistant":
            head = info_assistant(v["users"])
            if v.get("pending"):
                head += f"\nYour proposal (flights {v['pending']['pair']}) is waiting for the users' answers."
        else:
            head = info_user(v["calendar"], v["flights"], v.get("prefs"))
            p = v.get("pending")
            if p and not p["mine_accepted"]:
                b = p["breakdown"]
                head += (f"\nThe assistant proposes flight {p['flight']['id']}; your score: meetings {b['calendar']}, "
                         f"price {b['price']}, arrival {b['arrival']}, total {b['total']}. You must [accept] or "
                         "[reject].")
        if v.get("words_left") is not None:
            head += f"\nWords left: {v['words_left']}." + (" Make your best final proposal now." if v.get("final") else "")
        return head + "\n" + "\n".join(self.history[-40:])

    def _prompt(self, error: Optional[str]) -> list[dict]:
        state = self._state()
        for e in self.errors[-2:] + ([error] if error else []):
            state += f"\nError: {e}"
        self.errors = []
        system = ASSISTANT if self.seat == "assistant" else USER
        for example in (self.example, self.short_example, None):
            ex = f"TRIP 1.\n{example}\n\n" if example else ""
            user = f"{ex}TRIP {2 if example else 1}.\n{state}\nYou:"
            if (len(system) + len(user)) / 2 <= self.max_prompt_tokens:
                break
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def act(self):
        v = self.view
        if v is None or v.get("result") is not None or v.get("core", {}).get("phase") != "playing":
            return []
        if not self.news and (self.opened or self.seat != "assistant"):
            return []  # the assistant opens the talk; after that every seat answers news only
        self.opened = True
        self.news = False
        if self.llm is None:
            act = self.llm_missing("action")
            return self.fallback.act() if self.llm_fallback(act, error="no LLM configured") else []
        act = None
        try:
            with self.llm_act("action") as act:
                return self._ask(act)
        except Exception as exc:
            if not self.llm_fallback(act, exc):
                return []
            return self.fallback.act()

    def _ask(self, act) -> list:
        error = None
        v = self.view
        for _ in range(2):
            out = self.llm.chat_json(self._prompt(error), SCHEMA, usage=act)
            kind, text = out.get("act"), (out.get("text") or "").strip()
            if kind == "message" and text:
                if self.seat != "assistant":
                    return [self.say(text)]
                to = out.get("to") or "both"
                return [Chat(self.seat, text, to=USERS if to == "both" else (to,))]
            if kind == "propose" and self.seat == "assistant":
                fl = out.get("flights") or []
                if len(fl) == 2 and all(1 <= int(n) <= len(v["users"][k]["flights"]) for k, n in enumerate(fl)):
                    return [self.command("propose", int(fl[0]), int(fl[1]))]
                error = "Propose two flight numbers from the lists: user 1's, then user 2's."
                continue
            if kind in ("accept", "reject") and self.seat in USERS:
                p = v.get("pending")
                if p is None or p["mine_accepted"]:
                    error = "There is no proposal waiting for your answer."
                    continue
                self.answered = p["id"]
                self.fallback.answered = p["id"]
                return [self.command(kind)]
            error = "Answer with one act your role allows: " + (
                "message (with to and text) or propose (with flights)." if self.seat == "assistant" else
                "message (with text), accept or reject.")
        raise ValueError(f"invalid act after a repair round: {error}")


__all__ = ["LLMBrain", "render_example", "load_example"]
