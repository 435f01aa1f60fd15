"""Agents for the negotiation games: `workflow` (default, exact solvers, no LLM), `random`, `always-first`, the
paper's prompted baseline `llm` and its LLM workflow `llm-workflow`."""
from .baselines import AlwaysFirstBrain, RandomBrain
from .llm_brain import LLMBrain
from .llm_workflow import LLMWorkflowBrain
from .workflow import WorkflowBrain

BRAINS = {"workflow": WorkflowBrain, "random": RandomBrain, "always-first": AlwaysFirstBrain, "llm": LLMBrain,
          "llm-workflow": LLMWorkflowBrain}

__all__ = ["BRAINS", "WorkflowBrain", "RandomBrain", "AlwaysFirstBrain", "LLMBrain", "LLMWorkflowBrain"]
