"""The DialOp paper's LLM agent for Assignment ("llm-paper"; `llm` under the `paper` preset): both players read the
release's `optimization.txt` (tasks/dialop/paper_agent.py has the protocol). Context: the player's table as the
release's template renders it; history: "You:" / "Partner:" lines, proposals in the release's "Proposal:<br/>&emsp;
- PAPER: Reviewer..." form (the game's parser reads it; the release's own text-env parser scored them wrongly,
reference §2.2). Over the window the release cut the first example (EXAMPLE 1 up to EXAMPLE 2) once."""
from __future__ import annotations

from tasks.dialop.paper_agent import Line, PaperBrain, release_files

from ..names import PAPERS, REVIEWERS
from .llm_brain import render_table

PROMPT = "optimization.txt"
RELEASE_FILES = release_files(PROMPT)
KINDS = ("message", "propose", "accept", "reject")


def proposal_text(matching) -> str:
    """A matching (paper index per reviewer) as the release wrote proposals, papers in order."""
    by_paper = sorted((p, r) for r, p in enumerate(matching))
    return "Proposal:" + "".join(f"<br/>&emsp; - {PAPERS[p]}: {REVIEWERS[r]}" for p, r in by_paper)


class AssignmentPaperBrain(PaperBrain):
    prompt_files = {"player1": PROMPT, "player2": PROMPT}
    kinds = {"player1": KINDS, "player2": KINDS}
    stops = {"player1": ("Partner", "You", "\n"), "player2": ("Partner", "You", "\n")}

    def context(self) -> str:
        return render_table(self.view["table"])

    def optional_span(self, fewshot: str) -> str:
        a, b = fewshot.find("EXAMPLE 1"), fewshot.find("EXAMPLE 2")
        return fewshot[a:b] if 0 <= a < b else ""

    def view_lines(self, old: dict, new: dict) -> list[str]:
        was, now = old.get("pending"), new.get("pending")
        lines = []
        if was and (now is None or now["id"] != was["id"]) and not (now and now["mine"] == was["mine"]):
            if new.get("result") is not None:
                lines.append("Partner: [accept]" if was["mine"] else "You: [accept]")
            else:
                lines.append("Partner: [reject]" if was["mine"] else "You: [reject]")
        if now and (was is None or now["id"] != was["id"]):
            who = "You" if now["mine"] else "Partner"
            # the release's live prompt asked the partner for an answer below the proposal
            ask = "" if now["mine"] else "\nAnswer with [accept] or [reject]."
            lines.append(f"{who}: [propose] {proposal_text(now['matching'])}{ask}")
        return lines

    def wants_turn(self) -> bool:
        v = self.view
        return bool(v.get("must_respond")) or v.get("turn") in (None, "me")

    def moves(self, line: Line) -> list:
        if line.kind == "message":
            return [self.say(line.body)]
        if line.kind == "propose":  # the game reads the release's form; what it refuses comes back as an Error line
            return [self.command("propose", line.body)]
        return [self.command(line.kind)]
