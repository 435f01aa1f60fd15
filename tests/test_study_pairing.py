"""The concierge's move leaves the waiting room before it joins the game room (issue 27 item 1): a person's page gets
the waiting room's `left_room` before the game room's `joined_room`, so Slurk's page (which turns the chat
read-only on ANY `left_room`) ends in the game room with a live chat box. Slurk double (ETags off and on) and, when
configured, a real Slurk. The page itself recovering from crossed events is tests/test_study_pairing_page.py.
"""
from __future__ import annotations

from tests.test_study_concierge import Study, rooms_of, stop_later, wait_until  # noqa: F401 (fixture)


def test_people_leave_the_waiting_room_before_they_join_the_game_room(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=2, people_per_room=2)
    concierge = study.concierge()
    stop_later(concierge)
    people = [study.person(), study.person()]
    for p in people:
        stop_later(p.connect(study.waiting_room).rec)
    room = people[0].wait_moved(study.waiting_room)
    for p in people:
        p.rec.wait_for("left_room", lambda d: d["room"] == study.waiting_room)
        p.rec.wait_for("joined_room", lambda d: d["room"] == room)
        left = p.rec.index_of("left_room", lambda d: d["room"] == study.waiting_room)
        joined = p.rec.index_of("joined_room", lambda d: d["room"] == room)
        assert 0 <= left < joined, p.rec.names()
        wait_until(lambda p=p: rooms_of(slurk_server, p.id) == [room], what="moved")
    assert concierge.wait_idle() and concierge.waiting() == []


def test_a_move_that_fails_after_the_leave_puts_people_back_in_the_waiting_room(slurk_server, tmp_path, stop_later):
    """Slurk fails the add to the game room (after the person left the waiting room): they are put back into the
    waiting room, keep their place in the queue, and get a room once Slurk answers again."""
    from bots.concierge import ManualTimers, build_concierge
    from tests.test_attacks_concierge import FAST, FaultyProxy

    study = Study(slurk_server, tmp_path, participants=2, people_per_room=2)
    proxy = FaultyProxy(slurk_server.url).start()
    stop_later(proxy)
    timers = ManualTimers()
    concierge = build_concierge(None, study.bot_env(SLURK_URL=proxy.url), timers=timers, **FAST).start()
    stop_later(concierge)
    a, b = study.person(), study.person()
    proxy.fail_moves({b.id}, except_room=study.waiting_room)  # a's move works, b's add to the game room fails
    for p in (a, b):
        stop_later(p.connect(study.waiting_room).rec)
    retry = ("retry", study.task_id)
    wait_until(lambda: retry in timers.pending and concierge.idle(), what="the room given up")
    for p in (a, b):
        wait_until(lambda p=p: rooms_of(slurk_server, p.id) == [study.waiting_room], what=f"{p.name} back")
    assert concierge.waiting(study.task_id) == [a.id, b.id]
    proxy.fail_moves(())
    assert timers.fire(retry)
    room = wait_until(lambda: next(iter(concierge.rooms), None), what="a room for both")
    assert room not in (study.waiting_room, *concierge.dead_rooms)
    for p in (a, b):
        wait_until(lambda p=p: rooms_of(slurk_server, p.id) == [room], what=f"{p.name} moved")
