"""`setup` (bots/study/setup.py) against the Slurk test double (ETags off and on) and, when configured, a real Slurk:
the objects it creates and their permissions, the participants CSV, bot.env (0600, no admin token), idempotent
re-runs, and dry runs that send no write request (checked on the wire with `responses` and by counting rows)."""
from __future__ import annotations

import contextlib
import csv
import json
import os
import stat
import uuid
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import requests
import responses

from bots.study import setup as study_setup
from bots.study.provision import NAMES, read_env_file, read_study_config

BOT_FLAGS = {"api": True, "send_message": True, "send_html_message": True, "send_command": True,
             "send_privately": True, "send_image": False, "broadcast": False, "receive_bounding_box": False}
# People send commands privately to the bot (receiver_id), which needs send_privately; never html, api or broadcast.
PERSON_FLAGS = {"api": False, "send_message": True, "send_command": True, "send_html_message": False,
                "send_privately": True, "send_image": False, "broadcast": False}
COLLECTIONS = ("layouts", "rooms", "tasks", "users", "tokens", "permissions")


def run(srv, tmp_path, *args, study=None, env=None, config=None):
    study = study or f"s{uuid.uuid4().hex[:10]}"
    out: list[str] = []
    argv = ["travel", *map(str, args), "--study", study, "--out", str(tmp_path / "studies")]
    if config:
        argv += ["--config", str(config)]
    e = {"SLURK_URL": srv.url, "SLURK_ADMIN_TOKEN": srv.admin_token} if env is None else env
    rc = study_setup.main(argv, env=e, echo=out.append)
    return rc, "\n".join(out), study, tmp_path / "studies" / study


def counts(srv) -> dict:
    return {c: len(srv.api("GET", c).json()) for c in COLLECTIONS}


def get(srv, path):
    r = srv.api("GET", path)
    assert r.status_code == 200, (path, r.status_code, r.text)
    return r.json()


def read_csv(folder):
    with open(folder / "participants.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_setup_creates_every_object_with_the_right_permissions(slurk_server, tmp_path):
    srv = slurk_server
    rc, output, study, folder = run(srv, tmp_path, "--participants", 3)
    assert rc == 0, output
    env = read_env_file(str(folder / "bot.env"))
    manifest = json.loads((folder / "study.json").read_text())

    task = get(srv, f"tasks/{env['TASK_ID']}")
    assert task["name"] == study and task["num_users"] == 2 and task["layout_id"] == manifest["layout_id"]
    layout = get(srv, f"layouts/{task['layout_id']}")
    assert layout["title"] == "Traveling Adventurers" and "travel-state" in layout["html"]
    waiting = get(srv, f"rooms/{env['WAITING_ROOM']}")
    wlayout = get(srv, f"layouts/{waiting['layout_id']}")
    assert wlayout["read_only"] is True and wlayout["show_users"] is False and "wait" in wlayout["html"].lower()

    for who, token_key, user_key in (("task bot", "SLURK_TOKEN", "SLURK_USER"),
                                     ("concierge", "CONCIERGE_TOKEN", "CONCIERGE_USER")):
        token = get(srv, f"tokens/{env[token_key]}")
        assert token["room_id"] == int(env["WAITING_ROOM"]) and token["task_id"] is None, who
        perms = get(srv, f"permissions/{token['permissions_id']}")
        assert {k: perms[k] for k in BOT_FLAGS} == BOT_FLAGS, who
        assert [r["id"] for r in get(srv, f"users/{env[user_key]}/rooms")] == [int(env["WAITING_ROOM"])], who
        assert [u["id"] for u in get(srv, "users?token_id=" + env[token_key])] == [int(env[user_key])], who
    assert env["SLURK_TOKEN"] != env["CONCIERGE_TOKEN"]

    rows = read_csv(folder)
    assert [r["index"] for r in rows] == ["1", "2", "3"] and "prolific_url" not in rows[0]
    perm_ids = set()
    for r in rows:
        q = parse_qs(urlsplit(r["login_link"]).query)
        assert r["login_link"].startswith(f"{srv.url}/login?name=") and q["token"] == [r["token"]]
        assert q["name"] == [r["name"]] and r["used"] == "no"
        token = get(srv, f"tokens/{r['token']}")
        assert token["registrations_left"] == 1 and token["room_id"] == int(env["WAITING_ROOM"])
        assert token["task_id"] == int(env["TASK_ID"])
        perms = get(srv, f"permissions/{token['permissions_id']}")
        assert {k: perms[k] for k in PERSON_FLAGS} == PERSON_FLAGS
        perm_ids.add(token["permissions_id"])
    assert len(perm_ids) == 3  # each participant has their own permissions row
    for r in rows:
        assert r["login_link"] in output  # printed for the researcher

    mode = stat.S_IMODE(os.stat(folder / "bot.env").st_mode)
    assert mode == 0o600
    text = (folder / "bot.env").read_text()
    assert "secret" in text.lower().split("\n", 2)[1]
    assert env["BOT_PERSON_SEATS"] == "2" and "BOT_AGENTS" not in env and "AGENT_USERS" not in env
    assert env["SLURK_URL"] == srv.url
    for f in os.listdir(folder):
        assert srv.admin_token not in (folder / f).read_text(), f
    assert srv.admin_token not in output
    assert env["SLURK_TOKEN"] not in output and env["CONCIERGE_TOKEN"] not in output


def test_one_person_per_room_creates_agent_users_with_human_names(slurk_server, tmp_path):
    rc, output, study, folder = run(slurk_server, tmp_path, "--participants", 2, "--people-per-room", 1)
    assert rc == 0, output
    env = read_env_file(str(folder / "bot.env"))
    assert get(slurk_server, f"tasks/{env['TASK_ID']}")["num_users"] == 1
    assert env["BOT_PERSON_SEATS"] == "1" and env["BOT_AGENTS"] == "ghost=solver"
    seat, uid = env["AGENT_USERS"].split(":")
    agent = get(slurk_server, f"users/{uid}")
    assert seat == "ghost" and agent["name"] in NAMES
    assert get(slurk_server, f"users/{uid}/rooms") == []  # added to each task room by the concierge
    names = [r["name"] for r in read_csv(folder)]
    assert agent["name"] not in names
    # the name is a seeded choice: the same study name gives the same agent name
    rc2, _, _, folder2 = run(slurk_server, tmp_path / "again", "--participants", 0, "--people-per-room", 1,
                             study=study)
    env2 = read_env_file(str(folder2 / "bot.env"))
    assert get(slurk_server, f"users/{env2['AGENT_USERS'].split(':')[1]}")["name"] == agent["name"]


def test_a_rerun_reuses_everything_and_only_adds_missing_tokens(slurk_server, tmp_path):
    srv = slurk_server
    rc, output, study, folder = run(srv, tmp_path, "--participants", 3)
    assert rc == 0, output
    first_env, first_rows = read_env_file(str(folder / "bot.env")), read_csv(folder)
    before = counts(srv)

    rc, output, _, _ = run(srv, tmp_path, "--participants", 3, study=study)
    assert rc == 0, output
    assert counts(srv) == before
    assert read_env_file(str(folder / "bot.env")) == first_env and read_csv(folder) == first_rows
    assert "create" not in output and "reuse   3 participant token(s)" in output

    rc, output, _, _ = run(srv, tmp_path, "--participants", 5, study=study)
    assert rc == 0, output
    after = counts(srv)
    assert {k: after[k] - before[k] for k in after} == {"layouts": 0, "rooms": 0, "tasks": 0, "users": 0,
                                                        "tokens": 2, "permissions": 2}
    rows = read_csv(folder)
    assert rows[:3] == first_rows and len(rows) == 5 and len({r["token"] for r in rows}) == 5

    # fewer participants than exist: nothing is deleted
    rc, output, _, _ = run(srv, tmp_path, "--participants", 1, study=study)
    assert rc == 0 and counts(srv) == after and len(read_csv(folder)) == 5


def test_a_rerun_recreates_what_is_gone_and_marks_used_tokens(slurk_server, tmp_path):
    srv = slurk_server
    rc, output, study, folder = run(srv, tmp_path, "--participants", 2)
    assert rc == 0, output
    env = read_env_file(str(folder / "bot.env"))
    rows = read_csv(folder)
    # the task bot's user was deleted on the server; one participant has logged in
    r = srv.api("DELETE", f"users/{env['SLURK_USER']}", headers={"If-Match": "*"})
    assert r.status_code == 204, r.text
    assert srv.api("POST", "users", json={"name": "P", "token_id": rows[0]["token"]}).status_code == 201
    before = counts(srv)

    rc, output, _, _ = run(srv, tmp_path, "--participants", 2, study=study)
    assert rc == 0, output
    env2 = read_env_file(str(folder / "bot.env"))
    assert env2["SLURK_USER"] != env["SLURK_USER"] and env2["SLURK_TOKEN"] != env["SLURK_TOKEN"]
    assert env2["CONCIERGE_USER"] == env["CONCIERGE_USER"] and env2["TASK_ID"] == env["TASK_ID"]
    after = counts(srv)
    assert {k: after[k] - before[k] for k in after} == {"layouts": 0, "rooms": 0, "tasks": 0, "users": 1,
                                                        "tokens": 1, "permissions": 1}
    rows2 = read_csv(folder)
    assert [r["token"] for r in rows2] == [r["token"] for r in rows]
    assert [r["used"] for r in rows2] == ["yes", "no"]


def test_a_rerun_gives_older_participant_tokens_send_privately(slurk_server, tmp_path):
    # Studies set up before the task page sent commands privately have participant rows without send_privately.
    srv = slurk_server
    rc, output, study, folder = run(srv, tmp_path, "--participants", 2)
    assert rc == 0, output
    rows = read_csv(folder)
    old = get(srv, f"tokens/{rows[0]['token']}")["permissions_id"]
    r = srv.api("PATCH", f"permissions/{old}", json={"send_privately": False}, headers={"If-Match": "*"})
    assert r.status_code == 200, r.text
    before = counts(srv)

    rc, output, _, _ = run(srv, tmp_path, "--participants", 2, "--dry-run", study=study)
    assert rc == 0 and "update  1 participant permission row(s)  (set send_privately" in output, output
    assert get(srv, f"permissions/{old}")["send_privately"] is False   # a dry run changes nothing

    rc, output, _, _ = run(srv, tmp_path, "--participants", 2, study=study)
    assert rc == 0 and "update  1 participant permission row(s)" in output, output
    assert counts(srv) == before
    for r in rows:
        pid = get(srv, f"tokens/{r['token']}")["permissions_id"]
        perms = get(srv, f"permissions/{pid}")
        assert {k: perms[k] for k in PERSON_FLAGS} == PERSON_FLAGS

    rc, output, _, _ = run(srv, tmp_path, "--participants", 2, study=study)
    assert rc == 0 and "update" not in output, output                  # nothing left to change


def test_without_the_manifest_the_study_is_found_on_the_server_by_name(slurk_server, tmp_path):
    srv = slurk_server
    rc, output, study, folder = run(srv, tmp_path, "--participants", 2)
    assert rc == 0, output
    rows = read_csv(folder)
    env = read_env_file(str(folder / "bot.env"))
    os.unlink(folder / "study.json")
    before = counts(srv)
    rc, output, _, _ = run(srv, tmp_path, "--participants", 2, study=study)
    assert rc == 0, output
    assert counts(srv) == before, output  # task, waiting room, tokens found; bots from bot.env
    assert [r["token"] for r in read_csv(folder)] == [r["token"] for r in rows]
    assert read_env_file(str(folder / "bot.env")) == env


@contextlib.contextmanager
def wire_methods():
    """The HTTP method of every request sent by `requests` (any session) while inside the block."""
    methods: list[str] = []
    real = requests.adapters.HTTPAdapter.send

    def send(self, request, *args, **kwargs):
        methods.append(request.method)
        return real(self, request, *args, **kwargs)

    with mock.patch.object(requests.adapters.HTTPAdapter, "send", send):
        yield methods


def test_dry_run_sends_no_write_request_and_writes_no_file(slurk_server, tmp_path):
    srv = slurk_server
    before = counts(srv)
    with wire_methods() as methods:
        rc, output, study, folder = run(srv, tmp_path, "--participants", 4, "--dry-run")
    assert rc == 0, output
    assert methods and set(methods) == {"GET"}, methods
    assert counts(srv) == before
    assert not folder.exists()
    assert "Dry run" in output and "create  4 participant token(s)" in output and "create  task" in output

    # an existing study: the plan names only what is missing
    rc, output, _, _ = run(srv, tmp_path, "--participants", 2, study=study)
    assert rc == 0
    before = counts(srv)
    files = {f: (folder / f).read_text() for f in os.listdir(folder)}
    with wire_methods() as methods:
        rc, output, _, _ = run(srv, tmp_path, "--participants", 3, "--dry-run", study=study)
    assert rc == 0 and len(methods) > 5 and set(methods) == {"GET"}, methods
    assert counts(srv) == before and {f: (folder / f).read_text() for f in os.listdir(folder)} == files
    assert "create  1 participant token(s)" in output and "reuse   task" in output


def test_dry_run_makes_no_write_request_on_the_wire_alone(tmp_path):
    """Pure HTTP: every request answered by `responses` (an empty server); only GETs go out."""
    url = "http://slurk.invalid:5000"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as wire:
        wire.add(responses.GET, f"{url}/slurk/api/tasks", json=[])
        rc, output, _, folder = run(type("S", (), {"url": url, "admin_token": "a" * 8})(), tmp_path,
                                    "--participants", 2, "--dry-run")
        methods = [c.request.method for c in wire.calls]  # (responses forgets its calls on exit)
    assert rc == 0, output
    assert methods and set(methods) == {"GET"}, methods
    assert not folder.exists() and "create  2 participant token(s)" in output


def test_prolific_template_and_admin_token_from_the_config_file(slurk_server, tmp_path):
    config = tmp_path / "study.yaml"
    config.write_text(f"slurk:\n  url: {slurk_server.url}\n  admin_token: {slurk_server.admin_token}\n"
                      "completion:\n  platform: Prolific\n")
    rc, output, study, folder = run(slurk_server, tmp_path, "--participants", 2, env={}, config=config)
    assert rc == 0, output
    rows = read_csv(folder)
    for r in rows:
        assert r["prolific_url"] == f"{slurk_server.url}/login?name={{{{%PROLIFIC_PID%}}}}&token={r['token']}"
    assert "{{%PROLIFIC_PID%}}" in output and slurk_server.admin_token not in output
    cfg = read_study_config(str(config), {})
    assert cfg.admin_token == slurk_server.admin_token and slurk_server.admin_token not in repr(cfg)


def test_missing_admin_token_or_url_is_a_clear_error(tmp_path):
    rc, output, _, folder = run(type("S", (), {"url": "http://127.0.0.1:1", "admin_token": ""})(), tmp_path,
                                "--participants", 1, env={"SLURK_URL": "http://127.0.0.1:1"})
    assert rc == 2 and "SLURK_ADMIN_TOKEN" in output and not folder.exists()
    rc, output, _, _ = run(None, tmp_path, "--participants", 1, env={"SLURK_ADMIN_TOKEN": "x"})
    assert rc == 2 and "SLURK_URL" in output


def test_changing_the_seat_mix_of_an_existing_study_is_refused(slurk_double, tmp_path):
    from tests.conftest import SlurkServer

    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    rc, output, study, _ = run(srv, tmp_path, "--participants", 1)
    assert rc == 0
    rc, output, _, _ = run(srv, tmp_path, "--participants", 1, "--people-per-room", 1, study=study)
    assert rc == 2 and "people per room" in output


def test_dry_run_without_a_reachable_server_still_prints_the_plan(tmp_path):
    srv = type("S", (), {"url": "http://127.0.0.1:1", "admin_token": "x" * 8})()
    rc, output, _, folder = run(srv, tmp_path, "--participants", 2, "--dry-run")
    assert rc == 0, output
    assert "cannot reach" in output and "create  2 participant token(s)" in output and not folder.exists()
    rc, output, _, _ = run(srv, tmp_path, "--participants", 2)
    assert rc == 1 and "cannot reach" in output


def test_person_seats_by_name_put_the_person_in_that_seat(slurk_server, tmp_path):
    """`--person-seats ghost`: the person takes the ghost seat and an agent the light seat (in mediation, the same
    puts one person in the assistant's seat); bot.env carries the seat names, and the bot's config reads them."""
    from bots.config import load_config
    from tasks import get_task
    rc, output, study, folder = run(slurk_server, tmp_path, "--participants", 2, "--person-seats", "ghost")
    assert rc == 0, output
    env = read_env_file(str(folder / "bot.env"))
    assert env["BOT_PERSON_SEATS"] == "ghost" and env["BOT_AGENTS"] == "light=solver"
    assert get(slurk_server, f"tasks/{env['TASK_ID']}")["num_users"] == 1
    persons, brains = load_config(None, env).seat_plan(get_task("travel"))
    assert persons == ["ghost"] and brains == {"light": "solver"}
    rc, output, *_ = run(slurk_server, tmp_path / "bad", "--participants", 1, "--person-seats", "attic")
    assert rc == 2 and "person_seats names 'attic'" in output
    rc, output, *_ = run(slurk_server, tmp_path / "both", "--participants", 1, "--person-seats", "ghost",
                         "--people-per-room", 1)
    assert rc == 2 and "not both" in output
