"""Agents for Deal or No Deal: `bayes` (the default; an exact posterior over the partner's values, no LLM) and the
baselines `greedy` and `fair-split`."""
from .baselines import FairSplitBrain, GreedyBrain
from .bayes import BayesBrain

BRAINS = {"bayes": BayesBrain, "greedy": GreedyBrain, "fair-split": FairSplitBrain}

__all__ = ["BRAINS", "GreedyBrain", "FairSplitBrain", "BayesBrain"]

