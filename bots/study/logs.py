"""`./run_bot.sh logs download --task T [--out DIR] [--config FILE]`: every room of a Slurk task, from Slurk's REST log
API, as one JSON-lines file per room (`<out>/<room>.jsonl`, rows exactly as Slurk returns them, ordered by log id:
the same shape as slurk-bots' download_logs output), except that the bot's batch rows are replaced by the rows they
hold (bots/slurk/logbatch.py: same id, their own event and data, plus `batch` and `oid`). `bots.study.replay` reads
the folder as it is.

The task's rooms are the rooms with the task's layout (`GET /tasks/T` -> layout_id -> `GET /rooms?layout_id=`), plus
any other room that has a `game_start` row and a member whose token belongs to task T (e.g. a room created with
another layout). Rooms without any log row are reported, not written. Completion codes handed out in the waiting
room (people who found no partner) are collected into `<out>/waiting_room_codes.csv`, since they have to be paid too.
Every file is created with mode 0600 (logs hold completion codes and everything people wrote), new folders 0700.

T is the Slurk task id, its Slurk name, the study name given to `setup --study`, or the task kind (`<task>`) when one
study of it was set up from this folder (`studies/*/study.json`; --studies DIR). Without --task, TASK_ID from the
environment (a sourced bot.env) is used. The admin token comes from SLURK_ADMIN_TOKEN or
slurk.admin_token in --config, the server from SLURK_URL or slurk.url.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

from bots.config import ConfigError
from bots.slurk.rest import SlurkAPIError, SlurkREST

from .provision import make_private_dir, read_study_config, report_error, write_private


@dataclass
class RoomLog:
    room: int
    rows: int
    path: Optional[str]
    found_by: str  # "layout" or "game_start"
    events: Counter = field(default_factory=Counter)


@dataclass
class DownloadReport:
    task: dict
    out: str
    rooms: list[RoomLog] = field(default_factory=list)
    empty: list[int] = field(default_factory=list)
    codes_csv: Optional[str] = None
    waiting_codes: int = 0

    @property
    def files(self) -> list[str]:
        return [r.path for r in self.rooms if r.path]

    @property
    def total_rows(self) -> int:
        return sum(r.rows for r in self.rooms)


def resolve_task(rest: SlurkREST, task: str, studies: str = "studies", url: Optional[str] = None) -> dict:
    """The Slurk task meant by `task`, tried in this order: its id; a study name (`studies/<study>/study.json`, which
    setup wrote, records the task id); its Slurk name (setup names the task after the study); a task kind (`<task>`:
    the one study of that kind set up here for this server). Ambiguity is an error listing the candidates."""
    text = str(task).strip()
    if text.isdigit():
        try:
            return rest.get_task(int(text))
        except SlurkAPIError as exc:
            if exc.status == 404:
                raise ConfigError(f"The server has no task {text}.") from None
            raise
    manifests = _study_manifests(studies, url)
    picked = [m for m in manifests if m.get("study") == text]  # a study of this folder: its manifest is exact
    if not picked:
        found = rest.request("GET", "/tasks", params={"name": text}) or []
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ConfigError(f"{len(found)} tasks named {text!r} on the server (ids "
                              f"{', '.join(str(t['id']) for t in found)}); pass the task id instead.")
        picked = [m for m in manifests if m.get("task") == text]
    if len(picked) == 1 and picked[0].get("task_id") is not None:
        try:
            return rest.get_task(int(picked[0]["task_id"]))
        except SlurkAPIError as exc:
            if exc.status == 404:
                raise ConfigError(f"Study {picked[0]['study']!r} names task {picked[0]['task_id']}, which the server "
                                  "no longer has.") from None
            raise
    if len(picked) > 1:
        listed = ", ".join(f"{m['study']} (task {m.get('task_id')})" for m in picked)
        raise ConfigError(f"{len(picked)} studies of {text!r} in {studies}/: {listed}; pass the study name or the "
                          "task id instead.")
    raise ConfigError(f"No task, study or task kind {text!r}: the server has no task of that name and {studies}/ "
                      f"has no study of it. Pass the Slurk task id (TASK_ID in the study's bot.env) or the study name.")


def _study_manifests(studies: str, url: Optional[str]) -> list[dict]:
    """study.json of every study folder setup wrote under `studies` (those of another server left out)."""
    out = []
    try:
        names = sorted(os.listdir(studies))
    except OSError:
        return out
    for name in names:
        try:
            with open(os.path.join(studies, name, "study.json"), encoding="utf-8") as fh:
                m = json.load(fh)
        except (OSError, ValueError):
            continue
        if not isinstance(m, dict):
            continue
        if url and m.get("url") and str(m["url"]).rstrip("/") != url.rstrip("/"):
            continue
        m.setdefault("study", name)
        out.append(m)
    return out


def download_task_logs(rest: SlurkREST, task: dict, out: str) -> DownloadReport:
    task_id = int(task["id"])
    report = DownloadReport(task, out)
    by_layout = sorted(int(r["id"]) for r in rest.get_rooms(layout_id=task["layout_id"]))
    logs: dict[int, list] = {}
    user_task: dict[int, Optional[int]] = {}

    def task_of(uid: int) -> Optional[int]:
        if uid not in user_task:
            try:
                t = rest.get_user_task(uid)
            except SlurkAPIError as exc:
                if exc.status != 404:
                    raise
                t = None
            user_task[uid] = int(t["id"]) if t and t.get("id") is not None else None
        return user_task[uid]

    found = [(r, "layout") for r in by_layout]
    starts = rest.get_logs(event="game_start")
    for room in sorted({int(x["room_id"]) for x in starts if x.get("room_id") is not None} - set(by_layout)):
        logs[room] = rest.get_logs(room_id=room)
        users = {int(u) for x in logs[room] for u in (x.get("user_id"), x.get("receiver_id")) if u is not None}
        if any(task_of(u) == task_id for u in sorted(users)):
            found.append((room, "game_start"))
    make_private_dir(out)
    for room, how in sorted(found):
        rows = logs[room] if room in logs else rest.get_logs(room_id=room)
        rows = sorted(rows, key=lambda x: x.get("id", 0))
        if not rows:
            report.empty.append(room)
            continue
        path = os.path.join(out, f"{room}.jsonl")
        write_private(path, "".join(json.dumps(r) + "\n" for r in rows))
        report.rooms.append(RoomLog(room, len(rows), path, how, Counter(r.get("event") for r in rows)))
    _waiting_room_codes(rest, task_id, out, report)
    return report


def spreadsheet_safe(text) -> str:
    """A person-supplied cell that a spreadsheet would run as a formula (=, +, -, @, tab, CR) gets a leading '."""
    text = "" if text is None else str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _waiting_room_codes(rest: SlurkREST, task_id: int, out: str, report: DownloadReport) -> None:
    """Codes the concierge gave in the waiting room(s) of the task's participants (no partner)."""
    try:
        tokens = rest.request("GET", "/tokens", params={"task_id": task_id}) or []
    except SlurkAPIError:
        return
    rooms = sorted({int(t["room_id"]) for t in tokens if t.get("room_id") is not None})
    rows = []
    for room in rooms:
        for x in rest.get_logs(room_id=room, event="confirmation_log"):
            d = x.get("data") if isinstance(x.get("data"), dict) else {}
            uid = x.get("receiver_id")
            name = ""
            if uid is not None:
                try:
                    name = rest.get_user(uid).get("name", "")
                except SlurkAPIError:
                    pass
            rows.append({"room": room, "user_id": uid, "name": spreadsheet_safe(name), "status": d.get("status_txt", ""),
                         "code": d.get("confirmation_token") or d.get("amt_token") or d.get("token") or "",
                         "date": x.get("date_created", ""), "log_id": x.get("id")})
    if not rows:
        return
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    report.codes_csv = os.path.join(out, "waiting_room_codes.csv")
    write_private(report.codes_csv, buf.getvalue())
    report.waiting_codes = len(rows)


def format_report(r: DownloadReport) -> str:
    t = r.task
    by_layout = sum(1 for x in r.rooms if x.found_by == "layout")
    lines = [f"Task {t['id']} ({t.get('name')!r}, layout {t.get('layout_id')}): {len(r.rooms) + len(r.empty)} room(s) "
             f"found ({by_layout + sum(1 for e in r.empty)} by layout, "
             f"{len(r.rooms) - by_layout} more by game_start); {len(r.rooms)} file(s), {r.total_rows} log row(s) "
             f"written to {r.out}"]
    for x in r.rooms:
        games = x.events.get("game_start", 0)
        ends = x.events.get("game_end", 0)
        codes = x.events.get("confirmation_log", 0)
        lines.append(f"  room {x.room}: {x.rows} rows, {games} game(s) started, {ends} ended, {codes} completion "
                     f"code(s)  -> {x.path}")
    if r.empty:
        lines.append(f"  no log rows (not written): room(s) {', '.join(map(str, r.empty))}")
    if r.codes_csv:
        lines.append(f"  {r.waiting_codes} completion code(s) given in the waiting room -> {r.codes_csv}")
    # each study's replay in its own folder (without --out every replay would write into ./replay-out)
    lines.append(f"Next: ./run_bot.sh replay {r.out} --out "
                 f"{os.path.join('replay-out', os.path.basename(os.path.normpath(r.out)) or 'logs')}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="run_bot.sh logs", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("download", help="download every room log of a task")
    d.add_argument("--task", help="Slurk task id (TASK_ID in bot.env), the study name, or the task kind (its name) "
                                  "when one study of it exists (default: $TASK_ID)")
    d.add_argument("--studies", default="studies", help="folder of the studies setup wrote (default: studies)")
    d.add_argument("--out", help="output folder (default: slurk-logs/task-<id>)")
    d.add_argument("--config", help="YAML config (slurk.url, slurk.admin_token)")
    return p


def main(argv: Optional[list[str]] = None, env: Mapping[str, str] = os.environ,
         echo: Callable[[str], None] = print) -> int:
    args = build_parser().parse_args(argv)
    try:
        scfg = read_study_config(args.config, env)
        scfg.require_admin("download logs")
    except ConfigError as exc:
        report_error(echo, f"logs: {exc}")
        return 2
    wanted = args.task or env.get("TASK_ID") or env.get("SLURK_TASK_ID")
    if not wanted:
        report_error(echo, "logs: say which task: --task <study name | task id | task kind> (or source the study's "
                           "bot.env, which sets TASK_ID)")
        return 2
    rest = SlurkREST(scfg.url, scfg.admin_token, etag=scfg.config.slurk.etag)
    try:
        task = resolve_task(rest, wanted, args.studies, scfg.url)
        out = args.out or os.path.join("slurk-logs", f"task-{task['id']}")
        report = download_task_logs(rest, task, out)
    except ConfigError as exc:
        report_error(echo, f"logs: {exc}")
        return 2
    except SlurkAPIError as exc:
        report_error(echo, f"logs: {exc}")
        return 1
    finally:
        rest.close()
    echo(format_report(report))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
