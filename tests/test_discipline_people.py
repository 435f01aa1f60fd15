"""The default agents of planning and mediation against every kind of scripted person (issue 30): a few seeded games
per kind, each audited from its log (tasks/core/discipline.py). Every game completes, no person waits for the agent
more than one turn, no agent line is said twice, every question gets an answer, and each kind's quality is within
0.05 of the cooperative kind's. (On the code before issue 30 the planner never completed a game with people who paste
every wish at once or who ask why, and repeated lines in most games; the mediator left every asker waiting.)"""
import statistics

import pytest

from tasks.core.evaluation import play_game, population_agents, population_seats
from tasks import get_task
from tasks.core.discipline import audit_log

SEEDS = (0, 1, 2)
MUST_SEEDS = 20
TASKS = {"planning": get_task("planning"), "mediation": get_task("mediation")}
_games: dict = {}


def games(task: str, kind: str, tmp_path_factory) -> list[tuple[dict, dict]]:
    """(results, audit) of each seeded game of this kind (played once per test session)."""
    if (task, kind) not in _games:
        spec = TASKS[task]
        agents = dict(population_agents(spec, None))[kind]
        out = []
        for seed in SEEDS:
            log = tmp_path_factory.mktemp(f"{task}-{kind}") / f"game-{seed}.jsonl"
            rec = play_game(spec, seed, agents, log_path=str(log))
            out.append((rec.results, audit_log(str(log), population_seats(spec))))
        _games[(task, kind)] = out
    return _games[(task, kind)]


CASES = [(t, k) for t, spec in TASKS.items() for k in spec.population[1]]


@pytest.mark.parametrize("task, kind", CASES)
def test_every_kind_of_person_gets_a_finished_game_without_stalls_repeats_or_silence(task, kind, tmp_path_factory):
    for results, audit in games(task, kind, tmp_path_factory):
        assert results["status"] == "completed", (results.get("seed"), results["status"])
        assert audit["stalls"] == 0 and audit["repeats"] == 0 and audit["unanswered"] == 0, (results["seed"], audit)


@pytest.mark.parametrize("task, kind", [c for c in CASES if c[1] != "person-cooperative"])
def test_quality_of_every_kind_is_close_to_the_cooperative_kind(task, kind, tmp_path_factory):
    mean = statistics.fmean(r["normalized_score"] for r, _ in games(task, kind, tmp_path_factory))
    base = statistics.fmean(r["normalized_score"] for r, _ in games(task, "person-cooperative", tmp_path_factory))
    assert mean >= base - 0.05, (kind, round(mean, 3), round(base, 3))



def test_a_meeting_a_person_must_keep_is_kept_and_fits_is_said_only_when_true(tmp_path):
    """person-must names its most important meeting as one it can't miss: the mediator proposes no flight that breaks
    it while the person has one that does not, and calls a flight fitting only when it keeps that meeting (the
    agent before issue 30 broke one in seed 3 of these 20)."""
    import json

    spec = TASKS["mediation"]
    agents = dict(population_agents(spec, None))["person-must"]
    for seed in range(MUST_SEEDS):
        log = tmp_path / f"must-{seed}.jsonl"
        play_game(spec, seed, agents, log_path=str(log))
        users = spec.generate(seed, {})["users"]
        pitched: dict = {}
        for row in map(json.loads, log.read_text().splitlines()):
            inp = (row.get("data") or {}).get("input") or {}
            if row.get("event") != "game_input" or inp.get("seat") != "assistant":
                continue
            if inp.get("type") == "Chat" and "How about flight" in inp["text"]:
                pitched[inp["to"][0]] = "fits what you told me" in inp["text"]
            elif inp.get("type") == "Command" and inp["name"] == "propose":
                for k, seat in enumerate(("user1", "user2")):
                    u = users[k]
                    must = max(u["calendar"], key=lambda e: (e["importance"], e["start"]))
                    f = u["flights"][int(inp["args"][k]) - 1]
                    breaks = f["start"] < must["end"] and must["start"] < f["end"]
                    if any(not (g["start"] < must["end"] and must["start"] < g["end"]) for g in u["flights"]):
                        assert not breaks, (seed, seat, f, must)
                    assert not (breaks and pitched.get(seat)), (seed, seat, "called fitting", f, must)


def test_a_stated_budget_binds_the_next_plans(tmp_path):
    """person-budget says its budget as a limit and rejects every plan over it ("still $85! my budget is $30"): each
    plan after that keeps within it, unless the planner has said no plan fits or named a place the person asked for
    that the budget leaves out (then the person chose)."""
    import json

    spec = TASKS["planning"]
    agents = dict(population_agents(spec, None))["person-budget"]
    for seed in range(10):
        log = tmp_path / f"budget-{seed}.jsonl"
        play_game(spec, seed, agents, log_path=str(log))
        inst = spec.generate(seed, {})
        budget = next((p["budget"] for p in inst["prefs"] if p["kind"] == "budget"), None)
        if budget is None:
            continue
        price = {s["name"]: s["price"] for s in inst["sites"]}
        excused = False
        for row in map(json.loads, log.read_text().splitlines()):
            inp = (row.get("data") or {}).get("input") or {}
            if row.get("event") != "game_input" or inp.get("seat") != "assistant":
                continue
            if inp.get("type") == "Chat":
                excused |= "nothing fits" in inp["text"] or "can't fit your" in inp["text"]
            elif inp.get("name") == "propose":
                total = sum(price[n.strip()] for n in inp["args"][0].split(","))
                assert total <= budget or excused, (seed, inp["args"], total, budget)


def test_a_silent_user_is_never_asked_are_you_there_and_the_other_gets_a_flight():
    """User 2 tells what matters while user 1 says nothing yet (they may be typing a long message): user 2 hears
    "noted" and a flight for both follows on user 1's defaults; nobody is asked "Are you there?"."""
    from tasks.core import Chat, ChatShown, Join, MatchDriver, SeatInfo, build_match
    from tasks.core.evaluation import LOCAL_TIMERS

    seats = {"user1": SeatInfo("person", "u1"), "user2": SeatInfo("person", "u2"),
             "assistant": SeatInfo("agent", "a", "mediator")}
    m, brains = build_match(TASKS["mediation"], 4, seats, timers=LOCAL_TIMERS)
    d = MatchDriver(m, brains)
    effects = list(e for batch in d.open() for e in batch)
    effects += d.run([Join("user1"), Join("user2"), Chat("user2", "friday morning matters to me, importance 9")])
    said = [e.text for e in effects if isinstance(e, ChatShown) and e.seat == "assistant"]
    assert not any("are you there" in s.lower() for s in said), said
    assert m.game.view("user2")["pending"] is not None and m.game.view("user1")["pending"] is not None
