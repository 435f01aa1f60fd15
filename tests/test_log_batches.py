"""A room's queued log events go to Slurk as ONE log row (`log_batch`, bots/slurk/logbatch.py) and every reader still
sees the single rows (issue 18: each Slurk request costs a commit in its single worker). Against the Slurk test
double with real HTTP where the wire matters, against the scripted `_Rest` for the shipper's policy: batches within
the ship delay, one receiver per batch, caps, unclear failures found in Slurk's log (also after a restart that
regroups the leftovers), 4xx, 413, hurry and stop, and the readers (get_logs, logs download's files, replay)."""
from __future__ import annotations

import collections
import json
import logging
import threading
import time

import pytest

from bots.slurk import logbatch
from bots.slurk.outbox import Outbox, OutboxShipper
from bots.slurk.rest import SlurkREST
from bots.slurk.store import RoomStore
from bots.study.replay_reading import read_log
from tests.conftest import SlurkServer
from tests.test_attacks_outage import _Rest

WAIT = 10.0


def _wait(pred, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture
def srv(slurk_double):
    return SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)


def _client(srv) -> tuple[SlurkREST, collections.Counter]:
    rest = SlurkREST(srv.url, srv.admin_token)
    counts: collections.Counter = collections.Counter()
    rest.on_request = lambda kind: counts.update([kind])
    return rest, counts


def _raw(srv, room) -> list:
    """The room's rows as Slurk stores them (batch rows not expanded)."""
    return sorted(srv.expect_ok(srv.api("GET", "logs", params={"room_id": room})), key=lambda r: r["id"])


def _user(srv, name, room) -> int:
    return srv.provision_user(name, {"send_message": True}, room_id=room)[0]


# ----------------------------------------------------------------------------------------------------------------
# logbatch: pack and expand


def test_expand_gives_the_rows_of_a_batch_in_order_shaped_as_slurk_rows():
    batch = {"id": 9, "event": logbatch.BATCH_EVENT, "room_id": 3, "user_id": None, "receiver_id": 5,
             "date_created": "2026-01-01T00:00:00", "date_modified": None,
             "data": logbatch.pack([("game_start", {"seed": 1}, 11), ("game_input", {"seq": 1}, 12)])}
    before = {"id": 8, "event": "join", "room_id": 3, "user_id": 4, "receiver_id": None, "data": {}}
    after = {"id": 10, "event": "text_message", "room_id": 3, "user_id": 4, "receiver_id": None, "data": {"m": 1}}
    rows = logbatch.expand([before, batch, after])
    assert [r["event"] for r in rows] == ["join", "game_start", "game_input", "text_message"]
    start, inp = rows[1], rows[2]
    for r in (start, inp):
        assert {k: r[k] for k in ("id", "room_id", "user_id", "receiver_id", "date_created", "date_modified")} == \
            {"id": 9, "room_id": 3, "user_id": None, "receiver_id": 5, "date_created": "2026-01-01T00:00:00",
             "date_modified": None}
        assert r["batch"] == 9
    assert (start["data"], start["oid"], inp["data"], inp["oid"]) == ({"seed": 1}, 11, {"seq": 1}, 12)
    assert rows[0] is before and rows[3] is after  # other rows untouched
    assert logbatch.expand(rows) == rows  # expanding twice changes nothing
    # sorting by id (stable) keeps a batch's order, also when the rows come in another order
    assert [r["event"] for r in sorted([after, *rows[1:3], before], key=lambda r: r["id"])] == \
        ["join", "game_start", "game_input", "text_message"]


@pytest.mark.parametrize("data", [None, "x", [], {"rows": "x"}, {"rows": None}, {}])
def test_expand_skips_a_malformed_batch_row(data, caplog):
    rows = [{"id": 1, "event": "join", "data": {}}, {"id": 2, "event": logbatch.BATCH_EVENT, "data": data},
            {"id": 3, "event": "leave", "data": {}}]
    with caplog.at_level(logging.WARNING):
        assert [r["event"] for r in logbatch.expand(rows)] == ["join", "leave"]
    assert "log row 2" in caplog.text


def test_expand_skips_malformed_rows_inside_a_batch():
    data = {"rows": [{"event": "a", "data": {"k": 1}}, "x", {"data": {}}, {"event": 3}, {"event": "b"},
                     {"event": logbatch.BATCH_EVENT, "data": {"rows": []}}, None, {"event": "c", "data": [1]}]}
    rows = logbatch.expand([{"id": 5, "event": logbatch.BATCH_EVENT, "data": data}])
    assert [(r["event"], r["data"]) for r in rows] == [("a", {"k": 1}), ("b", {}), ("c", [1])]


# ----------------------------------------------------------------------------------------------------------------
# against the double, real HTTP


def test_rows_posted_within_the_delay_go_as_one_request_and_read_back_one_by_one(srv):
    room = srv.create_room()
    rest, counts = _client(srv)
    shipper = OutboxShipper(rest, threads=2, ship_delay=0.3)
    try:
        posted = [("game_start", {"seed": 4}), ("game_input", {"seq": 1, "input": "hi"}),
                  ("proposal", {"who": "a", "path": ["x", "y"]}), ("game_input", {"seq": 2, "input": "ok"})]
        for event, data in posted:
            shipper.post(room, event, data)
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert counts["POST /logs"] == 1 and shipper.posts == 1 and shipper.accepted == 4
    [raw] = _raw(srv, room)
    assert raw["event"] == logbatch.BATCH_EVENT
    rows = srv.logs(room)  # the double's client expands, as every test reading logs expects
    assert [(r["event"], r["data"]) for r in rows] == posted
    assert all(r["id"] == raw["id"] and r["room_id"] == room for r in rows)
    assert [(r["event"], r["data"]) for r in rest.get_logs(room_id=room)] == posted


def test_a_single_row_goes_as_itself(srv):
    room = srv.create_room()
    rest, _ = _client(srv)
    shipper = OutboxShipper(rest, threads=1, ship_delay=0.05)
    try:
        shipper.post(room, "game_end", {"status": "completed"})
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert [(r["event"], r["data"]) for r in _raw(srv, room)] == [("game_end", {"status": "completed"})]


def test_rows_for_other_receivers_go_in_requests_of_their_own_in_order(srv):
    room = srv.create_room()
    ann, bob = _user(srv, "Ann", room), _user(srv, "Bob", room)
    rest, counts = _client(srv)
    shipper = OutboxShipper(rest, threads=2, ship_delay=0.3)
    posted = [("e1", ann), ("e2", ann), ("code", bob), ("e3", ann), ("e4", ann)]
    try:
        for event, receiver in posted:
            shipper.post(room, event, {"n": event}, receiver)
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert counts["POST /logs"] == 3  # [e1 e2] [code] [e3 e4]
    assert [(r["event"], r["receiver_id"]) for r in srv.logs(room)] == posted
    raw = _raw(srv, room)
    assert [(r["event"], r["receiver_id"]) for r in raw] == [
        (logbatch.BATCH_EVENT, ann), ("code", bob), (logbatch.BATCH_EVENT, ann)]


def test_get_logs_finds_rows_inside_batches_by_event_and_filters(srv):
    room, other = srv.create_room(), srv.create_room()
    ann = _user(srv, "Ann", room)
    rest, counts = _client(srv)
    shipper = OutboxShipper(rest, threads=2, ship_delay=0.3)
    try:
        shipper.post(room, "game_input", {"seq": 1})  # alone: a request of its own
        assert shipper.drain(WAIT)
        for i, event in enumerate(["game_start", "game_input", "note", "game_input"]):
            shipper.post(room, event, {"seq": i + 2})
        shipper.post(other, "game_input", {"seq": 1})
        shipper.post(room, "confirmation_log", {"code": "X"}, ann)
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    inputs = rest.get_logs(room_id=room, event="game_input")
    assert [(r["event"], r["data"]["seq"]) for r in inputs] == [("game_input", 1), ("game_input", 3),
                                                                ("game_input", 5)]
    assert [r["room_id"] for r in rest.get_logs(event="game_input")].count(other) == 1  # across the server
    assert [r["data"] for r in rest.get_logs(room_id=room, event="confirmation_log", receiver_id=ann)] == [
        {"code": "X"}]
    assert rest.get_logs(room_id=room, event="game_start")[0]["batch"] is not None
    raw = rest.get_logs(room_id=room, expand=False)
    assert {r["event"] for r in raw} == {"game_input", logbatch.BATCH_EVENT, "confirmation_log"}
    counts.clear()
    assert rest.get_logs(room_id=room, event="text_message") == []
    assert counts["GET /logs"] == 1  # Slurk's own events are never batched: no second request


def test_backfill_after_a_restart_sees_inputs_inside_batches(srv):
    """A resumed room re-posts the game_start / game_input rows Slurk lacks (resume.lost_log_events): rows inside a
    batch count as there (it reads the room through get_logs, which expands)."""
    room = srv.create_room()
    rest, _ = _client(srv)
    rest.post_log(logbatch.BATCH_EVENT, room, logbatch.pack([("game_start", {"seed": 7}, 1),
                                                             ("game_input", {"seq": 1}, 2)]))
    logs = rest.get_logs(room_id=room)
    starts = [i for i, x in enumerate(logs) if x.get("event") == "game_start" and x["data"].get("seed") == 7]
    assert starts and {x["data"].get("seq") for x in logs[starts[-1]:] if x["event"] == "game_input"} == {1}


# ----------------------------------------------------------------------------------------------------------------
# the shipper's policy (scripted Slurk)


def test_batches_respect_the_row_and_size_caps():
    rest = _Rest()
    shipper = OutboxShipper(rest, threads=1, ship_delay=0.3, batch_rows=3)
    try:
        for i in range(7):
            shipper.post(1, f"e{i}", {"i": i})
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert [len(r["data"]["rows"]) if r["event"] == logbatch.BATCH_EVENT else 1 for r in rest.rows] == [3, 3, 1]
    assert rest.events(1) == [f"e{i}" for i in range(7)]

    rest = _Rest()
    big = "x" * 1000
    shipper = OutboxShipper(rest, threads=1, ship_delay=0.3, batch_bytes=2500)
    try:
        for i in range(5):
            shipper.post(1, f"e{i}", {"text": big})
        shipper.post(1, "huge", {"text": big * 5})  # larger than a batch may be: goes alone
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    sizes = [len(json.dumps(r["data"])) for r in rest.rows]
    assert [len(r["data"]["rows"]) if r["event"] == logbatch.BATCH_EVENT else 1 for r in rest.rows] == [2, 2, 1, 1]
    assert all(s <= 2500 for s in sizes[:3])
    assert rest.events(1) == [f"e{i}" for i in range(5)] + ["huge"]


def test_slurks_own_event_names_are_never_batched():
    rest = _Rest()
    shipper = OutboxShipper(rest, threads=1, ship_delay=0.3)
    try:
        for event in ("a", "b", "text_message", "c", "d"):
            shipper.post(1, event, {})
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert [r["event"] for r in rest.rows] == [logbatch.BATCH_EVENT, "text_message", logbatch.BATCH_EVENT]


def test_a_batch_whose_answer_was_lost_is_found_not_posted_twice():
    rest = _Rest({"b": ["stored-but-timeout"]})
    shipper = OutboxShipper(rest, threads=1, base_delay=0.01, max_delay=0.05, ship_delay=0.3)
    try:
        for event in ("a", "b", "c"):
            shipper.post(1, event, {"e": event})
        _wait(lambda: rest.rows)  # the batch reached Slurk, its answer did not come back
        shipper.post(1, "d", {})  # queued meanwhile: the retry would take it along
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert rest.events(1) == ["a", "b", "c", "d"]  # once each
    assert [e for e, _ in rest.posts] == [logbatch.BATCH_EVENT, "d"]
    assert shipper.accepted == 4 and shipper.posts == 1  # the found batch was not a new request


def _ship_abc(shipper) -> None:
    """Events a, b, c of room 1 through the shipper, until they are out; then it stops."""
    try:
        for event in ("a", "b", "c"):
            shipper.post(1, event, {})
        assert shipper.drain(WAIT)
    finally:
        shipper.stop()


@pytest.mark.parametrize("status", [500, 502, 504])
def test_a_batch_that_failed_with_a_server_error_is_looked_for_then_posted_once(status):
    rest = _Rest({"a": [status]})
    _ship_abc(OutboxShipper(rest, threads=1, base_delay=0.01, max_delay=0.05, ship_delay=0.2))
    assert rest.events(1) == ["a", "b", "c"]
    assert [e for e, _ in rest.posts] == [logbatch.BATCH_EVENT, logbatch.BATCH_EVENT]  # regrouped as one again


def test_a_refused_batch_is_dropped_with_a_warning_and_the_room_goes_on(caplog):
    rest = _Rest({"b": [422]})
    shipper = OutboxShipper(rest, threads=1, ship_delay=0.2)
    try:
        with caplog.at_level(logging.WARNING):
            for event in ("a", "b", "c"):
                shipper.post(1, event, {"secret": "s3cr3t"})
            assert shipper.drain(WAIT)
            shipper.post(1, "d", {})
            assert shipper.drain(WAIT)
    finally:
        shipper.stop()
    assert rest.events(1) == ["d"]
    assert shipper.dropped == 3 and shipper.accepted == 1
    assert "3 log events ('a', 'b', 'c') dropped" in caplog.text and "422" in caplog.text
    assert "s3cr3t" not in caplog.text


def test_a_batch_too_large_for_slurk_goes_one_by_one():
    rest = _Rest({"b": [413]})
    _ship_abc(OutboxShipper(rest, threads=1, ship_delay=0.2))
    assert rest.events(1) == ["a", "b", "c"]
    assert [e for e, _ in rest.posts] == [logbatch.BATCH_EVENT, "a", "b", "c"]


class _SlowRest(_Rest):
    """Holds every POST until `go` is set."""

    def __init__(self):
        super().__init__()
        self.go = threading.Event()
        self.waiting = threading.Event()

    def post_log(self, *args, **kwargs):
        self.waiting.set()
        assert self.go.wait(WAIT)
        return super().post_log(*args, **kwargs)


def test_rows_queued_during_a_request_wait_their_delay_unless_the_room_is_hurried():
    rest = _SlowRest()
    shipper = OutboxShipper(rest, threads=2, ship_delay=1.0)
    try:
        shipper.post(1, "a", {})
        assert rest.waiting.wait(WAIT)  # the request of [a] is under way
        shipper.post(1, "b", {})
        shipper.post(1, "c", {})
        t0 = time.monotonic()
        rest.go.set()
        _wait(lambda: rest.events(1) == ["a"])
        time.sleep(0.05)
        assert rest.events(1) == ["a"]  # b and c wait out their delay: they go together
        assert shipper.drain(WAIT) and time.monotonic() - t0 >= 0.5
        assert [e for e, _ in rest.posts] == ["a", logbatch.BATCH_EVENT]

        rest.go.clear()
        rest.waiting.clear()
        shipper.ship_delay = 30.0
        shipper.post(2, "x", {})
        shipper.hurry(2)  # the game ended
        assert rest.waiting.wait(WAIT)
        shipper.post(2, "game_end", {})  # queued while the hurried room's request is under way
        rest.go.set()
        _wait(lambda: rest.events(2) == ["x", "game_end"])  # not 30 s later
    finally:
        shipper.stop(timeout=1)


def test_stop_does_not_wait_out_the_ship_delay():
    rest = _Rest()
    shipper = OutboxShipper(rest, threads=1, ship_delay=30.0)
    shipper.post(1, "a", {})
    shipper.post(1, "b", {})
    t0 = time.monotonic()
    shipper.stop(timeout=WAIT)
    assert rest.events(1) == ["a", "b"] and time.monotonic() - t0 < WAIT


# ----------------------------------------------------------------------------------------------------------------
# crash recovery: leftovers of a killed process, regrouped


class _Row:
    def __init__(self, oid, room, event, data, receiver_id=None):
        self.oid, self.room, self.event, self.receiver_id = oid, room, event, receiver_id
        self.data, self.data_json = data, json.dumps(data)


def _killed_process(path, srv, room, rows, posted_groups):
    """What a process killed at the wrong moment leaves: `rows` in its outbox, none marked as out, and the groups
    of them (by index) in `posted_groups` in Slurk's log (accepted, as batches or single rows)."""
    store = RoomStore(str(path), srv.url, 1)
    try:
        outbox = Outbox(store, srv.url, 1)
        assert outbox.add(rows).done.wait(WAIT)
        rest, _ = _client(srv)
        for group in posted_groups:
            if len(group) == 1:
                r = rows[group[0]]
                rest.post_log(r.event, room, r.data, r.receiver_id)
            else:
                rest.post_log(logbatch.BATCH_EVENT, room,
                              logbatch.pack((rows[i].event, rows[i].data, rows[i].oid) for i in group))
    finally:
        store.close()


def _restart(path, srv, **kw):
    store = RoomStore(str(path), srv.url, 1)
    rest, counts = _client(srv)
    shipper = OutboxShipper(rest, Outbox(store, srv.url, 1), threads=2, **kw)
    return store, shipper, counts


@pytest.mark.parametrize("posted_groups", [
    [[0, 1], [2, 3, 4]],  # two batches reached Slurk, 5 and 6 did not: the restart would group all 7 as one
    [[0], [1, 2, 3, 4], [5]],  # a single row, a batch, a single row
    [[0, 1, 2, 3, 4, 5, 6]],  # everything
    [],  # nothing
])
def test_leftovers_are_found_in_slurks_log_however_they_were_grouped(srv, tmp_path, posted_groups):
    room = srv.create_room()
    rows = [_Row(i + 1, room, "game_input" if i else "game_start", {"seq": i}) for i in range(7)]
    _killed_process(tmp_path / "state.sqlite3", srv, room, rows, posted_groups)
    store, shipper, counts = _restart(tmp_path / "state.sqlite3", srv, ship_delay=3.0)
    try:
        assert shipper.drain_leftover(WAIT)
        shipper.post(room, "game_end", {"status": "completed"})
        shipper.hurry(room)
        assert shipper.drain(WAIT)
        shipper.stop()
        assert shipper.outbox.count() == 0  # every row marked as out
    finally:
        shipper.stop()
        store.close()
    got = [(r["event"], r["data"]) for r in srv.logs(room)]
    assert got == [(r.event, r.data) for r in rows] + [("game_end", {"status": "completed"})]  # once each, in order
    left = 7 - sum(map(len, posted_groups))
    assert counts["POST /logs"] == (1 if left else 0) + 1  # what was left went as one batch (or with game_end)


def test_a_leftover_given_up_before_the_crash_does_not_double_the_batch_after_it(srv, tmp_path):
    """The killed process had dropped row 1 (a 4xx) and posted rows 2-3 as a batch, then died before marking any:
    row 1 is not in the log, but the batch names rows 2 and 3, so they are found, not posted again."""
    room = srv.create_room()
    rows = [_Row(i + 1, room, "game_input", {"seq": i}) for i in range(3)]
    _killed_process(tmp_path / "state.sqlite3", srv, room, rows, [[1, 2]])
    store, shipper, counts = _restart(tmp_path / "state.sqlite3", srv)
    try:
        assert shipper.drain_leftover(WAIT)
    finally:
        shipper.stop()
        store.close()
    assert sorted(r["data"]["seq"] for r in srv.logs(room)) == [0, 1, 2]  # none twice
    assert counts["POST /logs"] == 1  # row 1 alone


# ----------------------------------------------------------------------------------------------------------------
# replay's reading


def test_replay_reads_a_log_saved_with_batch_rows_not_expanded(tmp_path):
    batch = {"id": 5, "event": logbatch.BATCH_EVENT, "room_id": 1, "user_id": None, "receiver_id": 2,
             "data": logbatch.pack([("game_start", {"seed": 1}, 1), ("game_input", {"seq": 1}, 2)])}
    rows = [{"id": 7, "event": "game_end", "data": {}}, batch, {"id": 3, "event": "join", "data": {}}]
    path = tmp_path / "raw.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got, problems = read_log(str(path))
    assert [r["event"] for _, r in got] == ["join", "game_start", "game_input", "game_end"]
    assert len({ln for ln, _ in got}) == 4  # rows are told apart by their number
    assert [p.skipped for p in problems] == [False] and logbatch.BATCH_EVENT in problems[0].message

    expanded = tmp_path / "expanded.jsonl"  # as `logs download` saves it (here out of id order): ids shared in a batch
    expanded.write_text("".join(json.dumps(r) + "\n" for r in logbatch.expand(rows)))
    got, problems = read_log(str(expanded))
    assert [r["event"] for _, r in got] == ["join", "game_start", "game_input", "game_end"]  # by id, batches in order
    assert problems == []
