"""Games in parallel against a model server with a fixed latency (issue 32).

`python -m bench.bench_parallel [--latency 0.3] [--games 8] [--flights 1,4,16,64]`: starts
bench/fake_llm_server.py (every answer after --latency seconds, any number at once) and runs
`python -m bots travel --boards generated --agents solver,problem-solving` with --parallel 1 (one game after
another, what every run did before) and with --parallel P (LLM_CONCURRENCY=0: the client sets no limit of its own), side by side in one run. Per P it plays max(P, --games) games and reports games per
second, the speed-up over the serial run (same latency, same run), the most requests the server saw in flight, and
the client's CPU time as a share of the wall time (prompt building, parsing, bookkeeping: the bot process's user +
system time, the fake server runs in its own process). Per-game results of every parallel run are compared with the
serial run's on the seeds they share. Writes bench/results/parallel.json and prints a table.
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
    t0 = time.perf_counter()
    subprocess.run(args, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    server = stats(port)
    with open(os.path.join(out, "games.csv"), newline="") as fh:
        rows = {int(r["index"]): _comparable(r) for r in csv.DictReader(fh)}
    return {"games": games, "parallel": parallel or 1, "wall_s": round(wall, 2), "games_per_s": games / wall,
            "client_cpu_s": round(cpu, 2), "client_cpu_share": cpu / wall,
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--latency", type=float, default=0.3)
    p.add_argument("--games", type=int, default=8, help="games of the serial run (and at least this many per P)")
    p.add_argument("--flights", default="1,4,16,64", help="values of --parallel")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "parallel.json"))
    args = p.parse_args()
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
    finally:
        server.terminate()
        server.wait(10)
    base = results[0]["games_per_s"]
    for r in results:
        r["game_cpu_share"] = max(0.0, r["client_cpu_s"] - start_cpu) / r["wall_s"]
        r["speedup"] = round(r["games_per_s"] / base, 2)
        r.pop("rows")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"latency_s": args.latency, "command": " ".join(CMD), "cores": os.cpu_count(), "startup_cpu_s": round(start_cpu, 2), "runs": results},
                  fh, indent=1)
    print(f"latency {args.latency} s per answer; {os.cpu_count()} cores; `{' '.join(CMD)}`")
    print(f"start-up CPU of the bot process (imports): {start_cpu:.2f} s, subtracted in 'per-game CPU / wall'")
    print("| run | games | wall s | games/s | speed-up | max requests in flight | client CPU / wall | per-game CPU / wall "
          "| same results |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['label']} | {r['games']} | {r['wall_s']} | {r['games_per_s']:.3f} | {r['speedup']}x | "
              f"{r['max_in_flight']} | {100 * r['client_cpu_share']:.1f}% | {100 * r['game_cpu_share']:.1f}% | {r.get('same_results_as_serial', '-')} |")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
