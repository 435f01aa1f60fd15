"""TRAVELING ADVENTURERS: a two-player travelling-salesman game with private edge weights.

`board` holds the rooms, the coins each seat sees and tour checks; `generator` the preset and generated boards;
`solver` the exact and heuristic maximum-weight tour solvers.
"""
