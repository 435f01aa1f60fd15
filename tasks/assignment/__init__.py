"""DialOp Assignment: two area chairs with private parts of a reviewer x paper affinity table agree on a matching.
`generator` makes the tables (and reads released ones), `game` the rules, `parse` proposals and mentions, `released`
the released human dialogues, `brains/` the optimizer, the simulated user and the prompted LLM."""
