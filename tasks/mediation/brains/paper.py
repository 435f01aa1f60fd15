"""The DialOp paper's LLM agent for Mediation ("llm" under the `paper` preset; tasks/dialop/paper_agent.py has the
protocol): users read the release's `mediation_user0.txt` / `mediation_user1.txt`, the assistant
`mediation_agent.txt`. Context as the release's templates: a user's flights, private and shared calendars (with
importance); the assistant's "User 0/1 Information" blocks (flights, shared events without importance). Ids count
from 0 within each list, as the release's; times as the release printed them ("5/31 12:34 PM - 8:34 PM", ":00"
dropped for events). The assistant writes after "You to": ` 0: [message] ...`, ` 1: [message] ...` or
` all: [propose] user 0: id N, user 1: id M`. A user sees its own flight of a proposal with its score breakdown
(the release's layout; its sentences in our own words). Over the window the release cut the assistant example's
"User 0 Information" block once."""
from __future__ import annotations

import re
from datetime import datetime

from tasks.core import Chat, Message
from tasks.dialop.paper_agent import Line, LineError, PaperBrain, release_files

from ..game import USERS

PROMPTS = {"user1": "mediation_user0.txt", "user2": "mediation_user1.txt", "assistant": "mediation_agent.txt"}
RELEASE_FILES = release_files(*PROMPTS.values())
STOPS = ("User", "Agent", "You", "\n")
_PROPOSAL = re.compile(r"user 0\s*:\s*id\s*(\d+)\s*,\s*user 1\s*:\s*id\s*(\d+)", re.I)
_REJECTED = re.compile(r"^User ([12]) rejected")


def _clock(d: datetime) -> str:
    return f"{d.hour % 12 or 12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"


def times(item: dict, event: bool = False) -> str:
    a, b = datetime.fromisoformat(item["start"]), datetime.fromisoformat(item["end"])
    text = f"{a.month}/{a.day} {_clock(a)} - {_clock(b)}"
    return text.replace(":00", "") if event else text


def flight_row(i: int, f: dict) -> str:
    return f"{i} | {f['carrier']} | {f['price']} | {times(f)}"


def event_rows(events: list, importance: bool) -> list[str]:
    return [f"{i} | " + (f"({e['importance']}) | " if importance else "") + times(e, True)
            for i, e in enumerate(events)]


class MediationPaperBrain(PaperBrain):
    prompt_files = PROMPTS
    kinds = {"user1": ("message", "accept", "reject"), "user2": ("message", "accept", "reject"),
             "assistant": ("message", "propose")}
    stops = {s: STOPS for s in PROMPTS}

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        if seat == "assistant":
            self.prefix, self.recipient = "\nYou to", True

    def optional_span(self, fewshot: str) -> str:
        if self.seat != "assistant" or "User 0 Information" not in fewshot:
            return ""
        rest = fewshot[fewshot.index("User 0 Information"):]
        return rest[:rest.index("\n\n") + 2] if "\n\n" in rest else ""

    def context(self) -> str:
        v = self.view
        if self.seat == "assistant":
            out = [""]
            for k, u in enumerate(v["users"]):
                out += [f"User {k} Information", "Flights:", "id | carrier | price | times"]
                out += [flight_row(i, f) for i, f in enumerate(u["flights"])]
                out += ["Calendar:", "id | times"] + event_rows(u["calendar"], False)
            return "\n".join(out)
        cal = v["calendar"]
        out = ["Flights:", "id | carrier | price | times"] + [flight_row(i, f) for i, f in enumerate(v["flights"])]
        out += ["Private calendar:", "id | importance | times"] + event_rows([e for e in cal if not e["shared"]], True)
        out += ["Shared calendar (visible to assistant):", "id | importance | times"]
        return "\n".join(out + event_rows([e for e in cal if e["shared"]], True))

    def speaker(self, chat) -> str:
        if self.seat != "assistant":
            return "You" if chat.seat == self.seat else "Agent"
        if chat.seat == self.seat:
            return "You to " + ",".join(str(USERS.index(s)) for s in (chat.to or USERS))
        return f"User {USERS.index(chat.seat)}"

    def view_lines(self, old: dict, new: dict) -> list[str]:
        was, now = old.get("pending"), new.get("pending")
        lines = []
        if self.seat == "assistant":
            if now and (was is None or now["id"] != was["id"]):
                a, b = (i - 1 for i in now["pair"])
                lines.append(f"You to all: [propose] user 0: id {a}, user 1: id {b}"
                             f"\nFlight for user 0: {flight_row(a, new['users'][0]['flights'][a])}"
                             f"\nFlight for user 1: {flight_row(b, new['users'][1]['flights'][b])}")
            done = set(was["accepted"]) if was and now and was["id"] == now["id"] else set()
            lines += [f"User {USERS.index(s)}: [accept]" for s in (now or {}).get("accepted", ()) if s not in done]
            return lines
        if now and (was is None or now["id"] != was["id"]):
            lines.append("Agent: [propose] " + self._offer(now))
        if now and now["mine_accepted"] and not (was and was["id"] == now["id"] and was["mine_accepted"]):
            lines.append("You: [accept]")
        if was and not was["mine_accepted"] and (now is None or now["id"] != was["id"]) and \
                self.last_line == "[reject]":
            lines.append("You: [reject]")
        return lines

    def _offer(self, p: dict) -> str:
        """The user's flight of a proposal with its conflicts and score, as the release laid it out."""
        f, b = p["flight"], p["breakdown"]
        by_id = {e["id"]: e for e in self.view["calendar"]}
        lines = [flight_row(f["id"] - 1, f), "Conflicting meetings:"]
        for c in b["conflicts"]:
            lines += ["importance | times", f"({by_id[c]['importance']}) | {times(by_id[c], True)}"]
        lines += ["Score:", f"- ({b['calendar']}) meetings the flight makes you miss",
                  f"- ({b['price']}) the flight's price", f"- ({b['arrival']}) how far apart you two arrive",
                  f"Total score: {b['total']}"]
        return "\n".join(lines)

    def message_lines(self, message: Message) -> list[str]:
        m = _REJECTED.match(message.text) if self.seat == "assistant" else None
        return [f"User {int(m.group(1)) - 1}: [reject]"] if m else []

    def wants_turn(self) -> bool:
        turn = self.view.get("turn")  # round-robin (the paper preset): the game says whose move it is
        return bool(turn["mine"]) if isinstance(turn, dict) else True  # free chat: answer what is new

    def moves(self, line: Line) -> list:
        if self.seat != "assistant":
            return [self.say(line.body)] if line.kind == "message" else [self.command(line.kind)]
        if line.kind == "message":
            return [Chat(self.seat, line.body, to=(USERS[int(line.to)],))]
        m = _PROPOSAL.search(line.body)
        if m is None:
            raise LineError("a proposal reads 'user 0: id N, user 1: id M'")
        # ids count from 0 in the prompt, from 1 in the game; one out of range is the game's to refuse
        return [self.command("propose", int(m.group(1)) + 1, int(m.group(2)) + 1)]
