"""A study the crowdworker's way, for real-browser tests on a REAL Slurk: `setup` provisions the study (waiting room,
task, participant links), the task bot and the concierge run as docs/running-a-study.md says (`python -m bots serve TASK` and
`python -m bots concierge`, subprocesses with the study's bot.env as their environment; `setup` too), and people
open their
participant links (`/login?name=..&token=..`) in headless Chromium, wait in the waiting room and are moved into a
game room by the concierge. STUDY_FLOW_CODE=DIR runs setup and the bots from another checkout of the project (e.g.
an older commit, `git archive C | tar -x -C DIR`), to see whether the test catches a bug there.

    with StudyFlow(chromium, tmp_path, "dond", people_per_room=2, games=3) as flow:
        group = flow.enter()              # the next people log in; returns once all are in the game room
        group.check_chat_alive()          # the dead-chat bug: #text read-only after pairing
        group.say(a, "hi", [b])           # a types a line; b's page shows it (delivery time recorded)

A `Group` has the same view / wait_phase / shots as tests.real_room.RealRoom, so the page-driving steps of the
real-page tests work on it (tests/study_flow_play.py).
"""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Optional

import yaml

from bots.study.provision import read_env_file
from tasks import get_task
from tests.conftest import REAL_ETAG_ENV, REAL_TOKEN_ENV, REAL_URL_ENV, SlurkServer, _env_flag
from tests.real_room import RealRoom
from tests.test_real_page import WAIT, RealPage, open_page, showdown_js, wait_until

ROOT = Path(__file__).resolve().parent.parent
CHAT_WAIT = 30   # seconds a partner's page may take to show a line before it counts as lost (times are recorded)
PAIR_WAIT = 60   # seconds from the last login of a group to every page in the game room, playing
ALIVE_WAIT = 3   # seconds a chat box may stay read-only after pairing (a page-side recovery gets this long)

# The chat box as the person sees it: Slurk's connection.js makes it read-only with the placeholder "Disconnected!"
# on any `left_room`, and writable again on `joined_room` once the room's layout is loaded.
CHAT_BOX_JS = """() => { const t = document.querySelector('#text');
  return t ? {readonly: !!t.readOnly, disabled: !!t.disabled, placeholder: t.placeholder || ''} : null; }"""

# Every socket event the page receives from now on, with the page's clock (diagnostics: the order of joined_room and
# left_room). Slurk's page keeps its socket.io client in `socket`.
RECORD_JS = """() => { window.__rx = window.__rx || [];
  if (!window.__rxOn) { window.__rxOn = true;
    socket.onAny(function (ev, data) { window.__rx.push([performance.now(), ev, JSON.stringify(data)]); });
    const t = document.querySelector('#text');
    if (t) new MutationObserver(() => window.__rx.push([performance.now(), 'chat-box',
        JSON.stringify({readonly: t.readOnly, placeholder: t.placeholder})]))
      .observe(t, {attributes: true, attributeFilter: ['readonly', 'placeholder']}); } }"""
# The events that decide the chat box: room moves and the box's own changes (ms on the page's clock).
ROOM_EVENTS_JS = """() => (window.__rx || []).filter(e => ['joined_room', 'left_room', 'chat-box'].includes(e[1]))
  .map(e => [Math.round(e[0]), e[1], e[2].slice(0, 90)])"""


def runs_wanted(default: int = 1) -> int:
    """How many games each test plays: STUDY_FLOW_RUNS (1 unless set)."""
    try:
        return max(1, int(os.environ.get("STUDY_FLOW_RUNS", default)))
    except ValueError:
        return default


class Group:
    """The people of one game room, each in their own Chromium page."""

    def __init__(self, flow: "StudyFlow", pages: list[RealPage], names: list[str], room: int):
        self.flow = flow
        self.spec = flow.spec
        self.pages = pages
        self.names = names
        self.room = room
        self.stats = {"room": room, "dead_chat": [], "chat_seconds": [], "codes": [], "completed": False}

    # the same reading of a page as RealRoom (tests/real_room.py)
    view = RealRoom.view
    wait_phase = RealRoom.wait_phase
    user_id = RealRoom.user_id

    def shots(self, rp: RealPage, name: str) -> None:
        if self.flow.screenshots:
            RealRoom.shots(rp, f"study-flow-{self.spec.name}-{name}")

    def seats(self) -> dict:
        """{seat name: page} from each page's view (every task's view names the seat in core.seat)."""
        return {self.view(rp)["core"]["seat"]: rp for rp in self.pages}

    def name_of(self, rp: RealPage) -> str:
        return self.names[self.pages.index(rp)]

    # --- the dead-chat check --------------------------------------------------------------------------------------
    def chat_box(self, rp: RealPage) -> dict:
        return rp.page.evaluate(CHAT_BOX_JS) or {}

    def chat_alive(self, rp: RealPage) -> bool:
        box = self.chat_box(rp)
        return bool(box) and not box.get("readonly") and not box.get("disabled")

    def check_chat_alive(self, when: str) -> None:
        """Every page's chat box is writable (within ALIVE_WAIT s); a dead one is recorded, shot and fails the
        game after all pages were looked at."""
        dead = []
        for rp in self.pages:
            try:
                wait_until(lambda rp=rp: self.chat_alive(rp), timeout=ALIVE_WAIT, what="a writable chat box")
            except AssertionError:
                dead.append({"name": self.name_of(rp), "when": when, "box": self.chat_box(rp),
                             "room_events": rp.page.evaluate(ROOM_EVENTS_JS)})
                RealRoom.shots(rp, f"study-flow-dead-{self.spec.name}-{self.room}-{self.name_of(rp)}")
        self.stats["dead_chat"] += dead
        self.stats["room_events"] = {self.name_of(rp): rp.page.evaluate(ROOM_EVENTS_JS) for rp in self.pages}
        assert not dead, f"dead chat box(es) in room {self.room}: {dead}"

    # --- chat -----------------------------------------------------------------------------------------------------
    def say(self, rp: RealPage, line: str, listeners: list[RealPage]) -> None:
        """`rp` types `line` into the chat box; every listener's page shows it (the time until each did is
        recorded: from the key press to the line on the listener's page)."""
        assert self.chat_alive(rp), f"{self.name_of(rp)}'s chat box is dead: {self.chat_box(rp)}"
        rp.page.fill("#text", line)
        t0 = time.monotonic()
        rp.page.press("#text", "Enter")
        for other in listeners:
            other.page.wait_for_function(
                "(t) => Array.from(document.querySelectorAll('#chat-area li')).some(li => li.textContent.includes(t))",
                arg=line, timeout=CHAT_WAIT * 1000, polling=20)
            self.stats["chat_seconds"].append(round(time.monotonic() - t0, 3))

    def said(self, rp: RealPage, text: str) -> bool:
        return any(text in m for _, _, m in rp.chat())

    # --- the end ----------------------------------------------------------------------------------------------------
    def check_codes(self) -> None:
        """Every page shows its own completion code (the code of its view) in the ending box."""
        codes = []
        for rp in self.pages:
            code = wait_until(lambda rp=rp: (self.view(rp).get("core") or {}).get("code"), timeout=WAIT,
                              what="the completion code in the view")
            rp.page.wait_for_function(
                "(c) => Array.from(document.querySelectorAll('.slurk-task-code-value, #travel-code-value'))"
                ".some(e => e.offsetParent !== null && e.textContent.trim() === c)", arg=str(code),
                timeout=WAIT * 1000)
            codes.append(str(code))
        assert len(set(codes)) == len(codes), f"people share a code: {codes}"
        self.stats["codes"] = codes

    def close(self) -> None:
        for rp in self.pages:
            try:
                rp.page.context.close()
            except Exception:
                pass


class StudyFlow:
    """A study on the real Slurk (SLURK_TEST_URL) for `games` rooms of `people_per_room` people, its bots running as
    subprocesses; `enter()` brings the next group in through the waiting room."""

    def __init__(self, chromium, tmp_path: Path, task: str, people_per_room: int, games: int,
                 task_options: Optional[dict] = None, screenshots: bool = True):
        self.chromium = chromium
        self.tmp = Path(tmp_path)
        self.spec = get_task(task)
        self.k = people_per_room
        self.srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                               is_real=True)
        self.code = Path(os.environ.get("STUDY_FLOW_CODE") or ROOT)
        self.env, self.participants = self._setup(people_per_room * games)
        self.waiting_room = int(self.env["WAITING_ROOM"])
        self.task_options = dict(task_options or {})
        self.screenshots = screenshots
        self.showdown = showdown_js()
        self.procs: list[tuple[subprocess.Popen, object]] = []
        self.restarts: list[str] = []  # bots started again (reported)
        self.groups: list[Group] = []
        self._next = 0

    # --- setup and the bots: `python -m bots ...` (what ./run_bot.sh runs), secrets in the environment -----------
    def _base_env(self) -> dict:
        return {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}

    def _setup(self, participants: int) -> tuple[dict, list[dict]]:
        name = f"flow-{self.spec.name}-{uuid.uuid4().hex[:8]}"
        out = self.tmp / "studies"
        env = {**self._base_env(), "SLURK_URL": self.srv.url, "SLURK_ADMIN_TOKEN": self.srv.admin_token}
        argv = ["setup", self.spec.name, "--participants", str(participants), "--study", name, "--out", str(out),
                "--people-per-room", str(self.k)]
        done = subprocess.run([sys.executable, "-m", "bots", *argv], cwd=str(self.code), env=env, text=True,
                              capture_output=True, timeout=180)
        assert done.returncode == 0, f"setup failed: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        (self.tmp / "setup.log").write_text(done.stdout + done.stderr)
        with open(out / name / "participants.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
        return read_env_file(str(out / name / "bot.env")), rows

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        env = {**self._base_env(), **self.env, "BOT_STATE_DB": str(self.tmp / "bot-state.sqlite3")}
        out = open(self.tmp / f"{name}.log", "a")
        proc = subprocess.Popen([sys.executable, "-m", "bots", *argv], cwd=str(self.code), env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append((proc, out))
        return proc

    def _start(self, name: str, argv: list[str], user_key: str) -> None:
        """Start a bot and wait until its user is online; a bot that exits on the way (e.g. `serve` gives up when a
        busy Slurk does not answer its login in time) is started again, as a supervisor would, at most twice."""
        for attempt in range(3):
            proc = self._spawn(name, argv)
            deadline = time.monotonic() + WAIT * 2
            while time.monotonic() < deadline and proc.poll() is None:
                if self._online(int(self.env[user_key])):
                    return
                time.sleep(0.2)
            if proc.poll() is None:
                break
            self.restarts.append(f"{name} exited with status {proc.returncode} before it was online")
        raise AssertionError(f"{name} did not start: {self.logs()}")

    def _online(self, user_id: int) -> bool:
        return self.srv.api("GET", f"users/{user_id}").json().get("session_id") is not None

    def __enter__(self) -> "StudyFlow":
        argv = ["serve", self.spec.name]
        if self.task_options:
            config = self.tmp / "serve.yaml"
            config.write_text(yaml.safe_dump({"task_options": self.task_options}))
            argv += ["--config", str(config)]
        try:
            self._start("serve", argv, "SLURK_USER")
            self._start("concierge", ["concierge"], "CONCIERGE_USER")
        except BaseException:
            self.__exit__()
            raise
        return self

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n" + p.read_text()[-3000:] for p in sorted(self.tmp.glob("*.log")))

    def __exit__(self, *exc) -> None:
        for g in self.groups:
            g.close()
        for proc, out in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
            out.close()
        self.procs = []

    # --- people -----------------------------------------------------------------------------------------------------
    def enter(self) -> Group:
        """The next `people_per_room` participants open their login links; returns once every page shows the game
        room's game (moved there by the concierge) and the game has started."""
        rows = self.participants[self._next:self._next + self.k]
        self._next += self.k
        pages: list[RealPage] = []
        try:
            return self._enter(rows, pages)
        except BaseException:
            for rp in pages:  # nobody of a failed group stays in the waiting room to be paired with the next one
                try:
                    rp.page.context.close()
                except Exception:
                    pass
            raise

    def _enter(self, rows: list[dict], pages: list[RealPage]) -> Group:
        waiting = self.waiting_room
        names = []
        for row in rows:
            rp = open_page(self.chromium, self.srv, row["login_link"], self.showdown)
            pages.append(rp)
            names.append(row["name"])
            rp.page.wait_for_function("() => typeof socket !== 'undefined' && typeof self_room !== 'undefined'",
                                      timeout=WAIT * 1000)
            rp.page.evaluate(RECORD_JS)
            if self.screenshots and len(pages) == 1 and self.k > 1:  # the first of a group waits for the others
                rp.page.wait_for_function("(w) => self_room === w", arg=waiting, timeout=WAIT * 1000)
                rp.page.wait_for_timeout(300)
                RealRoom.shots(rp, f"study-flow-{self.spec.name}-0-waiting")
        for rp in pages:
            rp.page.wait_for_function("(w) => typeof self_room !== 'undefined' && self_room && self_room !== w",
                                      arg=waiting, timeout=PAIR_WAIT * 1000)
        rooms = {int(rp.page.evaluate("() => self_room")) for rp in pages}
        assert len(rooms) == 1, f"the group was split: {rooms}"
        group = Group(self, pages, names, rooms.pop())
        self.groups.append(group)
        for rp in pages:
            group.wait_phase(rp, "playing", timeout=PAIR_WAIT)
        return group


def save_report(key: str, summary: dict) -> Path:
    """Merge this test's figures into artifacts/study-flow-report.json (one entry per task and mix; STUDY_FLOW_REPORT
    names another file)."""
    path = Path(os.environ.get("STUDY_FLOW_REPORT") or ROOT / "artifacts" / "study-flow-report.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data[key] = summary
    path.write_text(json.dumps(data, indent=1, sort_keys=True))
    return path
