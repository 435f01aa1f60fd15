"""Independent seeded games side by side, results in input order (the same as one after another).

Threads: the games that gain are those waiting on a model server (the LLM client's per-endpoint limit decides how
many requests are in flight); symbolic games share the interpreter and gain little.
"""
from __future__ import annotations

import concurrent.futures as cf
import sys
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_games(fn: Callable[[int, T], R], items: Iterable[T], parallel: int = 1, progress: str = "") -> list[R]:
    """[fn(i, item) for each item], `parallel` at a time; `progress` names the unit of a progress line on a tty."""
    items = list(items)
    out: list = [None] * len(items)
    show = bool(progress) and sys.stderr.isatty()
    done = 0
    if parallel <= 1 or len(items) <= 1:
        for i, item in enumerate(items):
            out[i] = fn(i, item)
            done += 1
            if show:
                sys.stderr.write(f"\r{done}/{len(items)} {progress}")
    else:
        with cf.ThreadPoolExecutor(max_workers=min(parallel, len(items)), thread_name_prefix="game") as pool:
            futures = {pool.submit(fn, i, item): i for i, item in enumerate(items)}
            try:
                for fut in cf.as_completed(futures):
                    out[futures[fut]] = fut.result()
                    done += 1
                    if show:
                        sys.stderr.write(f"\r{done}/{len(items)} {progress}")
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    if show and items:
        sys.stderr.write("\n")
    return out
