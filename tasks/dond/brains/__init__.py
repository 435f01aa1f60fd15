"""Agents for Deal or No Deal: `bayes` (the default; an exact posterior over the partner's values, no LLM) and the
baselines `greedy` and `fair-split`; scripted people (`person-*`, people.py) for `--population`."""
from .baselines import FairSplitBrain, GreedyBrain
from .bayes import BayesBrain
from .people import PEOPLE

BRAINS = {"bayes": BayesBrain, "greedy": GreedyBrain, "fair-split": FairSplitBrain, **PEOPLE}

__all__ = ["BRAINS", "PEOPLE", "GreedyBrain", "FairSplitBrain", "BayesBrain"]

# The paper's LLM agents (llm_brain.py, llm_workflow.py); both fall back visibly to `bayes` when the model fails.
from .llm_brain import LLMBrain  # noqa: E402
from .llm_workflow import LLMWorkflowBrain  # noqa: E402

BRAINS["llm"] = LLMBrain
BRAINS["llm-workflow"] = LLMWorkflowBrain
