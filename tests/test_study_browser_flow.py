"""The crowdworker's way into a game, in real Chromium pages on a REAL Slurk (opt-in: markers `conformance` and
`browser`; tests/study_flow.py): `setup` provisions a study, `serve` and `concierge` run as docs/running-a-study.md says, people
open their participant links, wait in the waiting room, are paired by the concierge and moved into a game room,
each person types a chat line that the partner's page shows, and the game is played to its end through the page
only (tests/study_flow_play.py); every page shows its own completion code.

Checked on every page after pairing and before every line typed: the chat box is writable. The bug this catches:
Slurk's page (connection.js) makes #text read-only ("Disconnected!") on ANY `left_room`; a concierge that adds a
person to the game room and then removes them from the waiting room can leave the game room's chat dead.

Mixes: every seat a person (two; three for mediation), and one person with the study's default agents.
STUDY_FLOW_RUNS games per test (default 1), all through one study's waiting room; the figures (games, dead chat
boxes, chat delivery times, codes) go to artifacts/study-flow-report.json. Screenshots of the first game:
artifacts/screenshots/study-flow-<task>-*.png (and study-flow-dead-* of every dead chat box).

    SLURK_TEST_URL=http://127.0.0.1:5056 SLURK_TEST_ETAG=1 SLURK_TEST_ADMIN_TOKEN=0000...0000 STUDY_FLOW_RUNS=10 \\
        pytest -q tests/test_study_browser_flow.py
"""
from __future__ import annotations

import os
import traceback

import pytest

from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.study_flow import ROOT, StudyFlow, runs_wanted, save_report
from tests.study_flow_play import PLAYS, TASK_OPTIONS

pytestmark = REAL_PAGE_MARKS

CASES = [(task, mix) for task in PLAYS for mix in ("people", "agent")]


@pytest.mark.parametrize("task,mix", CASES, ids=[f"{t}-{m}" for t, m in CASES])
def test_people_come_through_the_waiting_room_chat_and_play_to_the_end(chromium, tmp_path, task, mix):
    runs = runs_wanted()
    play = PLAYS[task][mix]
    people = {"people": 3 if task == "mediation" else 2, "agent": 1}[mix]
    games = []
    load = [os.getloadavg()[0]]  # the machine's load (1 min) at the start and the end: the times depend on it
    with StudyFlow(chromium, tmp_path, task, people_per_room=people, games=runs,
                   task_options=TASK_OPTIONS.get(task)) as flow:
        for i in range(runs):
            flow.screenshots = i == 0
            stats = {"game": i + 1, "room": None, "dead_chat": [], "chat_seconds": [], "codes": [],
                     "completed": False, "error": None}
            group = None
            try:
                group = flow.enter()
                stats = {**stats, **group.stats}
                group.check_chat_alive("after pairing")
                play(group)
                group.check_codes()
                group.stats["completed"] = True
                for rp in group.pages:
                    group.shots(rp, f"9-end-{group.name_of(rp)}")
            except Exception as exc:  # recorded, and the next game goes on; the test fails below
                stats["error"] = f"{type(exc).__name__}: {str(exc)[:600]}"
                traceback.print_exc()
                for rp in group.pages if group is not None else []:
                    try:
                        RealRoom.shots(rp, f"study-flow-{task}-failed-{i + 1}-{group.name_of(rp)}")
                    except Exception:
                        pass
            finally:
                if group is not None:
                    stats = {**stats, **group.stats}
                    group.close()
            games.append(stats)
        bot_logs = flow.logs()
        restarts = flow.restarts
    load.append(os.getloadavg()[0])
    seconds = [s for g in games for s in g["chat_seconds"]]
    summary = {"task": task, "mix": mix, "people_per_room": people, "runs": runs,
               "completed": sum(g["completed"] for g in games),
               "dead_chat_boxes": sum(len(g["dead_chat"]) for g in games),
               "chat_lines": len(seconds), "chat_seconds_max": max(seconds, default=None),
               "codes_seen": sum(len(g["codes"]) for g in games), "load_avg": load,
               "bot_restarts": restarts, "games": games}
    summary["code"] = str(flow.code)
    path = save_report(f"{task}/{mix}" + ("" if flow.code == ROOT else f"@{flow.code.name}"), summary)
    print(f"{task} {mix}: {summary['completed']}/{runs} games completed, {summary['dead_chat_boxes']} dead chat "
          f"boxes, chat max {summary['chat_seconds_max']} s, {summary['codes_seen']} codes, load {load} ({path})")
    failed = [g for g in games if not g["completed"]]
    assert not failed, "games that failed:\n" + "\n".join(
        f"game {g['game']} (room {g['room']}): {g['error']}; dead chat: {g['dead_chat']}" for g in failed) + \
        "\n" + bot_logs[-4000:]
