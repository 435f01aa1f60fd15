"""AsymPuzl: two players with complementary clues rebuild a hidden row of coloured shapes, talking over a (possibly
noisy) channel. `generator` makes puzzles, `game` the rules and feedback, `parse` reads talk and edits, `channel` the
noisy channel and its readers, `brains/` the symbolic agents, the prompted LLM and the scripted people
(`brains/people.py`)."""
