"""A whole study, end to end, with real sockets and real HTTP: `setup` provisions Traveling Adventurers on the Slurk
test double (ETags off and on; on a real Slurk too when SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN are set: the
`conformance` variant), the task bot (SlurkBot) and the concierge run in-process from the study's bot.env, scripted
people log in with their participant links, are paired, play a whole game, and get completion codes; then
`logs download` fetches every room and `replay_paths` reproduces every score and writes transcripts and plots.

Variants: 4 people in 2 rooms of two people (light proposes a full tour, ghost agrees, both submit), and 2 people
who each play with the solver agent seat (they share their coins, agree to the solver's tour and submit).
"""
from __future__ import annotations

import json
import os
import threading
import time


from bots.config import load_config
from bots.slurk.runtime import SlurkBot
from bots.study import logs as study_logs
from bots.concierge import ManualTimers
from bots.study.replay import replay_paths
from tasks import get_task
from tests.page_views import page_views
from tests.test_study_concierge import WAIT, Study

GAME_WAIT = 40  # upper bound for one whole game (generous for a real server)
TRAVEL = get_task("travel")
STATE = TRAVEL.state_element


def views(person) -> list[dict]:
    """What the person's page showed (the travel page's shared and own parts combined, as the page does)."""
    return page_views(person.rec, TRAVEL)


def play(person, errors: list) -> None:
    """A scripted person: reacts to their own board view until the game is over.

    light (with a person partner): proposes a full tour at once. Both: agree to the partner's full-tour proposal,
    submit an agreed full tour, submit the partner's submitted tour. With an agent partner: share every coin first.
    """
    done: set = set()
    deadline = time.monotonic() + GAME_WAIT
    try:
        while time.monotonic() < deadline:
            vs = views(person)
            v = vs[-1] if vs else None
            if v and v.get("core", {}).get("phase") == "over":
                return
            if not v or v.get("core", {}).get("phase") != "playing":
                time.sleep(0.05)
                continue
            rooms = [r["id"] for r in v["rooms"]]
            start = v["start"]
            tour = [start] + [r for r in rooms if r != start]
            pending = v.get("pending")
            agreed = v.get("agreed") or []
            if person.with_agent and "share" not in done:
                done.add("share")
                person.command("share all")
            elif v["world"] == "light" and not person.with_agent and "propose" not in done:
                done.add("propose")
                person.command("propose " + " ".join(tour))
            elif pending and not pending["mine"] and pending["kind"] == "tour" and ("agree", tuple(pending["path"])) not in done:
                done.add(("agree", tuple(pending["path"])))
                person.command("agree")
            elif len(agreed) == len(rooms) + 1 and not v["submitted"]["me"] and ("submit", tuple(agreed)) not in done:
                done.add(("submit", tuple(agreed)))
                person.command("submit")
            elif v.get("partner_submitted") and not v["submitted"]["me"] \
                    and ("submit", tuple(v["partner_submitted"])) not in done:
                done.add(("submit", tuple(v["partner_submitted"])))
                person.command("submit " + " ".join(v["partner_submitted"]))
            else:
                time.sleep(0.05)
        errors.append(f"{person.name}: the game did not end; last view {views(person)[-1:]}")
    except Exception as exc:  # reported by the test thread
        errors.append(f"{person.name}: {type(exc).__name__}: {exc}")


def run_study(srv, tmp_path, participants: int, people_per_room: int) -> dict:
    study = Study(srv, tmp_path, participants=participants, people_per_room=people_per_room)
    spec = get_task("travel")
    cfg = load_config(None, study.bot_env(BOT_STATE_DB=str(tmp_path / "bot-state.sqlite3")))
    task_bot = SlurkBot(cfg, spec).start()
    concierge = study.concierge(timers=ManualTimers())
    people = []
    try:
        for _ in range(participants):
            p = study.person()
            p.with_agent = people_per_room == 1
            people.append(p.connect(study.waiting_room))
        rooms = {p.id: p.wait_moved(study.waiting_room) for p in people}
        assert len(set(rooms.values())) == participants // people_per_room
        errors: list = []
        threads = [threading.Thread(target=play, args=(p, errors), daemon=True) for p in people]
        for t in threads:
            t.start()
        for t in threads:
            t.join(GAME_WAIT + 5)
        assert not errors, errors
        codes = {}
        for p in people:
            msg = p.private("Your completion code is", timeout=WAIT)
            codes[p.id] = msg["message"].split("Your completion code is ")[1][:8]
        # every game ended for both seats: the final views show the result
        for p in people:
            assert views(p)[-1]["result"]["status"] == "completed"

        # the record goes out off the replies' path (and at once when a game ends): wait until it is all out
        assert task_bot.logs.drain(WAIT)
        out = str(tmp_path / "logs")
        lines: list[str] = []
        assert study_logs.main(["download", "--task", str(study.task_id), "--out", out],
                               env=study.admin_env(), echo=lines.append) == 0, lines
        files = sorted(os.listdir(out))
        assert sorted(f for f in files if f.endswith(".jsonl")) == sorted(f"{r}.jsonl" for r in set(rooms.values()))
        for f in files:
            if f.endswith(".jsonl"):
                ids = [json.loads(x)["id"] for x in open(os.path.join(out, f))]
                assert ids == sorted(ids)

        report = replay_paths([out], out=str(tmp_path / "replay"), echo=None)
        assert report.ok, [str(p) for p in report.problems]
        assert len(report.games) == len(set(rooms.values()))
        for g in report.games:
            assert g.check == "ok", (g.file, g.mismatches, g.notes)
            assert g.status == "completed"
            assert g.recomputed_results["score"] == g.logged_results["score"]
            assert os.path.exists(g.transcript)
            seat_users = {u for s, u in g.seat_map.items() if g.seats[s]["kind"] == "person"}
            assert {g.codes[s] for s in g.seats if g.seats[s]["kind"] == "person"} == {codes[u] for u in seat_users}
        assert report.plots and all(os.path.exists(p) for p in report.plots)
        assert os.path.exists(report.summary_csv)
        return {"study": study, "report": report, "codes": codes, "rooms": rooms}
    finally:
        for p in people:
            p.disconnect()
        concierge.stop()
        task_bot.stop()


def test_four_people_two_rooms_play_travel_end_to_end(slurk_server, tmp_path, monkeypatch):
    monkeypatch.delenv("BOT_LOG_DELAY")  # as deployed (3 s, rows go in batches): the study loses nothing
    result = run_study(slurk_server, tmp_path, participants=4, people_per_room=2)
    assert len(set(result["codes"].values())) == 4


def test_people_play_with_the_solver_agent_seat_end_to_end(slurk_server, tmp_path):
    result = run_study(slurk_server, tmp_path, participants=2, people_per_room=1)
    for g in result["report"].games:
        assert g.agents.get("ghost") not in (None, "person")
        assert g.results["optimal"] is True  # the solver found the best tour with the person's shared coins
