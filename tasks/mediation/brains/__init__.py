"""Agents for DialOp Mediation: the mediator assistant (default, no LLM), simulated users and the prompted LLM agent
for any seat (ours: JSON acts; the paper's protocol under the `paper` preset, brains/paper.py)."""
from tasks.dialop.paper_agent import by_protocol

from .llm_brain import LLMBrain
from .mediator import MediatorBrain
from .paper import MediationPaperBrain
from .people import PEOPLE
from .simuser import SimUserBrain

BRAINS = {"mediator": MediatorBrain, "simuser": SimUserBrain, **PEOPLE,
          "llm": by_protocol(LLMBrain, MediationPaperBrain)}
USER_BRAINS = ("simuser", "llm", *PEOPLE)

__all__ = ["BRAINS", "PEOPLE", "USER_BRAINS", "MediatorBrain", "SimUserBrain"]
