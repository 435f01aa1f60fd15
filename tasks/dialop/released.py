"""One released DialOp human dialogue as a game of its task: the record, the instance it becomes and its logged
inputs (Chat / Command, in log order), with the humans' own figures in the columns of a played game's results.
Each task's `released.py` builds these from its records (instance, inputs) and replays them through its rules."""
from __future__ import annotations

from dataclasses import dataclass

from .data import duration, message_words


def action_kind(a: dict) -> str:
    """What one action-log entry is: its "type", else what its keys say (proposal, proposal_response, message)."""
    if a.get("type"):
        return a["type"]
    return "proposal" if "proposal" in a else ("proposal_response" if "response" in a else "message")


@dataclass
class ReleasedGame:
    index: int
    record: dict
    instance: dict
    inputs: list  # Chat / Command inputs, in log order (one per action-log entry)

    @property
    def result(self) -> dict:
        return self.record.get("result") or {}

    def human_results(self) -> dict:
        """The humans' own figures, in the same columns as a played game's results."""
        log = self.record.get("action_log") or []
        props = sum(1 for a in log if action_kind(a) == "proposal")
        msgs = sum(1 for a in log if action_kind(a) == "message")
        return {"status": "completed" if self.result.get("score") is not None else "ended",
                "normalized_score": self.result.get("norm"), "score": self.result.get("score"),
                "best": self.result.get("best"), "proposals": props, "words": sum(message_words(self.record)),
                "turns": msgs + props, "duration": duration(self.record)}
