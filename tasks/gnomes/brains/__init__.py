"""Agents for Gnomes at Night: the communicating AISMCTS-F agent and its mute twin (agent.py, on the planner in
planner.py and the language module in language.py + reader.py; seat.py is what every gnome brain shares), and the
simulated partner with the scripted people for `--population` (people.py)."""
from .agent import AgentBrain, MuteBrain
from .people import PEOPLE, PartnerBrain

BRAINS = {"aismcts": AgentBrain, "mute": MuteBrain, "partner": PartnerBrain}

__all__ = ["BRAINS", "PEOPLE", "AgentBrain", "MuteBrain", "PartnerBrain"]
