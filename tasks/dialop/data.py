"""Reading the released DialOp human-human dialogues (jlin816/dialop `data.zip`; CDLA-Permissive-2.0).

The project never bundles the data: every function takes a path, either the release's `data.zip` (members
`data/optimization.jsonl`, `data/itinerary.jsonl`, `data/mediation.jsonl`), one of those .jsonl files, or a folder
holding them. One JSON object per line; every record has `result: {score, best, worst, norm}` and an `action_log`.
Task adapters (e.g. `tasks.assignment.released`) rebuild a game's instance and its logged inputs from a record.
"""
from __future__ import annotations

import io
import json
import os
import zipfile
from typing import Iterator, Optional

FILES = {"assignment": "optimization.jsonl", "planning": "itinerary.jsonl", "mediation": "mediation.jsonl"}
ENV_VAR = "DIALOP_DATA"


def default_path() -> str:
    """$DIALOP_DATA, else ../shared/data/dialop/data.zip next to the project (tests use this)."""
    if os.environ.get(ENV_VAR):
        return os.environ[ENV_VAR]
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(os.path.dirname(here), "shared", "data", "dialop", "data.zip")


def _open_text(path: str, task: str) -> io.TextIOBase:
    name = FILES[task]
    if os.path.isdir(path):
        for cand in (os.path.join(path, name), os.path.join(path, "data", name), os.path.join(path, "data.zip")):
            if os.path.exists(cand):
                return _open_text(cand, task)
        raise FileNotFoundError(f"no {name} or data.zip under {path}")
    if zipfile.is_zipfile(path):
        z = zipfile.ZipFile(path)
        member = next((m for m in z.namelist() if m.endswith("/" + name) or m == name), None)
        if member is None:
            raise FileNotFoundError(f"{path} has no {name}")
        return io.TextIOWrapper(z.open(member), encoding="utf-8")
    return open(path, encoding="utf-8")


def read_records(path: str, task: str) -> Iterator[dict]:
    """The records of one task's file, in file order."""
    if task not in FILES:
        raise ValueError(f"unknown DialOp task {task!r}; choose from {', '.join(FILES)}")
    with _open_text(path, task) as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def words(text: str) -> int:
    return len((text or "").split())


def message_words(record: dict) -> list[int]:
    """Words of each action-log entry (0 for anything but a chat message)."""
    out = []
    for a in record.get("action_log") or []:
        if a.get("type") == "message":
            out.append(words((a.get("message") or {}).get("data", "")))
        else:
            out.append(0)
    return out


def duration(record: dict) -> Optional[float]:
    times = [a.get("time") for a in record.get("action_log") or [] if isinstance(a.get("time"), (int, float))]
    return float(max(times)) if times else None
