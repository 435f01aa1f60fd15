"""Agents for TRAVELING ADVENTURERS: the solver-driven agent (default), the paper's four LLM variants, and scripted
partners that behave like different people (people.py; the `--population` evaluation)."""
from .llm_brains import LLM_BRAINS, BaselineBrain, GroundingBrain, LLMBrain, ProblemSolvingBrain, StateTrackingBrain
from .people import PARTNERS
from .solver_brain import SolverBrain

BRAINS = {"solver": SolverBrain, **LLM_BRAINS, **PARTNERS}  # PARTNERS: scripted people for --population

__all__ = ["BRAINS", "SolverBrain", "LLMBrain", "BaselineBrain", "GroundingBrain", "StateTrackingBrain",
           "ProblemSolvingBrain"]
