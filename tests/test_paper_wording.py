"""The papers' prompt wording stays theirs: no string in our code shares a run of eight words with the prompt text
of the original releases (hashed in tests/fixtures/paper-ngrams.txt.gz by tests/tools/paper_fingerprint.py).

A `paper` preset reads the wording from the release at run time (`--paper-prompts PATH`); our own prompts say the
same things in our words. Game data the releases also hold (reviewer names, paper titles, room lists) are facts of
the data sets, not prompt wording: ALLOWED names those files with the reason."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.tools.paper_fingerprint import WORDS, digest, load, words

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("tasks", "bots", "plugins", "layouts")
# file (relative to the project) -> why its matches are not prompt wording
ALLOWED = {
    "tasks/assignment/names.py": "reviewer names and paper titles of the released DialOp data",
}
# runs that are names, formats or data, not wording: a substring of the run -> why
ALLOWED_RUNS = {
    "stay put move right move up move left move down": "Gnomes at Night's five moves, named",
    "stay put right up left down inquiry accept reject": "Gnomes at Night's intent flags, named",
    "shared calendar visible to assistant id importance times": "the column names of DialOp's calendar table",
    "living room to the children's room": "two room names of Traveling Adventurers' house",
    "get a good deal on the flight price": "a Mediation preference as the game's data words it",
    "price have everyone arrive around the same time": "a Mediation preference as the game's data words it",
    "deal book x hat y ball z deal": "the offer format the paper's extraction answers in",
    "translate values self example count self agent values": "a placeholder of the release's template (code)",
    "compute score self agent values self example count": "a placeholder of the release's template (code)",
    "probability due to envy and probability due to greedy": "a branch test of the release's code (its names)",
    "id other possibility the other player accept probability": "placeholders of the release's templates (code)",
}


def _python_text(path: Path) -> str:
    """The file's string literals in source order (f-string pieces included), one line each."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [(n.lineno, n.col_offset, n.value) for n in ast.walk(tree)
             if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return "\n".join(v for _, _, v in sorted(found))


def _text(path: Path) -> str:
    if path.suffix == ".py":
        return _python_text(path)
    return path.read_text(encoding="utf-8", errors="ignore")


def _meaningful(run: list[str]) -> bool:
    # runs of one-letter tokens (room ids "l e l b ...") or of a few repeated words are not wording
    return sum(len(w) >= 3 for w in run) >= 5 and len(set(run)) >= 5


def copied_runs(text: str, fingerprints: set[str]) -> list[str]:
    """The longest runs of `text` whose every eight-word window is in `fingerprints`."""
    w = words(text)
    hit = [digest(w[i:i + WORDS]) in fingerprints and _meaningful(w[i:i + WORDS])
           for i in range(len(w) - WORDS + 1)]
    runs, i = [], 0
    while i < len(hit):
        if hit[i]:
            j = i
            while j < len(hit) and hit[j]:
                j += 1
            run = " ".join(w[i:j + WORDS - 1])
            if not any(ok in run or run in ok for ok in ALLOWED_RUNS):
                runs.append(run)
            i = j
        else:
            i += 1
    return runs


def test_the_fingerprints_catch_a_copied_sentence():
    fingerprints = load()
    assert len(fingerprints) > 10_000
    # a sentence of Hua et al.'s negotiation prompt (its words are in the hashes only), and our own rewording
    copied = ("you can also choose the halt the negotiation by saying halt negotiation")
    ours = "either of you may stop the talk early by writing the stop keyword between the tags"
    assert copied_runs(copied, fingerprints)
    assert not copied_runs(ours, fingerprints)


def test_no_string_of_ours_copies_a_papers_prompt():
    fingerprints = load()
    found = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if not path.is_file() or path.suffix not in (".py", ".js", ".json", ".html", ".txt", ".md") \
                    or rel in ALLOWED or "__pycache__" in rel:
                continue
            runs = copied_runs(_text(path), fingerprints)
            if runs:
                found[rel] = runs
    assert not found, "our code copies the papers' wording (read it from the release instead):\n" + "\n".join(
        f"{f}: {' | '.join(r[:120] for r in runs)}" for f, runs in found.items())
