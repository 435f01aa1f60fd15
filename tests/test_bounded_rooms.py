"""A bot that runs for weeks stays flat: a finished room is freed at once (no reference cycle keeps it for the garbage
collector), and per-room bookkeeping (the log outbox's watermarks and log floors, the runtime's finished rooms) keeps
the rooms used most recently only (bots/slurk/recent.py)."""
from __future__ import annotations

import gc
import time
import weakref

import pytest

from bots.slurk import recent
from bots.slurk.outbox import Outbox, OutboxShipper
from bots.slurk.recent import RecentMap
from bots.slurk.store import RoomStore
from tests.test_attacks_outage import _Rest
from tests.test_log_batches import WAIT, _wait



def test_recent_map_forgets_the_least_recently_set_room_past_its_bound():
    m = RecentMap({1: "a", 2: "b", 3: "c"}, bound=3)
    m[1] = "a2"  # touched again: now the newest
    m[4] = "d"  # one too many: 2, the least recently set, goes
    assert list(m.items()) == [(3, "c"), (1, "a2"), (4, "d")]
    assert RecentMap({i: i for i in range(10)}, bound=4) == {6: 6, 7: 7, 8: 8, 9: 9}  # loaded oldest first


def test_the_default_bound_is_read_when_a_map_is_made(monkeypatch):
    monkeypatch.setattr(recent, "MAX_ROOMS", 2)
    m = RecentMap()
    for room in range(5):
        m[room] = room
    assert list(m) == [3, 4]


@pytest.fixture
def small_bound(monkeypatch):
    monkeypatch.setattr(recent, "MAX_ROOMS", 5)


def _outbox(tmp_path):
    """A scripted Slurk, the state database, its outbox and a shipper through it."""
    rest = _Rest()
    store = RoomStore(str(tmp_path / "state.sqlite3"), server="http://slurk", bot_user=7)
    outbox = Outbox(store, "http://slurk", 7)
    return rest, store, outbox, OutboxShipper(rest, outbox=outbox, threads=2)


def _ship(shipper, rooms):
    for room in rooms:
        shipper.post(room, "game_input", {"room": room})
    assert shipper.drain(WAIT)


def test_the_outbox_remembers_recent_rooms_only_and_still_ships_and_restarts_cleanly(small_bound, tmp_path):
    rest, store, outbox, shipper = _outbox(tmp_path)
    try:
        _ship(shipper, range(1, 31))  # 30 finished rooms, one event each
        _ship(shipper, [3])  # an old room that speaks again is remembered anew
        _ship(shipper, [31, 32, 33])
    finally:
        shipper.stop()
    assert sorted(r["room_id"] for r in rest.rows) == sorted(list(range(1, 34)) + [3])  # every event went, once
    assert len(shipper._acked) <= 5 and len(outbox._marks) <= 5
    assert {3, 31, 32, 33} <= set(outbox._marks) and {3, 31, 32, 33} <= set(shipper._acked)
    assert outbox._marks[3][1] == max(r["id"] for r in rest.rows if r["room_id"] == 3)  # its newest log row
    assert outbox.count() == 0

    # a restart reads the newest rooms only, has nothing left to post, and numbers new events past the old ones
    outbox2 = Outbox(store, "http://slurk", 7)
    assert outbox2.leftover() == [] and len(outbox2._marks) <= 5 and 33 in outbox2._marks
    assert outbox2.new_id() > max(s for s, _ in outbox._marks.values())
    store.close()


def test_a_room_forgotten_by_the_outbox_ships_in_order_when_it_speaks_again(small_bound, tmp_path):
    rest, store, outbox, shipper = _outbox(tmp_path)
    try:
        _ship(shipper, [1])
        _ship(shipper, range(2, 12))
        _wait(lambda: 11 in outbox._marks)  # the watermarks are written after the posts, by the storing thread
        assert 1 not in outbox._marks  # room 1 is forgotten
        for i in range(3):
            shipper.post(1, f"late{i}", {"i": i})
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert rest.events(1) == ["game_input", "late0", "late1", "late2"]
    store.close()
    outbox3 = Outbox(RoomStore(str(tmp_path / "state.sqlite3"), server="http://slurk", bot_user=7), "http://slurk", 7)
    assert outbox3.leftover() == []  # its watermark was written again, past all its rows


def test_a_finished_room_is_freed_without_the_garbage_collector(slurk_server, tmp_path, monkeypatch):
    from bots.slurk import rooms
    from tasks.core.match import TimerConfig
    from tests.test_attacks_seats import _start_pair
    from tests.test_slurk_runtime import _poll, finish

    monkeypatch.setattr(rooms, "KEEP_FOR_ABSENT_SECONDS", 1.0)
    monkeypatch.setattr(recent, "MAX_ROOMS", 0)  # the bot forgets finished rooms at once
    gc.collect()
    gc.disable()  # only reference counting frees anything during the game
    bot = None
    try:
        _table, room, bot, _creds, a, b = _start_pair(slurk_server, tmp_path,
                                                      timers=TimerConfig(partner_left_grace=0.5))
        worker = weakref.ref(bot.room(room))
        delivery, game = weakref.ref(worker().delivery), weakref.ref(worker().match.game)
        b.disconnect()  # the game ends; b never comes back for their last messages, so the bot leaves after 1 s
        a.wait_view(lambda v: v["core"]["phase"] == "over")
        _poll(lambda: bot.room(room) is None)
        _poll(lambda: worker() is None and delivery() is None and game() is None)
        # forgotten by the bounded map of finished rooms (bound 0 here), announced again by a participant: the
        # state database knows the game is over, so the bot does not join the room again
        a.announce(room, _table.task)
        time.sleep(1.0)  # a join would follow within milliseconds
        assert bot.room(room) is None
        assert room not in {r["id"] for r in slurk_server.api("GET", f"users/{bot.user_id}/rooms").json()}
    finally:
        gc.enable()
        if bot is not None:
            finish(bot)
