"""Screenshots of every task page for each role, at the start, in the middle and at the end of a game, at 1366x768
and 1920x1080, on a REAL Slurk (opt-in: markers `conformance` and `browser`; Slurk's own page and CSS, so the
geometry is the participant's), into artifacts/screenshots/roles/<task>-<seat>-<moment>-<w>x<h>.png (gitignored).

One room per task and seat: a person in that seat (logged in through Slurk's login page), the task's default agents
in the others. Start: the game plays. Middle: the person said hello and the agents answered. End: the person answers
what the page offers (accept, a move) until the game ends, or the room closes after a short inactivity; either way
the page shows the ending and the completion code. At every moment and size the test measures the page:
- no overlay of ours (the status banner: "Your partner is thinking…", reconnecting) overlaps Slurk's header (#header,
  with the user list #user-list); at the end the completion code is in view, below the header;
- the page says who the person is ("You are <role>") in the role name the game master uses;
- the task area shows no internal id or Python literal (tests/test_no_internal_ids.py's check).

    SLURK_TEST_URL=http://127.0.0.1:5056 SLURK_TEST_ETAG=1 SLURK_TEST_ADMIN_TOKEN=0000...0000 \
        pytest -q tests/test_screenshots.py
"""
from __future__ import annotations

import time

import pytest

from tasks import available_tasks, get_task
from tasks.core.match import TimerConfig
from tasks.core.wording import seat_label
from tests.browser.harness import SCREENSHOTS
from tests.real_room import REAL_PAGE_MARKS, SIZES, RealRoom
from tests.test_no_internal_ids import READ_PAGE_JS, problems
from tests.test_real_page import WAIT

pytestmark = REAL_PAGE_MARKS

OUT = SCREENSHOTS / "roles"
# A room left alone ends soon, so every page reaches its ending (code box) within the test.
TIMERS = TimerConfig(join_timeout=120, inactivity=25, inactivity_warning=10, partner_left_grace=60)
END_WAIT = 90  # seconds for the game to end

CASES = [(task, seat) for task in available_tasks() for seat in get_task(task).seats]

# Boxes of Slurk's header and of our fixed overlays, in viewport pixels.
GEOMETRY_JS = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = e => e && getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().height > 0;
  const header = document.getElementById('header'), users = document.getElementById('user-list');
  const banner = document.getElementById('slurk-task-banner');
  const overlays = banner && shown(banner) ? Array.from(banner.children).filter(shown)
      .map(e => [e.className, box(e)]) : [];
  const code = document.querySelector('.slurk-task-code-value');
  return {header: header ? box(header) : null, users: shown(users) ? box(users) : null, overlays: overlays,
          code: code && shown(code) ? box(code) : null, height: window.innerHeight,
          role: (document.getElementById('slurk-task-role') || {}).textContent || ''};
}"""


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check_and_shoot(rr, rp, task, seat, moment) -> list[str]:
    """Screenshots at both sizes; returns what is wrong on the page at each."""
    wrong = []
    for w, h in SIZES:
        rp.page.set_viewport_size({"width": w, "height": h})
        rp.page.evaluate("() => window.scrollTo(0, 0)")
        rp.page.wait_for_timeout(250)
        OUT.mkdir(parents=True, exist_ok=True)
        rp.page.screenshot(path=str(OUT / f"{task}-{seat}-{moment}-{w}x{h}.png"), full_page=False)
        g = rp.page.evaluate(GEOMETRY_JS)
        where = f"{task} {seat} {moment} {w}x{h}"
        for cls, b in g["overlays"]:
            for name in ("header", "users"):
                if g[name] and overlap(b, g[name]):
                    wrong.append(f"{where}: {cls} {b} covers Slurk's {name} {g[name]}")
        if moment == "3-end" and not (g["code"] and g["header"][3] <= g["code"][1] and g["code"][3] <= g["height"]):
            wrong.append(f"{where}: the completion code {g['code']} is not in view below the header")
        if not g["role"].startswith(f"You are {seat_label(get_task(task).game_class, seat)}"):
            wrong.append(f"{where}: the page does not say who the person is ({g['role']!r})")
        wrong += [f"{where}: {p}" for p in problems(rp.page.evaluate(READ_PAGE_JS))]
    return wrong


def answer_what_the_page_offers(rr, rp) -> None:
    """One answer a person would give when the page asks for one: accept an offer, make a move."""
    v = rr.view(rp)
    if v.get("must_respond") or v.get("can_accept"):
        rp.type("/accept")
    elif v.get("stage") == "move" and v.get("my_actions"):
        rp.type("/move 1")


@pytest.mark.parametrize("task,seat", CASES, ids=[f"{t}-{s}" for t, s in CASES])
def test_every_role_page_at_start_middle_and_end(chromium, tmp_path, task, seat):
    spec = get_task(task)
    agents = {s: b for s, b in zip(spec.seats, spec.default_brains) if s != seat}
    with RealRoom(chromium, tmp_path, task, people=1, agents=agents, person_seats=[seat]) as rr:
        rr.bot.config.timers = TIMERS
        rp = rr.login("Jordan")
        rr.announce()
        rr.wait_phase(rp, "playing")
        rp.page.wait_for_timeout(1500)  # the agents' first lines, the board drawn
        wrong = check_and_shoot(rr, rp, task, seat, "1-start")
        rp.type("Hello! Let us work this out together.")
        rp.page.wait_for_timeout(4000)
        wrong += check_and_shoot(rr, rp, task, seat, "2-middle")
        deadline = time.monotonic() + END_WAIT
        while rr.view(rp).get("core", {}).get("phase") != "over" and time.monotonic() < deadline:
            answer_what_the_page_offers(rr, rp)
            rp.page.wait_for_timeout(2500)
        assert rr.view(rp).get("core", {}).get("phase") == "over", f"{task} {seat}: the game did not end"
        rp.page.wait_for_selector(".slurk-task-code-value", timeout=WAIT * 1000)
        wrong += check_and_shoot(rr, rp, task, seat, "3-end")
        assert not wrong, "\n".join(wrong)
        assert not rp.page_errors, rp.page_errors
