"""Running a study: provisioning, pairing, log download, and replay of logged games (transcripts, tables, plots)."""
