"""The travel phrase corpus (tests/fixtures/phrases/travel.yaml) and how a reading is scored against it."""
from __future__ import annotations

import os

import yaml

from tasks.travel.board import edge

CORPUS = os.path.join(os.path.dirname(__file__), "fixtures", "phrases", "travel.yaml")
FIELDS = ("coins", "asks", "ask_all", "cap", "path", "yes", "no", "defer")


def load() -> list[dict]:
    with open(CORPUS, encoding="utf-8") as fh:
        entries = yaml.safe_load(fh)
    # YAML 1.1 reads the keys yes/no as booleans
    return [{({True: "yes", False: "no"}.get(k, k) if isinstance(k, bool) else k): v for k, v in e.items()}
            for e in entries]


def _key(k: str) -> tuple:
    u, v = k.split("-")
    return edge(u, v)


def expected(entry: dict) -> dict:
    return {
        "coins": {_key(k): int(v) for k, v in (entry.get("coins") or {}).items()},
        "asks": sorted(_key(k) for k in entry.get("asks") or []),
        "ask_all": bool(entry.get("ask_all", False)),
        "cap": entry.get("cap"),
        "path": list(entry["path"]) if entry.get("path") else None,
        "yes": bool(entry.get("yes", False)), "no": bool(entry.get("no", False)),
        "defer": bool(entry.get("defer", False)),
    }


def got(reading) -> dict:
    return {"coins": dict(reading.coins), "asks": sorted(reading.asks), "ask_all": reading.ask_all,
            "cap": reading.cap, "path": reading.path, "yes": reading.yes, "no": reading.no,
            "defer": reading.defer}


def score(read_fn) -> tuple[float, list]:
    """(accuracy, misses): a phrase counts when every field of its reading matches."""
    entries = load()
    misses = []
    for e in entries:
        rooms = list(e.get("rooms", "LEBKCA"))
        want, have = expected(e), got(read_fn(e["t"], rooms, 1, 10))
        if want != have:
            misses.append((e["t"], {k: (want[k], have[k]) for k in FIELDS if want[k] != have[k]}))
    return 1 - len(misses) / len(entries), misses
