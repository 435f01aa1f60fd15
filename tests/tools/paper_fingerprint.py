"""Fingerprints of the papers' prompt wording, so a test can tell when our code copies it without the repository
holding a word of it.

The papers' prompts and few-shot dialogues are theirs: the `paper` presets read them at run time from a checkout of
the original release (`--paper-prompts PATH`). This file hashes every run of `WORDS` consecutive words of the
releases' prompt-bearing files (a 12-hex-digit prefix of SHA-1, not reversible into the text) into
`tests/fixtures/paper-ngrams.txt.gz`; tests/test_paper_wording.py checks our string literals against it.

Rebuild after a release changes:
    python -m tests.tools.paper_fingerprint /path/to/releases   # the folder holding the four checkouts
"""
from __future__ import annotations

import gzip
import hashlib
import re
import sys
from pathlib import Path

WORDS = 8
OUT = Path(__file__).resolve().parents[1] / "fixtures" / "paper-ngrams.txt.gz"
# Where each paper's prompt text lives in its release (relative to the releases folder).
SOURCES = (
    ("dialop/dialop/prompts", "*.txt"),                       # DialOp few-shot prompts
    ("dialop/dialop", "*.py"),                                # DialOp players and templates
    ("game_theory/src", "*.py"),                              # Hua et al.: matrix games and workflows
    ("game_theory/src/deal_no_deal", "*.py"),                 # Hua et al.: Deal or No Deal
    ("collaborative-problem-solving/GAME", "**/*.py"),        # Traveling Adventurers agents' prompts
    ("shared_control_language", "**/*.py"),                   # Gnomes at Night's language glue
)


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def digest(run: list[str]) -> str:
    return hashlib.sha1(" ".join(run).encode("utf-8")).hexdigest()[:12]


def ngrams(text: str) -> list[str]:
    w = words(text)
    return [digest(w[i:i + WORDS]) for i in range(len(w) - WORDS + 1)]


def build(releases: Path) -> set[str]:
    out: set[str] = set()
    for folder, pattern in SOURCES:
        base = releases / folder
        if not base.is_dir():
            raise SystemExit(f"missing {base}: check out the original releases there first")
        for path in sorted(base.glob(pattern)):
            if path.is_file():
                out.update(ngrams(path.read_text(encoding="utf-8", errors="ignore")))
    return out


def load() -> set[str]:
    return set(gzip.decompress(OUT.read_bytes()).decode("ascii").split())


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    hashes = build(Path(argv[0]))
    # mtime=0: the same releases give the same bytes
    OUT.write_bytes(gzip.compress("\n".join(sorted(hashes)).encode("ascii"), mtime=0))
    print(f"{len(hashes)} fingerprints -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
