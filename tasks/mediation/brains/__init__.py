"""Agents for DialOp Mediation: the mediator assistant (default, no LLM), simulated users, the prompted LLM."""
from .mediator import MediatorBrain
from .simuser import SimUserBrain

BRAINS = {"mediator": MediatorBrain, "simuser": SimUserBrain}
USER_BRAINS = ("simuser",)
try:
    from .llm_brain import LLMBrain
    BRAINS["llm"] = LLMBrain
    USER_BRAINS = ("simuser", "llm")
except ImportError:  # pragma: no cover
    pass

__all__ = ["BRAINS", "USER_BRAINS", "MediatorBrain", "SimUserBrain"]
