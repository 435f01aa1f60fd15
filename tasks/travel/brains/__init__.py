"""Agents for TRAVELING ADVENTURERS: the solver-driven agent (default) and the paper's four LLM variants."""
from .llm_brains import LLM_BRAINS, BaselineBrain, GroundingBrain, LLMBrain, ProblemSolvingBrain, StateTrackingBrain
from .solver_brain import SolverBrain

BRAINS = {"solver": SolverBrain, **LLM_BRAINS}

__all__ = ["BRAINS", "SolverBrain", "LLMBrain", "BaselineBrain", "GroundingBrain", "StateTrackingBrain",
           "ProblemSolvingBrain"]
