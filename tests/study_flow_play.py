"""Each task played to its end through the page only, by the people of a tests.study_flow.Group (or any room object
with view / wait_phase / seats / say, as tests.real_room.RealRoom has): clicks on the task's controls and lines in
the chat box. The controls are driven with the helpers of the real-page tests (tests/test_<task>_real_page.py,
tests/test_<task>_real_people.py). PLAYS[task][mix] with mix "people" (every seat a person) or "agent" (one person,
the study's default agents in the other seats)."""
from __future__ import annotations

import time

from tests.test_assignment_real_people import click_matching
from tests.test_asympuzl_real_page import place
from tests.test_dond_real_page import set_counters
from tests.test_planning_real_people import pick
from tests.test_real_page import WAIT, wait_until

AGENT_WAIT = 90  # seconds: an agent answers at a person's pace (and the planner plans)


def others_said(g, rp) -> str:
    """Lines on rp's page that rp did not type (partners, agents, the game master)."""
    me = g.name_of(rp)
    return " ".join(m for _, user, m in rp.chat() if user.strip() not in (me, "You")).lower()


def click(rp, selector: str) -> None:
    rp.page.wait_for_selector(selector + ":enabled", timeout=WAIT * 1000)
    rp.page.click(selector)


def end(g, timeout: float = WAIT) -> None:
    for rp in g.pages:
        g.wait_phase(rp, "over", timeout=timeout)


# --- Deal or No Deal ----------------------------------------------------------------------------------------------

def dond_people(g) -> None:
    s = g.seats()
    alice, bob = s["alice"], s["bob"]
    g.say(alice, "hi bob! may i have the books? you keep the rest", [bob])
    g.say(bob, "fine by me, propose it", [alice])
    counts = g.view(alice)["counts"]
    set_counters(alice, (counts[0], 0, 0))
    g.shots(alice, "1-counters-alice")
    click(alice, "#dond-propose")
    wait_until(lambda: g.view(bob).get("can_accept") is not None, what="Bob to get the offer")
    g.shots(bob, "2-offer-bob")
    click(bob, "#dond-accept")
    end(g)


def dond_agent(g) -> None:
    ann = g.pages[0]
    g.say(ann, "hi! i'd like the hats, you can have the rest", [])
    counts = g.view(ann)["counts"]
    set_counters(ann, (0, counts[1], 0))
    click(ann, "#dond-propose")
    deadline = time.monotonic() + AGENT_WAIT
    while time.monotonic() < deadline and g.view(ann)["core"]["phase"] != "over":
        if g.view(ann).get("can_accept") is not None:  # the agent countered: take its offer
            g.shots(ann, "agent-1-offer")
            click(ann, "#dond-accept")
            break
        time.sleep(0.2)
    g.wait_phase(ann, "over", timeout=AGENT_WAIT)


# --- Assignment ---------------------------------------------------------------------------------------------------

def assignment_people(g) -> None:
    s = g.seats()
    a, b = s["player1"], s["player2"]
    g.say(a, "hi, what do you have for the first paper?", [b])
    g.say(b, "not much, you choose", [a])
    click_matching(a, list(range(8)))
    g.shots(a, "1-picked")
    click(a, "#assignment-board .as-propose")
    wait_until(lambda: g.view(b).get("must_respond"), what="player 2 to be asked to answer")
    g.shots(b, "2-pending")
    click(b, "#assignment-board .as-accept")
    end(g)


def assignment_agent(g) -> None:
    ann = g.pages[0]
    v = g.view(ann)
    r, p = next((r, p) for r in range(8) for p in range(8) if v["table"][r][p] is not None)
    g.say(ann, f"hi! {v['reviewers'][r].split()[0]} is good for {v['papers'][p]}", [])
    click_matching(ann, list(range(8)))
    if not g.view(ann).get("must_respond"):  # the optimizer may have proposed already: then answer that first
        click(ann, "#assignment-board .as-propose")
    wait_until(lambda: g.view(ann).get("must_respond") or g.view(ann)["core"]["phase"] == "over",
               timeout=AGENT_WAIT, what="the optimizer's answer")
    if g.view(ann)["core"]["phase"] != "over":
        g.shots(ann, "agent-1-pending")
        click(ann, "#assignment-board .as-accept")
    g.wait_phase(ann, "over", timeout=AGENT_WAIT)


# --- Negotiation games (the study's default: the paper's negotiation rounds before the move) --------------------

def _talk_turn(g, rp) -> bool:
    return ((g.view(rp).get("negotiation") or {}).get("turn")) == "me"


def _stop_talking(g, rp) -> None:
    """The Stop talking button (the talk ends when both asked), unless the talk is over already."""
    if g.view(rp).get("stage") == "negotiate" and not (g.view(rp)["negotiation"].get("halt_asked") or {}).get("me"):
        click(rp, "#matrix-games-board button.mg-halt")


def _move(g, rp) -> None:
    wait_until(lambda: g.view(rp).get("stage") == "move", timeout=AGENT_WAIT, what="the move stage")
    move = g.view(rp)["my_actions"][0]
    click(rp, f'#matrix-games-board button[data-move="{move}"]')


def matrix_people(g) -> None:
    s = g.seats()
    alice, bob = s["alice"], s["bob"]
    first = alice if _talk_turn(g, alice) else bob
    second = bob if first is alice else alice
    g.say(first, "let's both cooperate, ok?", [second])
    wait_until(lambda: _talk_turn(g, second), what="the reply turn")
    g.say(second, "deal, we cooperate", [first])
    g.shots(first, "1-talk")
    _stop_talking(g, first)
    _stop_talking(g, second)
    _move(g, first)
    _move(g, second)
    end(g, timeout=WAIT * 2)


def matrix_agent(g) -> None:
    ann = g.pages[0]
    wait_until(lambda: _talk_turn(g, ann) or g.view(ann).get("stage") != "negotiate", timeout=AGENT_WAIT,
               what="Ann's turn to talk")
    if _talk_turn(g, ann):
        g.say(ann, "lets both cooperate, deal?", [])
        wait_until(lambda: _talk_turn(g, ann) or g.view(ann).get("stage") != "negotiate", timeout=AGENT_WAIT,
                   what="the agent's answer")
    g.shots(ann, "agent-1-talk")
    _stop_talking(g, ann)
    _move(g, ann)
    g.wait_phase(ann, "over", timeout=AGENT_WAIT)


# --- AsymPuzl -----------------------------------------------------------------------------------------------------

def asympuzl_people(g) -> None:
    by = {g.view(rp)["role"]: rp for rp in g.pages}
    a, b = by["A"], by["B"]
    shapes = [c[0] for c in g.view(a)["clue_shapes"]]
    colour_of = dict(g.view(b)["clue_pairs"])
    g.say(a, ", ".join(f"position {i + 1} is the {s}" for i, s in enumerate(shapes)), [b])
    wait_until(lambda: g.view(b).get("turn") == "me", what="B's turn")
    for i, s in enumerate(shapes):
        place(b, i + 1, s, colour_of[s])
    g.shots(b, "1-b-placed")
    g.say(b, "; ".join(f"{i + 1}: {colour_of[s]} {s}" for i, s in enumerate(shapes)), [a])
    wait_until(lambda: g.view(a).get("turn") == "me", what="A's turn again")
    for i, s in enumerate(shapes):
        place(a, i + 1, s, colour_of[s])
    click(a, "#asympuzl-board .ap-done")
    end(g)


def asympuzl_agent(g) -> None:
    ann = g.pages[0]
    v = g.view(ann)
    shapes = [c[0] for c in v["clue_shapes"]]
    g.say(ann, "hi! " + ", ".join(f"{i + 1} {s}" for i, s in enumerate(shapes)), [])
    wait_until(lambda: g.view(ann).get("turn") == "me" and "pairs" in others_said(g, ann), timeout=AGENT_WAIT,
               what="the agent's pairs and A's turn")
    said, palette = others_said(g, ann), v["colours"]
    colour_of = {}
    for s in shapes:  # the person reads the agent's pairs off the chat
        near = [(said.find(f"{c} {s}"), c) for c in palette if f"{c} {s}" in said]
        near += [(said.find(f"{s} is {c}"), c) for c in palette if f"{s} is {c}" in said]
        assert near, f"the agent did not say the colour of the {s}: {said}"
        colour_of[s] = min(near)[1]
    for i, s in enumerate(shapes):
        place(ann, i + 1, s, colour_of[s])
    click(ann, "#asympuzl-board .ap-done")
    g.wait_phase(ann, "over", timeout=AGENT_WAIT)


# --- Planning -----------------------------------------------------------------------------------------------------

def planning_people(g) -> None:
    s = g.seats()
    user, assistant = s["user"], s["assistant"]
    assistant.page.wait_for_selector("#planning-board table.pl-sites tr[data-site]", timeout=WAIT * 1000)
    g.say(user, "hi! a park and some food please, nothing too pricey", [assistant])
    g.say(assistant, "sure, let me put a plan together", [user])
    sites = g.view(assistant)["sites"]
    park = next(i for i, x in enumerate(sites) if x["etype"] == "park")
    food = [i for i, x in enumerate(sites) if x["etype"] in ("restaurant", "cafe")]
    for i in (park, food[0], food[1]):
        pick(assistant, i)
    g.shots(assistant, "1-built-assistant")
    click(assistant, "#planning-board .pl-propose")
    wait_until(lambda: g.view(user).get("must_respond"), what="the user to be asked to answer")
    g.shots(user, "2-pending-user")
    click(user, "#planning-board .pl-accept")
    end(g)


def planning_agent(g) -> None:
    ann = g.pages[0]
    g.say(ann, "hi! im on a tight budget, nothing over $50 please. that's all, you choose", [])
    wait_until(lambda: g.view(ann).get("must_respond"), timeout=AGENT_WAIT, what="the planner's proposal")
    g.shots(ann, "agent-1-pending")
    click(ann, "#planning-board .pl-accept")
    g.wait_phase(ann, "over")


# --- Mediation ----------------------------------------------------------------------------------------------------

def mediation_people(g) -> None:
    s = g.seats()
    a, u1, u2 = s["assistant"], s["user1"], s["user2"]
    a.page.wait_for_selector("#mediation-board .md-propose", timeout=WAIT * 1000)
    click(a, '#mediation-board button[data-to="user1"]')
    g.say(a, "hi user one, which meetings matter to you?", [u1])
    g.say(u1, "thursday afternoon is important to me", [a])
    click(a, '#mediation-board button[data-to="user2"]')
    g.say(a, "hi user two, anything I should keep free?", [u2])
    g.say(u2, "friday morning please", [a])
    g.shots(a, "1-chat-assistant")
    for k in (1, 2):
        a.page.click(f"#mediation-board table.md-pick{k} tr[data-flight]")  # the first flight of each user
    click(a, "#mediation-board .md-propose")
    for u in (u1, u2):
        wait_until(lambda u=u: g.view(u).get("must_respond"), what="the proposal")
    g.shots(u1, "2-proposal-user1")
    click(u1, "#mediation-board .md-accept")
    click(u2, "#mediation-board .md-accept")
    end(g)


def mediation_agent(g) -> None:
    ann = g.pages[0]  # user 1; the simulated user 2 and the mediator are agents
    g.say(ann, "hi! i'd like to keep thursday afternoon free, and cheap flights please", [])
    deadline = time.monotonic() + AGENT_WAIT * 2
    while time.monotonic() < deadline and g.view(ann)["core"]["phase"] != "over":
        if g.view(ann).get("must_respond"):
            g.shots(ann, "agent-1-proposal")
            click(ann, "#mediation-board .md-accept")
            wait_until(lambda: not g.view(ann).get("must_respond"), what="the accept to be taken")
        time.sleep(0.2)
    g.wait_phase(ann, "over")


# --- Traveling Adventurers ---------------------------------------------------------------------------------------

def _tour(g, rp) -> list:
    v = g.view(rp)
    return [v["start"]] + [r["id"] for r in v["rooms"] if r["id"] != v["start"]]


def _travel_to_the_end(g, rp, retype: str, timeout: float) -> None:
    """Agree to the partner's proposal (button), submit the agreed full tour (button); type `retype` again when
    nothing moves for a while (an agent may have countered)."""
    n = len(g.view(rp)["rooms"]) + 1
    done, last, changed = set(), None, time.monotonic()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = g.view(rp)
        if v["core"]["phase"] == "over":
            return
        if repr(v) != last:
            last, changed = repr(v), time.monotonic()
        pending, agreed, sub = v.get("pending"), v.get("agreed") or [], v.get("submitted") or {}
        if pending and not pending.get("mine") and ("agree", pending.get("id")) not in done:
            done.add(("agree", pending.get("id")))
            click(rp, "#travel-agree")
        elif len(agreed) == n and not sub.get("me") and "submit" not in done:
            done.add("submit")
            click(rp, "#travel-submit")
        elif time.monotonic() - changed > 8 and ("retype", len(done)) not in done:
            done.add(("retype", len(done)))
            rp.type(retype)
        time.sleep(0.1)
    raise AssertionError(f"the travel game did not end; last view {g.view(rp)}")


def travel_people(g) -> None:
    s = g.seats()
    light, ghost = s["light"], s["ghost"]
    g.say(light, "hi! let's visit every room, I'll propose a tour", [ghost])
    g.say(ghost, "sounds good, go ahead", [light])
    light.type("/propose " + " ".join(_tour(g, light)))
    wait_until(lambda: (g.view(ghost).get("pending") or {}).get("mine") is False, what="the proposal on ghost's page")
    g.shots(ghost, "1-proposal-ghost")
    click(ghost, "#travel-agree")
    wait_until(lambda: len(g.view(light).get("agreed") or []) == len(g.view(light)["rooms"]) + 1,
               what="the agreed tour")
    for rp in (light, ghost):
        click(rp, "#travel-submit")
    end(g)


def travel_agent(g) -> None:
    ann = g.pages[0]
    g.say(ann, "hi! here are my coins", [])
    ann.type("/share all")
    ann.type("/propose " + " ".join(_tour(g, ann)))
    _travel_to_the_end(g, ann, "/propose " + " ".join(_tour(g, ann)), AGENT_WAIT * 2)


PLAYS = {
    "dond": {"people": dond_people, "agent": dond_agent},
    "assignment": {"people": assignment_people, "agent": assignment_agent},
    "matrix-games": {"people": matrix_people, "agent": matrix_agent},
    "asympuzl": {"people": asympuzl_people, "agent": asympuzl_agent},
    "planning": {"people": planning_people, "agent": planning_agent},
    "mediation": {"people": mediation_people, "agent": mediation_agent},
    "travel": {"people": travel_people, "agent": travel_agent},
}
# Task options beyond the study's defaults (served with `serve --config`); none: every study runs as `setup` made it.
TASK_OPTIONS: dict = {}
