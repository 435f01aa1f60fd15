"""`./run_bot.sh setup <task> --participants N [--study NAME] [--people-per-room K] [--dry-run] [--out DIR]
[--config FILE]`: provision a study on a Slurk server.

Creates (or, on a re-run with the same study name, reuses) on the server:
  * the task's layout, with our plugins embedded (bots.layouts.build_layout);
  * the Slurk task, named after the study, with `num_users` = people per room (all seats, unless agent seats are
    configured with --people-per-room / person_seats / agents);
  * a waiting room with layouts/waiting_room.json (read-only, no user list);
  * the task bot and the concierge (waiting-room bot): a user each, with a token whose room is the waiting room and
    permissions api, send_message, send_html_message, send_command, send_privately;
  * for agent seats, a user per seat with a human-looking name (the task bot may show the agent under it);
  * N participant tokens, each with its own permissions row (send_message, send_command, send_privately: the task
    page sends commands to the bot alone, see bots.study.provision), one registration, room = the waiting room,
    task = the task.

Writes `<out>/<study>/participants.csv` (login links, and the Prolific study URL when completion.platform is set),
`<out>/<study>/bot.env` (the bots' environment with the bot tokens) and `<out>/<study>/study.json` (the ids of
everything created, and the participant tokens). All three are created with mode 0600, and the folders it creates
with 0700. (setup does not create the task bot's state database; the bot does, bots.slurk.store.) A re-run checks every recorded object on the server, re-creates what is gone, and
only adds the missing participant tokens. `--dry-run` prints the plan and makes no write request.

The admin token comes from SLURK_ADMIN_TOKEN or slurk.admin_token in --config; the server from SLURK_URL or
slurk.url. Neither is ever printed or written.
"""
from __future__ import annotations

import argparse
import csv
import datetime as _dt
import io
import json
import logging
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from bots.config import ConfigError, default_person_order
from bots.layouts import LayoutError, build_layout
from bots.slurk.rest import SlurkAPIError, SlurkREST

from tasks.core.codes import LEFT_POLICIES

from .provision import (
    AGENT_PERMISSIONS, BOT_PERMISSIONS, StudyConfig, person_permissions, agent_names, format_agent_users, login_link,
    participant_name, prolific_link, read_env_file, read_json, read_study_config, report_error, write_private,
)

log = logging.getLogger("bots.setup")

MANIFEST = "study.json"
PARTICIPANTS_CSV = "participants.csv"
BOT_ENV = "bot.env"
WAITING_LAYOUT = "waiting_room"
TASK_BOT_NAME = "Game Master"
CONCIERGE_NAME = "Concierge"


class SetupError(RuntimeError):
    """A problem the researcher has to resolve (phrased as a sentence)."""


@dataclass
class Step:
    action: str  # "create", "reuse", "add", "update", "note"
    what: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.action:7} {self.what}" + (f"  ({self.detail})" if self.detail else "")


@dataclass
class SetupResult:
    study: str
    folder: str
    dry_run: bool
    steps: list[Step] = field(default_factory=list)
    manifest: dict = field(default_factory=dict)
    participants: list[dict] = field(default_factory=list)  # {index, name, token, login_link, prolific_url, used}
    created_tokens: int = 0
    files: dict = field(default_factory=dict)


class Provisioner:
    def __init__(self, rest: SlurkREST, study_cfg: StudyConfig, spec, study: str, out: str, participants: int,
                 persons: list[str], brains: dict[str, str], *, dry_run: bool = False,
                 layouts_dir: str = "layouts", plugins_dir: str = "plugins"):
        self.rest = rest
        self.cfg = study_cfg
        self.url = study_cfg.url.rstrip("/")
        self.spec = spec
        self.study = study
        self.folder = os.path.join(out, study)
        self.n = int(participants)
        self.persons = list(persons)
        self.brains = dict(brains)
        self.dry = dry_run
        self.layouts_dir = layouts_dir
        self.plugins_dir = plugins_dir
        self.result = SetupResult(study, self.folder, dry_run)
        self.m: dict = {}
        self.env_old: dict[str, str] = {}
        self.secrets: dict[str, str] = {}  # task_bot / concierge -> token (bot.env only)
        self._offline = False  # dry run without a reachable server

    # --- helpers ------------------------------------------------------------------------------------------------
    def _step(self, action: str, what: str, detail: str = "") -> None:
        self.result.steps.append(Step(action, what, detail))

    def _create(self, what: str, detail: str, fn: Callable[[], Any]) -> Any:
        self._step("create", what, detail)
        if self.dry:
            return None
        out = fn()
        return out

    def _save(self) -> None:
        if self.dry:
            return
        self.m["updated"] = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
        write_private(os.path.join(self.folder, MANIFEST), json.dumps(self.m, indent=2, sort_keys=True) + "\n")
        self._write_env()

    # --- the run ------------------------------------------------------------------------------------------------
    def run(self) -> SetupResult:
        path = os.path.join(self.folder, MANIFEST)
        old = read_json(path) or {}
        if old:
            if old.get("task") not in (None, self.spec.name):
                raise SetupError(f"Study {self.study!r} in {self.folder} was set up for the task {old.get('task')!r}, "
                                 f"not {self.spec.name!r}; choose another --study name.")
            if old.get("url") not in (None, self.url):
                raise SetupError(f"Study {self.study!r} in {self.folder} was set up on {old.get('url')}, not "
                                 f"{self.url}; choose another --study name or --out folder.")
        self.env_old = read_env_file(os.path.join(self.folder, BOT_ENV))
        self._offline = False
        if self.dry and not self._reachable():
            # A plan without the server: assume nothing exists there yet.
            self._offline = True
            self._step("note", f"cannot reach {self.url}", "the plan below assumes nothing exists on the server yet")
            old = {}
        self.m = {"version": 1, "study": self.study, "task": self.spec.name, "url": self.url,
                  "slurk_task_name": self.study, "person_seats": self.persons, "agent_seats": self.brains,
                  "task_options": dict(self.cfg.config.task_options),
                  "left_policy": self.cfg.config.completion.left_policy}
        if str(self.cfg.config.task_options.get("shared_instance", "")).strip().lower() in ("1", "true", "yes", "on"):
            self._step("note", "shared_instance is on: rooms open at the same time may play the same instance",
                       "Slurk lets any participant read every room's public chat (its per-user log route checks the "
                       "user, not the room): with open chat, a line about private values can be read by people who "
                       "play the same instance in another room")
        if not old and not self._offline:
            old = self._discover()
        self._layouts(old)
        self._task(old)
        self._waiting_room(old)
        self._bots(old)
        self._agents(old)
        self._participants(old)
        self._save()
        if not self.dry:
            self._write_participants()
        self.result.manifest = dict(self.m)
        return self.result

    def _reachable(self) -> bool:
        try:
            self.rest.request("GET", "/tasks", params={"name": self.study})
        except SlurkAPIError as exc:
            return exc.status != 0
        return True

    def _get(self, path: str) -> Optional[dict]:
        """A GET that answers None for 404 (the object is gone) and, in an offline dry run, for everything."""
        if self._offline:
            return None
        try:
            return self.rest.request("GET", path)
        except SlurkAPIError as exc:
            if exc.status == 404:
                return None
            raise

    def _discover(self) -> dict:
        """No manifest: look for a Slurk task of this study's name, its waiting room and participant tokens."""
        try:
            tasks = self.rest.request("GET", "/tasks", params={"name": self.study}) or []
        except SlurkAPIError as exc:
            if exc.status == 0:
                raise
            return {}
        if not tasks:
            return {}
        if len(tasks) > 1:
            raise SetupError(f"The server has {len(tasks)} tasks named {self.study!r} and {self.folder} has no "
                             f"{MANIFEST}; choose another --study name (or restore the folder of that study).")
        task = tasks[0]
        found: dict = {"task_id": task["id"], "layout_id": task["layout_id"], "num_users": task.get("num_users")}
        tokens = self.rest.request("GET", "/tokens", params={"task_id": task["id"]}) or []
        rooms = Counter(t.get("room_id") for t in tokens if t.get("room_id") is not None)
        if rooms:
            wr = rooms.most_common(1)[0][0]
            room = self._get(f"/rooms/{wr}")
            if room:
                found["waiting_room"] = wr
                found["waiting_layout_id"] = room.get("layout_id")
        mine = [t for t in tokens if t.get("room_id") == found.get("waiting_room")]
        # Keep the order and names of this study's participants.csv when it is still there (Slurk lists tokens
        # by creation time, which has whole seconds only).
        listed = self._listed_participants()
        known = {t["id"] for t in mine}
        ordered = [p for p in listed if p["token"] in known]
        seen = {p["token"] for p in ordered}
        ordered += [{"token": t["id"], "name": None} for t in sorted(mine, key=lambda t: t.get("date_created") or "")
                    if t["id"] not in seen]
        found["participants"] = ordered
        self._step("note", f"no {MANIFEST} in {self.folder}", f"found the Slurk task {task['id']} named "
                                                             f"{self.study!r} on the server and reuse it")
        return found

    def _listed_participants(self) -> list[dict]:
        path = os.path.join(self.folder, PARTICIPANTS_CSV)
        if not os.path.exists(path):
            return []
        with open(path, newline="", encoding="utf-8") as fh:
            return [{"token": r["token"], "name": r.get("name") or None} for r in csv.DictReader(fh) if r.get("token")]

    # --- layouts ------------------------------------------------------------------------------------------------
    def _layouts(self, old: dict) -> None:
        try:
            task_layout = build_layout(self.spec, self.plugins_dir, self.layouts_dir)
            waiting_layout = build_layout(WAITING_LAYOUT, self.plugins_dir, self.layouts_dir)
        except LayoutError as exc:
            raise SetupError(f"The layout cannot be built: {exc}") from None
        for key, body, what in (("layout_id", task_layout, "task layout"),
                                ("waiting_layout_id", waiting_layout, "waiting-room layout")):
            lid = old.get(key)
            row = self._get(f"/layouts/{int(lid)}") if lid is not None else None
            if row is not None and row.get("title") == body["title"]:
                self.m[key] = lid
                self._step("reuse", f"{what} {lid}", body["title"])
                continue
            if lid is not None:
                self._step("note", f"{what} {lid} is gone or changed", "a new one is created")
            created = self._create(what, body["title"], lambda b=body: self.rest.create_layout(b))
            self.m[key] = created["id"] if created else None
            self._save()

    # --- task ---------------------------------------------------------------------------------------------------
    def _task(self, old: dict) -> None:
        num_users = len(self.persons)
        tid = old.get("task_id")
        row = self._get(f"/tasks/{int(tid)}") if tid is not None else None
        if row is not None and self.m.get("layout_id") is not None and row.get("layout_id") == self.m["layout_id"] \
                and row.get("name") == self.study:
            if row.get("num_users") != num_users:
                raise SetupError(f"Study {self.study!r} already exists with {row.get('num_users')} people per room; "
                                 f"this run asks for {num_users}. Use another --study name for a different seat mix.")
            self.m["task_id"] = tid
            self._step("reuse", f"task {tid}", f"{self.study!r}, num_users {num_users}")
        else:
            if tid is not None:
                self._step("note", f"task {tid} is gone or changed", "a new one is created")
            created = self._create("task", f"{self.study!r}, num_users {num_users}",
                                   lambda: self.rest.create_task(self.study, num_users, self.m["layout_id"]))
            self.m["task_id"] = created["id"] if created else None
            self._save()
        self.m["num_users"] = num_users

    # --- waiting room -------------------------------------------------------------------------------------------
    def _waiting_room(self, old: dict) -> None:
        rid = old.get("waiting_room")
        row = self._get(f"/rooms/{int(rid)}") if rid is not None else None
        if row is not None and self.m.get("waiting_layout_id") is not None \
                and row.get("layout_id") == self.m["waiting_layout_id"]:
            self.m["waiting_room"] = rid
            self._step("reuse", f"waiting room {rid}")
            return
        if rid is not None:
            self._step("note", f"waiting room {rid} is gone or changed", "a new one is created")
        created = self._create("waiting room", f"layout {self.m.get('waiting_layout_id') or '(new)'}",
                               lambda: self.rest.create_room(self.m["waiting_layout_id"]))
        self.m["waiting_room"] = created["id"] if created else None
        self._save()

    # --- bots ---------------------------------------------------------------------------------------------------
    def _bots(self, old: dict) -> None:
        for key, name, token_env, user_env in (("task_bot", TASK_BOT_NAME, "SLURK_TOKEN", "SLURK_USER"),
                                               ("concierge", CONCIERGE_NAME, "CONCIERGE_TOKEN", "CONCIERGE_USER")):
            what = "task bot" if key == "task_bot" else "concierge"
            rec = old.get(key) or {}
            uid = rec.get("user_id")
            if uid is None and str(self.env_old.get(user_env, "")).isdigit():
                uid = int(self.env_old[user_env])  # no manifest record: the bot.env of this study still names it
            token = self.env_old.get(token_env) if str(self.env_old.get(user_env, "")) == str(uid) else None
            if uid is not None and token and self._bot_ok(uid, token, rec.get("name") or name):
                self.m[key] = {"user_id": uid, "name": rec.get("name") or name}
                self.secrets[key] = token
                self._step("reuse", f"{what} user {uid}", rec.get("name") or name)
                self._ensure_member(uid, what)
                continue
            if uid is not None:
                why = "its token is not in bot.env" if not token else "it is gone or its token changed"
                self._step("note", f"{what} user {uid} cannot be reused ({why})", "a new one is created")
            room = self.m.get("waiting_room")
            user, token = self._new_user(f"{what} user", name, BOT_PERMISSIONS,
                                         room_text=str(room) if room is not None else "(new waiting room)", room=room)
            self.m[key] = {"user_id": user["id"] if user else None, "name": name}
            if token:
                self.secrets[key] = token
            self._save()

    def _bot_ok(self, uid: int, token: str, name: str) -> bool:
        user = self._get(f"/users/{int(uid)}")
        if user is None or user.get("name") != name:
            return False
        try:
            users = self.rest.request("GET", "/users", params={"token_id": token}) or []
        except SlurkAPIError:
            return False
        return any(u.get("id") == uid for u in users)

    def _ensure_member(self, uid: int, what: str) -> None:
        wr = self.m.get("waiting_room")
        if wr is None:
            self._step("add", f"{what} user {uid} to the new waiting room")
            return
        rooms = self.rest.get_user_rooms(uid)
        if any(r.get("id") == wr for r in rooms):
            return
        self._step("add", f"{what} user {uid} to waiting room {wr}")
        if not self.dry:
            self.rest.join_room(uid, wr)

    def _new_user(self, label: str, name: str, perms: dict, room_text: str,
                  room: Optional[int]) -> tuple[Optional[dict], Optional[str]]:
        flags = ", ".join(k for k, v in perms.items() if v) or "no rights"
        self._step("create", label, f"{name!r}: permissions {flags}; token room {room_text}")
        if self.dry:
            return None, None
        p = self.rest.create_permissions(**perms)
        t = self.rest.create_token(p["id"], room_id=room, task_id=None, registrations_left=1)
        u = self.rest.create_user(name, t["id"])
        return u, t["id"]

    # --- agents -------------------------------------------------------------------------------------------------
    def _agents(self, old: dict) -> None:
        seats = list(self.brains)
        if not seats:
            self.m["agents"] = {}
            return
        names = agent_names(self.study, seats)
        known = old.get("agents") or {}
        self.m["agents"] = {}
        for seat in seats:
            rec = known.get(seat) or {}
            uid, name = rec.get("user_id"), rec.get("name") or names[seat]
            user = self._get(f"/users/{int(uid)}") if uid is not None else None
            if user is not None and user.get("name") == name:
                self.m["agents"][seat] = {"user_id": uid, "name": name, "brain": self.brains[seat]}
                self._step("reuse", f"agent user {uid}", f"seat {seat} ({self.brains[seat]}) as {name!r}")
                continue
            user, _token = self._new_user(f"agent user for seat {seat} ({self.brains[seat]})", name,
                                          AGENT_PERMISSIONS, room_text="none (added to each task room)", room=None)
            self.m["agents"][seat] = {"user_id": user["id"] if user else None, "name": name,
                                      "brain": self.brains[seat]}
            self._save()

    # --- participants -------------------------------------------------------------------------------------------
    def _person_permissions(self, tokens: list) -> None:
        """Bring reused participant tokens' permission rows up to the task's participant permissions (rows made before people
        needed send_privately would make the task page's private commands fail)."""
        outdated: dict[int, dict] = {}
        for t in tokens:
            pid = t.get("permissions_id")
            if pid is None or pid in outdated:
                continue
            perms = self._get(f"/permissions/{int(pid)}")
            if perms is None:
                continue
            wanted = person_permissions(self.spec, self.cfg.config.task_options)
            change = {k: v for k, v in wanted.items() if bool(perms.get(k)) != v}
            if change:
                outdated[int(pid)] = change
        if not outdated:
            return
        flags = sorted({k for change in outdated.values() for k in change})
        self._step("update", f"{len(outdated)} participant permission row(s)",
                   f"set {', '.join(flags)} (the task page sends commands to the bot alone)")
        if not self.dry:
            for pid, change in outdated.items():
                self.rest.patch_permissions(pid, **change)

    def _participants(self, old: dict) -> None:
        task_id, wr = self.m.get("task_id"), self.m.get("waiting_room")
        reserved = len(self.brains)
        recorded = [p for p in (old.get("participants") or []) if isinstance(p, dict) and p.get("token")]
        valid: list[dict] = []
        server: dict[str, dict] = {}
        if recorded and task_id is not None:
            try:
                server = {t["id"]: t for t in (self.rest.request("GET", "/tokens", params={"task_id": task_id}) or [])}
            except SlurkAPIError:
                server = {}
                for p in recorded:
                    t = self._get(f"/tokens/{p['token']}")
                    if t:
                        server[t["id"]] = t
        stale = 0
        for p in recorded:
            t = server.get(p["token"])
            if t is None or t.get("task_id") != task_id or t.get("room_id") != wr:
                stale += 1
                continue
            valid.append({"token": p["token"], "name": p.get("name"), "used": t.get("registrations_left") == 0})
        if stale:
            self._step("note", f"{stale} recorded participant token(s) are gone or belong to a replaced task or "
                               "waiting room", "they are not listed any more")
        if valid:
            self._step("reuse", f"{len(valid)} participant token(s)",
                       f"{sum(v['used'] for v in valid)} already used")
            self._person_permissions([server[v["token"]] for v in valid])
        missing = max(0, self.n - len(valid))
        if len(valid) > self.n:
            self._step("note", f"{len(valid)} participant tokens exist, more than --participants {self.n}",
                       "none is deleted")
        self.m["participants"] = [{"token": v["token"], "name": v["name"]} for v in valid]
        for i, v in enumerate(self.m["participants"]):
            if not v["name"]:
                v["name"] = participant_name(self.study, i, reserved)
        if missing:
            flags = ", ".join(k for k, v in person_permissions(self.spec, self.cfg.config.task_options).items() if v)
            self._step("create", f"{missing} participant token(s)",
                       f"each with its own permissions row ({flags}); one registration; "
                       f"room {wr if wr is not None else '(new waiting room)'}, task "
                       f"{task_id if task_id is not None else '(new task)'}")
        used = {v["token"]: v["used"] for v in valid}
        if not self.dry:
            for _ in range(missing):
                p = self.rest.create_permissions(**person_permissions(self.spec, self.cfg.config.task_options))
                t = self.rest.create_token(p["id"], room_id=wr, task_id=task_id, registrations_left=1)
                index = len(self.m["participants"])
                self.m["participants"].append({"token": t["id"], "name": participant_name(self.study, index, reserved)})
                used[t["id"]] = False
                self.result.created_tokens += 1
                self._save()
        platform = self.cfg.config.completion.platform
        rows = []
        for i, p in enumerate(self.m["participants"], 1):
            row = {"index": i, "name": p["name"], "token": p["token"],
                   "login_link": login_link(self.url, p["name"], p["token"]),
                   "used": "yes" if used.get(p["token"]) else "no"}
            if platform:
                row["prolific_url"] = prolific_link(self.url, p["token"])
            rows.append(row)
        self.result.participants = rows

    # --- files --------------------------------------------------------------------------------------------------
    def _write_participants(self) -> None:
        platform = self.cfg.config.completion.platform
        cols = ["index", "name", "token", "login_link"] + (["prolific_url"] if platform else []) + ["used"]
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(self.result.participants)
        path = os.path.join(self.folder, PARTICIPANTS_CSV)
        write_private(path, buf.getvalue())  # login tokens: mode 0600
        self.result.files["participants"] = path

    def env_lines(self) -> list[str]:
        m = self.m
        lines = [
            f"# Environment of the bots of study {self.study!r} ({self.spec.name}) on {self.url}.",
            "# CONTAINS SECRETS (the bot tokens): keep it private (mode 0600), never commit or share it.",
            "# Use: set -a; . ./bot.env; set +a; then ./run_bot.sh serve <task> and ./run_bot.sh concierge",
            f"SLURK_URL={self.url}",
        ]
        tb = m.get("task_bot") or {}
        if tb.get("user_id") is not None and self.secrets.get("task_bot"):
            lines += [f"SLURK_TOKEN={self.secrets['task_bot']}", f"SLURK_USER={tb['user_id']}"]
        if m.get("task_id") is not None:
            lines.append(f"TASK_ID={m['task_id']}")
        if m.get("waiting_room") is not None:
            lines.append(f"WAITING_ROOM={m['waiting_room']}")
        cc = m.get("concierge") or {}
        if cc.get("user_id") is not None and self.secrets.get("concierge"):
            lines += [f"CONCIERGE_TOKEN={self.secrets['concierge']}", f"CONCIERGE_USER={cc['user_id']}"]
        by_order = default_person_order(self.spec)[:len(self.persons)] == list(self.persons)
        lines.append(f"BOT_PERSON_SEATS={len(self.persons) if by_order else ','.join(self.persons)}")
        if self.brains:
            lines.append("BOT_AGENTS=" + ",".join(f"{s}={b}" for s, b in self.brains.items()))
        agents = {s: a["user_id"] for s, a in (m.get("agents") or {}).items() if a.get("user_id") is not None}
        if agents:
            lines.append(f"AGENT_USERS={format_agent_users(agents)}")
        options = self.cfg.config.task_options
        if options:
            # JSON in single quotes for the shell; a quote inside a value is written as \u0027 (still JSON)
            text = json.dumps(options, sort_keys=True).replace("'", "\\u0027")
            lines.append(f"TASK_OPTIONS='{text}'")
        lines.append(f"COMPLETION_LEFT_POLICY={self.cfg.config.completion.left_policy}")
        lines.append(f"STUDY={self.study}")
        return lines

    def _write_env(self) -> None:
        path = os.path.join(self.folder, BOT_ENV)
        write_private(path, "\n".join(self.env_lines()) + "\n")
        self.result.files["bot_env"] = path


# ----------------------------------------------------------------------------------------------------------------


def format_result(res: SetupResult, url: str, spec, persons: list[str], brains: dict) -> str:
    out = []
    mix = f"{len(persons)} {'person' if len(persons) == 1 else 'people'} per room"
    if brains:
        mix += " + agent seat(s) " + ", ".join(f"{s} ({b})" for s, b in brains.items())
    head = "Dry run: nothing is created or written. Plan for study" if res.dry_run else "Study"
    out.append(f"{head} {res.study!r} on {url}: task {spec.name} ({spec.title}), {mix}")
    m = res.manifest
    options = m.get("task_options") or {}
    out.append("Task options: " + (", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(options.items()))
                                   or "none (the game's defaults)") + "  (recorded in every game's log)")
    undeclared = sorted(set(options) - set(option_keys(spec)))
    if undeclared:
        out.append(f"  not declared by {spec.name} (passed to the game as given): {', '.join(undeclared)}")
    policy = m.get("left_policy")
    if policy:
        out.append(f"A person who leaves a game before its end gets: {policy} ({LEFT_POLICIES.get(policy, '')})")
    for s in res.steps:
        out.append(f"  {s}")
    if res.participants:
        out.append("")
        where = os.path.join(res.folder, PARTICIPANTS_CSV)
        out.append(f"Participants ({len(res.participants)}" + ("" if res.dry_run else f"; also in {where}") + "):")
        for p in res.participants:
            line = f"  {p['index']:>3}  {p['name']:<10} {p['login_link']}"
            if p["used"] == "yes":
                line += "  (used)"
            out.append(line)
        if "prolific_url" in res.participants[0]:
            out.append("Prolific study URL template (one per token: Prolific fills in the participant id as the name):")
            out.append(f"  {res.participants[0]['prolific_url'].rsplit('token=', 1)[0]}token=<token>")
    if not res.dry_run:
        m = res.manifest
        out.append("")
        out.append(f"Bot environment: {res.files.get('bot_env')} (contains the bot tokens: keep it private)")
        out.append(f"Manifest: {os.path.join(res.folder, MANIFEST)}  (task {m.get('task_id')}, waiting room "
                   f"{m.get('waiting_room')})")
        out.append("Start the bots:")
        out.append(f"  set -a; . {res.files.get('bot_env')}; set +a")
        out.append(f"  ./run_bot.sh serve {spec.name}    # the task bot")
        out.append("  ./run_bot.sh concierge         # the waiting-room bot")
        out.append("A person who closes the tab comes back by opening " + url.rstrip("/") + "/ in the same browser "
                   "(a login link works once).")
        logs_dir = os.path.join("slurk-logs", res.study)
        out.append(f"Afterwards: ./run_bot.sh logs download --task {res.study} --out {logs_dir}"
                   f"    # or --task {m.get('task_id')}")
        out.append(f"            ./run_bot.sh replay {logs_dir} --out {os.path.join('replay-out', res.study)}")
    return "\n".join(out)


def parse_option_args(items: list[str]) -> dict:
    """`--option KEY=VALUE` items: JSON values (4, true, "x") or plain text."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option needs KEY=VALUE, got {item!r}.")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def option_keys(spec) -> list[str]:
    """The task options a task declares: its command-line options, experiment grid and conditions, study defaults,
    and the core's chat / instance options where the task has them."""
    keys = {o.key for o in spec.cli_options} | set(spec.grid) | set(spec.condition_keys)
    keys |= set(getattr(spec, "study_options", {}) or {})
    if hasattr(spec, "chat_mode"):
        keys |= {"chat", "shared_instance"}  # TaskSpec.chat_mode / fresh_instance (bots/slurk/instances.py)
    if getattr(spec, "instance_option", ""):
        keys.add(spec.instance_option)
    return sorted(keys)


def study_options(spec, given: dict) -> dict:
    """The study's task options: the task's study defaults (its paper's set-up, TaskSpec.study_options), then the
    researcher's. A key like a declared one (a typo), a value outside a declared choice, or a value the game refuses
    is a ConfigError that says which and what is allowed."""
    import difflib

    known = option_keys(spec)
    for key in sorted(k for k in given if k not in known):
        # A key like a declared one is a typo; other keys are options the game reads without declaring them
        # (e.g. gnomes' rounds): passed on, and setup's output lists them as undeclared.
        near = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
        if near or not key.replace("_", "").isalnum():
            raise ConfigError(f"{spec.name} has no task option {key!r}" + (f" (did you mean {near[0]!r}?)" if near
                                                                            else "") +
                              f"; its declared options are {', '.join(known) or '(none)'} (see the task's page "
                              f"docs/tasks/{spec.name}.md).")
    options = {**(getattr(spec, "study_options", {}) or {}), **given}
    for o in spec.cli_options:
        if o.key in options and o.choices and str(options[o.key]) not in o.choices:
            raise ConfigError(f"task option {o.key} of {spec.name} must be one of {', '.join(o.choices)}; "
                              f"got {options[o.key]!r}.")
    try:
        spec.game_class(0, dict(options))  # builds an instance: the game checks every value it reads
    except Exception as exc:  # the game's own message says what is wrong
        raise ConfigError(f"task options {json.dumps(options, sort_keys=True)} do not work for {spec.name}: "
                          f"{exc}") from None
    return options


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="run_bot.sh setup", description=__doc__.splitlines()[0])
    p.add_argument("task", help="task name (travel, gnomes, ...) or package.module:SPEC")
    p.add_argument("--participants", type=int, required=True, metavar="N", help="participant tokens the study needs")
    p.add_argument("--study", help="study name (default: the task name); re-running with it reuses what exists")
    p.add_argument("--people-per-room", type=int, metavar="K",
                   help="people per room (default: person_seats from the config, else every seat); the other "
                        "seats are played by agents")
    p.add_argument("--person-seats", metavar="SEATS",
                   help="the seats people take, by name (e.g. assistant, or user1,user2); the other seats are "
                        "played by agents")
    p.add_argument("--dry-run", action="store_true", help="print what would be created; send no write request")
    p.add_argument("--out", default="studies", help="folder for the study's files (default: studies)")
    p.add_argument("--config", help="YAML config (slurk.url, slurk.admin_token, agents, person_seats, completion, "
                                    "task_options)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a task option of the study (repeatable; JSON values allowed), e.g. negotiation=4; "
                        "overrides task_options in --config")
    p.add_argument("--left-policy", choices=tuple(LEFT_POLICIES),
                   help="what a person who left a game before its end gets: " +
                        "; ".join(f"{k}: {v}" for k, v in LEFT_POLICIES.items()))
    return p


def main(argv: Optional[list[str]] = None, env: Mapping[str, str] = os.environ, echo=print) -> int:
    args = build_parser().parse_args(argv)
    if args.participants < 0:
        report_error(echo, "setup: --participants must be 0 or more")
        return 2
    study = args.study or None
    try:
        from bots.slurk.serve import load_spec

        spec = load_spec(args.task)
        scfg = read_study_config(args.config, env)
        scfg.require_admin("set up a study")
        cfg = scfg.config
        if args.people_per_room is not None and args.person_seats:
            raise ConfigError("give either --people-per-room or --person-seats, not both.")
        if args.people_per_room is not None:
            cfg.person_seats = args.people_per_room
        if args.person_seats:
            cfg.person_seats = [s.strip() for s in args.person_seats.split(",") if s.strip()]
        persons, brains = cfg.seat_plan(spec)
        cfg.task_options = study_options(spec, {**cfg.task_options, **parse_option_args(args.option)})
        if args.left_policy:
            cfg.completion.left_policy = args.left_policy
        if not persons:
            raise ConfigError("A study needs at least one person per room (--people-per-room 1 or more).")
        name = study or spec.name
        if not name or any(c in name for c in "/\\") or name.startswith("."):
            raise ConfigError(f"--study must be a plain name (no slashes); got {name!r}.")
    except (ConfigError, ValueError) as exc:
        report_error(echo, f"setup: {exc}")
        return 2
    rest = SlurkREST(scfg.url, scfg.admin_token, etag=cfg.slurk.etag)
    prov = Provisioner(rest, scfg, spec, name, args.out, args.participants, persons, brains, dry_run=args.dry_run)
    try:
        res = prov.run()
    except SetupError as exc:
        report_error(echo, f"setup: {exc}")
        return 2
    except SlurkAPIError as exc:
        if args.dry_run and exc.status == 0:
            report_error(echo, f"setup: {exc.message}; cannot check what exists (dry run)")
        else:
            report_error(echo, f"setup: {exc}. What was created so far is recorded in {prov.folder}/{MANIFEST}; "
                       "re-run the same command to continue.")
        return 1
    finally:
        rest.close()
    echo(format_result(res, scfg.url, spec, persons, brains))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
