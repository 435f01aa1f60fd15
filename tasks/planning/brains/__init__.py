"""Agents for DialOp Planning: the planner assistant (default, no LLM), a simulated user and the prompted LLM
baseline (either seat)."""
from .planner import PlannerBrain
from .people import PEOPLE
from .simuser import SimUserBrain

BRAINS = {"planner": PlannerBrain, "simuser": SimUserBrain, **PEOPLE}
USER_BRAINS = ("simuser", "llm", *PEOPLE)  # who may take the user's seat
try:
    from .llm_brain import LLMBrain
    BRAINS["llm"] = LLMBrain
except ImportError:  # pragma: no cover
    pass

__all__ = ["BRAINS", "PEOPLE", "USER_BRAINS", "PlannerBrain", "SimUserBrain"]
