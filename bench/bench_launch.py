"""A study launch: N people arrive in the waiting room within a few seconds; how soon is everyone in a game room?

    SLURK_TEST_URL=http://127.0.0.1:5056 SLURK_TEST_ADMIN_TOKEN=0000... python -m bench.bench_launch \
        [--people 50] [--arrive 10] [--per-room 1] [--task travel] [--out artifacts/bench/launch.json]

Without SLURK_TEST_URL it runs on the Slurk test double (in this process). The study is provisioned with `setup`
(`--per-room 1`: one person and the task's default agent per room; 2: two people), the task bot (SlurkBot) and the
concierge run in this process from the study's bot.env, as `serve` and `concierge` would. Each person opens their
login link (on a real Slurk, its /login creates the user) at an evenly spread moment within `--arrive` seconds and
connects a python-socketio client, as the page's socket does.

Measured per person: time to room = from their socket's `joined_room` of the waiting room to `joined_room` of their
game room; for the launch: from the first arrival until the last person is in a game room. Errors: the concierge's
server errors, retries, rooms given up and deferrals (the cap), warnings and errors logged by the bots, failed
logins. Written as JSON to --out (and printed). Target (issue 27): 50 people arriving within 10 s are all in game
rooms within 15 s of the first arrival, with no server error.
"""
from __future__ import annotations

import argparse
import csv
import json
import logging
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import threading
import time
from urllib.parse import parse_qs, urlsplit

import requests

from bench.figures import command_line, write_figure_row

TARGET_SECONDS = 15.0


class _Count(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record):
        self.records.append(f"{record.levelname} {record.name}: {record.getMessage()[:200]}")


class Arrival:
    """One person: login link -> user, socket -> the waiting room, then wait for the move."""

    def __init__(self, srv, link: str, waiting_room: int, is_real: bool):
        from bots.slurk.socket import InOrderClient

        self.srv, self.link, self.waiting_room, self.is_real = srv, link, waiting_room, is_real
        self.token = parse_qs(urlsplit(link).query)["token"][0]
        self.name = parse_qs(urlsplit(link).query)["name"][0]
        self.sio = InOrderClient(reconnection=False)
        self.t_login = self.t_waiting = self.t_room = None
        self.room = None
        self.error = None
        self.places: list[str] = []
        self._moved = threading.Event()
        self.sio.on("joined_room", self._joined)
        self.sio.on("text_message", self._text)

    def _joined(self, data, *_):
        room = int(data["room"])
        if room == self.waiting_room:
            self.t_waiting = self.t_waiting or time.monotonic()
        elif self.room is None:
            self.room, self.t_room = room, time.monotonic()
            self._moved.set()

    def _text(self, data, *_):
        if data.get("private") and "in the queue" in str(data.get("message")):
            self.places.append(str(data.get("message")))

    def arrive(self) -> None:
        try:
            self.t_login = time.monotonic()
            if self.is_real:
                requests.get(self.link, timeout=30)  # Slurk's login page creates the user
                users = self.srv.api("GET", "users", params={"token_id": self.token}).json()
                uid = users[0]["id"]
            else:  # the double has no login page: what the page does
                uid = self.srv.expect_ok(self.srv.api("POST", "users", json={"name": self.name,
                                                                             "token_id": self.token}))["id"]
            self.sio.connect(self.srv.url, headers={"Authorization": f"Bearer {self.token}", "user": str(uid)},
                             namespaces=["/"], wait_timeout=30)
        except Exception as exc:  # counted and reported
            self.error = f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        try:
            self.sio.disconnect()
        except Exception:
            pass


class _Done:
    """What the people's process reports about one person."""

    def __init__(self, t_login=None, t_waiting=None, t_room=None, room=None, error=None, places=()):
        self.t_login, self.t_waiting, self.t_room, self.room = t_login, t_waiting, t_room, room
        self.error, self.places = error, list(places)


def _bot_process(bot_env: dict, task: str, conn) -> None:
    from bots.config import load_config
    from bots.slurk.runtime import SlurkBot
    from tasks import get_task

    logging.basicConfig(level=logging.ERROR)
    counter = _Count()
    logging.getLogger("bots").addHandler(counter)
    bot = SlurkBot(load_config(None, bot_env), get_task(task)).start()
    conn.send("started")
    try:
        conn.recv()  # "stop"
    except EOFError:
        pass
    conn.send(counter.records)  # before stopping: the stop's own messages are not the launch's
    bot.stop()


def _stop_bot(proc, conn) -> list:
    """Stop the task bot's process (once); its warnings and errors during the launch."""
    records: list = []
    if proc.is_alive():
        try:
            conn.send("stop")
            if conn.poll(30):
                records = conn.recv()
        except (OSError, EOFError):
            pass
        proc.join(30)
        if proc.is_alive():
            proc.terminate()
    return records


def _people_process(url, admin_token, etag, is_real, links, waiting_room, arrive, wait, conn) -> None:
    from tests.conftest import SlurkServer

    srv = SlurkServer(url, admin_token, etag=etag, is_real=is_real)
    arrivals = [Arrival(srv, link, waiting_room, is_real) for link in links]
    t0 = time.monotonic()
    threads = []
    for i, a in enumerate(arrivals):
        at = t0 + arrive * i / max(1, len(arrivals) - 1)
        th = threading.Thread(target=lambda a=a, at=at: (time.sleep(max(0.0, at - time.monotonic())), a.arrive()),
                              daemon=True)
        th.start()
        threads.append(th)
    for th in threads:
        th.join(arrive + 60)
    deadline = time.monotonic() + wait
    for a in arrivals:
        a._moved.wait(max(0.0, deadline - time.monotonic()))
    conn.send([{"t_login": a.t_login, "t_waiting": a.t_waiting, "t_room": a.t_room, "room": a.room,
                "error": a.error, "places": a.places} for a in arrivals])
    for a in arrivals:
        a.close()


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def run(srv, is_real: bool, people: int, arrive: float, per_room: int, task: str, tmp: str, wait: float,
        before: bool = False) -> dict:
    from bots.study import setup as study_setup
    from bots.concierge import build_concierge
    from bots.study.provision import read_env_file
    from tasks import get_task

    name = f"launch{int(time.time())}"
    out: list[str] = []
    env = {"SLURK_URL": srv.url, "SLURK_ADMIN_TOKEN": srv.admin_token}
    rc = study_setup.main([task, "--participants", str(people), "--people-per-room", str(per_room), "--study", name,
                           "--out", os.path.join(tmp, "studies")], env=env, echo=out.append)
    if rc != 0:
        raise SystemExit("\n".join(out))
    folder = os.path.join(tmp, "studies", name)
    bot_env = {**read_env_file(os.path.join(folder, "bot.env")), "BOT_STATE_DB": os.path.join(tmp, "state.db")}
    with open(os.path.join(folder, "participants.csv"), newline="") as fh:
        links = [row["login_link"] for row in csv.DictReader(fh)]
    waiting_room = int(bot_env["WAITING_ROOM"])
    counter = _Count()
    logging.getLogger("bots").addHandler(counter)
    ctx = mp.get_context("spawn")
    bot_parent, bot_child = ctx.Pipe()
    bot = ctx.Process(target=_bot_process, args=(bot_env, task, bot_child), daemon=True)  # as `serve` runs: apart
    bot.start()
    if not bot_parent.poll(60) or bot_parent.recv() != "started":
        raise SystemExit("the task bot did not start")
    concierge = build_concierge(None, bot_env, movers=1 if before else 8).start()
    if before:  # the concierge as it was: one room at a time and the rooms-per-minute cap always in force
        concierge.cap.trouble = (float("-inf"), float("inf"))
    # The people run in a child process (as browsers would, apart from the bots): their 50 sockets do not compete
    # with the concierge for this process's interpreter.
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_people_process, args=(srv.url, srv.admin_token, srv.etag, is_real, links[:people],
                                                      waiting_room, arrive, wait, child), daemon=True)
    arrivals: list = []
    try:
        proc.start()
        if not parent.poll(arrive + wait + 120):
            raise SystemExit("the people's process did not report")
        arrivals = [_Done(**d) for d in parent.recv()]
        bot_records = _stop_bot(bot, bot_parent)
        counter.records += [f"task bot: {r}" for r in bot_records]
        t0 = min((a.t_login for a in arrivals if a.t_login), default=0.0)
        to_room = [a.t_room - a.t_waiting for a in arrivals if a.t_room and a.t_waiting]
        first = min((a.t_waiting for a in arrivals if a.t_waiting), default=t0)
        last_in = max((a.t_room for a in arrivals if a.t_room), default=None)
        result = {
            "server": "real Slurk" if is_real else "Slurk test double", "url": srv.url, "etag": srv.etag,
            "concierge": "before (cap always, one room at a time)" if before else "now",
            "task": task, "people": people, "arrive_within_s": arrive, "people_per_room": per_room,
            "in_rooms": len(to_room), "rooms": len({a.room for a in arrivals if a.room}),
            "arrival_spread_s": round(max((a.t_waiting for a in arrivals if a.t_waiting), default=first) - first, 2),
            "all_in_rooms_after_first_arrival_s": round(last_in - first, 2) if last_in and len(to_room) == people
            else None,
            "time_to_room_s": {k: round(v, 3) for k, v in (
                ("min", min(to_room)), ("p50", statistics.median(to_room)), ("p90", _quantile(to_room, 0.9)),
                ("p99", _quantile(to_room, 0.99)), ("max", max(to_room)))} if to_room else None,
            "time_to_room_all_s": sorted(round(x, 3) for x in to_room),
            "people_told_their_place": sum(1 for a in arrivals if a.places),
            "errors": {
                "concierge_server_errors": concierge.stats["server_errors"],
                "concierge_retries": concierge.stats["retries"],
                "concierge_rooms_given_up": concierge.stats["rooms_given_up"],
                "concierge_deferred_by_cap": concierge.stats["deferred"],
                "failed_logins": sum(1 for a in arrivals if a.error),
                "bot_warnings_and_errors": len(counter.records),
            },
            "log_lines": counter.records[:20] + [a.error for a in arrivals if a.error][:10],
            "target": f"all {people} in game rooms within {TARGET_SECONDS:g} s of the first arrival, 0 errors",
        }
        result["errors"]["total"] = sum(v for k, v in result["errors"].items() if k != "concierge_deferred_by_cap")
        result["met"] = bool(result["all_in_rooms_after_first_arrival_s"] is not None
                             and result["all_in_rooms_after_first_arrival_s"] <= TARGET_SECONDS
                             and result["errors"]["total"] == 0)
        return result
    finally:
        proc.join(10)
        concierge.stop()
        _stop_bot(bot, bot_parent)
        logging.getLogger("bots").removeHandler(counter)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--people", type=int, default=50)
    p.add_argument("--arrive", type=float, default=10.0, help="seconds over which the people arrive (evenly)")
    p.add_argument("--per-room", type=int, default=1, choices=(1, 2), help="people per room (1: with an agent)")
    p.add_argument("--task", default="travel")
    p.add_argument("--wait", type=float, default=60.0, help="seconds to wait for the last move before reporting")
    p.add_argument("--out", default=os.path.join("artifacts", "bench", "launch.json"))
    p.add_argument("--before", action="store_true",
                   help="the concierge as it was before issue 27 (rooms-per-minute cap always in force, one room at "
                        "a time), for a side-by-side figure")
    args = p.parse_args(argv)
    os.environ.setdefault("BOT_PACING", "off")
    logging.basicConfig(level=logging.ERROR)
    url, token = os.environ.get("SLURK_TEST_URL"), os.environ.get("SLURK_TEST_ADMIN_TOKEN")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tests.conftest import SlurkServer

    with tempfile.TemporaryDirectory() as tmp:
        if url and token:
            etag = os.environ.get("SLURK_TEST_ETAG", "").lower() in ("1", "true", "yes", "on")
            result = run(SlurkServer(url, token, etag=etag, is_real=True), True, args.people, args.arrive,
                         args.per_room, args.task, tmp, args.wait, args.before)
        else:
            from tests.slurk_double import SlurkDouble

            with SlurkDouble(etag=True) as double:
                srv = SlurkServer(double.url, double.admin_token, etag=True, is_real=False, double=double)
                result = run(srv, False, args.people, args.arrive, args.per_room, args.task, tmp, args.wait,
                             args.before)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=2)
    shown = {k: v for k, v in result.items() if k not in ("time_to_room_all_s",)}
    print(json.dumps(shown, indent=2))
    print(f"written to {args.out}")
    figure_row(result, argv)
    return 0 if result["met"] else 1


def figure_row(result: dict, argv) -> None:
    """This run's row of docs/figures/bench_launch.md (one row per server and concierge)."""
    t = result["time_to_room_s"] or {}
    server = f"{result['server']}, ETags {'on' if result['etag'] else 'off'}"
    concierge = "before" if result["concierge"].startswith("before") else "now"
    after = result["all_in_rooms_after_first_arrival_s"]
    write_figure_row(
        "bench_launch",
        ("server", "concierge", "in rooms", "all in after first arrival", "time to room p50 / p90 / max", "errors"),
        f"{server}, {concierge}",
        (server, concierge, f"{result['in_rooms']} / {result['people']}",
         "–" if after is None else f"{after} s (arrivals spread {result['arrival_spread_s']} s)",
         f"{t.get('p50')} / {t.get('p90')} / {t.get('max')} s" if t else "–", result["errors"]["total"]),
        command_line(argv, "bench.bench_launch"),
        f"{result['people']} people arriving within {result['arrive_within_s']:g} s, {result['people_per_room']} per "
        f"room, task {result['task']}; target met: {'yes' if result['met'] else 'no'}")


if __name__ == "__main__":
    sys.exit(main())
