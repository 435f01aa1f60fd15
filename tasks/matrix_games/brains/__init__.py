"""Agents for the negotiation games: `workflow` (default, exact solvers, no LLM), `random`, `always-first`, the
paper's prompted baseline `llm` and its LLM workflow `llm-workflow`; scripted people (`person-*`, people.py) for
`--population`."""
from .baselines import AlwaysFirstBrain, RandomBrain
from .llm_brain import LLMBrain
from .llm_workflow import LLMWorkflowBrain
from .people import PEOPLE
from .workflow import WorkflowBrain

BRAINS = {"workflow": WorkflowBrain, "random": RandomBrain, "always-first": AlwaysFirstBrain, "llm": LLMBrain,
          "llm-workflow": LLMWorkflowBrain, **PEOPLE}

__all__ = ["BRAINS", "PEOPLE", "WorkflowBrain", "RandomBrain", "AlwaysFirstBrain", "LLMBrain", "LLMWorkflowBrain"]
