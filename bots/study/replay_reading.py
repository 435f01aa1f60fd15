"""Finding and reading room logs (JSON-lines, one row per line, in Slurk's row shape), and the row helpers."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from bots.slurk import logbatch

from .replay_model import LogSkipped, Problem


def find_logs(paths: Iterable[str]) -> tuple[list[str], list[Problem]]:
    """The log files in `paths` (files, or folders searched recursively for *.jsonl), each once."""
    files, problems, seen = [], [], set()
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(str(f) for f in path.rglob("*.jsonl") if f.is_file())
            if not found:
                problems.append(Problem(str(path), None, "no *.jsonl logs in this folder"))
        elif path.is_file():
            found = [str(path)]
        else:
            problems.append(Problem(str(path), None, "no such file or folder"))
            found = []
        for f in found:
            key = os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                files.append(f)
    return files, problems


def read_log(path: str) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """(line, row) pairs in log order (by id when every row has a distinct one, else file order). A broken line skips
    the file (raises LogSkipped), except a broken *last* line (a write cut short), which is dropped with a warning so
    the game shows up as incomplete."""
    with open(path, "rb") as fh:
        lines = [(i, raw) for i, raw in enumerate(fh.read().split(b"\n"), 1) if raw.strip()]
    rows: list[tuple[int, dict]] = []
    problems: list[Problem] = []
    for k, (lineno, raw) in enumerate(lines):
        why = None
        try:
            row = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            why = "not UTF-8 text"
        except json.JSONDecodeError as exc:
            why = f"not valid JSON ({exc.msg})"
        else:
            if not isinstance(row, dict) or not isinstance(row.get("event"), str):
                why = "not a log row (no 'event')"
        if why:
            if k == len(lines) - 1 and rows:
                problems.append(Problem(path, lineno, f"{why}; the last line was cut short and is ignored", False))
                break
            raise LogSkipped(lineno, f"{why}; the whole log is skipped")
        rows.append((lineno, row))
    if any(logbatch.is_batch(r) for _, r in rows):
        # saved without expanding the bot's batch rows (by another tool than `logs download`): the rows they hold
        # are read as rows of their own; the replay tells rows apart by their number, so rows are numbered 1, 2, ...
        rows = [x for _, r in rows for x in (logbatch.inner_rows(r) if logbatch.is_batch(r) else [r])]
        rows = list(enumerate(rows, 1))
        problems.append(Problem(path, None, f"holds the bot's {logbatch.BATCH_EVENT} rows as Slurk stores them (not "
                                            "saved by `logs download`): line numbers below count the rows they hold "
                                            "one by one", False))
    ids = [r.get("id") for _, r in rows if "batch" not in r]
    batches = {r.get("id") for _, r in rows if "batch" in r}
    if rows and all(isinstance(i, int) and not isinstance(i, bool) for i in [*ids, *batches]) \
            and len(set(ids)) == len(ids) and batches.isdisjoint(ids):
        # Slurk ids give the true order (timestamps have whole seconds); a batch's rows share one, in their order
        rows.sort(key=lambda lr: lr[1]["id"])
    return rows, problems


def row_data(row: dict) -> dict:
    """A row's data object ({} when it has none)."""
    d = row.get("data")
    return d if isinstance(d, dict) else {}


def event_payload(row: dict) -> dict:
    """A bot event's data as the match produced it (without what the Slurk runtime adds for routing)."""
    return {k: v for k, v in row_data(row).items() if k != "receiver_seat"}


def completion_code(data: dict):
    """The code in a confirmation_log row's data (slurk-bots name it in several ways), or None."""
    return data.get("confirmation_token") or data.get("amt_token") or data.get("token")
