"""What the three DialOp tasks (Assignment, Planning, Mediation) share: the loader of the released human dialogues,
prompted self-play (cutting a human dialogue and continuing with agents under a word budget), dialogue metrics and
the JSON act of our LLM agents (`acts.py`).
Pure Python; the released data is never bundled: loaders take a path."""
