"""The `bayes` agent against every kind of scripted person on the hard cases (issue 30): every game completes with
a deal that is envy-free, no stall, no repeated line, every question answered, no offer that takes an item it said
is worth nothing to it, and quality per kind within 0.05 of the cooperative person's. The people are also the
instrument: a stub agent that calls books worthless and then asks for them is caught."""
from __future__ import annotations

import pytest

from tasks.dond.brains import BRAINS
from tasks.dond.brains.base import DondBrain
from tasks.dond.brains.people import PEOPLE
from tasks.dond.people_games import people_rows, person_game
from tasks.dond.spec import SPEC

GAMES = 20  # seeded hard cases (L1<=4) per kind, the person in Alice's seat on even seeds, Bob's on odd ones


@pytest.fixture(scope="module")
def rows():
    return {r["kind"]: r for r in people_rows([person_game(k, s) for k in PEOPLE for s in range(GAMES)])}


@pytest.mark.parametrize("kind", list(PEOPLE))
def test_the_agent_keeps_the_discipline_with_every_kind_of_person(rows, kind):
    row = rows[kind]
    assert row["completed"] == GAMES and row["stalls"] == 0, row
    assert row["repeated lines"] == 0 and row["repeated sentences"] == 0, row
    assert row["unanswered"] == 0 and row["contradictions"] == 0, row
    assert row["agreement"] == 1.0 and row["EF"] == 1.0, row
    assert row["quality"] >= rows["person-cooperative"]["quality"] - 0.05, row


def test_people_who_ask_get_their_questions_counted(rows):
    assert rows["person-asker"]["questions"] >= GAMES


def test_the_population_is_the_tasks():
    seat, names = SPEC.population
    assert seat in SPEC.seats and tuple(names) == tuple(PEOPLE) and set(names) <= set(BRAINS)


class CallsBooksWorthless(DondBrain):
    name = "liar"

    def decide(self):
        return "Books are worth nothing to me. How about this: I take everything?", ("propose", self.counts)


def test_the_people_catch_a_contradiction_and_a_repeated_line(monkeypatch):
    monkeypatch.setitem(SPEC.brains, "liar", CallsBooksWorthless)
    g = person_game("person-asker", 0, agent="liar")
    assert g["contradictions"] and g["repeats"] and not g["deal"]


def test_two_offers_with_the_same_numbers_in_another_order_are_two_lines():
    from tasks.core.discipline import same_line
    assert not same_line("How about this: I take 2 books and 1 ball, you get 1 hat?",
                         "How about this: I take 1 book and 2 balls, you get 1 hat?")
    assert same_line("How about this: I take 2 books and 1 ball?", "how about this - I take 2 books and 1 ball")


def test_no_line_states_an_offer_twice():
    """A plain-English offer the agent takes gets one "let's do that", not a second wording of the same offer
    (the fallback wording was once appended to every such line)."""
    import re
    for kind in ("person-cooperative", "person-agreeable"):
        for seed in (6, 10, 13, 18):
            for line in person_game(kind, seed)["lines"]:
                assert len(re.findall(r"\bI take\b|for me, the rest for you", line)) <= 1, line
