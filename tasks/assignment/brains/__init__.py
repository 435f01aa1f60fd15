"""Agents for DialOp Assignment: the optimizer (default, no LLM), the prompted LLM agent (ours: JSON acts; the
paper's protocol under the `paper` preset, brains/paper.py) and a simulated user."""
from tasks.dialop.paper_agent import by_protocol

from .llm_brain import LLMBrain
from .optimizer import OptimizerBrain
from .paper import AssignmentPaperBrain
from .simuser import SimUserBrain

BRAINS = {"optimizer": OptimizerBrain, "simuser": SimUserBrain, "llm": by_protocol(LLMBrain, AssignmentPaperBrain)}

__all__ = ["BRAINS", "OptimizerBrain", "SimUserBrain"]
