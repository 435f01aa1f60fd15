"""Everything that talks to the outside world: the Slurk client and room runtime (slurk/), the waiting-room bot
(concierge/), study set-up and replay (study/), the LLM client, the CLI.

The games themselves live in `tasks/`; nothing in `bots/` decides a game rule.
"""
