"""`python -m bots serve <task> [--config FILE]`: serve a task on a Slurk server until Ctrl-C (or SIGTERM).

Secrets (the bot token, LLM keys) come from the config file or the environment, never from the command line,
and are never logged. `<task>` is a task name (`tasks.available_tasks()`) or `package.module:SPEC` for a TaskSpec
defined elsewhere. Exit status: 0 after a clean stop, 2 for a configuration, login or connection problem, 3 when
another instance serves the same bot user (at start: a live lease in the state db, or another connection holding
the bot user's Slurk session; while running: the session or the lease was taken over), 4 when the connection to
Slurk was lost and could not be had back (so that a supervisor restarts the bot). `--take-over` (or
BOT_TAKE_OVER=1) starts even though Slurk shows another connection of the bot user, for a connection known to be
dead (e.g. Slurk was restarted while the bot was down and still lists its old session).

Opt-in, for the benchmark (bench/bench_runtime.py): with `BOT_METRICS_OUT=/path.json` in the environment the bot
writes its turnaround metrics (`SlurkBot.metrics.to_dict()`: raw samples in seconds, event count, summary) to that
file when it stops (SIGTERM, Ctrl-C or an error), and SIGUSR1 starts a measurement window: once the queued log
and page updates are flushed, the metrics are reset and `<path>.window` is written. Without the variable nothing
changes.
"""
from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import signal
import sys
import threading
import time
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


def _write_json(path: str, data: dict) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


def write_metrics(bot, path: str) -> None:
    """BOT_METRICS_OUT: the bot's metrics as JSON (written atomically)."""
    try:
        data = bot.metrics.to_dict()
        data.update(getattr(bot.metrics, "held", {}))
        data["written_at"] = time.monotonic()
        _write_json(path, data)
        log.info("metrics written to %s", path)
    except Exception:  # a failed dump must not turn a clean stop into a crash
        log.exception("cannot write the metrics to %s", path)


def _start_window(bot, path: str) -> None:
    """SIGUSR1 with BOT_METRICS_OUT: flush the queued background work, reset the metrics, signal `<path>.window`."""
    def run():
        try:
            for queue in (bot.logs, bot.pages):
                if queue is not None:
                    queue.drain(60)
            bot.metrics.reset()
            _write_json(path + ".window", {"reset_at": time.monotonic()})
        except Exception:
            log.exception("cannot start a metrics window")

    threading.Thread(target=run, name="metrics-window", daemon=True).start()


def main(argv: Optional[list[str]] = None, env=os.environ) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots serve", description=__doc__.splitlines()[0])
    parser.add_argument("task", help="task name, or package.module:SPEC")
    parser.add_argument("--config", help="YAML config file (the environment overrides it)")
    parser.add_argument("--log-level", default=None, help="DEBUG, INFO (default), WARNING")
    parser.add_argument("--take-over", action="store_true",
                        help="start even if Slurk shows another connection of the bot user (known to be dead)")
    args = parser.parse_args(argv)
    if not logging.getLogger().handlers:
        logging.basicConfig(stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.log_level or logging.getLogger().level > logging.INFO:
        logging.getLogger().setLevel((args.log_level or "INFO").upper())

    from bots.config import ConfigError, load_config
    from tasks.core.presets import resolve_preset

    from .guard import SessionLost
    from .lease import InstanceConflict
    from .runtime import SlurkAuthError, SlurkBot, SlurkConnectionError

    try:
        cfg = load_config(args.config, env)
        cfg.slurk.require()
        spec = load_spec(args.task)
        # a preset's task options under the config's; a missing release file stops here, not in a room
        cfg.task_options, _ = resolve_preset(spec, cfg.task_options, {})
        llm = build_llm_client(cfg, env)
        bot = SlurkBot(cfg, spec, llm)
        bot.take_over = args.take_over or env.get("BOT_TAKE_OVER", "").strip().lower() in ("1", "true", "yes", "on")
    except (ConfigError, ValueError) as exc:
        log.error("%s", exc)
        return 2
    log.info("serving %s: %r", spec.name, cfg)

    def _stop(signum, _frame):
        log.info("signal %s: stopping", signum)
        # what the bot still holds when told to stop (the soak bench: finished rooms must not pile up)
        bot.metrics.held = {"rooms_open": len(bot._rooms), "threads": threading.active_count()}
        bot.stop()

    metrics_out = env.get("BOT_METRICS_OUT")
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
        if metrics_out and hasattr(signal, "SIGUSR1"):
            signal.signal(signal.SIGUSR1, lambda _s, _f: _start_window(bot, metrics_out))
    try:
        bot.run()
    except (SlurkAuthError, SlurkConnectionError) as exc:
        log.error("%s", exc)
        return 2
    except InstanceConflict as exc:
        log.error("%s", exc)
        return 3
    except SessionLost as exc:
        log.error("%s", exc)
        return 4
    finally:
        if metrics_out:
            write_metrics(bot, metrics_out)
        if llm is not None and hasattr(llm, "close"):
            llm.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
