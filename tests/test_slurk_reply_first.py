"""The reply a person waits for reaches Slurk before the rest of an input's work (issue: replies as fast as an echo
bot). A Slurk server runs its socket.io in one worker, so an input's page updates and log posts sent at the same
moment as its chat reply delay that reply; they now wait: page updates until Slurk acknowledged the reply (or
`PAGE_HOLD`), log events `ship_delay`. Nothing is dropped or reordered within a room, and a finished game's record
goes out at once."""
from __future__ import annotations

import threading
import time

from bots.slurk.delivery import PAGE_HOLD
from bots.slurk.shipping import RoomLanes
from bots.slurk.outbox import OutboxShipper
from tasks.core.protocol import LogEvent, Message, View
from tests.test_attacks_outage import _Rest
from tests.test_slurk_runtime import _delivery

WAIT = 10.0


class _Lanes(RoomLanes):
    name = "test-lanes"

    def __init__(self):
        self.ran: list = []
        super().__init__(threads=2)

    def _run(self, room, job):
        self.ran.append((room, job, time.monotonic()))


def _wait(pred, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_held_room_waits_for_release_while_other_rooms_go_on():
    lanes = _Lanes()
    try:
        lanes.hold(1, 30.0)
        lanes._submit(1, "a1")
        lanes._submit(1, "a2")
        lanes._submit(2, "b1")
        _wait(lambda: any(r == 2 for r, _, _ in lanes.ran))
        time.sleep(0.1)
        assert [j for r, j, _ in lanes.ran if r == 1] == []  # held
        lanes.release(1)
        _wait(lambda: len(lanes.ran) == 3)
        assert [j for r, j, _ in lanes.ran if r == 1] == ["a1", "a2"]  # in order
    finally:
        lanes.stop()


def test_a_hold_lapses_by_itself():
    lanes = _Lanes()
    try:
        t0 = time.monotonic()
        lanes.hold(1, 0.2)
        lanes._submit(1, "a1")
        _wait(lambda: lanes.ran)
        waited = lanes.ran[0][2] - t0
        assert 0.15 <= waited < 5.0
        assert lanes._held == {}  # nothing left behind for the room
    finally:
        lanes.stop()


def test_page_updates_of_an_input_wait_for_its_reply_to_be_acknowledged():
    bot, d = _delivery()
    order: list = []

    class Pages:
        def __init__(self):
            self.held = self.released = 0

        def hold(self, room, seconds):
            assert seconds == PAGE_HOLD
            self.held += 1
            order.append("hold")

        def release(self, room):
            self.released += 1
            order.append("release")

        def submit(self, delivery, seat, uid, item, turn, gen=0):
            order.append(("page", seat))

    bot.pages = Pages()
    bot.sio.hold = True  # Slurk has not acknowledged the message yet
    d.deliver([Message("Ann proposes A B"), View("a", {"n": 1})])
    assert order == ["hold", ("page", "a")]  # held before the view was queued
    bot.sio.release()  # the reply was shown: the page updates may go
    assert order[-1] == "release"
    # an input without a chat reply holds nothing
    d.deliver([View("a", {"n": 2}), LogEvent("e", {})])
    assert bot.pages.held == 1


def test_log_events_wait_out_the_ship_delay_then_go_in_order():
    rest = _Rest()
    shipper = OutboxShipper(rest, threads=2, ship_delay=0.3)
    try:
        t0 = time.monotonic()
        for e in ("a1", "a2", "a3"):
            shipper.post(1, e, {})
        time.sleep(0.1)
        assert rest.events(1) == []  # not yet: replies go first
        assert shipper.drain(WAIT)
        assert time.monotonic() - t0 >= 0.25
        assert rest.events(1) == ["a1", "a2", "a3"]
    finally:
        shipper.stop()


def test_a_finished_games_record_is_hurried_out():
    rest = _Rest()
    shipper = OutboxShipper(rest, threads=1, ship_delay=30.0)
    try:
        shipper.post(7, "game_input", {})
        shipper.post(7, "game_end", {})
        shipper.post(8, "game_input", {})
        shipper.hurry(7)
        _wait(lambda: rest.events(7) == ["game_input", "game_end"])
        assert rest.events(8) == []  # another room keeps its delay
    finally:
        shipper.stop(timeout=0.1)


def test_a_delayed_event_is_not_hurried_by_recovery_elsewhere():
    """After a failure, rooms that waited for Slurk are woken when another request succeeds; a room that only waits
    out its ship delay is not (it would lose the point of the delay under load)."""
    rest = _Rest({"x": [503]})
    shipper = OutboxShipper(rest, threads=2, base_delay=30.0, max_delay=30.0, ship_delay=0.0)
    try:
        shipper.post(1, "x", {})  # fails, sleeps 30 s
        _wait(lambda: 1 in shipper._due)
        shipper.ship_delay = 30.0
        shipper.post(2, "y", {})  # waits its delay
        shipper.ship_delay = 0.0
        shipper.post(3, "z", {})  # accepted at once: wakes the failed room 1, not room 2
        _wait(lambda: rest.events(1) == ["x"])
        time.sleep(0.1)
        assert rest.events(2) == [] and rest.events(3) == ["z"]
    finally:
        shipper.stop(timeout=0.1)


def test_release_from_another_thread_wakes_a_waiting_lane():
    lanes = _Lanes()
    try:
        lanes.hold(5, 30.0)
        lanes._submit(5, "j")
        threading.Timer(0.1, lanes.release, args=(5,)).start()
        _wait(lambda: lanes.ran, timeout=5.0)
    finally:
        lanes.stop()


def test_a_view_equal_to_the_last_one_sent_is_not_sent_again():
    bot, d = _delivery()

    def views_sent():
        return [c for c in bot.rest.calls if c[0] == "text"]

    d.deliver([View("a", {"n": 1})])
    d.deliver([View("a", {"n": 1})])  # e.g. the partner's view after a refused move: unchanged
    assert len(views_sent()) == 1
    d.deliver([View("a", {"n": 2})])
    assert len(views_sent()) == 2
    d.people.join_gen[7] += 1  # the person reloaded their page: the same view goes again
    d.deliver([View("a", {"n": 2})])
    assert len(views_sent()) == 3


def test_a_view_kept_for_an_offline_person_is_not_skipped_when_they_return():
    bot, d = _delivery()
    bot.rest.offline.add(7)
    d.deliver([View("a", {"n": 1})])  # bounced (422): kept
    assert d.pending["a"]
    bot.rest.offline.clear()
    d.deliver([View("a", {"n": 1})])  # same view, but something is kept for them: not skipped
    d.people.online.add(7)
    d.flush("a")
    assert [c for c in bot.rest.calls if c[0] == "text"] and not d.has_pending()


def test_cancelled_timers_do_not_pile_up_in_the_scheduler():
    """Every game sets timers far in the future (turn and leave deadlines) and cancels them when it ends; a bot that
    plays thousands of games must not keep them all until their deadlines."""
    from bots.slurk.timers import Scheduler

    fired = []
    s = Scheduler(lambda room, name, token: fired.append((room, name, token)))
    try:
        for room in range(1000):
            s.set(room, "timeout", 1, 3600.0)
            s.set(room, "leave", 1, 3600.0)
            s.cancel_room(room)
        s.set(5000, "soon", 7, 0.05)
        assert len(s._heap) <= 130  # only live timers and a bounded tail of stale ones
        _wait(lambda: fired == [(5000, "soon", 7)])
    finally:
        s.stop()
