"""Agents for DialOp Planning: the planner assistant (default, no LLM), a simulated user and the prompted LLM
baseline (either seat)."""
from .planner import PlannerBrain
from .simuser import SimUserBrain

BRAINS = {"planner": PlannerBrain, "simuser": SimUserBrain}
try:
    from .llm_brain import LLMBrain
    BRAINS["llm"] = LLMBrain
except ImportError:  # pragma: no cover
    pass

__all__ = ["BRAINS", "PlannerBrain", "SimUserBrain"]
