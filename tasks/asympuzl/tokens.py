"""Tokens per turn with one common tokenizer for every model (the paper's tokens-per-turn figures and the share of
output tokens that went into the message), so models with different tokenizers compare on one scale.

The tokenizer is OpenAI's cl100k_base BPE through `tiktoken`, offline (tasks/core/tokens.py). The `llm` agent
notes each turn's counts (`turn_tokens` rows of its log); `turn_table` sums them per seat and round over games:

    python -m tasks.asympuzl.tokens RUN_DIR [RUN_DIR ...]     # every game log (*.jsonl) under the folders
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from tasks.core.tokens import TOKENIZER, count  # noqa: F401 (count: this module's counter, tokens.count)

HEADER = ["seat", "round", "turns", "prompt tokens", "output tokens", "message tokens", "message share %"]


def turn_notes(rows) -> list[dict]:
    """The `turn_tokens` notes among a game's log rows (Slurk's row shape)."""
    return [dict(r["data"]) for r in rows if r.get("event") == "agent_note" and isinstance(r.get("data"), dict)
            and r["data"].get("kind") == "turn_tokens"]


def turn_table(games: list[list[dict]]) -> list[list]:
    """One row per (seat, round) over games (each game a list of `turn_tokens` notes; a repaired turn's calls add
    up): turns, mean prompt, output and message tokens per turn, and the message share of the output tokens."""
    per: dict = {}
    for notes in games:
        turns: dict = {}
        for n in notes:
            t = turns.setdefault((str(n.get("seat")), int(n.get("round") or 0)), [0, 0, 0])
            for i, k in enumerate(("prompt", "output", "message")):
                t[i] += int(n.get(k) or 0)
        for key, t in turns.items():
            s = per.setdefault(key, [0, 0, 0, 0])
            s[0] += 1
            for i in range(3):
                s[i + 1] += t[i]
    rows = []
    for (seat, rnd), (k, prompt, output, message) in sorted(per.items()):
        share = round(100 * message / output, 1) if output else None
        rows.append([seat, rnd, k, round(prompt / k, 1), round(output / k, 1), round(message / k, 1), share])
    return rows


def read_logs(folders) -> list[list[dict]]:
    """The `turn_tokens` notes of every game log under `folders` (one list per log that has any)."""
    games = []
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.jsonl")):
            with open(path, encoding="utf-8") as fh:
                rows = [json.loads(line) for line in fh if line.strip().startswith("{")]
            notes = turn_notes(rows)
            if notes:
                games.append(notes)
    return games


def main(argv: list[str]) -> int:
    from tasks.core.evaluation.tables import format_table  # the run tables' layout (not needed to count)
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    games = read_logs(argv)
    if not games:
        print(f"no turn_tokens notes in the logs under {', '.join(argv)} (only the llm agent writes them)",
              file=sys.stderr)
        return 1
    print(f"Tokens per turn ({TOKENIZER}, one tokenizer for every model), {len(games)} games:")
    print(format_table(HEADER, [["-" if c is None else c for c in r] for r in turn_table(games)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
