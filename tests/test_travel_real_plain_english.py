"""A person who only types plain English plays travel against the solver in a real Chromium page on a REAL Slurk
server (opt-in: markers `conformance` and `browser`). No commands and no buttons except Submit: she states her coins
in lower case with number words, answers the agent's questions in words, says yes to its tour, and presses Submit;
the game ends with the optimal tour. Screenshots: artifacts/screenshots/real-travel-plain-*.png."""
from __future__ import annotations

import json
import time

from tasks.travel.brains.reader import read
from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import GAME_WAIT, WAIT, wait_until

pytestmark = REAL_PAGE_MARKS
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def test_a_person_typing_only_plain_english_reaches_the_optimum(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "travel", people=1, agents={"ghost": "solver"},
                  task_options={"boards": "preset"}) as rr:
        rp = rr.login("Ann")
        page = rp.page
        rr.announce()
        rr.wait_phase(rp, "playing")
        v = rp.view()
        rooms = [r["id"] for r in v["rooms"]]
        mine = {k.lower(): int(c) for k, c in v["my_coins"].items()}

        def spoken(keys):
            return ", ".join(f"{k} {WORDS[mine[k]] if i % 2 else mine[k]}" for i, k in enumerate(keys))

        rich = [k for k, c in mine.items() if c >= 4]
        rp.type(f"hi! my best hallways: {spoken(rich)}")
        rp.page.wait_for_timeout(300)
        rp.shot("real-travel-plain-1-coins.png", full_page=False)
        said = 0
        deadline = time.monotonic() + GAME_WAIT
        while time.monotonic() < deadline and rp.phase() != "over":
            v = rp.view() or {}
            theirs = [m for _c, user, m in rp.chat() if user.strip() not in ("Ann", "You")]
            fresh, said = theirs[said:], len(theirs)
            asked = read(" ".join(fresh), rooms) if fresh else None
            if v.get("partner_submitted") and not (v.get("submitted") or {}).get("me"):
                rp.shot("real-travel-plain-3-partner-submitted.png", full_page=False)
                page.wait_for_selector("#travel-submit:enabled", timeout=WAIT * 1000)
                page.click("#travel-submit")
                wait_until(lambda: rp.phase() == "over", what="the end after Submit")
                break
            if asked is not None and (asked.ask_all or asked.asks):
                keys = list(mine) if asked.ask_all else [f"{a}-{b}".lower() for a, b in asked.asks
                                                         if f"{a}-{b}".lower() in mine]
                rp.type("sure: " + spoken(keys) if keys else "i told you all i have")
            elif (v.get("pending") or {}).get("by") == "ghost" or (v.get("pending") and not v["pending"].get("mine")):
                rp.shot("real-travel-plain-2-proposal.png", full_page=False)
                rp.type("yes sounds good, lets do that")
            elif fresh:
                rp.type("ok what do you suggest?")
            time.sleep(1.0)
        final = rp.view() or {}
        rp.shot("real-travel-plain-4-end.png", full_page=False)
        assert final.get("core", {}).get("phase") == "over", final
        assert final["core"].get("status") == "completed", final["core"]
        rec = rr.bot.store.get(rr.room)
        assert rec is not None and rec.result and rec.result.get("optimal") is True, rec.result if rec else None
        # everything the person sent as a command was the Submit button; the rest was plain chat
        ann = rr.user_id(rp)
        logs = rr.srv.expect_ok(rr.srv.api("GET", "logs", params={"room_id": rr.room, "event": "command"}))
        sent = [json.dumps(x["data"]) for x in logs if int(x.get("user_id") or 0) == ann]
        assert sent and all("submit" in c for c in sent), sent
        typed = [m for _c, user, m in rp.chat() if user.strip() in ("Ann", "You")]
        assert typed and not [m for m in typed if m.strip().startswith("/")], typed
        assert not rp.page_errors, rp.page_errors
