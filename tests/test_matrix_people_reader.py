"""The negotiation-games agent's reading of people's lines (`workflow.reading`: the question asked, "you pick",
refusal, agreement, the moves named) against the scripted people's phrases (every one read right) and a held-out
batch written in the released dialogues' manner after the reader was done (its accuracy is reported, and checked
loosely: it is a figure, not a target the reader was tuned to)."""
from __future__ import annotations

import os

import pytest
import yaml

from tasks.matrix_games.brains.people import PEOPLE
from tasks.matrix_games.brains import people as P
from tasks.matrix_games.brains.workflow import reading

HERE = os.path.join(os.path.dirname(__file__), "data", "people", "matrix_games")
FIELDS = ("q", "defer", "refuse", "agree", "mine", "theirs")
BOS = ["Opera", "Football"]


def load(name: str) -> list[dict]:
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def misses(entries: list[dict]) -> list:
    out = []
    for e in entries:
        labels = e.get("labels") or BOS
        r = reading(e["t"], labels, labels)
        got = {"q": r["question"], "defer": r["defer"], "refuse": r["refuse"], "agree": r["agree"],
               "mine": r["mine"], "theirs": r["theirs"]}
        want = {f: e.get(f, False if f in ("defer", "refuse", "agree") else None) for f in FIELDS}
        wrong = {f: (want[f], got[f]) for f in FIELDS if want[f] != got[f]}
        if wrong:
            out.append((e["t"], wrong))
    return out


def test_every_phrase_of_the_scripted_people_is_read_right():
    assert misses(load("phrases.yaml")) == []


def test_the_corpus_holds_the_peoples_phrases():
    """The corpus is the people's own wording: a phrase added to people.py must be added (and read) here too."""
    said = {e["t"] for e in load("phrases.yaml")}
    for group in (P.AGREE, P.AGREEABLE, P.WHY, P.WHAT_YOU, P.WHAT_ME, P.REJECT, P.DEFER, P.OK, P.TERSE_OK):
        assert set(group) <= said, set(group) - said
    assert len(PEOPLE) == 7


def test_held_out_phrases(capsys):
    entries = load("heldout.yaml")
    wrong = misses(entries)
    accuracy = 1 - len(wrong) / len(entries)
    with capsys.disabled():
        print(f"\nmatrix-games held-out reading: {accuracy:.0%} of {len(entries)}; misses: {wrong}")
    assert accuracy >= 0.6, wrong


@pytest.mark.parametrize("text", ["i'll do go, you do wait", "why?", "you pick", "nah"])
def test_reading_is_the_agents_own(text):
    """The reading the test measures is the one the agent acts on (one function, no copy)."""
    from tasks.matrix_games.brains import workflow
    assert workflow.WorkflowBrain._matrix_talk.__globals__["reading"] is reading
