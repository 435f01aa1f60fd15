"""The waiting-room bot (bots/concierge/) over real sockets and real HTTP: against the Slurk test double with
ETags off and on, and against a real Slurk when SLURK_TEST_URL / SLURK_TEST_ADMIN_TOKEN are set.

The study is provisioned with `setup` (travel). People are real python-socketio clients that log in with their
participant links (a real Slurk's /login; the double has no login page, so there the user is created with
`POST /users`, which is what the login page does). Waits are bounded polls; timeouts are fired by hand
(ManualTimers), except in one test that runs a real short timer.
"""
from __future__ import annotations

import html
import time
import uuid
from typing import Optional
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from bots.study import setup as study_setup
from bots.concierge import Concierge, ManualTimers, build_concierge
from bots.study.provision import read_env_file
from tests.slurk_double.recorder import SocketRecorder

WAIT = 10  # upper bound of every wait (seconds)


# ----------------------------------------------------------------------------------------------------------------
# helpers (also used by test_study_e2e.py)


class Study:
    """A study provisioned by `setup` on `srv`: its manifest, bot.env and participant links."""

    def __init__(self, srv, tmp_path, participants: int, people_per_room: Optional[int] = None,
                 task: str = "travel", config: Optional[str] = None):
        self.srv = srv
        self.name = f"t{uuid.uuid4().hex[:10]}"
        self.out = str(tmp_path / "studies")
        argv = [task, "--participants", str(participants), "--study", self.name, "--out", self.out]
        if people_per_room is not None:
            argv += ["--people-per-room", str(people_per_room)]
        if config:
            argv += ["--config", config]
        self.output: list[str] = []
        rc = study_setup.main(argv, env=self.admin_env(), echo=self.output.append)
        assert rc == 0, "\n".join(self.output)
        self.folder = tmp_path / "studies" / self.name
        self.env = read_env_file(str(self.folder / "bot.env"))
        import json

        self.manifest = json.loads((self.folder / "study.json").read_text())
        import csv

        with open(self.folder / "participants.csv", newline="") as fh:
            self.participants = list(csv.DictReader(fh))
        self.task_id = int(self.env["TASK_ID"])
        self.waiting_room = int(self.env["WAITING_ROOM"])
        self._next = 0

    def admin_env(self) -> dict:
        return {"SLURK_URL": self.srv.url, "SLURK_ADMIN_TOKEN": self.srv.admin_token}

    def bot_env(self, **extra) -> dict:
        return {**self.env, **{k: str(v) for k, v in extra.items()}}

    def concierge(self, timers=None, config: Optional[str] = None, **kw) -> Concierge:
        bot = build_concierge(config, self.bot_env(), timers=timers if timers is not None else ManualTimers(), **kw)
        return bot.start()

    def person(self, name: Optional[str] = None) -> "Person":
        row = self.participants[self._next]
        self._next += 1
        return Person(self.srv, row["login_link"], name)


class Person:
    """A participant who opens their login link and then talks over a recording socket."""

    def __init__(self, srv, link: str, name: Optional[str] = None):
        self.srv = srv
        q = parse_qs(urlsplit(link).query)
        self.token = q["token"][0]
        self.name = name or q["name"][0]
        self.id = login(srv, link, self.token, self.name)
        self.rec: Optional[SocketRecorder] = None
        self.room: Optional[int] = None

    def connect(self, room: Optional[int] = None) -> "Person":
        self.rec = SocketRecorder(self.name).connect(self.srv.url, self.id, self.token)
        if room is not None:
            self.rec.wait_for("joined_room", lambda d: d["room"] == room, timeout=WAIT)
            self.room = room
        return self

    def disconnect(self) -> None:
        if self.rec:
            self.rec.disconnect()

    def wait_moved(self, waiting_room: int) -> int:
        """The task room this person was moved into (joined_room of a room other than the waiting room)."""
        found = self.rec.wait_for("joined_room", lambda d: d["room"] != waiting_room, timeout=WAIT)
        self.room = found[-1]["room"]
        return self.room

    def private(self, needle: str, timeout: float = WAIT) -> dict:
        return self.rec.wait_for("text_message", lambda d: d.get("private") and needle in str(d.get("message")),
                                 timeout=timeout)[-1]

    def command(self, command) -> object:
        return self.rec.call("message_command", {"room": self.room, "command": command}, timeout=WAIT)


def login(srv, link: str, token: str, name: str) -> int:
    """Open the login link like a browser (a real Slurk creates the user); the double has no login page, so there
    the user is created as the login page does it (`POST /users {name, token_id}`)."""
    if srv.is_real:
        requests.get(link, timeout=WAIT)
    users = srv.api("GET", "users", params={"token_id": token}).json()
    if users:
        return users[0]["id"]
    resp = srv.api("POST", "users", json={"name": name, "token_id": token})
    assert resp.status_code == 201, resp.text
    return resp.json()["id"]


def wait_until(pred, timeout: float = WAIT, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def rooms_of(srv, user_id: int) -> list[int]:
    return [r["id"] for r in srv.api("GET", f"users/{user_id}/rooms").json()]


def listener(study: Study) -> SocketRecorder:
    """A socket of the task bot's user (it sits in the waiting room): receives new_task_room like the task bot."""
    return SocketRecorder("listener").connect(study.srv.url, int(study.env["SLURK_USER"]), study.env["SLURK_TOKEN"])


# ----------------------------------------------------------------------------------------------------------------


@pytest.fixture
def stop_later():
    items = []
    yield items.append
    for x in reversed(items):
        try:
            x.stop() if hasattr(x, "stop") else x.disconnect()
        except Exception:
            pass


def test_two_people_are_paired_moved_and_announced(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=3, people_per_room=2)
    bot_listener = listener(study)
    stop_later(bot_listener)
    concierge = study.concierge()
    stop_later(concierge)
    alice, bob = study.person(), study.person()
    stop_later(alice.connect(study.waiting_room).rec)
    greeting = alice.private("welcome")
    assert html.escape(alice.name) in greeting["message"] and greeting["user"]["id"] == int(study.env["CONCIERGE_USER"])
    wait_until(lambda: concierge.waiting(study.task_id) == [alice.id], what="alice queued")
    assert int(study.env["SLURK_USER"]) not in concierge.waiting()  # the task bot (no task) is never queued

    stop_later(bob.connect(study.waiting_room).rec)
    room = alice.wait_moved(study.waiting_room)
    assert bob.wait_moved(study.waiting_room) == room
    announced = bot_listener.wait_for("new_task_room", lambda d: d["room"] == room, timeout=WAIT)[-1]
    assert announced["task"] == study.task_id
    assert sorted(u["id"] for u in announced["users"]) == sorted([alice.id, bob.id])
    # moved: member of the task room only, and the room has the task's layout
    for p in (alice, bob):
        wait_until(lambda p=p: rooms_of(slurk_server, p.id) == [room], what="membership moved")
        p.rec.wait_for("left_room", lambda d: d["room"] == study.waiting_room, timeout=WAIT)
    assert slurk_server.api("GET", f"rooms/{room}").json()["layout_id"] == study.manifest["layout_id"]
    assert concierge.wait_idle()
    assert concierge.waiting() == [] and concierge.rooms[room]["users"] == [alice.id, bob.id]


def test_groups_are_first_come_first_served(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=3, people_per_room=2)
    concierge = study.concierge()
    stop_later(concierge)
    people = [study.person() for _ in range(3)]
    for i, p in enumerate(people):
        stop_later(p.connect(study.waiting_room).rec)
        p.private("welcome")
    room = people[0].wait_moved(study.waiting_room)
    assert people[1].wait_moved(study.waiting_room) == room
    wait_until(lambda: concierge.waiting(study.task_id) == [people[2].id], what="third one waits")
    assert rooms_of(slurk_server, people[2].id) == [study.waiting_room]


def test_a_lone_person_gets_a_compensation_code(slurk_server, tmp_path, stop_later):
    config = tmp_path / "study.yaml"
    config.write_text("completion: {platform: Prolific}\n")
    study = Study(slurk_server, tmp_path, participants=2, people_per_room=2, config=str(config))
    timers = ManualTimers()
    codes = iter(["NOPART42"])
    concierge = study.concierge(timers=timers, config=str(config), code_source=lambda: next(codes))
    stop_later(concierge)
    carol = study.person()
    stop_later(carol.connect(study.waiting_room).rec)
    carol.private("welcome")
    wait_until(lambda: ("wait", carol.id) in timers.pending, what="carol's timer")
    assert timers.pending[("wait", carol.id)][0] == pytest.approx(600, abs=5)  # the default waiting time
    assert timers.fire(("wait", carol.id))
    msg = carol.private("NOPART42")
    assert "no partner" in msg["message"] and "https://app.prolific.com/submissions/complete?cc=NOPART42" in msg["message"]
    assert msg["html"] is True
    logs = wait_until(lambda: [x for x in slurk_server.logs(study.waiting_room) if x["event"] == "confirmation_log"],
                      what="confirmation_log")
    assert logs[-1]["receiver_id"] == carol.id
    assert logs[-1]["data"] == {"status_txt": "no_partner", "confirmation_token": "NOPART42"}
    assert concierge.waiting() == [] and concierge.compensated == {carol.id: "NOPART42"}
    # somebody who arrives now is not paired with the compensated person
    dave = study.person()
    stop_later(dave.connect(study.waiting_room).rec)
    dave.private("welcome")
    wait_until(lambda: concierge.waiting(study.task_id) == [dave.id], what="dave queued alone")
    # the compensated person reloads the page: the code is repeated, they are not queued again
    carol.disconnect()
    stop_later(carol.connect(study.waiting_room).rec)
    carol.private("NOPART42")
    concierge.wait_idle()
    assert concierge.waiting(study.task_id) == [dave.id]


def test_the_waiting_timeout_runs_on_a_real_timer(slurk_double, tmp_path, stop_later):
    from tests.conftest import SlurkServer

    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    study = Study(srv, tmp_path, participants=1, people_per_room=2)
    concierge = build_concierge(None, study.bot_env(WAITING_TIMEOUT="0.3")).start()
    stop_later(concierge)
    eve = study.person()
    stop_later(eve.connect(study.waiting_room).rec)
    msg = eve.private("no partner")
    code = concierge.compensated[eve.id]
    assert code in msg["message"] and "Prolific" not in msg["message"]


def test_a_person_who_leaves_is_forgotten(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=2, people_per_room=2)
    timers = ManualTimers()
    concierge = study.concierge(timers=timers)
    stop_later(concierge)
    frank, gina = study.person(), study.person()
    stop_later(frank.connect(study.waiting_room).rec)
    wait_until(lambda: concierge.waiting(study.task_id) == [frank.id], what="frank queued")
    frank.disconnect()
    wait_until(lambda: concierge.waiting(study.task_id) == [], what="frank forgotten")
    assert ("wait", frank.id) not in timers.pending
    stop_later(gina.connect(study.waiting_room).rec)
    gina.private("welcome")
    wait_until(lambda: concierge.waiting(study.task_id) == [gina.id], what="gina queued")
    assert concierge.rooms == {}
    assert rooms_of(slurk_server, gina.id) == [study.waiting_room]
    assert not [x for x in slurk_server.logs(study.waiting_room) if x["event"] == "confirmation_log"]


def test_one_person_with_an_agent_seat_gets_a_room_with_the_agent_user(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=2, people_per_room=1)
    agent_seat, agent_id = study.env["AGENT_USERS"].split(":")
    bot_listener = listener(study)
    stop_later(bot_listener)
    concierge = study.concierge()
    stop_later(concierge)
    hana = study.person()
    stop_later(hana.connect(study.waiting_room).rec)
    room = hana.wait_moved(study.waiting_room)
    announced = bot_listener.wait_for("new_task_room", lambda d: d["room"] == room, timeout=WAIT)[-1]
    assert [u["id"] for u in announced["users"]] == [hana.id]  # the agent user is added after the announcement
    wait_until(lambda: room in rooms_of(slurk_server, int(agent_id)), what="agent user in the room")
    assert agent_seat == "ghost"


def test_people_already_waiting_are_picked_up_when_the_concierge_starts(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=2, people_per_room=2)
    ivan, jo = study.person(), study.person()
    stop_later(ivan.connect(study.waiting_room).rec)
    stop_later(jo.connect(study.waiting_room).rec)
    concierge = study.concierge()
    stop_later(concierge)
    room = ivan.wait_moved(study.waiting_room)
    assert jo.wait_moved(study.waiting_room) == room


def test_a_failed_move_of_one_person_does_not_stop_the_others(slurk_double, tmp_path, stop_later):
    """Person A's user is deleted while A waits (Slurk now answers 404 for A): B and C are still paired."""
    from tests.conftest import SlurkServer

    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    study = Study(srv, tmp_path, participants=3, people_per_room=2)
    concierge = study.concierge()
    stop_later(concierge)
    a, b, c = study.person(), study.person(), study.person()
    stop_later(a.connect(study.waiting_room).rec)
    wait_until(lambda: concierge.waiting(study.task_id) == [a.id], what="a queued")
    # A vanishes without a leave event reaching the concierge (e.g. deleted by an admin)
    slurk_double.call(lambda state: state.tables["users"][a.id].__setattr__("session_id", None))
    stop_later(b.connect(study.waiting_room).rec)
    wait_until(lambda: concierge.waiting(study.task_id) == [b.id], what="a dropped, b waits")
    stop_later(c.connect(study.waiting_room).rec)
    room = b.wait_moved(study.waiting_room)
    assert c.wait_moved(study.waiting_room) == room
    assert concierge.wait_idle()
    assert a.id not in concierge.rooms[room]["users"]


def test_missing_credentials_are_reported():
    from bots.config import ConfigError

    with pytest.raises(ConfigError, match="CONCIERGE_TOKEN"):
        build_concierge(None, {"SLURK_URL": "http://127.0.0.1:1", "WAITING_ROOM": "1"})


def test_the_concierge_has_its_own_socket_per_instance():
    a = Concierge("http://127.0.0.1:1", "t", 1, 2)
    b = Concierge("http://127.0.0.1:1", "t", 3, 2)
    assert a.sio is not b.sio
    assert "t'" not in repr(a) and "***" in repr(a)


def test_names_are_made_inert_in_the_greeting(slurk_double, tmp_path, stop_later):
    from tests.conftest import SlurkServer

    srv = SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)
    study = Study(srv, tmp_path, participants=1, people_per_room=2)
    concierge = study.concierge()
    stop_later(concierge)
    mallory = study.person('<img src=x onerror="alert(1)">')
    stop_later(mallory.connect(study.waiting_room).rec)
    msg = mallory.private("welcome")["message"]
    # html and markdown are dropped from the name (tasks.core.wording.plain_name), not just escaped
    assert "<img" not in msg and "onerror=" not in msg and "&lt;" not in msg
    assert "Hello <b>img srcx onerroralert1</b>, welcome!" in msg


def test_study_settings_come_from_the_config_file_and_the_environment(tmp_path):
    from bots.config import ConfigError
    from bots.study.provision import read_study_config

    path = tmp_path / "bots.yaml"
    path.write_text("slurk:\n  url: http://127.0.0.1:5000\n  admin_token: ADMIN-SECRET\n  waiting_room: 3\n"
                    "timers:\n  waiting_timeout: 120\n  join_timeout: 60\n"
                    "concierge:\n  token: CONC-SECRET\n  user_id: 4\n  agent_users: {ghost: 9}\n"
                    "completion: {platform: Prolific}\n")
    cfg = read_study_config(str(path), {})
    assert (cfg.admin_token, cfg.concierge_token, cfg.concierge_user) == ("ADMIN-SECRET", "CONC-SECRET", 4)
    assert cfg.waiting_timeout == 120 and cfg.agent_users == {"ghost": 9}
    assert cfg.config.timers.join_timeout == 60 and cfg.config.slurk.waiting_room == 3
    assert cfg.config.completion.platform == "Prolific" and cfg.config.source == str(path)
    assert "SECRET" not in repr(cfg)
    env = {"SLURK_ADMIN_TOKEN": "ENV-ADMIN", "WAITING_TIMEOUT": "30", "AGENT_USERS": "ghost:11,light:12",
           "CONCIERGE_TOKEN": "ENV-CONC", "CONCIERGE_USER": "5"}
    cfg = read_study_config(str(path), env)
    assert (cfg.admin_token, cfg.concierge_token, cfg.concierge_user) == ("ENV-ADMIN", "ENV-CONC", 5)
    assert cfg.waiting_timeout == 30 and cfg.agent_users == {"ghost": 11, "light": 12}
    assert read_study_config(None, {}).waiting_timeout == 600
    path.write_text("slurk:\n  admin_token: ADMIN-XYZ\n  colour: blue\n")
    with pytest.raises(ConfigError, match="colour") as err:
        read_study_config(str(path), {})
    assert "ADMIN-XYZ" not in str(err.value) and "study-config-" not in str(err.value)
    with pytest.raises(ConfigError, match="WAITING_TIMEOUT"):
        read_study_config(None, {"WAITING_TIMEOUT": "soon"})
