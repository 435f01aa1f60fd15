"""Running a study, the offline side: provisioning (setup), log download, and replay of logged games (transcripts,
tables, plots). The live bots are in bots/slurk (the task bot) and bots/concierge (the waiting-room bot)."""
