"""Games in parallel against a model server with a fixed latency (issue 32).

`python -m bench.bench_parallel [--latency 0.3] [--games 8] [--flights 4,8,16,64]`: starts
bench/fake_llm_server.py (every answer after --latency seconds, any number at once) and runs
`python -m bots travel --boards generated --agents solver,problem-solving` with --parallel 1 (one game after
another, what every run did before) and with --parallel P (LLM_CONCURRENCY=0: the client sets no limit of its own),
side by side in one run. Per P it plays max(P, --games) games and reports games per second, the speed-up over the
serial run (same latency, same run), the most requests the server saw in flight, and the bot process's CPU time
(user + system; the fake server runs in its own process) three ways: as a share of the run's wall time (how much of
one core the client needs), per request after the process start-up, and per game as a share of that game's own
time in model calls (each game's client cost: prompt building, parsing, bookkeeping, its moves). Per-game results
of every parallel run are compared with the serial run's on the seeds they share. The load average before and
after is recorded: on a loaded machine every wait is longer. Writes bench/results/parallel.json and the table as
Markdown to docs/figures/bench_parallel.md (bench/figures.py).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench.figures import FIGURES, command_line, markdown_table, write_figure

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CMD = ["travel", "--boards", "generated", "--agents", "solver,problem-solving", "--quiet"]
COMPARE = ("index", "seed", "status", "identical", "correct", "optimal", "turns", "tokens", "llm")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stats(port: int, reset: bool = False) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats" + ("?reset=1" if reset else ""), timeout=5) as r:
        return json.load(r)


def run(port: int, games: int, parallel: int, out: str) -> dict:
    env = {**os.environ, "LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "LLM_MODEL": "fake-model",
           "LLM_API_KEY": "sk-bench", "LLM_CONCURRENCY": "0", "LLM_DEADLINE": "60"}
    args = [sys.executable, "-m", "bots", *CMD, "--games", str(games), "--out", out, "--parallel", str(parallel)]
    before_server = stats(port, reset=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, started = time.perf_counter(), time.monotonic()
    subprocess.run(args, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    server = stats(port)
    with open(os.path.join(out, "games.csv"), newline="") as fh:
        raw = list(csv.DictReader(fh))
    rows = {int(r["index"]): _comparable(r) for r in raw}
    model_s = [sum(seat.get("seconds", 0.0) for seat in json.loads(r["llm"] or "{}").values()) for r in raw]
    # Start-up: from the process start to its first request; games: from there to the last answer.
    startup = server["first_at"] - started if server.get("first_at") else 0.0
    play = server["last_done_at"] - server["first_at"] if server.get("first_at") else wall
    return {"games": games, "parallel": parallel or 1, "wall_s": round(wall, 2), "games_per_s": games / wall,
            "startup_s": round(startup, 2), "games_s": round(play, 2),
            "client_cpu_s": round(cpu, 2), "client_cpu_share": cpu / wall,
            "game_model_s": sum(model_s) / max(1, len(model_s)),
            "requests": server["requests"] - before_server["requests"], "max_in_flight": server["max_in_flight"],
            "rows": rows}


def _comparable(row: dict) -> dict:
    """The per-game results without wall-clock figures (seconds per act differ from run to run)."""
    out = {k: row.get(k) for k in COMPARE}
    llm = json.loads(out["llm"]) if out.get("llm") else {}
    out["llm"] = {seat: {k: v for k, v in f.items() if "seconds" not in k} for seat, f in llm.items()}
    return out


def startup_cpu() -> float:
    """CPU seconds of starting the bot process and importing the task (subtracted to get the per-game cost)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "bots", "travel", "--help"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def client_only(port: int, in_flight: int, acts: int = 4) -> dict:
    """The LLM client alone (no game): `in_flight` threads, each `acts` JSON acts of a travel-sized prompt (~7,000
    characters) one after another; every answer is invalid, so each act is an answer and a repair round, as in the
    games above. Its CPU (this process, user + system) per request and as a share of the wall time."""
    import logging
    import threading

    from bots.llm import LLMClient, LLMConfig, LLMError

    # As `python -m bots` logs (one INFO line per call), into nowhere.
    logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"))

    cfg = LLMConfig(model="fake-model", base_url=f"http://127.0.0.1:{port}/v1", api_key="sk-bench", concurrency=0,
                    deadline=60)
    schema = {"type": "object", "additionalProperties": False, "required": ["move"],
              "properties": {"move": {"enum": [f"room {i}" for i in range(40)]}, "note": {"type": "string",
                                                                                        "maxLength": 200}}}
    messages = [{"role": "system", "content": "You search a house for your partner's rooms. " * 60},
                {"role": "user", "content": "Rooms and doors: " + ", ".join(f"room {i} - room {i + 1}: 3"
                                                                            for i in range(180))}]
    with LLMClient(cfg) as llm:
        def seat():
            for _ in range(acts):
                try:
                    llm.chat_json(messages, schema)
                except LLMError:
                    pass
        seat()  # warm: connection, schema plan
        threads = [threading.Thread(target=seat) for _ in range(in_flight)]
        calls = llm.usage.calls
        before = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_SELF)
        requests = llm.usage.calls - calls  # answered requests (each act: its answer and the repair round)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"in_flight": in_flight, "requests": requests, "wall_s": round(wall, 2), "cpu_s": round(cpu, 3),
            "cpu_per_request_ms": round(1000 * cpu / max(1, requests), 3), "cpu_share": cpu / wall}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--latency", type=float, default=0.3)
    p.add_argument("--games", type=int, default=8, help="games of the serial run (and at least this many per P)")
    p.add_argument("--flights", default="4,8,16,64", help="values of --parallel besides 1")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "parallel.json"))
    p.add_argument("--figures", default=str(FIGURES), help="folder of bench_parallel.md ('' for none)")
    args = p.parse_args()
    load_before = loadavg()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "bench.fake_llm_server", "--port", str(port), "--latency",
                               str(args.latency)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                stats(port)
                break
            except OSError:
                time.sleep(0.1)
        results = []
        start_cpu = min(startup_cpu() for _ in range(3))
        with tempfile.TemporaryDirectory() as tmp:
            serial = run(port, args.games, 1, os.path.join(tmp, "serial"))
            results.append({**serial, "label": "--parallel 1 (one game after another, as before)"})
            for n in [int(x) for x in args.flights.split(",")]:
                games = max(n, args.games)
                r = run(port, games, n, os.path.join(tmp, f"p{n}"))
                same = all(r["rows"][i] == serial["rows"][i] for i in serial["rows"] if i in r["rows"])
                results.append({**r, "label": f"--parallel {n}", "same_results_as_serial": same})
        client = client_only(port, max(int(x) for x in args.flights.split(",")))
    finally:
        server.terminate()
        server.wait(10)
    load_after = loadavg()
    base = results[0]["games_per_s"]
    for r in results:
        per_game_cpu = max(0.0, r["client_cpu_s"] - start_cpu) / r["games"]
        r["cpu_per_request_ms"] = round(1000 * max(0.0, r["client_cpu_s"] - start_cpu) / max(1, r["requests"]), 2)
        r["cpu_per_game_s"] = round(per_game_cpu, 3)
        r["game_cpu_share"] = per_game_cpu / r["game_model_s"] if r["game_model_s"] else 0.0
        r["speedup"] = round(r["games_per_s"] / base, 2)
        r["games_speedup"] = round(results[0]["games_s"] / r["games_s"] * r["games"] / results[0]["games"], 2)
        r.pop("rows")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"latency_s": args.latency, "command": " ".join(CMD), "cores": os.cpu_count(),
                   "startup_cpu_s": round(start_cpu, 2), "loadavg_before": load_before, "loadavg_after": load_after,
                   "runs": results, "client_only": client}, fh, indent=1)
    table, notes = figure(results, client, args, start_cpu, load_before, load_after)
    print(table + "\n\n" + "\n\n".join(notes))
    if args.figures:
        write_figure("bench_parallel", [table], command_line(module="bench.bench_parallel"), notes,
                     out_dir=args.figures)
    print(f"written: {args.out}")


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages (Linux), '' elsewhere."""
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return ""


def figure(results: list[dict], client: dict, args, start_cpu: float, load_before: str, load_after: str,
           ) -> tuple[str, list[str]]:
    """The table and its notes, as docs/figures/bench_parallel.md shows them."""
    header = ["run", "games", "wall s", "speed-up", "start-up s", "games s", "speed-up of the games",
              "most requests in flight", "process CPU / wall", "process CPU ms / request",
              "CPU per game / its model time", "same results as serial"]
    rows = [[r["label"], r["games"], r["wall_s"], f"{r['speedup']}×", r["startup_s"], r["games_s"],
             f"{r['games_speedup']}×", r["max_in_flight"], f"{100 * r['client_cpu_share']:.1f}%",
             r["cpu_per_request_ms"], f"{100 * r['game_cpu_share']:.1f}%", r.get("same_results_as_serial", "-")]
            for r in results]
    notes = [
        f"`{' '.join(CMD)}` against bench/fake_llm_server.py ({args.latency} s per answer, any number at once) at "
        f"{time.strftime('%H:%M UTC', time.gmtime())}; load average {load_before or '?'} before and "
        f"{load_after or '?'} after (1, 5, 15 min; on a loaded machine every wait is longer).",
        "Speed-up: games per second over the serial run's. Start-up: from the process start to its first request "
        "(interpreter, imports, setting up the run); games s: from the first request to the last answer, and its "
        "speed-up per game (what the start-up, paid once per run and slower on a loaded machine, leaves out).",
        f"Process CPU is the bot process's user + system time; the start-up ({start_cpu:.2f} s: interpreter and "
        "imports) is left out of the per-request and per-game columns. A game's model time is the time its seats "
        "spent in LLM calls (it bounds the game's wall time from below, so its share is an upper bound).",
        f"The LLM client alone (bots/llm, no game; {client['in_flight']} threads in flight, {client['requests']} "
        f"requests of a travel-sized prompt in {client['wall_s']} s): {client['cpu_per_request_ms']} ms CPU per "
        f"request, {100 * client['cpu_share']:.1f}% of the wall time.",
    ]
    return markdown_table(header, rows), notes


if __name__ == "__main__":
    main()
