"""The JSON act our DialOp LLM agents answer with (each DialOp task's brains/llm_brain.py): one object a turn whose
`act` names the move (the moves every DialOp game has, `MOVES`, and any of the task's own) beside the task's fields
(the chat line, the proposal in the task's format, ...)."""
from __future__ import annotations

from typing import Sequence

MOVES = ("message", "propose", "accept", "reject")


def act_schema(title: str, fields: dict, moves: Sequence[str] = MOVES) -> dict:
    """The JSON schema of one act: `act` (one of `moves`, required), then the task's `fields` in the order given (a
    model held to the schema's grammar writes them in that order), and nothing else."""
    return {"title": title, "type": "object", "additionalProperties": False,
            "properties": {"act": {"type": "string", "enum": list(moves)}, **fields}, "required": ["act"]}
