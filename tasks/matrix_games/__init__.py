"""Negotiation games after Hua et al. ("Game-theoretic LLM"): Alice and Bob play a classic matrix or sequential game
after up to k rounds of negotiation. `catalogue` loads the games (games/*.yaml), `generator` picks an instance's
games, `solvers` finds equilibria and Pareto optima, `game` the rules, `brains/` the agents (the paper's workflows,
the prompted LLM), `evaluate` the paper's tables."""
