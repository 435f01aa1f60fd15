"""`./run_bot.sh concierge [--config FILE]`: the waiting-room bot that pairs people into task rooms.

Environment (as written by `setup` into bot.env): SLURK_URL, CONCIERGE_TOKEN, CONCIERGE_USER, WAITING_ROOM,
optionally TASK_ID (the only task it pairs people for; without it, any task a person's token names) and AGENT_USERS
(`seat:user_id,...`: agent users added to each new room of TASK_ID, so the task bot can show the agent under a
human-looking name), WAITING_TIMEOUT (seconds, default 600), CONCIERGE_ROOMS_PER_MINUTE (default 30), and the
completion settings of the config file (completion.platform / url_template, for the Prolific link).
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from typing import Mapping, Optional

from bots.config import ConfigError
from bots.study.provision import read_study_config

from .bot import Concierge
from .socket_events import ConciergeAuthError

log = logging.getLogger("bots.concierge")


def build_concierge(config_path: Optional[str] = None, env: Mapping[str, str] = os.environ, **kw) -> Concierge:
    study = read_study_config(config_path, env)
    cfg = study.config
    missing = []
    if not cfg.slurk.url:
        missing.append("the server address (SLURK_URL)")
    if not study.concierge_token or study.concierge_user is None:
        missing.append("the concierge's credentials (CONCIERGE_TOKEN and CONCIERGE_USER, as in bot.env)")
    if cfg.slurk.waiting_room is None:
        missing.append("the waiting room (WAITING_ROOM)")
    if missing:
        raise ConfigError("Cannot start the concierge: missing " + "; ".join(missing) + ".")
    options = dict(etag=cfg.slurk.etag, waiting_timeout=study.waiting_timeout, completion=cfg.completion,
                   task_id=cfg.slurk.task_id, agent_users=study.agent_users, auth_timeout=cfg.slurk.auth_timeout,
                   emit_timeout=cfg.slurk.emit_timeout, rooms_per_minute=cfg.concierge.rooms_per_minute)
    options.update(kw)  # tests: timers, code_source, clock, retry_base, ...
    return Concierge(cfg.slurk.url, study.concierge_token, study.concierge_user, cfg.slurk.waiting_room, **options)


def main(argv: Optional[list[str]] = None, env: Mapping[str, str] = os.environ) -> int:
    p = argparse.ArgumentParser(prog="run_bot.sh concierge", description=__doc__.splitlines()[0])
    p.add_argument("--config", help="YAML config file (the environment, e.g. from bot.env, overrides it)")
    args = p.parse_args(argv)
    try:
        bot = build_concierge(args.config, env)
    except (ConfigError, ValueError) as exc:
        log.error("%s", exc)
        return 2

    def _stop(signum, _frame):
        log.info("signal %s: stopping", signum)
        bot.stop()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    try:
        bot.run()
    except (ConciergeAuthError, ConnectionError) as exc:
        log.error("%s", exc)
        return 2
    return 1 if bot.failed else 0



if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
