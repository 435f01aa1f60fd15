"""Soak: many complete travel games through one bot process; its memory should stay flat.

    python -m bench.bench_soak [--games 1000] [--parallel 10] [--marks 250,500,1000]
    SLURK_TEST_URL=... SLURK_TEST_ADMIN_TOKEN=... python -m bench.bench_soak ...   # against a real Slurk

The bot runs as `python -m bots serve travel` in its own process (bench/slurk_procs.py), against the test double
(a child process) or a real Slurk (the conformance tests' variables). Each game: a new room with two new people
(tokens as `setup` makes them), announced like a concierge does; the first person proposes a full tour, the second
agrees, both submit, the game ends; the people disconnect. Games run `--parallel` at a time.

Reported: the bot process's resident memory (RSS, from /proc) after start-up (0 games) and after each mark, the
growth per game between the first and the last mark, the Slurk server's CPU seconds per game (the double's process
or the real server's, see bench_slurk_speed), and the games that did not end.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bench.figures import command_line, markdown_table, write_figure
from bench.slurk_procs import BotProcess, cpu_seconds, rss_mb, slurk_server

PERSON_PERMS = {"send_message": True, "send_command": True, "send_privately": True}
BOT_PERMS = {"api": True, "send_message": True, "send_html_message": True, "send_privately": True,
             "send_command": True}
GAME_WAIT = 60.0


class _Person:
    def __init__(self, url, uid, token, room):
        import socketio

        self.uid, self.room = uid, room
        from tasks import get_task
        from tasks.core.pages import PageReader

        self.page = PageReader(get_task("travel"))
        self.view: dict = {}
        self.changed = threading.Event()
        self.sio = socketio.Client(reconnection=False)
        self.sio.on("text_update", self._view)
        self.sio.connect(url, headers={"Authorization": f"Bearer {token}", "user": str(uid)}, namespaces=["/"],
                         wait_timeout=20)
        self.n = 0

    def _view(self, d):
        # the page's view: the travel page's shared and own parts combined, as the page does
        try:
            v = self.page.feed(d.get("id"), d.get("text"))
        except (KeyError, TypeError, ValueError):
            return
        if isinstance(v, dict) and "core" in v:
            self.view = v
            self.changed.set()

    def command(self, typed: str) -> None:
        self.n += 1
        core = self.view["core"]
        self.sio.emit("message_command", {"room": self.room, "receiver_id": core["bot"], "command": {
            "key": core["key"], "n": f"{self.uid}-{self.n}", "typed": typed}})


def _step(p: _Person, done: set) -> bool:
    """One reaction of a scripted person to their view; True once the game is over."""
    v = p.view
    core = v.get("core", {})
    if core.get("phase") == "over":
        return True
    if core.get("phase") != "playing":
        return False
    rooms = [r["id"] for r in v["rooms"]]
    pending, agreed = v.get("pending"), v.get("agreed") or []
    if v["world"] == "light" and "propose" not in done:
        done.add("propose")
        p.command("propose " + " ".join([v["start"]] + [r for r in rooms if r != v["start"]]))
    elif pending and not pending["mine"] and pending["kind"] == "tour" and "agree" not in done:
        done.add("agree")
        p.command("agree")
    elif len(agreed) == len(rooms) + 1 and not v["submitted"]["me"] and "submit" not in done:
        done.add("submit")
        p.command("submit")
    return False


def play_one(url, rest, layout, task, n, linger: float = 1.0) -> bool:
    room = rest.expect_ok(rest.api("POST", "rooms", json={"layout_id": layout}))["id"]
    people = []
    try:
        for s in range(2):
            uid, token = rest.provision_user(f"soak-{n}-{s}", PERSON_PERMS, room_id=room, task_id=task)
            people.append(_Person(url, uid, token, room))
        people[0].sio.call("room_created", {"room": room, "task": task}, timeout=20)
        dones = [set(), set()]
        over = [False, False]
        deadline = time.monotonic() + GAME_WAIT
        while not all(over) and time.monotonic() < deadline:
            for i, p in enumerate(people):
                p.changed.clear()
                over[i] = over[i] or _step(p, dones[i])
            if not all(over):
                people[0].changed.wait(0.05)
        if all(over):
            time.sleep(linger)  # as a person reads the result and copies their code before closing the tab
        return all(over)
    finally:
        for p in people:
            try:
                p.sio.disconnect()
            except Exception:
                pass


def run(games=1000, parallel=10, marks=(250, 500, 1000), out=sys.stdout) -> dict:
    from bots.layouts import build_layout
    from tasks import get_task

    t_start = time.monotonic()
    with slurk_server() as (url, rest, srv, where):
        layout = rest.create_layout(build_layout(get_task("travel")))
        task = rest.create_task(f"soak-{int(time.time() * 1000)}", 2, layout)
        bot_id, bot_token = rest.provision_user("SoakBot", BOT_PERMS)
        with tempfile.TemporaryDirectory() as tmp:
            bot = BotProcess("travel", url, bot_id, bot_token, task, tmp, options={})
            bot.start()
            try:
                time.sleep(2.0)
                rss = {0: rss_mb(bot.pid)}
                cpu0 = cpu_seconds(srv)
                failed = played = 0
                with ThreadPoolExecutor(parallel) as pool:
                    for mark in sorted(marks):
                        batch = list(range(played, min(mark, games)))
                        failed += sum(1 for ok in pool.map(lambda n: play_one(url, rest, layout, task, n), batch)
                                      if not ok)
                        played += len(batch)
                        time.sleep(1.0)  # the last rooms are closed and left
                        rss[played] = rss_mb(bot.pid)
                        print(f"{played} games: bot RSS {rss[played]:.1f} MB, failed {failed}", file=sys.stderr,
                              flush=True)
                        if played >= games:
                            break
                server_cpu = (cpu_seconds(srv) - cpu0) / max(1, played) if srv else None
                held = bot.finish()  # SIGTERM: the bot reports the rooms and threads it still held
            finally:
                bot.close()
    ks = sorted(rss)
    first, last = ks[1] if len(ks) > 1 else ks[0], ks[-1]
    per_game = (rss[last] - rss[first]) / (last - first) * 1024 if last > first else None
    notes = [f"Soak on {where}: {played} complete travel games (two scripted people each, {parallel} at a time), "
             f"one bot process, wall {time.monotonic() - t_start:.0f} s.",
             f"Growth between {first} and {last} games: "
             f"{'n/a' if per_game is None else f'{per_game:.1f} KB per game'}; games that did not end: {failed}; "
             f"Slurk server CPU per game: {'n/a' if server_cpu is None else f'{1000 * server_cpu:.0f} ms'}; still "
             f"held by the bot at the end: {held.get('rooms_open')} rooms, {held.get('threads')} threads."]
    table = markdown_table(["games"] + ks, [["bot RSS (MB)"] + [f"{rss[k]:.1f}" for k in ks]])
    print("\n" + notes[0] + "\n" + table + "\n\n" + notes[1], file=out)
    write_figure("bench_soak", [table], command_line(None, "bench.bench_soak"), notes)
    return {"rss_mb": rss, "kb_per_game": per_game, "failed": failed, "server_cpu_s_per_game": server_cpu,
            "rooms_open": held.get("rooms_open")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--parallel", type=int, default=10)
    ap.add_argument("--marks", default="250,500,1000")
    a = ap.parse_args(argv)
    marks = tuple(sorted({int(x) for x in a.marks.split(",")} | {a.games}))
    run(a.games, a.parallel, tuple(m for m in marks if m <= a.games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
