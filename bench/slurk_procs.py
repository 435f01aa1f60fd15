"""Processes for the Slurk benches: a bot under test in its own process, and CPU / memory readings from /proc.

`BotProcess("echo", ...)` runs `python -m bench.echo_bot`; `BotProcess("travel", ...)` runs `python -m bots serve
travel` (two people per room, no agent, no pacing) with a temporary YAML config and SLURK_TOKEN in its environment
(never argv). Our bot reports its metrics through BOT_METRICS_OUT (bots/slurk/serve.py: SIGUSR1 opens the
measurement window, SIGTERM writes the JSON).
"""
from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
from typing import Iterator, Optional
from urllib.parse import urlparse

from bench.bench_runtime import _bot_env, _read_log, _start_logged, _wait_for, double_process

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def cpu_seconds(pids) -> float:
    """User + system CPU seconds of these processes (a process gone counts 0)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
        except (OSError, IndexError, ValueError):
            pass
    return total / _TICK


def rss_mb(pid: int) -> Optional[float]:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE / 2 ** 20
    except (OSError, IndexError, ValueError):
        return None


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out


def server_pids(port: Optional[int], explicit: Optional[str] = None) -> list[int]:
    """The Slurk server's processes: SLURK_SERVER_PID and its children, or the gunicorn master bound to the port and
    its workers. Empty when none is found (the CPU column is then left out)."""
    roots = [int(explicit)] if explicit else []
    if not roots and port:
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as fh:
                    cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "gunicorn" in cmd and f":{port}" in cmd:
                roots.append(int(d))
    pids = set(roots)
    for r in roots:
        pids.update(_children(r))
    return sorted(pids)


@contextlib.contextmanager
def slurk_server(ctx=None) -> Iterator[tuple]:
    """(url, admin REST helper, server pids for CPU readings, description): the real Slurk named by SLURK_TEST_URL /
    SLURK_TEST_ADMIN_TOKEN (the conformance tests' variables), or the test double in a child process."""
    from tests.slurk_double.client import SlurkRest

    real_url, real_token = os.environ.get("SLURK_TEST_URL"), os.environ.get("SLURK_TEST_ADMIN_TOKEN")
    if real_url and real_token:
        url = real_url.rstrip("/")
        yield (url, SlurkRest(url, real_token), server_pids(urlparse(url).port, os.environ.get("SLURK_SERVER_PID")),
               f"real Slurk at {url}")
        return
    with double_process(ctx or mp.get_context("spawn")) as (url, double):
        yield url, SlurkRest(url), [double.pid], "the Slurk test double"


def stop_process(proc, log_file=None) -> None:
    """Terminate a child (kill it after 30 s) and close its log file."""
    try:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
    finally:
        if log_file is not None:
            log_file.close()


class BotProcess:
    def __init__(self, kind: str, url: str, bot_id: int, bot_token: str, task: int, tmp: str,
                 options: Optional[dict] = None):
        import yaml

        tag = f"{kind}-{task}"
        self.kind = kind
        self.metrics_out = os.path.join(tmp, f"{tag}-metrics.json")
        self.log_path = os.path.join(tmp, f"{tag}-bot.log")
        env = _bot_env(bot_token, BOT_PACING="off")
        if kind == "echo":
            env.update(SLURK_URL=url, SLURK_USER_ID=str(bot_id), TASK_ID=str(task))
            self.argv = [sys.executable, "-m", "bench.echo_bot"]
            self.ready = "echo bot connected"
        else:
            config = os.path.join(tmp, f"{tag}.yaml")
            with open(config, "w", encoding="utf-8") as fh:
                yaml.safe_dump({"slurk": {"url": url, "user_id": bot_id, "task_id": task}, "person_seats": 2,
                                "task_options": dict(options or {"turn_limit": 10 ** 6}),
                                "state_db": os.path.join(tmp, f"{tag}.sqlite3")}, fh)
            env.update(BOT_METRICS_OUT=self.metrics_out)
            self.argv = [sys.executable, "-m", "bots", "serve", kind, "--config", config, "--log-level", "INFO"]
            self.ready = "logged in to"
        self.env = env
        self.proc = None
        self._log = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def start(self) -> None:
        self.proc, self._log = _start_logged(self.argv, self.env, self.log_path, self.ready,
                                             f"the {self.kind} bot to connect")

    def read_log(self) -> str:
        return _read_log(self.log_path)

    def open_window(self) -> None:
        if self.kind == "echo":
            return
        marker = self.metrics_out + ".window"
        self.proc.send_signal(signal.SIGUSR1)
        _wait_for(lambda: os.path.exists(marker), 70, "the bot's measurement window", self.proc)

    def finish(self) -> dict:
        if self.kind == "echo":
            return {}
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)
        if not os.path.exists(self.metrics_out):
            raise RuntimeError(f"the bot exited with status {self.proc.returncode} without metrics; log:\n"
                               f"{self.read_log()[-2000:]}")
        with open(self.metrics_out, encoding="utf-8") as fh:
            return json.load(fh)

    def close(self) -> None:
        stop_process(self.proc, self._log)
