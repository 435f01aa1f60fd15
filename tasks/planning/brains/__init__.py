"""Agents for DialOp Planning: the planner assistant (default, no LLM), a simulated user (and ours told its hidden
weights, `simuser-weights`) and the prompted LLM baseline (either seat)."""
from .planner import PlannerBrain
from .people import PEOPLE
from .simuser import SimUserBrain, WeightCueUser

BRAINS = {"planner": PlannerBrain, "simuser": SimUserBrain, WeightCueUser.name: WeightCueUser, **PEOPLE}
USER_BRAINS = ("simuser", WeightCueUser.name, "llm", *PEOPLE)  # who may take the user's seat
try:
    from .llm_brain import LLMBrain
    BRAINS["llm"] = LLMBrain
except ImportError:  # pragma: no cover
    pass

__all__ = ["BRAINS", "PEOPLE", "USER_BRAINS", "PlannerBrain", "SimUserBrain", "WeightCueUser"]
