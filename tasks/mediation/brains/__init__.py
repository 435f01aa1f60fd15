"""Agents for DialOp Mediation: the mediator assistant (default, no LLM), simulated users, the prompted LLM."""
from .mediator import MediatorBrain
from .people import PEOPLE
from .simuser import SimUserBrain

BRAINS = {"mediator": MediatorBrain, "simuser": SimUserBrain, **PEOPLE}
USER_BRAINS = ("simuser", *PEOPLE)
try:
    from .llm_brain import LLMBrain
    BRAINS["llm"] = LLMBrain
    USER_BRAINS = ("simuser", "llm", *PEOPLE)
except ImportError:  # pragma: no cover
    pass

__all__ = ["BRAINS", "PEOPLE", "USER_BRAINS", "MediatorBrain", "SimUserBrain"]
