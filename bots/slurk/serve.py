"""`python -m bots serve <task> [--config FILE]`: serve a task on a Slurk server until Ctrl-C (or SIGTERM).

Secrets (the bot token, LLM keys) come from the config file or the environment, never from the command line,
and are never logged. `<task>` is a task name (`travel`, `gnomes`, ...) or `package.module:SPEC` for a TaskSpec
defined elsewhere. Exit status: 0 after a clean stop, 2 for a configuration, login or connection problem.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading
from typing import Optional

log = logging.getLogger("bots.serve")


def load_spec(name: str):
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load the task spec {name!r}: {exc}") from None
    from tasks import get_task

    return get_task(name)


def build_llm_client(cfg, env=os.environ):
    """An LLM client when one is configured (llm: section or LLM_* variables), else None."""
    try:
        from bots.llm import LLMClient, LLMConfig
    except ImportError:  # pragma: no cover - bots.llm is part of the suite
        return None
    llm_cfg = LLMConfig.from_env(env, cfg.llm)
    return LLMClient(llm_cfg) if llm_cfg is not None else None


def main(argv: Optional[list[str]] = None, env=os.environ) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots serve", description=__doc__.splitlines()[0])
    parser.add_argument("task", help="task name, or package.module:SPEC")
    parser.add_argument("--config", help="YAML config file (the environment overrides it)")
    parser.add_argument("--log-level", default=None, help="DEBUG, INFO (default), WARNING")
    args = parser.parse_args(argv)
    if not logging.getLogger().handlers:
        logging.basicConfig(stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.log_level or logging.getLogger().level > logging.INFO:
        logging.getLogger().setLevel((args.log_level or "INFO").upper())

    from bots.config import ConfigError, load_config

    from .runtime import SlurkAuthError, SlurkBot, SlurkConnectionError

    try:
        cfg = load_config(args.config, env)
        cfg.slurk.require()
        spec = load_spec(args.task)
        llm = build_llm_client(cfg, env)
        bot = SlurkBot(cfg, spec, llm)
    except (ConfigError, ValueError) as exc:
        log.error("%s", exc)
        return 2
    log.info("serving %s: %r", spec.name, cfg)

    def _stop(signum, _frame):
        log.info("signal %s: stopping", signum)
        bot.stop()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    try:
        bot.run()
    except (SlurkAuthError, SlurkConnectionError) as exc:
        log.error("%s", exc)
        return 2
    finally:
        if llm is not None and hasattr(llm, "close"):
            llm.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
