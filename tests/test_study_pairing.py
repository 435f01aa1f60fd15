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
