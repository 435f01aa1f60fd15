"""The DialOp paper's LLM agent for Planning ("llm" under the `paper` preset; tasks/dialop/paper_agent.py has the
protocol): the user reads the release's `planning_user.txt`, the assistant `planning_agent.txt`. As in the release,
the user's context is its preference texts (never the weights) and the assistant's is empty: it learns the sites
only through `[tool] Search(...)` lines (our /search answers them, where the release had a language model play the
database). Both may write `[think]` lines (private; the model is asked again). The user sees each proposal with its
scorecard in the release's layout (slot scores with the site's features, the checklist, the score sum); the few
sentences of the release's templates are in our own words."""
from __future__ import annotations

from tasks.core import Message
from tasks.dialop.paper_agent import Line, PaperBrain, release_files

from ..parse import format_itinerary

PROMPTS = {"user": "planning_user.txt", "assistant": "planning_agent.txt"}
RELEASE_FILES = release_files(*PROMPTS.values())
STOPS = ("User", "Agent", "You", "\n")


def _signed(v) -> str:
    return f"+{v}" if v >= 0 else str(v)


def scorecard(p: dict) -> str:
    """A proposal as the release showed it to the user: names, per-slot scores (travel legs between), each site's
    features, the checklist of itinerary-level wishes and the sum."""
    sites, card = p["sites"], p["card"]
    names = [s["name"] if s else "NULL" for s in sites]
    lines = ["[" + ", ".join(names) + "]", "Proposal Score:"]
    for k in range(5):
        if k % 2 == 0:
            s = sites[k // 2]
            if s is None:
                lines.append(f"{k + 1}) Empty")
                continue
            lines.append(f"{k + 1}) (score: {card['by_slot'][k]}) {s['name']}")
            lines += [f"{f}: {v}" for f, v in s["features"].items()]
        else:
            d = card["legs"][k // 2]
            lines.append(f"{k + 1}) Empty" if d is None else
                         f"{k + 1}) (score: {card['by_slot'][k]}) Travel from {names[k // 2]} to {names[k // 2 + 1]}, "
                         f"{d}mi")
    lines += ["", "Overall Checklist:"]
    lines += [f"{'YES' if c['score'] >= 0 else 'NO'} (score: {c['score']}) {c['desc']}" for c in card["checklist"]]
    parts = list(card["by_slot"]) + [c["score"] for c in card["checklist"]]
    lines.append("TOTAL SCORE: " + "".join(_signed(s) for s in parts) + f"={card['total']}")
    return "\n".join(lines)


class PlanningPaperBrain(PaperBrain):
    prompt_files = PROMPTS
    kinds = {"user": ("message", "accept", "reject", "think"), "assistant": ("message", "propose", "think", "tool")}
    stops = {"user": STOPS, "assistant": STOPS}

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.searching = False  # a [tool] line is waiting for its result

    def speaker(self, chat) -> str:
        if chat.seat == self.seat:
            return "You"
        return "Agent" if self.seat == "user" else "User"

    def context(self) -> str:
        if self.seat == "assistant":
            return ""  # the release's agent starts from nothing but its prompt: sites come from searches
        return "Travel Preferences:\n" + "\n".join(self.view.get("preferences") or [])

    def view_lines(self, old: dict, new: dict) -> list[str]:
        seen = {p["id"]: p for p in old.get("proposals") or []}
        lines = []
        for p in new.get("proposals") or []:
            before = seen.get(p["id"])
            if before is None:
                if self.seat == "user":
                    ask = "\nYou can [think], or answer with [accept] or [reject]." if p["full"] else ""
                    lines.append("Agent: [propose] " + scorecard(p) + ask)
                else:
                    lines.append("You: [propose] [" + format_itinerary(p["slots"], self._names()) + "]")
            if p["status"] in ("accepted", "rejected") and (before or {}).get("status") != p["status"]:
                who = "You" if self.seat == "user" else "User"
                lines.append(f"{who}: [{'accept' if p['status'] == 'accepted' else 'reject'}]")
        return lines

    def message_lines(self, message: Message) -> list[str]:
        if self.searching and message.to == self.seat:
            self.searching = False
            return [message.text]
        return []

    def observe(self, effect) -> None:
        if isinstance(effect, Message) and effect.kind == "error" and effect.to == self.seat:
            self.searching = False
        super().observe(effect)

    def _names(self) -> list[str]:
        return [s["name"] for s in self.view.get("sites") or []]

    def wants_turn(self) -> bool:
        v = self.view
        return (self.seat == "user" and v.get("pending") is not None) or v.get("turn") in (None, "me")

    def moves(self, line: Line) -> list:
        if line.kind == "message":
            return [self.say(line.body)]
        if line.kind == "tool":
            self.searching = True
            return [self.command("search", line.body)]
        if line.kind == "propose":  # "[A, B, C]": what the game refuses comes back as an Error line
            return [self.command("propose", line.body)]
        return [self.command(line.kind)]
