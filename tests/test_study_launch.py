"""A study launch (issue 27 item 7): the concierge's rooms-per-minute cap protects a server that failed, it does not
cap a healthy launch; a person held back (by the cap after a server error, or by a back-off) is told their place in
the queue and the expected wait, privately, refreshed at a bounded rate. Not timed (the launch figure is
bench/bench_launch.py). Slurk double (ETags off and on) and, when configured, a real Slurk.
"""
from __future__ import annotations

import re

from bots.concierge import ManualTimers, build_concierge
from tests.test_attacks_concierge import FAST, FakeClock, FaultyProxy
from tests.test_study_concierge import Study, rooms_of, stop_later, wait_until  # noqa: F401 (fixture)

PLACE = re.compile(r"you are number <b>(\d+)</b> in the queue for a game room; expected wait: <b>([^<]+)</b>")


def _places(person) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for d in person.rec.of("text_message", lambda d: d.get("private"))
            for m in [PLACE.search(str(d.get("message")))] if m]


def test_a_healthy_launch_is_not_capped(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=4, people_per_room=1)
    clock = FakeClock()  # no time passes: a cap of 2 rooms per minute would hold the third person back
    concierge = build_concierge(None, study.bot_env(CONCIERGE_ROOMS_PER_MINUTE=2), timers=ManualTimers(),
                                clock=clock, **FAST).start()
    stop_later(concierge)
    people = [study.person() for _ in range(4)]
    for p in people:
        stop_later(p.connect(study.waiting_room).rec)
    rooms = {p.wait_moved(study.waiting_room) for p in people}
    assert len(rooms) == 4 and concierge.stats["rooms_created"] == 4
    assert concierge.stats["deferred"] == 0 and not any(_places(p) for p in people)


def test_a_person_held_back_after_a_server_error_sees_their_place(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=4, people_per_room=1)
    proxy = FaultyProxy(slurk_server.url).start()
    stop_later(proxy)
    timers, clock = ManualTimers(), FakeClock()
    concierge = build_concierge(None, study.bot_env(SLURK_URL=proxy.url, CONCIERGE_ROOMS_PER_MINUTE=2),
                                timers=timers, clock=clock, **FAST).start()
    stop_later(concierge)
    a, b, c = study.person(), study.person(), study.person()
    proxy.fail_moves({a.id}, except_room=study.waiting_room)  # Slurk fails a's move: a server error
    stop_later(a.connect(study.waiting_room).rec)
    retry = ("retry", study.task_id)
    wait_until(lambda: retry in timers.pending and concierge.idle(), what="a's room given up, a retry pending")
    for p in (b, c):
        stop_later(p.connect(study.waiting_room).rec)
    # everyone held back by the back-off hears their place (a first: a keeps the front of the queue)
    wait_until(lambda: _places(a) and _places(b) and _places(c), what="place messages")
    assert [x[0] for x in (_places(a)[-1], _places(b)[-1], _places(c)[-1])] == [1, 2, 3]
    n_b = len(_places(b))
    # a refresh with nothing changed sends nothing new (bounded: one message per change)
    assert timers.fire(("places", study.task_id))
    concierge.wait_idle()
    assert len(_places(b)) == n_b
    # Slurk recovers: a gets a room (the second since the error), then the cap (2 per minute after an error)
    # holds b and c back: they are told their new places and a wait of about a minute
    proxy.fail_moves(())
    clock.t += PLACE_GAP
    assert timers.fire(retry)
    room_a = a.wait_moved(study.waiting_room)
    wait_until(lambda: _places(b)[-1][0] == 1 and _places(c)[-1][0] == 2, what="places after a left the queue")
    assert concierge.stats["deferred"] >= 1
    # the first room since the error is 11 s old: b waits 49 s, c a cap's share of a minute (30 s) more
    assert _places(b)[-1][1] == "about 50 seconds" and _places(c)[-1][1] == "about 2 minutes"
    assert rooms_of(slurk_server, b.id) == [study.waiting_room] and room_a not in rooms_of(slurk_server, b.id)


PLACE_GAP = 11.0  # seconds: more than PLACE_INTERVAL, so a changed place is told again
