"""AsymPuzl agents and their reading: plain English from people (typos, ordinals, questions), the agents' own lists
through the noisy channel, share-all with a person in either seat, incremental within the 2N limit, and no spam
against a silent partner."""
from __future__ import annotations

import random

import pytest

from tasks.core.evaluation import LOCAL_TIMERS, play_game
from tasks import get_task
from tasks.asympuzl import generator
from tasks.asympuzl.channel import add_noise, read_list_noisy, read_noisy
from tasks.asympuzl.parse import read
from tasks.core import Chat, ChatShown, Join, MatchDriver, SeatInfo, build_match

SPEC = get_task("asympuzl")
SH, CO = list(generator.SHAPES), list(generator.COLOURS)


def facts(text, size=10):
    return [(f.pos, f.shapes, f.colour) for f in read(text, SH, CO, size).facts]


@pytest.mark.parametrize("text,expected", [
    ("position 3 is the red circle", [(3, ("circle",), "red")]),
    ("the triangle is green", [(None, ("triangle",), "green")]),
    ("positon 3 is the red circel", [(3, ("circle",), "red")]),
    ("the triangel is grene!", [(None, ("triangle",), "green")]),
    ("3rd one is a square", [(3, ("square",), None)]),
    ("circle at 2 and square at 4", [(2, ("circle",), None), (4, ("square",), None)]),
    ("the circle is red and the square is blue", [(None, ("circle",), "red"), (None, ("square",), "blue")]),
    ("Position two: the hexagon or the star.", [(2, ("hexagon", "star"), None)]),
    ("i have a yellow large star", [(None, ("large star",), "yellow")]),
    ("position 5 is gray", [(5, (), "grey")]),
])
def test_plain_english_facts(text, expected):
    assert facts(text) == expected


def test_questions_are_read_as_questions():
    r = read("what colour is the circle?", SH, CO, 5)
    assert not r.facts and [(f.shapes, f.colour) for f in r.asks] == [(("circle",), None)]
    r = read("where is the red star?", SH, CO, 5)
    assert [f.shapes for f in r.asks] == [("star",)]


@pytest.mark.parametrize("size,d", [(5, 0), (20, 0), (20, 4), (50, 5)])
def test_share_all_lists_survive_five_percent_noise(size, d):
    ok = 0
    for seed in range(10):
        inst = generator.generate(seed, size=size, distractors=d)
        a = "Shapes by position, 1 to %d: %s." % (size, ", ".join(" or ".join(c) for c in inst["a_clues"]))
        b = "My shape-colour pairs: " + ", ".join(f"{c} {s}" for s, c in inst["b_clues"]) + "."
        rng = random.Random(seed)
        ra = read_list_noisy(add_noise(a, 0.05, rng), inst["shapes"], inst["colours"], size, size + d)
        rb = read_list_noisy(add_noise(b, 0.05, rng), inst["shapes"], inst["colours"], size, size + d)
        ok += [f.shapes for f in ra.facts] == [tuple(c) for c in inst["a_clues"]]
        ok += [(f.shapes[0], f.colour) for f in rb.facts] == [(s, c) for s, c in inst["b_clues"]]
    assert ok >= 19  # of 20 lists


def test_single_facts_survive_noise_with_the_channel_model():
    ok = 0
    for seed in range(40):
        rng = random.Random(seed)
        pos, shape = rng.randint(1, 20), rng.choice(SH[:24])
        damaged = add_noise(f"Position {pos} is the {shape}.", 0.1, rng)
        ok += [(f.pos, f.shapes) for f in read_noisy(damaged, SH[:24], CO, 20).facts] == [(pos, (shape,))]
    assert ok >= 36


def _person_vs(agent_seat, seed=4, **options):
    seats = {s: SeatInfo("agent", s, "share-all") if s == agent_seat else SeatInfo("person", s) for s in SPEC.seats}
    m, brains = build_match(SPEC, seed, seats, options=options, timers=LOCAL_TIMERS)
    d = MatchDriver(m, brains)
    out = [e for b in d.open() for e in b]
    person = next(s for s in SPEC.seats if s != agent_seat)
    out += d.run([Join(person)])
    return m, d, person, out


def test_share_all_as_b_reads_a_persons_plain_english_and_answers_questions():
    m, d, person, _ = _person_vs("b")
    truth = m.game.truth
    said = (f"hi! position 1 is the {truth[0][0]}, the 2nd is a {truth[1][0]} and 3 is the {truth[2][0]}. "
            f"what colour is the {truth[3][0]}?")
    out = d.run([Chat("a", said)])
    assert [tuple(h) for h in m.game.hyp["b"][:3]] == truth[:3]
    reply = " ".join(e.text for e in out if isinstance(e, ChatShown) and e.seat == "b")
    assert f"The {truth[3][0]} is {truth[3][1]}." in reply and "My shape-colour pairs:" in reply


def test_share_all_as_a_reads_a_persons_colours_with_typos():
    m, d, person, out = _person_vs("a", seed=6, size=4)
    first = [e.text for e in out if isinstance(e, ChatShown) and e.seat == "a"]
    assert first and first[0].startswith("Shapes by position, 1 to 4:")
    said = " ".join(f"the {s} is {c[:-1] if len(c) > 4 else c}." for s, c in m.game.truth)  # "gree", "purpl"
    d.run([Chat("b", said.lower())])
    assert [tuple(h) for h in m.game.hyp["a"]] == m.game.truth


def test_no_spam_against_a_silent_partner():
    rec = play_game(SPEC, 2, {"a": "share-all", "b": "share-all"}, {"size": 5})
    assert rec.results["messages"] == 2  # each states its clues once, then nothing is left to say
    m, d, person, out = _person_vs("a", seed=1, size=5)
    for _ in range(8):
        out += d.run([Chat("b", "hmm")])
    lines = [e.text for e in out if isinstance(e, ChatShown) and e.seat == "a"]
    assert len(lines) <= 5 and len(set(lines)) == len(lines)  # the clues once, a question now and then


@pytest.mark.parametrize("size", [3, 5, 10])
def test_incremental_finishes_within_the_limit(size):
    for seed in range(3):
        r = play_game(SPEC, seed, {"a": "incremental", "b": "incremental"}, {"size": size}).results
        assert r["success"] and r["turns_to_success"] <= 2 * size
        assert r["messages"] >= size  # one fact per turn


def test_noisy_reader_recovers_what_incremental_loses():
    opts = {"size": 10, "noise": 0.15, "feedback": "none"}
    wins = {a: sum(play_game(SPEC, s, {"a": a, "b": a}, opts).results["success"] for s in range(6))
            for a in ("incremental", "noisy-reader")}
    assert wins["noisy-reader"] > wins["incremental"]


@pytest.mark.parametrize("person", ["person-plain", "person-typos", "person-terse", "person-chunks", "person-asker"])
def test_share_all_solves_it_with_every_scripted_person(person):
    assert person in SPEC.population[1]
    lines: list = []
    for seed in range(3):
        r = play_game(SPEC, seed, {"a": person, "b": "share-all"}, {"size": 8, "distractors": 1},
                      show=lines.append).results
        assert r["success"] and r["turns_to_success"] <= 4, (person, seed, r)
    said = [x for x in lines if x.startswith("Player A")]
    assert said and not any("Shapes by position" in x for x in said)  # people do not use the agents' template
