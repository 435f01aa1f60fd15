"""Deal or No Deal (Lewis et al. 2017, as in Hua et al.'s "Game-theoretic LLM" §5): Alice and Bob divide books, hats
and balls with private values. `items` holds the arithmetic, `generator` draws instances, `game` the rules, `parse`
offers, `reader` plain English, `belief` an exact belief over the partner's values, `released` the released test
split, `brains/` the agents, `evaluate` the paper's tables."""
