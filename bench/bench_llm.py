"""LLM agents against a real model: validity, time and tokens per use of the LLM, and the client's own cost per act.

    LLM_MODEL=<id> LLM_BASE_URL=http://127.0.0.1:8087/v1 python -m bench.bench_llm \\
        [--games 1] [--seed 0] [--structured auto,off] [--prefix on,off] [--tasks travel,gnomes] \\
        [--server-log /path/to/llama-server.log]

Plays `--games` seeded self-play games for every LLM use of every task (travel: each of the paper's four agents in
the ghost seat against the solver, whose text reader uses the LLM too; gnomes: the AISMCTS-F agent, whose flag
classifier and answers use the LLM, against the simulated partner) in every combination of structured answers
(`auto`: the client finds the form the endpoint honours; `off`: prompt-only JSON with one repair round) and stable
prefix (`on`: the cache-friendly prompt layout; `off`: the layout before it, our own comparison variant; gnomes'
prompts are the same either way, so gnomes plays with `on` only).

Per (condition, seat, use) it prints: acts, valid %, fallback %, prompt tokens per act (what the server was sent),
processed prompt tokens per act (what it had to evaluate: with --server-log, read from a llama.cpp server's
"prompt eval time = ... / N tokens" lines; a prefix cache makes this smaller than the prompt), seconds per act,
tokens per game. Then the client's own cost per act (building the prompt, parsing, validating: the act's wall time
minus the time spent waiting for HTTP answers and for a request slot) beside the model's time, and its share of
the act (target < 5 %). Figures are printed, not asserted; run it on an idle machine (the model shares the CPU).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from typing import Optional

from bench.figures import command_line, markdown_table, write_figure
from bots.llm import LLMClient, LLMConfig
from tasks import get_task
from tasks.core import evaluation

CASES = {
    "travel": [("light", "solver", "ghost", v) for v in ("baseline", "grounding", "state-tracking", "problem-solving")],
    "gnomes": [("h", "partner", "e", "aismcts")],
}
BRAIN_OPTIONS = {"gnomes": {"iterations": 300}}
_EVAL_RE = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")


class ServerLog:
    """New "prompt eval ... N tokens" lines of a llama.cpp server log since the last `take()`."""

    def __init__(self, path: str):
        self.fh = open(path, encoding="utf-8", errors="replace")
        self.fh.seek(0, os.SEEK_END)

    def take(self, settle: float = 0.05) -> int:
        time.sleep(settle)  # the server prints its timings as it answers
        total = 0
        for line in self.fh.readlines():
            m = _EVAL_RE.search(line)
            if m:
                total += int(m.group(1))
        return total


class Metered:
    """An LLM client stand-in that attributes the server's processed prompt tokens to each act's use."""

    def __init__(self, client: LLMClient, log: Optional[ServerLog]):
        self.client, self.log = client, log
        self.processed: dict = {}  # (seat, use) -> processed prompt tokens
        self.metering = 0.0  # seconds spent reading the server log inside acts (not the client's cost)
        if log:
            log.take(0)

    def __getattr__(self, name):
        return getattr(self.client, name)

    def _count(self, usage) -> None:
        if self.log is not None and usage is not None and hasattr(usage, "use"):
            t0 = time.perf_counter()
            key = (getattr(usage, "seat", None), usage.use)
            self.processed[key] = self.processed.get(key, 0) + self.log.take()
            self.metering += time.perf_counter() - t0

    def chat_json(self, messages, schema, *, usage=None, **kw):
        try:
            return self.client.chat_json(messages, schema, usage=usage, **kw)
        finally:
            self._count(usage)

    def chat(self, messages, *, usage=None, **kw):
        try:
            return self.client.chat(messages, usage=usage, **kw)
        finally:
            self._count(usage)


def make_client(structured: str, seed: int) -> LLMClient:
    cfg = LLMConfig.from_env(os.environ)
    if cfg is None:
        raise SystemExit("set LLM_MODEL and LLM_BASE_URL (the local server) first")
    cfg.structured = structured
    cfg.seed = seed if cfg.seed is None else cfg.seed
    return LLMClient(cfg)


def run_case(task: str, case: tuple, structured: str, prefix: bool, games: int, seed: int,
             log: Optional[ServerLog], out: str) -> tuple[list, dict, Optional[str], float]:
    spec = get_task(task)
    seat_a, brain_a, seat_b, brain_b = case
    agents = {seat_a: brain_a, seat_b: brain_b}
    options = {**BRAIN_OPTIONS.get(task, {}), "stable_prefix": prefix}
    with make_client(structured, seed) as client:
        llm = Metered(client, log)
        records = evaluation.play_many(spec, games, seed, agents, {}, llm, out, progress=False, brain_options=options)
        form = client.structured_form
    return records, llm.processed, form, llm.metering


def rows_for(label: str, records: list, processed: dict) -> list[list]:
    per: dict = {}
    for rec in records:
        for a in rec.llm_acts:
            per.setdefault((a["seat"], a["brain"], a["use"]), []).append(a)
    n = max(1, len(records))
    out = []
    for (seat, brain, use), acts in sorted(per.items()):
        k = len(acts)
        valid = sum(a["valid"] for a in acts)
        fallback = sum(a["fallback"] for a in acts)
        prompt = sum(a["prompt_tokens"] for a in acts)
        done = processed.get((seat, use))
        out.append([label, seat, brain, use, k, round(100 * valid / k, 1), round(100 * fallback / k, 1),
                    sum(a["repairs"] for a in acts), round(prompt / k), None if done is None else round(done / k),
                    round(statistics.mean(a["seconds"] for a in acts), 2), round(max(a["seconds"] for a in acts), 2),
                    round(sum(a["prompt_tokens"] + a["completion_tokens"] for a in acts) / n)])
    return out


def client_cost(records_by_label: list, metering: float = 0.0) -> list[list]:
    """Per use: acts, act s, model s (HTTP + queue), the client's own ms and share. The bench's own server-log reading
    (`metering`, inside the acts) is taken out, spread over the acts by their number."""
    per: dict = {}
    for _, records in records_by_label:
        for rec in records:
            for a in rec.llm_acts:
                if a["calls"]:
                    per.setdefault(a["use"], []).append(a)
    total = sum(len(v) for v in per.values()) or 1
    out = []
    for use, acts in sorted(per.items()):
        act_s = sum(a["seconds"] for a in acts) - metering * len(acts) / total
        model_s = sum(a["model_seconds"] + a["queue_seconds"] for a in acts)
        own = max(0.0, act_s - model_s)
        out.append([use, len(acts), round(act_s / len(acts), 3), round(model_s / len(acts), 3),
                    round(1000 * own / len(acts), 2), round(100 * own / act_s, 2) if act_s else None])
    return out


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--structured", default="auto,off")
    p.add_argument("--prefix", default="on,off")
    p.add_argument("--tasks", default="travel,gnomes")
    p.add_argument("--variants", default="", help="travel agents to play (default: all four)")
    p.add_argument("--server-log", help="a llama.cpp server's log, for the processed prompt tokens per act")
    p.add_argument("--out", default=os.path.join("runs", "bench-llm"))
    args = p.parse_args(argv)
    log = ServerLog(args.server_log) if args.server_log else None
    rows, by_label = [], []
    metering = 0.0
    t0 = time.time()
    for structured in args.structured.split(","):
        for prefix in args.prefix.split(","):
            for task in args.tasks.split(","):
                if task == "gnomes" and prefix == "off":
                    continue  # gnomes' prompts are one stable prefix + the message either way: nothing to compare
                for case in CASES[task]:
                    if task == "travel" and args.variants and case[3] not in args.variants.split(","):
                        continue
                    label = f"structured {structured}, prefix {prefix}"
                    out = os.path.join(args.out, f"{task}-{case[3]}-{structured}-{prefix}")
                    started = time.time()
                    records, processed, form, metered = run_case(task, case, structured, prefix == "on",
                                                                 args.games, args.seed, log, out)
                    metering += metered
                    print(f"{label}: {task} {case[1]}+{case[3]} ({form}): {time.time() - started:.0f} s, "
                          f"status {[r.results['status'] for r in records]}", file=sys.stderr, flush=True)
                    rows += rows_for(f"{label} ({form})", records, processed)
                    by_label.append((label, records))
    head = ["condition", "seat", "agent", "use", "acts", "valid %", "fallback %", "repaired", "prompt tok/act",
            "processed tok/act", "s/act", "max s", "tokens/game"]
    cost_head = ["use", "acts", "act s", "model s", "client ms", "client % of act"]
    cost = client_cost(by_label, metering)
    print(evaluation.format_table(head, rows))
    print()
    print("Client's own cost per act (prompt building, parsing, validation) beside the model's time:")
    print(evaluation.format_table(cost_head, cost))
    write_figure("bench_llm", [markdown_table(head, rows), "Client's own cost per act (prompt building, parsing, "
                               "validation) beside the model's time:", markdown_table(cost_head, cost)],
                 command_line(argv, "bench.bench_llm"),
                 [f"Model {os.environ.get('LLM_MODEL', '(configured)')}, {args.games} game(s) per case, "
                  f"seed {args.seed}."])
    print(f"\n{time.time() - t0:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
