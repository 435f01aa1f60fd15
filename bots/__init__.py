"""Everything that talks to the outside world: the Slurk client and room runtime, the LLM client, the CLI.

The games themselves live in `tasks/`; nothing in `bots/` decides a game rule.
"""
