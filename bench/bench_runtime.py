"""Benchmark of the Slurk runtime: K concurrent rooms (K = 1, 10, 50) of scripted people over real sockets against
the Slurk test double, each person playing the toy game against a symbolic brain seated by the bot.

    python -m bench.bench_runtime [--rooms 1,10,50] [--seconds 8] [--think 1.0]

Three processes, so that the measured bot does not share its interpreter with the load: the double (REST +
socket.io server), the people (one socket.io client and one thread per room), and the bot (this process).
Each person loops: a chat line, then `/propose N`, waits until the bot announces the proposal, thinks `--think`
seconds, repeats. Reported per K: the bot's turnaround (a Slurk event reaching the bot -> the first effect sent for
it, as recorded by `SlurkBot.metrics`) p50/p99, the same until Slurk acknowledged that effect (which adds the
server's time), and the Slurk events the bot handled per second.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import tempfile
import threading
import time

TARGET_MS = 50.0
BOT_PERMS = {"api": True, "send_message": True, "send_html_message": True, "send_privately": True,
             "send_command": True}
PERSON_PERMS = {"send_message": True, "send_command": True}


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

    from bots.slurk.runtime import _InOrderClient  # no thread per received message: 50 clients share 2 CPUs

    class Person:
        def __init__(self, uid, token, room, task):
            self.uid, self.token, self.room, self.task = uid, token, room, task
            self.started = threading.Event()
            self.cond = threading.Condition()
            self.seen: list = []
            self.sio = _InOrderClient(reconnection=False)
            self.sio.on("text_update", self._view)
            self.sio.on("text_message", self._text)
            self.moves = self.timeouts = 0

        def _view(self, d):
            if json.loads(d["text"]).get("core", {}).get("phase") == "playing":
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
                self.sio.call("message_command", {"room": self.room, "command": f"propose {n}"}, timeout=10)
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
# process 3 (this one): the bot


def run(rooms_list=(1, 10, 50), seconds: float = 8.0, think: float = 1.0, out=sys.stdout) -> list[dict]:
    from bots.config import Config, SlurkSettings
    from bots.slurk.rest import SlurkREST
    from bots.slurk.runtime import SlurkBot
    from tests.slurk_double.client import SlurkRest
    from tests.toygame import SPEC

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    double = ctx.Process(target=_run_double, args=(child,), daemon=True)
    double.start()
    url = parent.recv()
    rest = SlurkRest(url)
    admin = SlurkREST(url, rest.admin_token)
    layout = rest.create_layout({"title": "bench", "html": [{"layout-type": "div", "id": SPEC.state_element}]})
    task = rest.create_task("toy", 1, layout)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for k in rooms_list:
                people = []
                for i in range(k):
                    room = admin.create_room(layout)["id"]
                    uid, token = rest.provision_user(f"P{k}-{i}", PERSON_PERMS, room_id=room, task_id=task)
                    people.append((uid, token, room, task))
                bot_id, bot_token = rest.provision_user(f"Bot{k}", BOT_PERMS)
                cfg = Config(slurk=SlurkSettings(url=url, token=bot_token, user_id=bot_id, task_id=task),
                             person_seats=1, task_options={"turn_limit": 10 ** 6},
                             state_db=os.path.join(tmp, f"bench-{k}.sqlite3"))
                bot = SlurkBot(cfg, SPEC)
                bot.start()
                p_parent, p_child = ctx.Pipe()
                crowd = ctx.Process(target=_run_people, args=(url, people, think, p_child), daemon=True)
                crowd.start()
                try:
                    status = p_parent.recv()
                    if status != "ready":
                        raise RuntimeError(f"K={k}: the games did not start ({status})")
                    bot.logs.drain(60)  # the burst of game starts is over before measuring
                    bot.pages.drain(60)
                    time.sleep(1.0)
                    bot.metrics.reset()
                    t0 = time.monotonic()
                    p_parent.send(seconds)
                    stats = p_parent.recv()
                    elapsed = time.monotonic() - t0
                    summary = bot.metrics.summary()
                    events = bot.metrics.events
                finally:
                    crowd.join(timeout=30)
                    bot.stop()
                row = {"rooms": k, "inputs": summary["n"], "p50_ms": summary["p50_ms"], "p99_ms": summary["p99_ms"],
                       "max_ms": summary["max_ms"], "done_p50_ms": summary["done_p50_ms"],
                       "done_p99_ms": summary["done_p99_ms"], "events_per_s": round(events / elapsed, 1),
                       "timeouts": stats["timeouts"]}
                rows.append(row)
                print(f"K={k:>3}: {row}", file=sys.stderr, flush=True)
    finally:
        parent.send("stop")
        double.join(timeout=30)
    _table(rows, seconds, think, out)
    return rows


def _table(rows, seconds, think, out) -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nSlurk runtime turnaround (event received -> first effect sent), toy game vs symbolic brain, "
          f"{seconds:g} s per K, think time {think:g} s, {os.cpu_count()} CPUs, load average after the run {load}",
          file=out)
    print("sent = the first effect left the bot (the bot's turnaround); acked = Slurk acknowledged it (adds the "
          "server's time)", file=out)
    print(f"{'rooms':>5} | {'inputs':>6} | {'sent p50':>8} | {'sent p99':>8} | {'acked p50':>9} | {'acked p99':>9} | "
          f"{'events/s':>8} | timeouts", file=out)
    print("-" * 86, file=out)
    for r in rows:
        print(f"{r['rooms']:>5} | {r['inputs']:>6} | {r['p50_ms']:>8} | {r['p99_ms']:>8} | {r['done_p50_ms']:>9} | "
              f"{r['done_p99_ms']:>9} | {r['events_per_s']:>8} | {r['timeouts']}", file=out)
    at50 = [r for r in rows if r["rooms"] == 50]
    if at50 and at50[0]["p99_ms"] is not None:
        holds = at50[0]["p99_ms"] < TARGET_MS
        print(f"\np99 < {TARGET_MS:g} ms at 50 rooms: {'yes' if holds else 'NO'} ({at50[0]['p99_ms']} ms)", file=out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rooms", default="1,10,50", help="comma-separated K values")
    ap.add_argument("--seconds", type=float, default=8.0, help="measured seconds per K")
    ap.add_argument("--think", type=float, default=1.0, help="mean think time of a person between moves (s)")
    args = ap.parse_args(argv)
    run(tuple(int(k) for k in args.rooms.split(",")), args.seconds, args.think)
    return 0


if __name__ == "__main__":
    sys.exit(main())
