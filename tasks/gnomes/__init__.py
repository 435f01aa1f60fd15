"""GNOMES AT NIGHT: a shared-control maze with private walls, played by people and an AISMCTS-F agent.

`maze` holds both sides' walls and the joint-knowledge optimum; `game` the rules; `planner` AISMCTS-F;
`language` flags, the reader and templates; `brains` the agent, mute and simulated-partner brains.
"""
