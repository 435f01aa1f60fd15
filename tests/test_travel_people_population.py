"""The scripted partner population of travel (tasks/travel/brains/people.py) and the generic `--population`
evaluation (tasks/core/evaluation): each partner type shows its trait, the solver agent completes against all of them, and
the CLI prints one row per partner type."""
from __future__ import annotations

import csv
import dataclasses
import re

import pytest

from bots import local
from tasks.core import evaluation
from tasks import get_task
from tasks.travel.board import Board
from tasks.travel.brains import SolverBrain
from tasks.travel.brains.people import COOPERATIVE, PARTNERS, UNCOOPERATIVE
from tasks.travel.brains.reader import read

from .test_travel_brains import moves
from .test_travel_game import Room

TRAVEL = get_task("travel")


def duel(partner: str, seed: int) -> Room:
    return Room(seed=seed, boards="generated", index=seed,
                brains={"light": PARTNERS[partner]("light", seed), "ghost": SolverBrain("ghost", seed)})


def said(room: Room, seat: str = "light") -> list[str]:
    return [m[5:] for m in moves(room.effects, seat) if m.startswith("chat ")]


def board_of(room: Room) -> Board:
    return room.game_now.board


def test_the_population_is_registered_for_the_light_seat():
    seat, names = TRAVEL.population
    assert seat == "light" and set(names) == set(COOPERATIVE) | set(UNCOOPERATIVE) == set(PARTNERS)
    assert all(n in TRAVEL.brains for n in names)


@pytest.mark.parametrize("partner", sorted(PARTNERS))
def test_the_solver_completes_near_the_optimum_against_every_partner(partner):
    ratios, optimal = [], 0
    for seed in range(6):
        room = duel(partner, seed)
        result = room.match.results
        assert room.match.over and result["status"] == "completed", (partner, seed)
        ratios.append(result["ratio"])
        optimal += bool(result["optimal"])
    assert sum(ratios) / len(ratios) >= 0.95 and min(ratios) >= 0.85, ratios
    if partner in COOPERATIVE:
        assert optimal >= 5, (partner, ratios)


def test_partner_traits():
    quiet = duel("person-quiet", 1)
    assert not re.search(r"\d", said(quiet)[0])  # shares nothing unasked
    ignoring = duel("person-ignoring", 1)
    rooms = list(board_of(ignoring).rooms)
    asked = [r for r in (read(x, rooms) for x in said(ignoring, "ghost")) if r.asks or r.ask_all]
    assert asked  # the agent asked ...
    later = [read(x, rooms).coins for x in said(ignoring)[1:]]
    assert not any(later)  # ... and the person never told a coin after its opening
    liar = duel("person-liar", 2)
    b = board_of(liar)
    stated = {}
    for line in said(liar):
        stated.update(read(line, list(b.rooms), b.wmin, b.wmax).coins)
    wrong = {e for e, w in stated.items() if b.weights["light"][e] != w}
    assert len(wrong) == 1
    insisting = duel("person-insisting", 3)
    assert sum(1 for m in moves(insisting.effects, "light") if m.startswith("/propose")) >= 3
    deferring = duel("person-deferring", 3)
    light = moves(deferring.effects, "light")
    first_reply = next(i for i, m in enumerate(light) if m in ("/reject", "/agree"))
    assert light[first_reply] == "/reject" and not light[first_reply - 1].startswith("chat what")
    assert any(read(x[5:], list("LKBAGP")).defer for x in light[first_reply + 1:] if x.startswith("chat "))


def test_population_cli_prints_one_row_per_partner_and_writes_csv(tmp_path, capsys):
    assert local.main(["travel", "--population", "--agents", "solver", "--games", "2", "--boards", "generated",
                       "--quiet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in TRAVEL.population[1]:
        assert re.search(rf"^{name}\s+{name},solver\s", out, re.M), name
    with open(tmp_path / "population.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["partner"] for r in rows] == list(TRAVEL.population[1])
    assert all(float(r["completed %"]) == 100.0 for r in rows)


def test_population_needs_one_agent_and_a_population():
    with pytest.raises(SystemExit, match="one agent"):
        evaluation.population_agents(TRAVEL, "solver,solver")
    with pytest.raises(SystemExit, match="no partner population"):
        evaluation.population_agents(dataclasses.replace(TRAVEL, population=()), "solver")
    pairs = evaluation.population_agents(TRAVEL, None)  # default: the task's default agent for the other seat
    assert all(agents == {"light": p, "ghost": "solver"} for p, agents in pairs)
