"""GNOMES AT NIGHT: a shared-control maze with private walls, played by people and an AISMCTS-F agent.

`maze` holds both sides' walls and the joint-knowledge optimum; `generator` the instance; `game` the rules; `parse`
the move words; `brains/` the AISMCTS-F agent (planner, language module), its mute twin and the simulated partner
with the scripted people (`brains/people.py`).
"""
