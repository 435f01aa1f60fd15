"""The study set-up on the server (`Provisioner`): what `./run_bot.sh setup` creates or reuses there, step by step,
and the study's files it writes (see setup.py for the list)."""
from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from bots.config import default_person_order
from bots.layouts import LayoutError, build_layout
from bots.slurk.rest import SlurkAPIError, SlurkREST

from .provision import (
    AGENT_PERMISSIONS, BOT_PERMISSIONS, StudyConfig, person_permissions, agent_names, format_agent_users, login_link,
    participant_name, prolific_link, read_env_file, read_json, write_private,
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
