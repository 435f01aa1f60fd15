"""Agents for DialOp Planning: the planner assistant (default, no LLM), a simulated user (and ours told its hidden
weights, `simuser-weights`) and the prompted LLM agent for either seat (ours: JSON steps; the paper's protocol under
the `paper` preset, brains/paper.py)."""
from tasks.dialop.paper_agent import by_protocol

from .llm_brain import LLMBrain
from .paper import PlanningPaperBrain
from .people import PEOPLE
from .planner import PlannerBrain
from .simuser import SimUserBrain, WeightCueUser

BRAINS = {"planner": PlannerBrain, "simuser": SimUserBrain, WeightCueUser.name: WeightCueUser, **PEOPLE,
          "llm": by_protocol(LLMBrain, PlanningPaperBrain)}
USER_BRAINS = ("simuser", WeightCueUser.name, "llm", *PEOPLE)  # who may take the user's seat

__all__ = ["BRAINS", "PEOPLE", "USER_BRAINS", "PlannerBrain", "SimUserBrain", "WeightCueUser"]
