"""`logs download` (bots/study/logs.py) against the Slurk test double (ETags off and on) and, when configured, a real
Slurk: one JSON-lines file per room of the task, rows as Slurk returns them, ordered by log id; rooms found by the
task's layout and by game_start rows of the task's people; other tasks' rooms left out."""
from __future__ import annotations

import csv
import json
import os
import uuid

import pytest

from bots.study import logs as study_logs

LAYOUT = {"title": "Log test", "html": [{"layout-type": "div", "id": "x"}], "show_latency": False}
SLURK_LOG_KEYS = {"id", "date_created", "date_modified", "event", "user_id", "room_id", "receiver_id", "data"}


def post_log(srv, room, event, data=None, **kw):
    r = srv.api("POST", "logs", json={"event": event, "room_id": room, "data": data or {}, **kw})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def room(srv, layout) -> int:
    r = srv.api("POST", "rooms", json={"layout_id": layout})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def person(srv, name, task, room_id):
    return srv.provision_user(name, {"send_message": True, "send_command": True}, room_id=room_id, task_id=task)[0]


def download(srv, *args):
    lines: list[str] = []
    rc = study_logs.main(["download", *map(str, args)],
                         env={"SLURK_URL": srv.url, "SLURK_ADMIN_TOKEN": srv.admin_token}, echo=lines.append)
    return rc, "\n".join(lines)


def test_every_room_of_the_task_one_file_ordered_by_id(slurk_server, tmp_path):
    srv = slurk_server
    layout = srv.create_layout(LAYOUT)
    other_layout = srv.create_layout(dict(LAYOUT, title="Other"))
    task = srv.create_task(f"logs-{uuid.uuid4().hex[:6]}", 2, layout)
    other_task = srv.create_task(f"other-{uuid.uuid4().hex[:6]}", 2, other_layout)
    waiting = room(srv, other_layout)
    r1, r2, empty = room(srv, layout), room(srv, layout), room(srv, layout)
    moved = room(srv, other_layout)      # a room of our task with another layout: found by game_start
    foreign = room(srv, other_layout)    # another task's room with a game_start: left out
    alice = person(srv, "Alice", task, waiting)
    bob = person(srv, "Bob", other_task, waiting)
    for uid, rid in ((alice, moved), (bob, foreign)):
        assert srv.api("POST", f"users/{uid}/rooms/{rid}").status_code == 201
    # interleaved writes, so every room's ids are not consecutive
    ids = {r1: [], r2: [], moved: [], foreign: []}
    for i in range(3):
        for rid in (r2, r1, moved, foreign):
            ev = "game_start" if i == 0 else "game_input"
            ids[rid].append(post_log(srv, rid, ev, {"task": "travel", "seq": i}))
    ids[moved].append(post_log(srv, moved, "text_message", {"message": "hi", "html": False}, user_id=alice))
    ids[foreign].append(post_log(srv, foreign, "text_message", {"message": "hi", "html": False}, user_id=bob))
    post_log(srv, waiting, "confirmation_log", {"status_txt": "no_partner", "confirmation_token": "WAIT1234"},
             receiver_id=alice)

    out = tmp_path / "logs"
    rc, output = download(srv, "--task", task, "--out", out)
    assert rc == 0, output
    files = sorted(f for f in os.listdir(out) if f.endswith(".jsonl"))
    assert files == sorted(f"{r}.jsonl" for r in (r1, r2, moved))
    server_rows = {r["id"]: r for r in srv.api("GET", "logs").json()}
    for rid in (r1, r2, moved):
        rows = [json.loads(line) for line in (out / f"{rid}.jsonl").read_text().splitlines()]
        got = [r["id"] for r in rows]
        assert got == sorted(got) and set(ids[rid]) <= set(got)
        assert all(r["room_id"] == rid for r in rows)
        for r in rows:
            assert set(r) == SLURK_LOG_KEYS and r == server_rows[r["id"]]  # exactly Slurk's rows
    assert f"no log rows (not written): room(s) {empty}" in output
    assert "3 file(s)" in output and "1 more by game_start" in output
    with open(out / "waiting_room_codes.csv", newline="") as fh:
        codes = list(csv.DictReader(fh))
    assert [(c["user_id"], c["name"], c["code"], c["status"]) for c in codes] == \
        [(str(alice), "Alice", "WAIT1234", "no_partner")]
    assert srv.admin_token not in output

    # downloading again replaces the files with the same content (plus nothing else)
    before = {f: (out / f).read_text() for f in files}
    rc, output = download(srv, "--task", task, "--out", out)
    assert rc == 0 and {f: (out / f).read_text() for f in files} == before


def test_the_task_can_be_named_and_errors_are_clear(slurk_double, tmp_path):
    from tests.conftest import SlurkServer

    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    layout = srv.create_layout(LAYOUT)
    task = srv.create_task("named-task", 1, layout)
    rid = room(srv, layout)
    post_log(srv, rid, "game_start", {"task": "travel"})
    rc, output = download(srv, "--task", "named-task", "--out", tmp_path / "o")
    assert rc == 0 and os.listdir(tmp_path / "o") == [f"{rid}.jsonl"], output
    rc, output = download(srv, "--task", 999, "--out", tmp_path / "x")
    assert rc == 2 and "no task 999" in output
    lines: list[str] = []
    assert study_logs.main(["download", "--task", str(task)], env={"SLURK_URL": srv.url}, echo=lines.append) == 2
    assert "SLURK_ADMIN_TOKEN" in lines[0]


def test_default_output_folder(slurk_double, tmp_path, monkeypatch):
    from tests.conftest import SlurkServer

    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    layout = srv.create_layout(LAYOUT)
    task = srv.create_task("t", 1, layout)
    post_log(srv, room(srv, layout), "game_start", {"task": "travel"})
    monkeypatch.chdir(tmp_path)
    rc, output = download(srv, "--task", task)
    assert rc == 0 and (tmp_path / "slurk-logs" / f"task-{task}").is_dir(), output


@pytest.mark.parametrize("argv", [[], ["upload"]])
def test_unknown_subcommand(argv):
    with pytest.raises(SystemExit):
        study_logs.main(argv, env={})
