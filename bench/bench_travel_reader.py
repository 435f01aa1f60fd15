"""Accuracy of travel's plain-English readers on the phrase corpus (tests/fixtures/phrases/travel.yaml).

    python -m bench.bench_travel_reader                 the rule-based reader (no LLM)
    LLM_MODEL=<id> LLM_BASE_URL=http://127.0.0.1:8087/v1 python -m bench.bench_travel_reader --llm [--limit 40]

A phrase counts as read when every field matches (coins, asks, ask_all, cap, path, yes, no, defer); the table also
gives the accuracy per field, and `--misses` lists the phrases read wrong. With `--llm` it also reads the phrases
with the configured model through the solver agent's LLM reader (tasks/travel/brains/llm_reader.py) and counts the
calls that failed (the agent then falls back to the rules). Figures are printed, not asserted.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from bench.figures import command_line, markdown_table, write_figure
from tasks.travel.brains.llm_reader import read_with_llm, reading_schema
from tasks.travel.brains.reader import read
from tests.travel_phrases import FIELDS, expected, got, load


def evaluate(read_fn, entries) -> dict:
    per_field = {f: 0 for f in FIELDS}
    whole, misses, failed = 0, [], 0
    started = time.perf_counter()
    for e in entries:
        rooms = list(e.get("rooms", "LEBKCA"))
        want = expected(e)
        try:
            have = got(read_fn(e["t"], rooms))
        except Exception as exc:  # an LLM call that failed: counted, and read as nothing
            failed += 1
            have = {f: None for f in FIELDS}
            have["error"] = f"{type(exc).__name__}"
        for f in FIELDS:
            per_field[f] += want[f] == have[f]
        if all(want[f] == have[f] for f in FIELDS):
            whole += 1
        else:
            misses.append((e["t"], {f: (want[f], have[f]) for f in FIELDS if want[f] != have[f]}))
    n = len(entries)
    return {"phrases": n, "read %": round(100 * whole / n, 1),
            **{f"{f} %": round(100 * per_field[f] / n, 1) for f in FIELDS},
            "failed calls": failed, "s/phrase": round((time.perf_counter() - started) / n, 4), "misses": misses}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--llm", action="store_true", help="also read with the configured LLM")
    p.add_argument("--limit", type=int, default=0, help="only the first N phrases (LLM runs are slow)")
    p.add_argument("--misses", action="store_true", help="list the phrases read wrong")
    args = p.parse_args(argv)
    entries = load()[: args.limit or None]
    rows = [("rules", evaluate(lambda t, rooms: read(t, rooms, 1, 10), entries))]
    if args.llm:
        from bots.llm import LLMClient, LLMConfig

        cfg = LLMConfig.from_env(os.environ, {})
        if cfg is None:
            raise SystemExit("--llm: no LLM configured (set LLM_MODEL and LLM_BASE_URL)")
        llm = LLMClient(cfg)
        schemas: dict = {}

        def llm_read(text, rooms):
            key = "".join(rooms)
            schemas.setdefault(key, reading_schema(rooms, 1, 10))
            return read_with_llm(llm, text, rooms, 1, 10, {}, schema=schemas[key])

        rows.append((f"llm {cfg.model}", evaluate(llm_read, entries)))
    header = ["reader"] + [k for k in rows[0][1] if k != "misses"]
    from tasks.core.evaluation import format_table

    table = [[name] + [r[k] for k in header[1:]] for name, r in rows]
    print(format_table(header, table))
    write_figure("bench_travel_reader", [markdown_table(header, table)], command_line(argv, "bench.bench_travel_reader"),
                 [f"The phrase corpus tests/fixtures/phrases/travel.yaml ({len(entries)} phrases)."])
    if args.misses:
        for name, r in rows:
            print(f"\n{name}: {len(r['misses'])} misses")
            for text, diff in r["misses"]:
                print(f"  {text!r}: {diff}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
