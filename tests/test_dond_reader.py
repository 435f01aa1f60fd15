"""The plain-English reader of Deal or No Deal against its phrase corpus (tests/fixtures/phrases/dond.yaml): the
issue's own examples must be read exactly, the corpus as a whole at 95% or better, and the reader must not invent
offers or statements in small talk."""
from __future__ import annotations

import os

import pytest
import yaml

from tasks.dond.items import ITEMS
from tasks.dond.reader import read, reason_of

CORPUS = os.path.join(os.path.dirname(__file__), "fixtures", "phrases", "dond.yaml")
FIELDS = ("offer", "open", "says", "asks", "want", "yes", "no", "defer", "reason")
KIND = {k: i for i, k in enumerate(ITEMS)}


def load() -> list[dict]:
    with open(CORPUS, encoding="utf-8") as fh:
        entries = yaml.safe_load(fh)
    # YAML 1.1 reads the keys yes/no as booleans
    return [{({True: "yes", False: "no"}.get(k, k) if isinstance(k, bool) else k): v for k, v in e.items()}
            for e in entries]


def _statement(text: str) -> tuple:
    kind, *types = text.split()
    ks = [KIND[t] for t in types]
    return (kind, ks[0], ks[1] if len(ks) > 1 else None)


def expected(e: dict) -> dict:
    return {"offer": tuple(e["offer"]) if e.get("offer") else None,
            "open": sorted(KIND[t] for t in e.get("open") or []),
            "says": sorted(set(_statement(s) for s in e.get("says") or []), key=str),
            "asks": sorted((None if a == "any" else KIND[a]) for a in e.get("asks") or []),
            "want": bool(e.get("want")), "yes": bool(e.get("yes")), "no": bool(e.get("no")),
            "defer": bool(e.get("defer")), "reason": e.get("reason")}


def got(text: str, counts) -> dict:
    r = read(text, counts)
    offer, open_types = r.complete(counts) if r.has_offer else (None, [])
    return {"offer": offer, "open": sorted(open_types), "says": sorted(set(r.statements), key=str),
            "asks": sorted(r.ask_value, key=lambda k: -1 if k is None else k), "want": r.ask_want, "yes": r.yes,
            "no": r.no, "defer": r.defer, "reason": r.reason}


def score(entries) -> tuple[float, list]:
    misses = []
    for e in entries:
        want, have = expected(e), got(e["t"], tuple(e.get("counts", (3, 2, 1))))
        wrong = {f: (want[f], have[f]) for f in FIELDS if want[f] != have[f]}
        if wrong:
            misses.append((e["t"], wrong))
    return 1 - len(misses) / len(entries), misses


ISSUE = ["I'd like the books, you can have the rest", "i want the books and a hat", "you can have the balls",
         "give me 2 hats", "you choose", "hats are worthless to me", "i really need the ball", "what do you want?",
         "what are hats worth to you?"]


def test_the_corpus_is_read_well():
    entries = load()
    assert len(entries) >= 60
    accuracy, misses = score(entries)
    assert accuracy >= 0.95, misses


@pytest.mark.parametrize("text", ISSUE)
def test_the_issue_phrases_are_read_exactly(text):
    entry = next(e for e in load() if e["t"] == text)
    assert got(text, tuple(entry.get("counts", (3, 2, 1)))) == expected(entry)


def test_small_talk_is_no_offer_and_no_statement():
    for text in ("hi there", "hello, how are you?", "good luck!", "let's make a deal", "hmm, let me think"):
        r = read(text, (3, 2, 1))
        assert not r.has_offer and not r.statements, text


def test_partial_offer_lists_the_open_types():
    r = read("you get the books, I get the hats", (3, 2, 1))
    assert r.complete((3, 2, 1)) == (None, [2])


def test_quantities_are_capped_by_the_counts():
    r = read("give me 4 hats", (3, 2, 1))
    assert r.complete((3, 2, 1))[0] == (0, 2, 0)


def test_reject_reasons_map_to_the_papers_reasons():
    assert reason_of("not fair") == "R1"
    assert reason_of("we can do better") == "R2"
    assert reason_of("R2") == "R2"
    assert reason_of(None) is None and reason_of("hmm") is None


def test_held_out_phrases_are_mostly_read():
    """Phrases written after the reader and never used to change it: a measure of how it generalises (67% when
    they were written), checked loosely so that a change that breaks the reader's generality fails here."""
    path = os.path.join(os.path.dirname(__file__), "fixtures", "phrases", "dond_heldout.yaml")
    with open(path, encoding="utf-8") as fh:
        entries = [{({True: "yes", False: "no"}.get(k, k) if isinstance(k, bool) else k): v for k, v in e.items()}
                   for e in yaml.safe_load(fh)]
    assert len(entries) >= 30
    accuracy, misses = score(entries)
    assert accuracy >= 0.6, misses
