"""Person-visible reply time of a task bot against the echo bot, in one run, on a real Slurk or the test double.

    python -m bench.bench_slurk_speed [--rooms 1,10,50] [--seconds 20] [--think 1.0] [--rounds 1]
    SLURK_TEST_URL=http://127.0.0.1:5056 SLURK_TEST_ADMIN_TOKEN=0000... [SLURK_SERVER_PID=...] python -m ...

With SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN (the conformance tests' variables) it runs against that Slurk server;
otherwise it starts the test double in a child process. For every K in --rooms it measures two bots, one after the
other on the same server with the same people: `bench/echo_bot.py` (answers each chat line with one `text`, as
slurk-bots' echo bot does) and our travel bot (`python -m bots serve travel`, two people per room, no agent).

Each room has two scripted people who take turns: the first acts and waits until they see the bot's reply, thinks
`--think` seconds (±50%), then the second acts, and so on.
- echo: the act is a chat line; the reply is the echo bot's line carrying the same words.
- travel: the act is a command as the task page sends it (privately to the bot, in the seat's envelope):
  `/propose K` (a room next to the start) by one, `/reject` by the other; the reply is the bot's announcement.
Reported per K and bot: the person-visible reply time (act sent -> reply received by the actor) p50 / p95, the
ratio to echo's, the Slurk server's CPU per input (from /proc: the server process and its children; the double's
process, or SLURK_SERVER_PID / the gunicorn listening on the URL's port) and the bot process's CPU per input, and
for our bot its Slurk requests per input by kind (counted by the bot: `SlurkBot.metrics`).

--rounds N repeats the whole sequence N times and reports the medians of the per-round figures (noise).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import threading
import time

from bench.bench_runtime import _recv
from bench.figures import command_line, markdown_table, write_figure
from bench.slurk_procs import BotProcess, cpu_seconds, slurk_server

BOT_PERMS = {"api": True, "send_message": True, "send_html_message": True, "send_privately": True,
             "send_command": True}
PERSON_PERMS = {"send_message": True, "send_command": True, "send_privately": True}
TARGET_P50, TARGET_P95 = 1.5, 2.0


# ----------------------------------------------------------------------------------------------------------------
# the people (a child process)


def _run_people(url: str, rooms: list, kind: str, think: float, conn) -> None:
    import random

    from bots.slurk.socket import InOrderClient
    from tasks import get_task
    from tasks.core.pages import PageReader

    class Person:
        def __init__(self, uid, token, room, seat):
            self.uid, self.token, self.room, self.seat = uid, token, room, seat
            self.page = PageReader(get_task("travel"))
            self.sio = InOrderClient(reconnection=False)
            self.key = self.bot = self.neighbour = None
            self.playing = threading.Event()
            self.cond = threading.Condition()
            self.waiting_for = None
            self.got = None
            self.view_at = None  # when the first page update after an act arrived
            self.sio.on("text_message", self._text)
            self.sio.on("text_update", self._view)

        def _view(self, d):
            if self.view_at is None:
                self.view_at = time.perf_counter()
            try:  # the page's view: the travel page's shared and own parts combined, as the page does
                v = self.page.feed(d.get("id"), d.get("text"))
            except (KeyError, TypeError, ValueError):
                return
            if v is None:
                return
            core = v.get("core", {})
            self.key, self.bot = core.get("key"), core.get("bot")
            start = v.get("start")
            for k in (v.get("my_coins") or {}):
                a, b = k.split("-")
                if start in (a, b):
                    self.neighbour = b if a == start else a
                    break
            if core.get("phase") == "playing":
                self.playing.set()

        def _text(self, d):
            t = time.perf_counter()
            if str((d.get("user") or {}).get("id")) == str(self.uid):
                return  # Slurk sends a person's own line back to them too: that is not the bot's answer
            msg = str(d.get("message"))
            with self.cond:
                if self.waiting_for is not None and self.waiting_for in msg and self.got is None:
                    self.got = t
                    self.cond.notify_all()

        def act(self, i: int, timeout: float = 30.0):
            """One act: (seconds until its reply was seen or None after `timeout`, seconds until the next page
            update arrived or None)."""
            with self.cond:
                self.got = None
                if kind == "echo":
                    words = f"hello {self.uid} {i}"
                    self.waiting_for = words
                    t0 = time.perf_counter()
                    self.sio.emit("text", {"room": self.room, "message": words})
                else:
                    typed = f"propose {self.neighbour}" if self.seat == 0 else "reject"
                    self.waiting_for = "proposes" if self.seat == 0 else "rejects"
                    t0 = time.perf_counter()
                    self.view_at = None
                    self.sio.emit("message_command", {"room": self.room, "receiver_id": self.bot, "command": {
                        "key": self.key, "n": f"{self.uid}-{i}", "typed": typed}})
                ok = self.cond.wait_for(lambda: self.got is not None, timeout=timeout)
                self.waiting_for = None
            if kind != "echo":
                deadline = time.monotonic() + 5
                while self.view_at is None and time.monotonic() < deadline:
                    time.sleep(0.002)
            view = self.view_at
            return ((self.got - t0) if ok else None, (view - t0) if view is not None else None)

    pairs = [[Person(uid, tok, room, s) for s, (uid, tok) in enumerate(people)] for room, people in rooms]
    for pair in pairs:
        for p in pair:
            p.sio.connect(url, headers={"Authorization": f"Bearer {p.token}", "user": str(p.uid)},
                          namespaces=["/"], wait_timeout=20)
    conn.send("connected")
    task = conn.recv()
    for pair in pairs:
        pair[0].sio.call("room_created", {"room": pair[0].room, "task": task}, timeout=20)
    if kind == "echo":  # the echo bot is in the room once it answers
        deadline = time.monotonic() + 60
        ok = all(any(pair[0].act(-1 - n, timeout=1.0)[0] is not None for n in range(60)
                     if time.monotonic() < deadline) for pair in pairs)
    else:
        ok = all(p.playing.wait(60) and p.neighbour and p.key for pair in pairs for p in pair)
    conn.send("ready" if ok else "not started")
    seconds = conn.recv()
    stop_at = time.monotonic() + seconds
    samples: list = []
    lock = threading.Lock()

    def play(pair, seed):
        rng = random.Random(seed)
        i = 0
        mine = []
        while time.monotonic() < stop_at:
            p = pair[i % 2]
            mine.append(p.act(i))
            i += 1
            if think:
                time.sleep(think * rng.uniform(0.5, 1.5))
        with lock:
            samples.extend(mine)

    threads = [threading.Thread(target=play, args=(pair, n)) for n, pair in enumerate(pairs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    conn.send(samples)
    for pair in pairs:
        for p in pair:
            p.sio.disconnect()


# ----------------------------------------------------------------------------------------------------------------


def _pct(xs, p):
    xs = sorted(xs)
    return round(1000 * xs[min(len(xs) - 1, int(p * len(xs)))], 1) if xs else None


def _measure(ctx, url, rest, admin_layout, kind, k, seconds, think, tmp, srv_pids) -> dict:
    from bots.layouts import build_layout
    from tasks import get_task

    spec = get_task("travel")
    layout = rest.create_layout(build_layout(spec) if kind == "travel" else admin_layout)
    task = rest.create_task(f"bench-{kind}-{k}-{int(time.time() * 1000)}", 2, layout)
    rooms = []
    for i in range(k):
        room = rest.expect_ok(rest.api("POST", "rooms", json={"layout_id": layout}))["id"]
        people = [rest.provision_user(f"P{kind}{k}-{i}-{s}", PERSON_PERMS, room_id=room, task_id=task)
                  for s in range(2)]
        rooms.append((room, people))
    bot_id, bot_token = rest.provision_user(f"Bot-{kind}-{k}", BOT_PERMS)
    bot = BotProcess(kind, url, bot_id, bot_token, task, tmp)
    crowd = None
    try:
        bot.start()
        p_parent, p_child = ctx.Pipe()
        crowd = ctx.Process(target=_run_people, args=(url, rooms, kind, think, p_child), daemon=True)
        crowd.start()
        _recv(p_parent, 120, f"{kind} K={k}: the people to connect")
        p_parent.send(task)
        if _recv(p_parent, 180, f"{kind} K={k}: the rooms to start") != "ready":
            raise RuntimeError(f"{kind} K={k}: the rooms did not start")
        bot.open_window()
        s0, b0, t0 = cpu_seconds(srv_pids), cpu_seconds([bot.pid]), time.monotonic()
        p_parent.send(seconds)
        samples = _recv(p_parent, seconds + 120, f"{kind} K={k}: the people to finish")
        s1, b1, elapsed = cpu_seconds(srv_pids), cpu_seconds([bot.pid]), time.monotonic() - t0
        metrics = bot.finish()
    finally:
        bot.close()
        if crowd is not None:
            crowd.join(timeout=30)
            if crowd.is_alive():
                crowd.terminate()
    got = [s[0] for s in samples if s[0] is not None]
    views = [s[1] for s in samples if s[1] is not None]
    n = max(1, len(samples))
    row = {"bot": kind, "rooms": k, "inputs": len(samples), "lost": len(samples) - len(got),
           "p50_ms": _pct(got, 0.50), "p95_ms": _pct(got, 0.95), "seconds": round(elapsed, 1),
           "page_p50_ms": _pct(views, 0.50), "page_p95_ms": _pct(views, 0.95),
           "server_cpu_ms_per_input": round(1000 * (s1 - s0) / n, 2) if srv_pids else None,
           "bot_cpu_ms_per_input": round(1000 * (b1 - b0) / n, 2)}
    if metrics.get("summary"):  # event reached the bot -> first effect sent, as the bot measured it
        row["bot_turnaround_p50_ms"] = metrics["summary"]["p50_ms"]
        row["bot_turnaround_p99_ms"] = metrics["summary"]["p99_ms"]
    if metrics.get("requests"):
        row["requests_per_input"] = {key: round(v / n, 2) for key, v in sorted(metrics["requests"].items())}
    print(f"{kind:>6} K={k:>3}: {row}", file=sys.stderr, flush=True)
    return row


def run(rooms_list=(1, 10, 50), seconds=20.0, think=1.0, rounds=1, out=sys.stdout) -> list[dict]:
    from tests.slurk_double.client import DEFAULT_LAYOUT

    ctx = mp.get_context("spawn")
    started = time.monotonic()
    rows: list[dict] = []
    with slurk_server(ctx) as (url, rest, srv_pids, where), tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for k in rooms_list:
                # alternate the order between rounds so neither bot always runs on a warmer server
                for kind in (("echo", "travel") if r % 2 == 0 else ("travel", "echo")):
                    row = _measure(ctx, url, rest, DEFAULT_LAYOUT, kind, k, seconds, think, tmp, srv_pids)
                    row["round"] = r
                    rows.append(row)
    _table(rows, rooms_list, where, seconds, think, rounds, time.monotonic() - started, out)
    return rows


def _med(rows, key):
    xs = [r[key] for r in rows if r.get(key) is not None]
    return round(statistics.median(xs), 1) if xs else None


def _table(rows, rooms_list, where, seconds, think, rounds, wall, out) -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    notes = [f"Person-visible reply time on {where}: two scripted people per room taking turns, {seconds:g} s per "
             f"bot and K, think {think:g} s, {rounds} round(s) (medians over rounds), {os.cpu_count()} CPUs, load "
             f"average after the run {load}, wall {wall:.0f} s."]
    header = ("rooms", "echo p50 / p95 (ms)", "travel bot p50 / p95 (ms)", "ratio p50 / p95",
              "server CPU per input, echo / travel (ms)", "travel bot CPU per input (ms)", "inputs echo / travel")
    table = []
    verdict = True
    for k in rooms_list:
        e = [r for r in rows if r["rooms"] == k and r["bot"] == "echo"]
        t = [r for r in rows if r["rooms"] == k and r["bot"] == "travel"]
        e50, e95, t50, t95 = _med(e, "p50_ms"), _med(e, "p95_ms"), _med(t, "p50_ms"), _med(t, "p95_ms")
        r50 = round(t50 / e50, 2) if e50 and t50 else None
        r95 = round(t95 / e95, 2) if e95 and t95 else None
        verdict = verdict and r50 is not None and r95 is not None and r50 <= TARGET_P50 and r95 <= TARGET_P95
        table.append((k, f"{e50} / {e95}", f"{t50} / {t95}", f"{r50}× / {r95}×",
                      f"{_med(e, 'server_cpu_ms_per_input')} / {_med(t, 'server_cpu_ms_per_input')}",
                      _med(t, "bot_cpu_ms_per_input"),
                      f"{sum(r['inputs'] for r in e)} / {sum(r['inputs'] for r in t)}"))
    reqs = [r["requests_per_input"] for r in rows if r.get("requests_per_input")]
    if reqs:
        keys = sorted({key for q in reqs for key in q})
        notes.append("Our bot's Slurk requests per person input (median over K and rounds): " + ", ".join(
            f"{key} {statistics.median(q.get(key, 0) for q in reqs):g}" for key in keys) + ".")
    lost = sum(r["lost"] for r in rows)
    notes.append(f"Replies never seen (30 s): {lost}; targets p50 ≤ {TARGET_P50}× and p95 ≤ {TARGET_P95}× echo's at "
                 f"every K: {'met' if verdict else 'NOT met'}.")
    table_md = markdown_table(header, table)
    print("\n" + notes[0] + "\n" + table_md, file=out)
    for note in notes[1:]:
        print("\n" + note, file=out)
    write_figure("bench_slurk_speed", [table_md], command_line(None, "bench.bench_slurk_speed"), notes)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rooms", default="1,10,50")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--think", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args(argv)
    rows = run(tuple(int(x) for x in a.rooms.split(",")), a.seconds, a.think, a.rounds)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
