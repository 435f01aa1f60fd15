"""`./run_bot.sh merge DIR...`: the table of a sweep played in shards (`--shard i/N`), as one run prints it.

Every directory must hold a shard of the same run (same task, agents, seeds, games, conditions); games missing from
all of them are listed, and the table is printed over the games that are there.
"""
from __future__ import annotations

import argparse
import os
import sys

from tasks import get_task
from tasks.core.evaluation import print_tables, records_by_condition, sweep


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="run_bot.sh merge", description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", help="the shard directories (their --out)")
    p.add_argument("--out", help="where the merged CSVs go (default: <first dir>-merged)")
    args = p.parse_args(argv)
    manifest, records = sweep.load_all(args.dirs)
    spec = get_task(manifest["task"])
    games, plans = manifest["games"], manifest["conditions"]
    missing = [(c, i) for c in range(len(plans)) for i in range(games) if (c, i) not in records]
    if missing:
        shown = ", ".join(f"condition {c} game {i}" for c, i in missing[:10])
        print(f"{len(missing)} of {len(plans) * games} games are in no shard ({shown}"
              f"{', ...' if len(missing) > 10 else ''}); the table covers the others", file=sys.stderr)
    out = args.out or args.dirs[0].rstrip("/") + "-merged"
    os.makedirs(out, exist_ok=True)
    print_tables(spec, manifest, records_by_condition(plans, records, games), out)
    return 0
