"""Deal or No Deal in real Chromium pages served by a REAL Slurk server (opt-in: markers `conformance` and
`browser`; tests/real_room.py). Two people play through the page: they chat, Alice asks for items with the -/+
counters and proposes, Bob rejects with a reason, counter-proposes with the counters, Alice accepts; both see the
result and the ending box with a completion code. And a person plays the `bayes` agent typing plain English and
commands ("i want the hats", "/propose books=0 hats=3 balls=0") to a deal. Privacy: a person's values never reach
the other person's page (its text, its state element, or any socket event it received). Screenshots at 1366x768 and
1920x1080: artifacts/screenshots/real-dond-*.png."""
from __future__ import annotations

import json
import time

from tasks.dond.game import values_text
from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS

# Generated instance 3 for every room: counts (2 books, 3 hats, 2 balls), Alice values (1, 2, 1), Bob (3, 0, 2).
OPTIONS = {"instance": 3}
RECORD_JS = """() => { window.__rx = window.__rx || [];
  if (!window.__rxOn) { window.__rxOn = true;
    socket.onAny(function (ev, data) { window.__rx.push([ev, JSON.stringify(data)]); }); } }"""


def record_events(rp) -> None:
    """Keep every socket event the page receives from now on (Slurk's page keeps its socket.io client in `socket`)."""
    rp.page.evaluate(RECORD_JS)


def received(rp) -> str:
    return json.dumps(rp.page.evaluate("() => window.__rx || []"))


def board(rp) -> str:
    return rp.page.inner_text("#dond-board")


def said(rp, text: str) -> bool:
    return any(text in m for _, _, m in rp.chat())


def set_counters(rp, want) -> None:
    """Click -/+ until the counters ask for `want` (books, hats, balls)."""
    for item, n in zip(("book", "hat", "ball"), want):
        for _ in range(10):
            now = int(rp.page.inner_text(f'#dond-board tr[data-item="{item}"] .dond-n'))
            if now == n:
                break
            rp.page.click(f'#dond-board tr[data-item="{item}"] button.dond-{"plus" if now < n else "minus"}')


def assert_private(rr, me, other) -> None:
    """`other`'s values are nowhere on `me`'s page: not its state, not its text, not any event it received."""
    mine, theirs = rr.view(me)["values"], rr.view(other)["values"]
    assert mine != theirs  # instance 3: different valuations, so the checks below can fail
    line = "Your values (only you see them): " + values_text(theirs)
    page_text = me.page.inner_text("body")
    assert line not in page_text and line not in received(me)
    assert values_text(theirs) not in page_text + received(me)
    assert f'"values": {json.dumps(theirs)}' not in json.dumps(rr.view(me))
    flat = received(me).replace(" ", "").replace("\\", "")
    assert '"values":' + json.dumps(theirs).replace(" ", "") not in flat
    assert '"values":' + json.dumps(mine).replace(" ", "") in flat  # the check can see values where they are
    got = [int(x) for x in me.page.eval_on_selector_all("#dond-board td.dond-value", "e => e.map(x => x.textContent)")]
    assert got == mine


def test_two_people_negotiate_with_the_page_to_a_deal(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "dond", people=2, task_options=OPTIONS) as rr:
        pages = [rr.login("Ann"), rr.login("Bo")]
        for rp in pages:
            record_events(rp)
        rr.announce()
        for rp in pages:
            rr.wait_phase(rp, "playing")
            rp.page.wait_for_selector("#dond-board table.dond-items", timeout=WAIT * 1000)
        seats = {rr.view(rp)["seat"]: rp for rp in pages}
        alice, bob = seats["alice"], seats["bob"]
        wait_until(lambda: said(alice, "Your values") and said(bob, "Your values"), what="the private values lines")

        assert alice.page.is_disabled("#dond-propose")  # asking for nothing would give everything away
        alice.type("hi bob! i'd like the hats, you can have the rest")
        wait_until(lambda: said(bob, "i'd like the hats"), what="Bob to read Alice's line")
        bob.type("hmm, hats are fine but i want something else too")
        wait_until(lambda: said(alice, "something else too"), what="Alice to read Bob's line")
        set_counters(alice, (1, 3, 0))
        assert alice.page.inner_text("#dond-board td.dond-total") == "7 of 10"
        rr.shots(alice, "real-dond-people-1-counters-alice")
        alice.page.click("#dond-propose")
        wait_until(lambda: rr.view(bob).get("can_accept") == 1, what="Bob to get offer #1")
        bob.page.wait_for_selector("#dond-board .dond-standing", timeout=WAIT * 1000)
        assert "Alice's offer #1: you get 1 book, no hats, 2 balls (worth 7 to you)" in board(bob)
        rr.shots(bob, "real-dond-people-2-offer-bob")

        bob.page.fill("#dond-reason", "i need both books")
        bob.page.click("#dond-reject")
        wait_until(lambda: (rr.view(alice)["offers"] or [{}])[0].get("status") == "rejected",
                   what="the rejection to reach Alice")
        assert rr.view(alice)["offers"][0]["reason"] == "i need both books"
        wait_until(lambda: "i need both books" in board(alice), what="the reason in Alice's history")
        set_counters(bob, (2, 0, 2))
        assert "Propose: I get 2 books, no hats, 2 balls" in bob.page.inner_text("#dond-propose")
        bob.page.click("#dond-propose")
        wait_until(lambda: rr.view(alice).get("can_accept") == 2, what="Alice to get offer #2")
        alice.page.wait_for_selector("#dond-accept:enabled", timeout=WAIT * 1000)
        assert "Bob's offer #2: you get no books, 3 hats, no balls (worth 6 to you)" in board(alice)
        rr.shots(alice, "real-dond-people-3-counter-alice")

        alice.page.click("#dond-accept")
        for rp in pages:
            rr.wait_phase(rp, "over")
            rp.page.wait_for_selector("#dond-ending .slurk-task-code-value", timeout=WAIT * 1000)
        ra, rb = rr.view(alice)["result"], rr.view(bob)["result"]
        assert ra["deal"] and ra["mine"] == [0, 3, 0] and ra["my_score"] == 6
        assert rb["mine"] == [2, 0, 2] and rb["my_score"] == 10
        assert "Deal! You get no books, 3 hats, no balls" in board(alice) and "Your score: 6 of 10" in board(alice)
        assert "Your score: 10 of 10" in board(bob)
        for rp, who in ((alice, "alice"), (bob, "bob")):
            code = rr.view(rp)["core"]["code"]
            assert code and code in rp.page.inner_text("#dond-ending")
            assert rp.page.locator("#dond-board button.dond-plus").count() == 0  # the counters became the result
            rr.shots(rp, f"real-dond-people-4-end-{who}")
        assert_private(rr, alice, bob)
        assert_private(rr, bob, alice)
        for rp in pages:
            assert not rp.page_errors, rp.page_errors


def test_a_person_types_english_and_commands_against_bayes(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "dond", people=1, agents={"bob": "bayes"}, task_options=OPTIONS) as rr:
        ann = rr.login("Ann")
        record_events(ann)
        rr.announce()
        v = rr.wait_phase(ann, "playing")
        assert v["seat"] == "alice" and v["values"] == [1, 2, 1]
        ann.page.wait_for_selector("#dond-board table.dond-items", timeout=WAIT * 1000)
        n0 = len(ann.chat())
        ann.type("hi! i want the hats")
        wait_until(lambda: len(ann.chat()) > n0 + 1 or rr.view(ann)["offers"], what="the agent's answer",
                   timeout=WAIT * 2)
        rr.shots(ann, "real-dond-agent-1-english")
        ann.type("/propose books=0 hats=3 balls=0")
        # the typed offer stands, or it matched the agent's own offer (a deal), or the agent answered it
        wait_until(lambda: rr.view(ann)["core"]["phase"] == "over" or any(o["by"] == "me" for o in
                   rr.view(ann)["offers"]), what="Ann's typed offer")
        deadline = time.monotonic() + WAIT * 3
        while time.monotonic() < deadline and rr.view(ann)["core"]["phase"] != "over":
            if rr.view(ann).get("can_accept") is not None:  # the agent countered: take its offer
                ann.page.click("#dond-accept")
                break
            time.sleep(0.2)
        rr.wait_phase(ann, "over", timeout=WAIT * 2)
        ann.page.wait_for_selector("#dond-ending .slurk-task-code-value", timeout=WAIT * 1000)
        res = rr.view(ann)["result"]
        assert res["deal"] and res["my_score"] > 0
        rr.shots(ann, "real-dond-agent-2-end")
        page = ann.page.inner_text("body") + received(ann)
        assert values_text([3, 0, 2]) not in page  # the agent's values never reach the person
        assert not ann.page_errors, ann.page_errors


def test_a_person_plays_the_llm_workflow_agent_with_a_scripted_model(chromium, tmp_path):
    """The `llm-workflow` agent in the real room, its model the fake OpenAI server (tests/fake_openai.py): its line
    (which only the model writes) and its chosen option reach the page; the person accepts with the button."""
    from bots.llm import LLMClient, LLMConfig
    from tests.fake_openai import FakeOpenAI
    from tests.test_dond_llm import fake_model

    with FakeOpenAI(default=fake_model) as fake:
        cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            rr = RealRoom(chromium, tmp_path, "dond", people=1, agents={"bob": "llm-workflow"}, task_options=OPTIONS)
            rr.bot.llm_client = llm  # the bot's thinking pool takes it when the bot starts
            with rr:
                ann = rr.login("Ann")
                rr.announce()
                rr.wait_phase(ann, "playing")
                ann.page.wait_for_selector("#dond-board table.dond-items", timeout=WAIT * 1000)
                ann.type("hello, i'd like the hats please")
                wait_until(lambda: rr.view(ann).get("can_accept") is not None, what="the agent's offer",
                           timeout=WAIT * 2)
                wait_until(lambda: said(ann, "Here is a fair split."), what="the model's line")
                rr.shots(ann, "real-dond-llm-1-offer")
                ann.page.click("#dond-accept")
                rr.wait_phase(ann, "over")
                res = rr.view(ann)["result"]
                assert res["deal"] and res["reason"] == "accepted"
                rr.shots(ann, "real-dond-llm-2-end")
                assert not ann.page_errors, ann.page_errors
        prompts = [r["json"]["messages"][-1]["content"] for r in fake.requests]
    assert prompts and "### Options You Do Not Envy" in prompts[0]
    assert "hello, i'd like the hats please" in prompts[0]
    assert all("values to you are 1." not in p for p in prompts)  # Ann's values (1, 2, 1) never reach the model
