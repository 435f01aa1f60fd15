"""Issue 30 on a REAL Slurk server in Chromium (opt-in: markers `conformance` and `browser`): the default agents of
planning and mediation with a person who writes every wish in one message and then only clicks, and with a person
who asks "why this one?". Nobody waits on the agent's question (a proposal arrives to click), the question is
answered with the proposal's own terms, and no agent line is shown twice. Screenshots at 1366x768 and 1920x1080:
artifacts/screenshots/real-discipline-*.png."""
from __future__ import annotations

from tasks.core.discipline import same_line
from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS
REPLY = 60  # seconds: the agent answers at a person's pace

PLANNING_ALL = ("hi! here is everything: my budget is $60 total, i can't go over that. i love parks and places with "
                "a nice view, vegetarian food please, no live music, i don't want to travel far, and somewhere good "
                "for kids would be nice")
MEDIATION_ALL = ("hi! i cant miss thursday 6/1 around midday (importance 10). wednesday afternoon is important too, 8 "
                 "out of 10. the rest of my meetings dont matter. price matters a bit (6/20), landing close to my "
                 "friend 5/10")


def agent_lines(rp, me: str) -> list[str]:
    """The agent's lines as the person's page shows them (the task bot relays them as "Assistant: ...")."""
    return [m.strip() for _, u, m in rp.chat() if u.strip() not in (me, "You", "") and
            m.strip().startswith("Assistant:")]


def answer_after(rr, rp, me: str, before: int, *words: str) -> str:
    """Wait for an agent line after the first `before` ones that holds all `words`; returns it."""
    def found():
        return next((m for m in agent_lines(rp, me)[before:] if all(w in m.lower() for w in words)), None)
    try:
        return wait_until(found, timeout=REPLY, what=f"an agent line with {words}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the agent said: {agent_lines(rp, me)[before:]}") from None


def no_repeats(lines: list[str]) -> bool:
    return not any(same_line(a, b) for i, a in enumerate(lines) for b in lines[:i])


def overlaps(flight: dict, span: tuple) -> bool:
    return flight["start"][:16] < span[1] and span[0] < flight["end"][:16]


def _planning(chromium, tmp_path, ask_why: bool) -> None:
    kind = "why" if ask_why else "all"
    with RealRoom(chromium, tmp_path, "planning", people=1, agents={"assistant": "planner"}) as rr:
        rp = rr.login("Ann")
        rr.announce()
        rr.wait_phase(rp, "playing")
        rp.page.wait_for_selector("#planning-board .pl-prefs li", timeout=WAIT * 1000)
        if ask_why:
            rp.type("hi, i like parks and cheap places")
            wait_until(lambda: len(agent_lines(rp, "Ann")) >= 1, timeout=REPLY, what="the planner's question")
            rp.type("whatever works, you pick")
        else:
            rp.type(PLANNING_ALL)  # and then never a word more: only clicks
        wait_until(lambda: rr.view(rp).get("must_respond"), timeout=REPLY, what="a proposal to click")
        page = rp.page
        page.wait_for_selector("#planning-board .pl-accept", timeout=WAIT * 1000)
        if ask_why:
            before = len(agent_lines(rp, "Ann"))
            rp.type("why this one? is there anything cheaper?")
            answer_after(rr, rp, "Ann", before, "$", "gives you")  # the plan's own terms: price, what it meets
            rr.shots(rp, "real-discipline-planning-why-answered")
        else:
            rr.shots(rp, "real-discipline-planning-all-proposed")
            page.click("#planning-board .pl-reject")  # a bare reject: a new plan must follow without a word
            wait_until(lambda: rr.view(rp).get("must_respond") and len(rr.view(rp)["proposals"]) >= 2,
                       timeout=REPLY, what="a second proposal after a bare reject")
            page.wait_for_selector("#planning-board .pl-accept", timeout=WAIT * 1000)
        page.click("#planning-board .pl-accept")
        rr.wait_phase(rp, "over")
        rr.shots(rp, f"real-discipline-planning-{kind}-end")
        assert no_repeats(agent_lines(rp, "Ann")), agent_lines(rp, "Ann")
        assert not rp.page_errors, rp.page_errors


def test_planning_person_who_writes_everything_then_only_clicks(chromium, tmp_path):
    _planning(chromium, tmp_path, ask_why=False)


def test_planning_person_who_asks_why(chromium, tmp_path):
    _planning(chromium, tmp_path, ask_why=True)


def _mediation(chromium, tmp_path, ask_why: bool) -> None:
    kind = "why" if ask_why else "all"
    with RealRoom(chromium, tmp_path, "mediation", people=2, agents={"assistant": "mediator"}) as rr:
        pages = [rr.login(n) for n in ("Ann", "Ben")]
        rr.announce()
        for p in pages:
            rr.wait_phase(p, "playing")
        by = {rr.view(p)["core"]["seat"]: (p, n) for p, n in zip(pages, ("Ann", "Ben"))}
        (u1, n1), (u2, n2) = by["user1"], by["user2"]
        u1.type(MEDIATION_ALL)
        u2.type("hi, friday morning matters to me, importance 9. price doesnt matter much")
        for u in (u1, u2):
            wait_until(lambda u=u: (rr.view(u).get("pending") or {}).get("id") is not None, timeout=REPLY,
                       what="a flight to click")
            u.page.wait_for_selector("#mediation-board .md-accept", timeout=WAIT * 1000)
        pitch = answer_after(rr, u1, n1, 0, "how about flight")
        v1 = rr.view(u1)
        flight = v1["pending"]["flight"]
        # the meeting user 1 must keep (Thursday around midday) is kept whenever one of their flights can; and
        # "fits what you told me" is said only of a flight that also keeps Wednesday afternoon
        must, wed = ("2023-06-01T12:00", "2023-06-01T13:00"), ("2023-05-31T13:00", "2023-05-31T17:00")
        if any(not overlaps(f, must) for f in v1["flights"]):
            assert not overlaps(flight, must), (pitch, flight)
        if "fits what you told me" in pitch.lower():
            assert not overlaps(flight, must) and not overlaps(flight, wed), (pitch, flight)
        if ask_why:
            before = len(agent_lines(u1, n1))
            u1.type("why this one? is there anything cheaper?")
            answer_after(rr, u1, n1, before, "flight", "$", "cheape")  # why, and the cheaper one (or its price)
        rr.shots(u1, f"real-discipline-mediation-{kind}-proposed")
        u1.page.click("#mediation-board .md-accept")
        u2.page.click("#mediation-board .md-accept")
        wait_until(lambda: all(rr.view(p).get("core", {}).get("phase") == "over" for p in pages), timeout=REPLY,
                   what="the end")
        rr.shots(u1, f"real-discipline-mediation-{kind}-end")
        for p, n in ((u1, n1), (u2, n2)):
            assert no_repeats(agent_lines(p, n)), agent_lines(p, n)
            assert not p.page_errors, p.page_errors


def test_mediation_people_who_write_everything_then_only_click(chromium, tmp_path):
    _mediation(chromium, tmp_path, ask_why=False)


def test_mediation_person_who_asks_why(chromium, tmp_path):
    _mediation(chromium, tmp_path, ask_why=True)
