"""The `workflow` agent against every kind of scripted person (issue 30): every game completes, no stall, no
repeated line, every question answered, the move it plays is the move it last said it would play, and quality per
kind within 0.05 of the cooperative person's. One seeded game per testbed game and kind. The people are also the
instrument: a stub agent that says one move and plays another, or repeats itself, is caught."""
from __future__ import annotations

import pytest

from tasks.matrix_games.brains import BRAINS
from tasks.matrix_games.brains.base import SeatBrain
from tasks.matrix_games.brains.people import PEOPLE
from tasks.matrix_games.people_games import PEOPLE_GAMES, people_rows, person_game
from tasks.matrix_games.spec import SPEC

GAMES = len(PEOPLE_GAMES)  # one of each game of the testbed, the person talking first on even seeds


@pytest.fixture(scope="module")
def rows():
    return {r["kind"]: r for r in people_rows([person_game(k, s) for k in PEOPLE for s in range(GAMES)])}


@pytest.mark.parametrize("kind", list(PEOPLE))
def test_the_agent_keeps_the_discipline_with_every_kind_of_person(rows, kind):
    row = rows[kind]
    assert row["completed"] == GAMES and row["stalls"] == 0, row
    assert row["repeated lines"] == 0 and row["unanswered"] == 0, row
    said, checked = row["move = statement"].split("/")
    assert said == checked and int(checked) >= GAMES - 2, row  # escalation ends before the agent moves
    assert row["quality"] >= rows["person-cooperative"]["quality"] - 0.05, row


@pytest.mark.parametrize("kind", ["person-asker", "person-rejecter"])
def test_the_same_game_played_again_gets_new_words_not_silence(kind):
    """Trials of one game in a room: the wordings of the first trial are used up, so the agent names the trial
    rather than repeat itself or fall silent (which stalled the third trial)."""
    games = [person_game(kind, seed, trials=3) for seed in (0, 5, 9)]  # prisoner's dilemma, escalation, trigame
    rows = people_rows(games)
    assert rows[0]["completed"] == 3 and rows[0]["stalls"] == 0 and rows[0]["repeated lines"] == 0, rows
    assert rows[0]["unanswered"] == 0 and all(not g["broken"] for g in games), rows


def test_people_who_ask_get_their_questions_counted(rows):
    assert rows["person-asker"]["questions"] >= 2 * GAMES


def test_the_population_is_the_tasks(rows):
    seat, names = SPEC.population
    assert seat in SPEC.seats and tuple(names) == tuple(PEOPLE) and set(names) <= set(BRAINS)


class SaysFootballPlaysOpera(SeatBrain):
    name = "liar"

    def talk(self):
        return "Let's agree: I play Football and you play Football. Let's agree: I play Football.", True

    def choose(self):
        return "Opera"


def test_the_people_catch_a_broken_word_and_a_repeated_line(monkeypatch):
    monkeypatch.setitem(SPEC.brains, "liar", SaysFootballPlaysOpera)
    g = person_game("person-asker", 2, agent="liar")  # battle of the sexes
    assert g["broken"] == [("Football", "Opera")]
    assert g["repeats"] and g["unanswered"]
