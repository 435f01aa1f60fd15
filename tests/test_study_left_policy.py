"""Completion codes that tell who did the work (issue 28): a person whose leaving closed the room is recorded as
`left` (when, and what the study's left_policy pays), the partner left behind gets the partner-left code, and the
leaver who comes back after the grace period sees "you left" on the page, not a full code.

Core (toy game) for the three policies, then the whole study flow: `setup --left-policy`, the concierge pairs two
people into an assignment room, one closes the socket right after pairing and comes back after the (short) grace
period; over real sockets on the Slurk double (ETags off and on) and a real Slurk (`slurk_server`).
"""
from __future__ import annotations

import pytest

from bots.config import load_config
from bots.slurk.runtime import SlurkBot
from tasks import get_task
from tasks.core import CompletionConfig, Join, Leave, LogEvent, Match, Message, SeatInfo, TimerConfig, TimerFired
from tests.page_views import page_views
from tests.test_study_concierge import WAIT, Study, stop_later, wait_until  # noqa: F401 (fixture)
from tests.toygame import PickNumber


def _played(policy: str) -> tuple[Match, list]:
    m = Match(PickNumber(7), {"a": SeatInfo("person", "Ann"), "b": SeatInfo("person", "Bob")},
              timers=TimerConfig(partner_left_grace=5), completion=CompletionConfig(left_policy=policy),
              code_source=iter(f"CODE{i}" for i in range(9)).__next__)
    m.open(0)
    m.handle(Join("a", t=1))
    m.handle(Join("b", t=2))
    eff = m.handle(Leave("b", t=10))
    timer = next(e for e in eff if getattr(e, "name", "") == "core:left:b")
    return m, m.handle(TimerFired("core:left:b", timer.token, t=15))


@pytest.mark.parametrize("policy,payment,code", [("no_code", "none", False), ("partial", "partial", True),
                                                 ("full", "full", True)])
def test_the_leaver_and_the_partner_left_behind_get_different_records(policy, payment, code):
    m, eff = _played(policy)
    records = {e.to: e.data for e in eff if isinstance(e, LogEvent) and e.event == "confirmation_log"}
    assert records["a"]["status_txt"] == "user_left" and records["a"]["confirmation_token"] == m.codes["a"]
    assert records["a"]["partner_left"] == {"b": 10}
    assert records["b"]["status_txt"] == "left" and records["b"]["left_at"] == 10
    assert records["b"]["payment"] == payment
    assert ("confirmation_token" in records["b"]) is code and ("b" in m.codes) is code
    said = " ".join(e.text for e in eff if isinstance(e, Message) and e.to == "b")
    assert "You left the game before it ended" in said and (m.codes.get("b", "NONE") in said) is code
    # the leaver comes back after the grace period: their page says "left" (and no code under no_code)
    m.handle(Join("b", t=20))
    core_b, core_a = m.views()[1].data["core"], m.views()[0].data["core"]
    assert core_b["status"] == "left" and core_b["code"] == m.codes.get("b")
    assert core_a["status"] == "partner_left" and core_a["code"] == m.codes["a"]


def test_a_policy_outside_the_list_is_refused():
    with pytest.raises(ValueError, match="no_code, partial, full"):
        CompletionConfig(left_policy="sometimes")


# ----------------------------------------------------------------------------------------------------------------
# the study flow


ASSIGNMENT = get_task("assignment")


def _last_core(person) -> dict:
    views = page_views(person.rec, ASSIGNMENT)
    return (views[-1] if views else {}).get("core", {})


def test_a_person_who_abandons_right_after_pairing_gets_no_full_code(slurk_server, tmp_path, stop_later):
    config = tmp_path / "study.yaml"
    config.write_text("timers: {partner_left_grace: 1.0, join_timeout: 60}\n")
    study = Study(slurk_server, tmp_path, participants=2, people_per_room=2, task="assignment", config=str(config))
    assert study.manifest["left_policy"] == "no_code" and study.env["COMPLETION_LEFT_POLICY"] == "no_code"
    assert any("A person who leaves a game before its end gets: no_code" in line for line in study.output)
    cfg = load_config(str(config), study.bot_env(BOT_STATE_DB=str(tmp_path / "bot-state.sqlite3")))
    bot = SlurkBot(cfg, ASSIGNMENT).start()
    stop_later(bot)
    concierge = study.concierge()
    stop_later(concierge)
    stayer, leaver = study.person(), study.person()
    for p in (stayer, leaver):
        stop_later(p.connect(study.waiting_room).rec)
    room = stayer.wait_moved(study.waiting_room)
    assert leaver.wait_moved(study.waiting_room) == room
    wait_until(lambda: _last_core(leaver).get("phase") == "playing", what="the game plays")
    leaver.disconnect()  # closes the tab right after pairing

    wait_until(lambda: _last_core(stayer).get("phase") == "over", timeout=WAIT, what="the room closes")
    assert _last_core(stayer)["status"] == "partner_left" and _last_core(stayer)["code"]
    assert bot.logs.drain(WAIT)
    rows = wait_until(lambda: [x for x in slurk_server.logs(room) if x["event"] == "confirmation_log"] or None,
                      what="the records")
    wait_until(lambda: len([x for x in slurk_server.logs(room) if x["event"] == "confirmation_log"]) == 2,
               what="both records")
    rows = {x["receiver_id"]: x["data"] for x in slurk_server.logs(room) if x["event"] == "confirmation_log"}
    assert rows[stayer.id]["status_txt"] == "user_left"
    assert rows[stayer.id]["confirmation_token"] == _last_core(stayer)["code"]
    assert rows[leaver.id]["status_txt"] == "left" and rows[leaver.id]["payment"] == "none"
    assert "confirmation_token" not in rows[leaver.id] and isinstance(rows[leaver.id]["left_at"], (int, float))
    left_seat = next(iter(rows[stayer.id]["partner_left"]))
    assert rows[stayer.id]["partner_left"][left_seat] == rows[leaver.id]["left_at"]

    # the leaver comes back (the same user's socket, as the same browser's cookie does)
    stop_later(leaver.connect().rec)
    leaver.rec.wait_for("joined_room", lambda d: d["room"] == room, timeout=WAIT)
    wait_until(lambda: _last_core(leaver).get("phase") == "over", what="the returning page's state")
    core = _last_core(leaver)
    assert core["status"] == "left" and not core.get("code")
    # what they were told privately: live, or (sent while they were away) in the history their page replays
    wait_until(lambda: any("You left the game before it ended" in s for s in _told(slurk_server, room, leaver)),
               what="the leaver told why there is no code")
    assert not any("Your completion code is" in s for s in _told(slurk_server, room, leaver))


def _told(srv, room: int, person) -> list[str]:
    live = [str(d.get("message")) for d in person.rec.of("text_message", lambda d: d.get("private"))]
    logged = [str((x.get("data") or {}).get("message")) for x in srv.logs(room)
              if x.get("receiver_id") == person.id and x["event"] in ("text_message", "message")]
    return live + logged


@pytest.mark.parametrize("task", sorted(__import__("tasks").available_tasks()))
def test_every_task_tells_the_leaver_from_the_partner(task):
    """The rule lives in the core match, so every task (all seats people, one leaves for good) records it alike."""
    from tasks.core.builder import build_match

    spec = get_task(task)
    seats = {s: SeatInfo("person", s.title()) for s in spec.seats}
    m, _ = build_match(spec, 3, seats, timers=TimerConfig(partner_left_grace=5), with_brains=False,
                       code_source=iter(f"CODE{i}" for i in range(9)).__next__)
    m.open(0)
    for i, s in enumerate(spec.seats):
        m.handle(Join(s, t=1 + i))
    assert m.phase == "playing"
    leaver, *stayers = spec.seats
    timer = next(e for e in m.handle(Leave(leaver, t=10)) if getattr(e, "name", "") == f"core:left:{leaver}")
    eff = m.handle(TimerFired(f"core:left:{leaver}", timer.token, t=15))
    records = {e.to: e.data for e in eff if isinstance(e, LogEvent) and e.event == "confirmation_log"}
    assert records[leaver] == {"status_txt": "left", "left_at": 10, "payment": "none"}
    for s in stayers:
        assert records[s]["status_txt"] == "user_left" and records[s]["confirmation_token"] == m.codes[s]
    m.handle(Join(leaver, t=30))
    core = {v.seat: v.data["core"] for v in m.views()}
    assert core[leaver]["status"] == "left" and core[leaver]["code"] is None
    parts = m.page_parts(leaver)
    if parts is not None:  # a two-part page: the seat's own part says "left", whatever the shared part says
        assert parts[1]["core"]["status"] == "left" and parts[1]["core"]["code"] is None
