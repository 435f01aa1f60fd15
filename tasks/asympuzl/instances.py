"""Evaluation sets: the paper played 30 seeds per condition and released no puzzles, so its set is, here, our
generator's seeds 0-29 (`PAPER_SEEDS`). A set can also be a file: JSON lines, one puzzle per line as the generator
makes it, checked line by line when loaded. Task option `instances=PATH` plays from a file: the game with seed s
plays the file's puzzle s (line s + 1), so `--games 30 --seed 0` plays the whole 30.

    python -m tasks.asympuzl.instances write PATH [--size 5] [--games 30] [--distractors 0]
    python -m tasks.asympuzl.instances check PATH          # the counts, or the first malformed line
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from functools import lru_cache

from . import generator

PAPER_SEEDS = 30
KEYS = ("size", "distractors", "shapes", "colours", "truth", "a_clues", "b_clues")


def check(inst, where: str) -> dict:
    """The puzzle if it is well formed (both views together decide every position), else ValueError naming
    `where`."""
    def bad(why: str):
        raise ValueError(f"{where}: {why}")
    if not isinstance(inst, dict):
        bad("not a JSON object")
    missing = [k for k in KEYS if k not in inst]
    if missing:
        bad(f"missing {', '.join(missing)}")
    size, d = inst["size"], inst["distractors"]
    if not isinstance(size, int) or not 2 <= size <= generator.MAX_SIZE or not isinstance(d, int) or d < 0:
        bad(f"size must be 2..{generator.MAX_SIZE} and distractors at least 0")
    truth = [tuple(p) for p in inst["truth"]]
    if len(truth) != size or any(len(p) != 2 for p in truth) or len({s for s, _ in truth}) != size:
        bad(f"truth must hold {size} [shape, colour] pairs with distinct shapes")
    if not all(s in inst["shapes"] and c in inst["colours"] for s, c in truth):
        bad("truth names a shape or colour outside the vocabularies")
    a = inst["a_clues"]
    if len(a) != size or any(truth[i][0] not in a[i] for i in range(size)):
        bad("a_clues must list, per position, candidate shapes holding the true one")
    b = [tuple(p) for p in inst["b_clues"]]
    if not set(truth) <= set(b) or len(b) != size + d:
        bad(f"b_clues must hold the {size} true pairs and {d} decoys")
    return inst


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple:
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}, line {n}: not JSON ({exc})") from None
            out.append(check(obj, f"{path}, line {n}"))
    if not out:
        raise ValueError(f"{path} holds no puzzle")
    return tuple(out)


def load(path: str) -> list[dict]:
    """Every puzzle of a set file, checked (ValueError names the file and line)."""
    if not os.path.isfile(path):
        raise ValueError(f"no evaluation set at {path} (write one: python -m tasks.asympuzl.instances write PATH)")
    return list(_load(path, os.path.getmtime(path)))


def pick(path: str, seed: int, size=None) -> dict:
    """The puzzle a game with this seed plays from the set file (its position `seed`)."""
    puzzles = load(path)
    if not 0 <= seed < len(puzzles):
        raise ValueError(f"{path} holds {len(puzzles)} puzzles (seeds 0-{len(puzzles) - 1}); seed {seed} is outside")
    inst = puzzles[seed]
    if size is not None and int(size) != inst["size"]:
        raise ValueError(f"{path}: puzzle {seed} has size {inst['size']}, the run asks for size {size} "
                         "(pass --size to match the set)")
    return json.loads(json.dumps(inst))  # a copy: a game never changes the cached set


def describe(puzzles: list[dict]) -> str:
    """'30 puzzles (size 5: 30)'."""
    sizes = Counter(p["size"] for p in puzzles)
    return f"{len(puzzles)} puzzles ({', '.join(f'size {s}: {k}' for s, k in sorted(sizes.items()))})"


def write(path: str, size: int = 5, games: int = PAPER_SEEDS, distractors: int = 0) -> list[dict]:
    """Our generator's puzzles for seeds 0..games-1 as a set file (the paper's 30 by default)."""
    puzzles = [generator.generate(seed, size=size, distractors=distractors) for seed in range(games)]
    with open(path, "w", encoding="utf-8") as fh:
        for p in puzzles:
            fh.write(json.dumps(p, separators=(",", ":")) + "\n")
    return puzzles


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m tasks.asympuzl.instances", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="write the generator's puzzles of seeds 0..games-1")
    w.add_argument("path")
    w.add_argument("--size", type=int, default=5)
    w.add_argument("--games", type=int, default=PAPER_SEEDS)
    w.add_argument("--distractors", type=int, default=0)
    c = sub.add_parser("check", help="check a set file and print its counts")
    c.add_argument("path")
    args = p.parse_args(argv)
    try:
        if args.cmd == "write":
            puzzles = write(args.path, args.size, args.games, args.distractors)
        else:
            puzzles = load(args.path)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"{args.path}: {describe(puzzles)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
