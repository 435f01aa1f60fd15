"""Agents for DialOp Assignment: the optimizer (default, no LLM), the prompted LLM baseline and a simulated user."""
from .optimizer import OptimizerBrain
from .simuser import SimUserBrain

BRAINS = {"optimizer": OptimizerBrain, "simuser": SimUserBrain}
try:
    from .llm_brain import LLMBrain
    BRAINS["llm"] = LLMBrain
except ImportError:  # pragma: no cover
    pass

__all__ = ["BRAINS", "OptimizerBrain", "SimUserBrain"]
