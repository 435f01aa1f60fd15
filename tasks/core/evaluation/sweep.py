"""Sweeps of local games: games in parallel, a run directory that survives a crash, shards for a cluster.

A sweep is a list of jobs (condition, game index, seed). Each finished game is written to the run directory as one
JSON record (`records/game-NNNN.json`, written to a temporary file and renamed, so a record is either whole or
absent); re-running the same command into the same `--out` plays only the games without a record. A game cut off
half-way has no record and is played again from its seed (its log is rewritten). Tables are always built from the
stored records, so a fresh run, a resumed run and a merge of shards print the same thing.

Parallelism: games with an LLM run in threads (they wait on the model server; the client's per-endpoint limit
`llm.concurrency` stays the one place that decides how many requests are in flight); symbolic games run in
processes (they use the CPU). Every game is seeded and independent, so the results do not depend on the order in
which games finish.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import os
import sys
import time
from dataclasses import asdict, dataclass
from typing import Callable, Iterable, Optional

MANIFEST = "sweep.json"
RECORDS = "records"
# Fields of a run that must match for a directory to be resumed or merged (the shard may differ).
SAME_RUN = ("task", "agents", "seed", "games", "conditions", "brain_options", "model", "population")


@dataclass(frozen=True)
class Job:
    condition: int        # index into the run's conditions
    index: int            # game index within its condition
    seed: int


def plan(conditions: int, games: int, seed: int) -> list[Job]:
    """Every game of every condition; game i of each condition uses seed + i (as a serial run does)."""
    return [Job(c, i, seed + i) for c in range(conditions) for i in range(games)]


def parse_shard(text: Optional[str]) -> Optional[tuple[int, int]]:
    """'i/N' (1-based) -> (i, N); None when not sharded. Raises SystemExit with a clear message otherwise."""
    if not text:
        return None
    try:
        i, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise SystemExit(f"--shard takes i/N, e.g. 2/8 (got {text!r})") from None
    if n < 1 or not 1 <= i <= n:
        raise SystemExit(f"--shard {text}: i must be between 1 and N")
    return i, n


def shard(jobs: list[Job], part: Optional[tuple[int, int]]) -> list[Job]:
    """The i-th of N shares, dealt round-robin so every shard gets a mix of conditions."""
    if part is None:
        return list(jobs)
    i, n = part
    return [j for k, j in enumerate(jobs) if k % n == i - 1]


class RunDir:
    """The run directory: `sweep.json` (what the run is) and one record per finished game."""

    def __init__(self, out: str, manifest: dict, subdirs: list[str]):
        self.out = out
        self.manifest = manifest
        self.subdirs = subdirs  # per condition: where its logs, CSVs and records go

    @classmethod
    def open(cls, out: str, manifest: dict, subdirs: list[str]) -> "RunDir":
        """Create the directory, or check that the one there holds the same run (so it can be resumed)."""
        path = os.path.join(out, MANIFEST)
        if os.path.exists(path):
            old = read_manifest(out)
            diff = [k for k in SAME_RUN if old.get(k) != manifest.get(k)]
            if diff:
                raise SystemExit(f"{out} holds a different run (it differs in: {', '.join(diff)}); "
                                 "use another --out, or the same command as before to resume it")
        os.makedirs(out, exist_ok=True)
        _write_json(path, manifest)
        return cls(out, manifest, subdirs)

    def record_path(self, job: Job) -> str:
        return os.path.join(self.subdirs[job.condition], RECORDS, f"game-{job.index:04d}.json")

    def log_path(self, job: Job) -> str:
        return os.path.join(self.subdirs[job.condition], "logs", f"game-{job.index:04d}.jsonl")

    def load(self, job: Job) -> Optional[dict]:
        try:
            with open(self.record_path(job), encoding="utf-8") as fh:
                return json.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None  # unreadable: played again

    def save(self, job: Job, record: dict) -> None:
        _write_json(self.record_path(job), record)


def read_manifest(out: str) -> dict:
    with open(os.path.join(out, MANIFEST), encoding="utf-8") as fh:
        return json.load(fh)


def _write_json(path: str, data) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, sort_keys=True, default=_jsonable)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if hasattr(value, "__dataclass_fields__"):
        return asdict(value)
    return str(value)


def round_trip(record: dict) -> dict:
    """The record as it reads back from disk (tuples become lists, ...): tables are built from this form only."""
    return json.loads(json.dumps(record, sort_keys=True, default=_jsonable))


# ----------------------------------------------------------------------------------------------------------------
# Running


def default_parallel(llm, games: int) -> int:
    """What the endpoint allows for LLM runs (`llm.concurrency`; 0 = no limit: 64), the CPU cores otherwise."""
    if llm is not None:
        limit = getattr(llm, "concurrency", 1)
        n = 64 if not limit else int(limit)
    else:
        n = os.cpu_count() or 1
    return max(1, min(n, games))


def run(jobs: list[Job], play: Callable[[Job], dict], rundir: RunDir, *, parallel: int = 1, processes: bool = False,
        progress: bool = True, worker: Optional[Callable] = None, worker_args: Callable[[Job], tuple] = None
        ) -> dict[Job, dict]:
    """Play every job that has no record yet, `parallel` at a time, saving each record as its game ends.

    Threads call `play(job)`; processes call the module-level `worker(*worker_args(job))` (it must be picklable).
    Returns every job's record, read back from the run directory. Ctrl-C stops the run: finished games keep their
    records, the rest are played by the next run of the same command."""
    records: dict[Job, dict] = {}
    todo = []
    for job in jobs:
        rec = rundir.load(job)
        if rec is None:
            todo.append(job)
        else:
            records[job] = rec
    if records:
        print(f"resuming {rundir.out}: {len(records)} of {len(jobs)} games recorded, playing {len(todo)}",
              file=sys.stderr)
    bar = _Progress(len(jobs), len(records), progress)
    try:
        if parallel <= 1 or len(todo) <= 1:
            for job in todo:
                records[job] = _finish(rundir, job, play(job))
                bar.tick()
        else:
            pool = _pool(min(parallel, len(todo)), processes)
            with pool:
                if processes:
                    futures = {pool.submit(worker, *worker_args(job)): job for job in todo}
                else:
                    futures = {pool.submit(play, job): job for job in todo}
                try:
                    for fut in cf.as_completed(futures):
                        job = futures[fut]
                        records[job] = _finish(rundir, job, fut.result())
                        bar.tick()
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
    except KeyboardInterrupt:
        bar.end()
        raise SystemExit(f"interrupted: {len(records)} of {len(jobs)} games recorded in {rundir.out}; run the same "
                         "command again to play the rest") from None
    bar.end()
    return {job: records[job] for job in jobs}


def _finish(rundir: RunDir, job: Job, record: dict) -> dict:
    rundir.save(job, record)
    return round_trip(record)


def _pool(n: int, processes: bool):
    if not processes:
        return cf.ThreadPoolExecutor(max_workers=n, thread_name_prefix="game")
    # forkserver: workers start from a clean process that imported the suite once (no threads of ours copied).
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["tasks.core.evaluation"])
    return cf.ProcessPoolExecutor(max_workers=n, mp_context=ctx)


class _Progress:
    def __init__(self, total: int, done: int, on: bool):
        self.total, self.done, self.on, self.start = total, done, on, time.time()
        self.first = done

    def tick(self) -> None:
        self.done += 1
        if not self.on or not self.total:
            return
        elapsed = time.time() - self.start
        played = self.done - self.first
        eta = elapsed / played * (self.total - self.done) if played else 0.0
        width = 30
        filled = int(width * self.done / self.total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} games, "
                         f"{elapsed:5.1f}s, eta {eta:4.1f}s")
        sys.stderr.flush()

    def end(self) -> None:
        if self.on and self.done > self.first:
            sys.stderr.write("\n")


def load_all(dirs: Iterable[str]) -> tuple[dict, dict[tuple[int, int], dict]]:
    """Read shard directories of one run: (manifest, {(condition, index): record}). Raises SystemExit when they are
    not shards of the same run."""
    manifest, records = None, {}
    for out in dirs:
        try:
            m = read_manifest(out)
        except FileNotFoundError:
            raise SystemExit(f"{out}: no {MANIFEST} (not a run directory of --games)") from None
        if manifest is None:
            manifest = m
        else:
            diff = [k for k in SAME_RUN if manifest.get(k) != m.get(k)]
            if diff:
                raise SystemExit(f"{out} is not a shard of the same run as {dirs[0] if isinstance(dirs, list) else ''} "
                                 f"(it differs in: {', '.join(diff)})")
        subdirs = [os.path.join(out, s) if s else out for s in m["subdirs"]]
        for c, sub in enumerate(subdirs):
            folder = os.path.join(sub, RECORDS)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if name.startswith("game-") and name.endswith(".json"):
                    with open(os.path.join(folder, name), encoding="utf-8") as fh:
                        records[(c, int(name[5:-5]))] = json.load(fh)
    if manifest is None:
        raise SystemExit("merge needs at least one run directory")
    return manifest, records
