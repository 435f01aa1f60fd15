"""Benchmark: one room floods the bot with maximum-size page actions; how long does a bystander room wait?

    python -m bench.bench_flood [--offers 30] [--blocks 4] [--rate 10] [--out artifacts/bench/flood.json]

One bot process (`python -m bots serve dond`, two people per room) serves two Deal or No Deal rooms on the Slurk
test double (or on the real Slurk named by SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN). In the bystander room one
person makes offers from the page and the partner's page is watched: offer-to-page latency is the time from sending
the offer to the partner's page showing it. In the flood room one person sends, `--rate` times a second, the largest
page action the bot accepts: `{"command": "propose", "args": [400 characters] x 9}` (every argument at the
per-argument limit, the payload just under the size limit; issue 28's attack was one 3,900-character argument,
whose parse cost grew with its square). Quiet and flood blocks alternate in one run, so both see the same machine;
the result is the ratio of the flood median to the quiet median (target: at most 1.5).
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

from bench.figures import command_line, markdown_table, write_figure
from bench.slurk_procs import BotProcess, cpu_seconds, slurk_server

BOT_PERMS = {"api": True, "send_message": True, "send_html_message": True, "send_privately": True,
             "send_command": True}
PERSON_PERMS = {"send_message": True, "send_command": True, "send_privately": True}
TARGET_RATIO = 1.5
FLOOD_ARGS = ["x" * 400] * 9  # MAX_ARG_CHARS each, about 3.6 kB in all (MAX_ACTION_BYTES is 4096)


class Person:
    """A page in a room: its combined view (shared and own parts, as the page builds it), seat key and bot id."""

    def __init__(self, url, uid, token, room):
        from bots.slurk.socket import InOrderClient
        from tasks import get_task
        from tasks.core.pages import PageReader

        self.uid, self.room = uid, room
        self.page = PageReader(get_task("dond"))
        self.cond = threading.Condition()
        self.view: dict = {}
        self.sent = 0
        self.answers = 0  # the bot's private lines to this person (a flooder's refusals)
        self.sio = InOrderClient(reconnection=False)
        self.sio.on("text_update", self._update)
        self.sio.on("text_message", self._text)
        self.sio.connect(url, headers={"Authorization": f"Bearer {token}", "user": str(uid)}, namespaces=["/"],
                         wait_timeout=20)

    def _update(self, d):
        try:
            v = self.page.feed(d.get("id"), d.get("text"))
        except (KeyError, TypeError, ValueError):
            return
        if v is not None:
            with self.cond:
                self.view = v
                self.cond.notify_all()

    def _text(self, d):
        if d.get("private"):
            self.answers += 1

    def wait(self, pred, timeout=30.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: bool(self.view) and pred(self.view), timeout=timeout)

    @property
    def seat(self):
        return self.view.get("core", {}).get("seat")

    def act(self, command: str, args: list) -> None:
        core = self.view["core"]
        self.sent += 1
        self.sio.emit("message_command", {"room": self.room, "receiver_id": core["bot"], "command": {
            "key": core["key"], "n": f"{self.uid}-{self.sent}", "command": command, "args": args}})


def _offer_ids(view) -> set:
    return {o.get("id") for o in view.get("offers") or []}


def _flood(person: Person, args: list, rate: float, stop: threading.Event, count: list) -> None:
    gap = 1.0 / rate
    nxt = time.monotonic()
    while not stop.is_set():
        person.act("propose", args)
        count[0] += 1
        nxt += gap
        stop.wait(max(0.0, nxt - time.monotonic()))


def run(offers=30, blocks=4, rate=10.0, out=sys.stdout, json_out=None, flood_args=None) -> dict:
    from bots.layouts import build_layout
    from tasks import get_task

    ctx = mp.get_context("spawn")
    started = time.monotonic()
    samples = {"quiet": [], "flood": []}
    sent = [0]
    flood_args = list(flood_args or FLOOD_ARGS)
    with slurk_server(ctx) as (url, rest, srv_pids, where), tempfile.TemporaryDirectory() as tmp:
        layout = rest.create_layout(build_layout(get_task("dond")))
        task = rest.create_task(f"bench-flood-{int(time.time() * 1000)}", 2, layout)
        rooms = []
        for _ in range(2):
            room = rest.expect_ok(rest.api("POST", "rooms", json={"layout_id": layout}))["id"]
            rooms.append((room, [rest.provision_user(f"F{room}-{s}", PERSON_PERMS, room_id=room, task_id=task)
                                 for s in range(2)]))
        bot_id, bot_token = rest.provision_user(f"Bot-flood-{task}", BOT_PERMS)
        bot = BotProcess("dond", url, bot_id, bot_token, task, tmp, options={"max_rounds": 100})
        people = []
        try:
            bot.start()
            people = [[Person(url, uid, tok, room) for uid, tok in users] for room, users in rooms]
            for pair in people:
                pair[0].sio.call("room_created", {"room": pair[0].room, "task": task}, timeout=20)
            for p in (p for pair in people for p in pair):
                if not p.wait(lambda v: v.get("core", {}).get("phase") == "playing", 60):
                    raise RuntimeError("the rooms did not start")
            (b1, b2), (f1, _f2) = people
            proposer, watcher = (b1, b2) if b1.seat == "alice" else (b2, b1)
            bot.open_window()
            b0, s0 = cpu_seconds([bot.pid]), cpu_seconds(srv_pids)
            n = 0
            for block in range(blocks):
                mode = "quiet" if block % 2 == 0 else "flood"
                stop = threading.Event()
                flooder = None
                if mode == "flood":
                    flooder = threading.Thread(target=_flood, args=(f1, flood_args, rate, stop, sent), daemon=True)
                    flooder.start()
                    time.sleep(1.0)  # the flood is under way before the first offer
                try:
                    for _ in range(offers):
                        n += 1
                        t0 = time.perf_counter()
                        proposer.act("propose", [f"books={n % 2}", "hats=0", "balls=0"])
                        if watcher.wait(lambda v, n=n: n in _offer_ids(v), 30):
                            samples[mode].append(time.perf_counter() - t0)
                        time.sleep(0.2)
                finally:
                    stop.set()
                    if flooder is not None:
                        flooder.join(timeout=10)
                        time.sleep(1.0)  # what the flood queued is handled before the next quiet block
            b1_, s1_ = cpu_seconds([bot.pid]), cpu_seconds(srv_pids)
            bot.finish()
        finally:
            for p in (p for pair in people for p in pair):
                p.sio.disconnect()
            bot.close()
    res = {"where": where, "offers_per_block": offers, "blocks": blocks, "flood_rate_per_s": rate,
           "flood_actions_sent": sent[0], "flood_answers": f1.answers,
           "flood_action_bytes": len(json.dumps({"command": "propose", "args": flood_args})),
           "bot_cpu_s": round(b1_ - b0, 2), "server_cpu_s": round(s1_ - s0, 2) if srv_pids else None,
           "wall_s": round(time.monotonic() - started, 1), "cpus": os.cpu_count(),
           "load_after": [round(x, 2) for x in os.getloadavg()]}
    for mode, xs in samples.items():
        xs = sorted(xs)
        res[mode] = {"n": len(xs), "lost": offers * (blocks // 2 + (mode == "quiet") * (blocks % 2)) - len(xs),
                     "p50_ms": round(1000 * statistics.median(xs), 1) if xs else None,
                     "p90_ms": round(1000 * xs[max(0, -(-9 * len(xs) // 10) - 1)], 1) if xs else None}
    q, f = res["quiet"]["p50_ms"], res["flood"]["p50_ms"]
    res["ratio_p50"] = round(f / q, 2) if q and f else None
    res["target_met"] = res["ratio_p50"] is not None and res["ratio_p50"] <= TARGET_RATIO
    notes = [f"Bystander offer-to-page latency on {where}, quiet vs while another room sends {rate:g} page actions "
             f"a second of {res['flood_action_bytes']} bytes ({sent[0]} in all), {blocks} alternating blocks of "
             f"{offers} offers, {os.cpu_count()} CPUs; the flooder got {f1.answers} answers.",
             f"Flood / quiet p50: {res['ratio_p50']} (target <= {TARGET_RATIO}: "
             f"{'met' if res['target_met'] else 'NOT met'}); bot CPU {res['bot_cpu_s']} s."]
    table = markdown_table(("bystander", "offers", "p50 (ms)", "p90 (ms)"),
                           [(mode, res[mode]["n"], res[mode]["p50_ms"], res[mode]["p90_ms"]) for mode in ("quiet", "flood")])
    print("\n" + notes[0] + "\n" + table + "\n" + notes[1], file=out)
    write_figure("bench_flood", [table], command_line(None, "bench.bench_flood"), notes)
    if json_out:
        os.makedirs(os.path.dirname(os.path.abspath(json_out)), exist_ok=True)
        with open(json_out, "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=2)
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--offers", type=int, default=30, help="bystander offers per block")
    ap.add_argument("--blocks", type=int, default=4, help="alternating blocks, quiet first")
    ap.add_argument("--rate", type=float, default=10.0, help="flood page actions per second")
    ap.add_argument("--single", type=int, default=None,
                    help="flood with one argument of this many characters instead (issue 28's attack: 3900)")
    ap.add_argument("--out", default="artifacts/bench/flood.json", help="write the figures as JSON here")
    a = ap.parse_args(argv)
    res = run(a.offers, a.blocks, a.rate, json_out=a.out, flood_args=["x" * a.single] if a.single else None)
    return 0 if res["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
