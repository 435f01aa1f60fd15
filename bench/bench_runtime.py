"""Benchmark of the Slurk runtime: K concurrent rooms (K = 1, 10, 50) of scripted people over real sockets against
the Slurk test double, each person playing the toy game against a symbolic brain seated by the bot.

    python -m bench.bench_runtime [--rooms 1,10,50] [--seconds 8] [--think 1.0] [--in-process] [--compare-rooms 50]

Processes, so that the measured bot does not share its interpreter with the load (as in a deployment, where the bot
is its own process and the Slurk server another): the double (REST + socket.io server, a `multiprocessing` child),
the people (one socket.io client and one thread per room, a `multiprocessing` child per K), and the bot, by default
a separate `python -m bots serve tests.toygame:SPEC` subprocess configured through a temporary YAML file plus
SLURK_TOKEN, which reports its metrics through `BOT_METRICS_OUT` (see bots/slurk/serve.py: SIGUSR1 opens the
measurement window, SIGTERM stops the bot and writes the JSON). This process only provisions (REST against the
double) and orchestrates. `--in-process` instead runs the bot inside this process (`SlurkBot(...).start()`), the
layout of the earlier bench; by default K=50 (`--compare-rooms`) is measured both ways in the same run and the ratio
is printed. Only 127.0.0.1 is used; every child is terminated in a `finally`.

Each person loops: a chat line, then `/propose N`, waits until the bot announces the proposal, thinks `--think`
seconds, repeats. Reported per K: the bot's turnaround (a Slurk event reaching the bot -> the first effect sent for
it, as recorded by `SlurkBot.metrics`) p50/p99, the same until Slurk acknowledged that effect (which adds the
server's time), and the Slurk events the bot handled per second.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Iterator

from bench.figures import command_line, markdown_table, write_figure

TARGET_MS = 50.0
BOT_PERMS = {"api": True, "send_message": True, "send_html_message": True, "send_privately": True,
             "send_command": True}
# As `setup` grants them: the page sends its commands privately to the bot, in the seat's envelope.
PERSON_PERMS = {"send_message": True, "send_command": True, "send_privately": True}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOY_SPEC = "tests.toygame:SPEC"
# inherited variables that bots.config / serve would read; the bench sets its own
_BOT_ENV_PREFIXES = ("SLURK_", "BOT_", "LLM_", "OPENAI_")
_BOT_ENV_NAMES = ("TASK_ID", "WAITING_ROOM")


# ----------------------------------------------------------------------------------------------------------------
# process 1: the double


def _run_double(conn) -> None:
    from tests.slurk_double import SlurkDouble

    with SlurkDouble(etag=False) as double:
        conn.send(double.url)
        conn.recv()  # until told to stop


# ----------------------------------------------------------------------------------------------------------------
# process 2: the people


def _run_people(url: str, people: list, think: float, conn) -> None:
    import json

    from bots.slurk.socket import InOrderClient  # no thread per received message: 50 clients share 2 CPUs

    class Person:
        def __init__(self, uid, token, room, task):
            self.uid, self.token, self.room, self.task = uid, token, room, task
            self.started = threading.Event()
            self.cond = threading.Condition()
            self.seen: list = []
            self.sio = InOrderClient(reconnection=False)
            self.sio.on("text_update", self._view)
            self.sio.on("text_message", self._text)
            self.moves = self.timeouts = 0

        def _view(self, d):
            core = json.loads(d["text"]).get("core", {})
            self.key, self.bot = core.get("key"), core.get("bot")
            if core.get("phase") == "playing":
                self.started.set()

        def _text(self, d):
            with self.cond:
                self.seen.append(str(d.get("message")))
                self.cond.notify_all()

        def wait_text(self, needle, timeout=10.0):
            deadline = time.monotonic() + timeout
            with self.cond:
                while True:
                    for i, m in enumerate(self.seen):
                        if needle in m:
                            del self.seen[: i + 1]
                            return True
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self.cond.wait(left)

        def play(self, stop_at):
            rng = random.Random(self.uid)
            i = 0
            while time.monotonic() < stop_at:
                i += 1
                self.sio.call("text", {"room": self.room, "message": f"message {i}"}, timeout=10)
                n = rng.randint(1, 9)
                # as the task page sends it: privately to the bot, with the seat's key and a fresh nonce
                self.sio.call("message_command", {"room": self.room, "receiver_id": self.bot, "command": {
                    "key": self.key, "n": f"{self.uid}-{i}", "typed": f"propose {n}"}}, timeout=10)
                self.moves += 2
                if not self.wait_text(f"a proposes {n}"):
                    self.timeouts += 1
                if think:
                    time.sleep(think * rng.uniform(0.5, 1.5))

    crowd = [Person(*p) for p in people]
    for p in crowd:
        p.sio.connect(url, headers={"Authorization": f"Bearer {p.token}", "user": str(p.uid)}, namespaces=["/"],
                      wait_timeout=20)
    for p in crowd:
        p.sio.call("room_created", {"room": p.room, "task": p.task}, timeout=20)
    ok = all(p.started.wait(60) for p in crowd)
    conn.send("ready" if ok else "not started")
    seconds = conn.recv()
    stop_at = time.monotonic() + seconds
    threads = [threading.Thread(target=p.play, args=(stop_at,)) for p in crowd]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    conn.send({"moves": sum(p.moves for p in crowd), "timeouts": sum(p.timeouts for p in crowd)})
    for p in crowd:
        p.sio.disconnect()


# ----------------------------------------------------------------------------------------------------------------
# the bot: a subprocess (default) or this process (--in-process)


def _wait_for(pred, timeout: float, what: str, proc=None) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the bot exited with status {proc.returncode} while waiting for {what}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


@contextlib.contextmanager
def double_process(ctx) -> Iterator[tuple]:
    """The Slurk test double in a child process of `ctx`: yields (its url, the process); stopped on the way out."""
    parent, child = ctx.Pipe()
    double = ctx.Process(target=_run_double, args=(child,), daemon=True)
    double.start()
    try:
        yield _recv(parent, 60, "the double to start"), double
    finally:
        try:
            parent.send("stop")
        except OSError:
            pass
        double.join(timeout=30)
        if double.is_alive():
            double.terminate()
            double.join(timeout=10)


def _bot_env(token: str, **extra: str) -> dict:
    """This environment without the caller's bot settings, plus the bot's token and this checkout on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_BOT_ENV_PREFIXES) and k not in _BOT_ENV_NAMES}
    env.update(SLURK_TOKEN=token, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(x for x in (REPO, os.environ.get("PYTHONPATH")) if x), **extra)
    return env


def _read_log(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _start_logged(argv: list, env: dict, log_path: str, ready: str, what: str):
    """Start a bot process writing to log_path; wait until `ready` shows in its log. Returns (process, log file)."""
    log = open(log_path, "w", encoding="utf-8")
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for(lambda: ready in _read_log(log_path), 30, what, proc)
    except RuntimeError as exc:
        raise RuntimeError(f"{exc}; log:\n{_read_log(log_path)[-2000:]}") from None
    return proc, log


def _recv(conn, timeout: float, what: str):
    if not conn.poll(timeout):
        raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
    return conn.recv()


class _InProcessBot:
    """The earlier layout: SlurkBot in the bench process."""

    mode = "in-process"

    def __init__(self, url, bot_id, bot_token, task, state_db, tmp):
        from bots.config import Config, SlurkSettings
        from bots.slurk.runtime import SlurkBot
        from tests.toygame import SPEC

        cfg = Config(slurk=SlurkSettings(url=url, token=bot_token, user_id=bot_id, task_id=task),
                     person_seats=1, task_options={"turn_limit": 10 ** 6}, state_db=state_db)
        self.bot = SlurkBot(cfg, SPEC)

    def start(self):
        self.bot.start()

    def open_window(self):
        self.bot.logs.drain(60)  # the burst of game starts is over before measuring
        self.bot.pages.drain(60)
        time.sleep(1.0)
        self.bot.metrics.reset()

    def finish(self) -> dict:
        """The metrics as of now, then stop the bot."""
        d = self.bot.metrics.to_dict()
        self.bot.stop()
        return d

    def close(self):
        self.bot.stop()


class _SubprocessBot:
    """`python -m bots serve tests.toygame:SPEC` in its own process; metrics via BOT_METRICS_OUT."""

    mode = "process"

    def __init__(self, url, bot_id, bot_token, task, state_db, tmp):
        import yaml

        self.k_tag = os.path.basename(state_db).rsplit(".", 1)[0]
        self.config = os.path.join(tmp, f"{self.k_tag}.yaml")
        self.metrics_out = os.path.join(tmp, f"{self.k_tag}-metrics.json")
        self.log_path = os.path.join(tmp, f"{self.k_tag}-bot.log")
        with open(self.config, "w", encoding="utf-8") as fh:
            yaml.safe_dump({"slurk": {"url": url, "user_id": bot_id, "task_id": task}, "person_seats": 1,
                            "task_options": {"turn_limit": 10 ** 6}, "state_db": state_db}, fh)
        self.env = _bot_env(bot_token, BOT_METRICS_OUT=self.metrics_out)
        self.proc = None
        self._log = None

    def start(self):
        self.proc, self._log = _start_logged(
            [sys.executable, "-m", "bots", "serve", TOY_SPEC, "--config", self.config, "--log-level", "INFO"],
            self.env, self.log_path, "logged in to", "the bot's login")

    def open_window(self):
        time.sleep(1.0)
        marker = self.metrics_out + ".window"
        self.proc.send_signal(signal.SIGUSR1)  # drain logs/pages, reset the metrics, write the marker
        _wait_for(lambda: os.path.exists(marker), 70, "the bot's measurement window", self.proc)

    def finish(self) -> dict:
        """SIGTERM: the bot stops and writes BOT_METRICS_OUT."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise RuntimeError("the bot did not stop within 60 s of SIGTERM") from None
        if self.proc.returncode != 0 or not os.path.exists(self.metrics_out):
            raise RuntimeError(f"the bot exited with status {self.proc.returncode} without metrics; log:\n"
                               f"{_read_log(self.log_path)[-2000:]}")
        with open(self.metrics_out, encoding="utf-8") as fh:
            return json.load(fh)

    def close(self):
        try:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=10)
        finally:
            if self._log is not None:
                self._log.close()


def _measure(ctx, url, rest, admin, layout, task, k, mode, seconds, think, tmp) -> dict:
    people = []
    for i in range(k):
        room = admin.create_room(layout)["id"]
        uid, token = rest.provision_user(f"P{mode}{k}-{i}", PERSON_PERMS, room_id=room, task_id=task)
        people.append((uid, token, room, task))
    bot_id, bot_token = rest.provision_user(f"Bot-{mode}-{k}", BOT_PERMS)
    cls = _InProcessBot if mode == "in-process" else _SubprocessBot
    bot = cls(url, bot_id, bot_token, task, os.path.join(tmp, f"bench-{mode}-{k}.sqlite3"), tmp)
    crowd = None
    try:
        bot.start()
        p_parent, p_child = ctx.Pipe()
        crowd = ctx.Process(target=_run_people, args=(url, people, think, p_child), daemon=True)
        crowd.start()
        status = _recv(p_parent, 120, f"K={k}: the games to start")
        if status != "ready":
            raise RuntimeError(f"K={k}: the games did not start ({status})")
        bot.open_window()
        t0 = time.monotonic()
        p_parent.send(seconds)
        stats = _recv(p_parent, seconds + 60, f"K={k}: the people to finish")
        elapsed = time.monotonic() - t0
        metrics = bot.finish()
    finally:
        try:
            bot.close()
        finally:
            if crowd is not None:
                crowd.join(timeout=30)
                if crowd.is_alive():
                    crowd.terminate()
                    crowd.join(timeout=10)
    summary = metrics["summary"]
    row = {"rooms": k, "bot": mode, "inputs": summary["n"], "p50_ms": summary["p50_ms"],
           "p99_ms": summary["p99_ms"], "max_ms": summary["max_ms"], "done_p50_ms": summary["done_p50_ms"],
           "done_p99_ms": summary["done_p99_ms"], "events_per_s": round(metrics["events"] / elapsed, 1),
           "timeouts": stats["timeouts"]}
    print(f"K={k:>3} ({mode}): {row}", file=sys.stderr, flush=True)
    return row


def run(rooms_list=(1, 10, 50), seconds: float = 8.0, think: float = 1.0, in_process: bool = False,
        compare_rooms=(50,), out=sys.stdout) -> list[dict]:
    from bots.slurk.rest import SlurkREST
    from tests.slurk_double.client import SlurkRest
    from tests.toygame import SPEC

    started = time.monotonic()
    main_mode = "in-process" if in_process else "process"
    plan = [(k, main_mode) for k in rooms_list]
    if not in_process:
        plan += [(k, "in-process") for k in compare_rooms]
    ctx = mp.get_context("spawn")
    rows = []
    with double_process(ctx) as (url, _double):
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the double is not on 127.0.0.1: {url}")
        rest = SlurkRest(url)
        admin = SlurkREST(url, rest.admin_token)
        layout = rest.create_layout({"title": "bench", "html": [{"layout-type": "div", "id": SPEC.state_element}]})
        task = rest.create_task("toy", 1, layout)
        with tempfile.TemporaryDirectory() as tmp:
            for k, mode in plan:
                rows.append(_measure(ctx, url, rest, admin, layout, task, k, mode, seconds, think, tmp))
    _table(rows, seconds, think, main_mode, time.monotonic() - started, out)
    return rows


def _table(rows, seconds, think, main_mode, wall, out) -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    notes = [f"Slurk runtime turnaround (event received -> first effect sent), toy game vs symbolic brain, "
             f"{seconds:g} s per K, think time {think:g} s, {os.cpu_count()} CPUs, load average after the run {load}, "
             f"bench wall time {wall:.0f} s.",
             "bot = process: the bot is its own `python -m bots serve` process; in-process: the bot runs in the bench "
             "process (earlier layout). sent = the first effect left the bot (the bot's turnaround); acked = Slurk "
             "acknowledged it (adds the server's time). Times in ms."]
    header = ("rooms", "bot", "inputs", "sent p50", "sent p99", "acked p50", "acked p99", "events/s", "timeouts")
    table = [(r["rooms"], r["bot"], r["inputs"], r["p50_ms"], r["p99_ms"], r["done_p50_ms"], r["done_p99_ms"],
              r["events_per_s"], r["timeouts"]) for r in rows]
    by = {(r["rooms"], r["bot"]): r for r in rows}
    for k in sorted({r["rooms"] for r in rows}):
        a, b = by.get((k, "in-process")), by.get((k, "process"))
        if a and b:
            def ratio(x, y):
                return f"{x / y:.2f}x" if x and y else "n/a"
            notes.append(f"K={k}, same run: sent p99 in-process {a['p99_ms']} ms vs own process {b['p99_ms']} ms "
                         f"(ratio {ratio(a['p99_ms'], b['p99_ms'])}); sent p50 {a['p50_ms']} vs {b['p50_ms']} ms "
                         f"({ratio(a['p50_ms'], b['p50_ms'])}); acked p99 {a['done_p99_ms']} vs {b['done_p99_ms']} ms "
                         f"({ratio(a['done_p99_ms'], b['done_p99_ms'])}).")
    at50 = by.get((50, main_mode))
    if at50 and at50["p99_ms"] is not None:
        holds = at50["p99_ms"] < TARGET_MS
        notes.append(f"p99 < {TARGET_MS:g} ms at 50 rooms (bot: {main_mode}): {'yes' if holds else 'NO'} "
                     f"({at50['p99_ms']} ms).")
    print("\n" + notes[0] + "\n" + notes[1], file=out)
    print(f"{'rooms':>5} | {'bot':>10} | {'inputs':>6} | {'sent p50':>8} | {'sent p99':>8} | {'acked p50':>9} | "
          f"{'acked p99':>9} | {'events/s':>8} | timeouts", file=out)
    print("-" * 99, file=out)
    for row in table:
        print(" | ".join(f"{v!s:>{w}}" for v, w in zip(row, (5, 10, 6, 8, 8, 9, 9, 8, 0))), file=out)
    for note in notes[2:]:
        print("\n" + note, file=out)
    write_figure("bench_runtime", [markdown_table(header, table)], command_line(None, "bench.bench_runtime"), notes)


def _ints(text: str) -> tuple:
    return tuple(int(k) for k in text.split(",") if k.strip())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rooms", default="1,10,50", help="comma-separated K values")
    ap.add_argument("--seconds", type=float, default=8.0, help="measured seconds per K")
    ap.add_argument("--think", type=float, default=1.0, help="mean think time of a person between moves (s)")
    ap.add_argument("--in-process", action="store_true",
                    help="run the bot inside the bench process for every K (the earlier layout)")
    ap.add_argument("--compare-rooms", default="50",
                    help="K values also measured with the bot in-process, for a side-by-side ratio ('' for none)")
    args = ap.parse_args(argv)
    run(_ints(args.rooms), args.seconds, args.think, args.in_process, _ints(args.compare_rooms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
