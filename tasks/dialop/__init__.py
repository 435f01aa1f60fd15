"""What the three DialOp tasks (Assignment, Planning, Mediation) share: the loader of the released human dialogues,
prompted self-play (cutting a human dialogue and continuing with agents under a word budget) and dialogue metrics.
Pure Python; the released data is never bundled: loaders take a path."""
