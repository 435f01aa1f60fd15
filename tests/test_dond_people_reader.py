"""What the Deal-or-No-Deal agent reads as asked of it in people's lines (`bayes.asked`: why, what do you want,
value questions, refusal, "you pick", agreement) against the scripted people's phrases (every one read right) and a
held-out batch of lines from the released dialogues, written down after the reader was done (its accuracy is
reported and checked loosely)."""
from __future__ import annotations

import os

import yaml

from tasks.dond.brains import people as P
from tasks.dond.brains.bayes import asked
from tasks.dond.items import ITEMS

HERE = os.path.join(os.path.dirname(__file__), "data", "people", "dond")
KIND = {k: i for i, k in enumerate(ITEMS)}


def load(name: str) -> list[dict]:
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        entries = yaml.safe_load(fh)
    # YAML 1.1 reads the keys yes/no as booleans
    return [{({True: "yes", False: "no"}.get(k, k) if isinstance(k, bool) else k): v for k, v in e.items()}
            for e in entries]


def misses(entries: list[dict]) -> list:
    out = []
    for e in entries:
        got = asked(e["t"], tuple(e.get("counts", (3, 2, 1))))
        got["values"] = sorted(got["values"], key=lambda k: -1 if k is None else k)
        want = {"why": bool(e.get("why")), "want": bool(e.get("want")), "no": bool(e.get("no")),
                "defer": bool(e.get("defer")), "yes": bool(e.get("yes")),
                "values": sorted((None if v == "any" else KIND[v]) for v in e.get("values") or [])}
        if want["values"] and None in want["values"]:
            want["values"] = [None]
        wrong = {f: (want[f], got[f]) for f in want if want[f] != got[f]}
        if wrong:
            out.append((e["t"], wrong))
    return out


def test_every_phrase_of_the_scripted_people_is_read_right():
    assert misses(load("phrases.yaml")) == []


def test_the_corpus_holds_the_peoples_questions_and_answers():
    said = {e["t"] for e in load("phrases.yaml")}
    worth = {w.format(x=x) for w in P.WORTH for x in ("hats", "books", "balls")}
    for group in (P.WHY, P.WANT, P.WHICH, P.REJECT, P.DEFER, P.NOT_ENOUGH):
        assert set(group) <= said, set(group) - said
    assert said & worth


def test_held_out_phrases(capsys):
    entries = load("heldout.yaml")
    wrong = misses(entries)
    accuracy = 1 - len(wrong) / len(entries)
    with capsys.disabled():
        print(f"\ndond held-out reading: {accuracy:.0%} of {len(entries)}; misses: {wrong}")
    assert accuracy >= 0.6, wrong
