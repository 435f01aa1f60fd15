"""The DialOp Planning page in headless Chromium, on the Slurk page double (tests/browser/harness.py). Assistant:
the sortable, filterable site table, the SVG map (no tiles), a detail card, the 3-slot builder, Propose and the
search box sent privately to the bot. User: the preferences, the timeline and scorecard of a proposal, Accept /
Reject for a full one only. Names from the view are inserted as text. Screenshots at 1366x768 and 1920x1080 go to
artifacts/screenshots/planning-*.png."""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tasks.core import Command, Match, SeatInfo  # noqa: E402
from tasks.planning.game import PlanningGame  # noqa: E402
from tests.browser.harness import BOT  # noqa: E402

pytestmark = pytest.mark.browser


def match_after(moves=()):
    game = PlanningGame(1, {})
    m = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    m.open(0.0)
    for seat, name, args in moves:
        m.handle(Command(seat, name, args, t=1.0))
    return m


def show(bp, data, seat):
    data = dict(data, core={"phase": "playing", "seat": seat, "bot": BOT["id"], "chat": "open"})
    assert bp.text_update("planning-state", json.dumps(data)) >= 1


def sent(bp):
    return [e["command"] for e in bp.emitted() if e.get("receiver_id") == bp.bot]


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_assistant_table_map_filters_builder_and_search(browser_page, size):
    bp = browser_page("planning", viewport=size)
    m = match_after()
    v = m.game.view("assistant")
    show(bp, v, "assistant")
    page = bp.page
    rows = "#planning-board table.pl-sites tr[data-site]"
    assert page.locator(rows).count() == 39 and page.locator("#planning-board svg.pl-map circle").count() == 39
    page.select_option("#planning-board select.pl-type", "cafe")
    assert page.locator(rows).count() == sum(s["etype"] == "cafe" for s in v["sites"])
    page.select_option("#planning-board select.pl-type", "")
    page.check('#planning-board input[data-feature="has parking"]')
    assert page.locator(rows).count() == sum(s["features"].get("has parking") is True for s in v["sites"])
    page.uncheck('#planning-board input[data-feature="has parking"]')
    page.click('#planning-board th[data-col="price"]')
    prices = [int(t.strip("$")) for t in page.locator(f"{rows} td:nth-child(3)").all_inner_texts()]
    assert prices == sorted(prices)
    for i in (4, 9, 2):
        page.click(f'#planning-board table.pl-sites tr[data-site="{i}"]')
        assert v["sites"][i]["name"] in page.inner_text("#planning-board .pl-detail")
        page.click("#planning-board .pl-add")
    assert page.locator("#planning-board .pl-route").count() == 2
    bp.screenshot(f"planning-assistant-{size[0]}x{size[1]}.png")
    page.click("#planning-board .pl-propose")
    page.fill("#planning-board .pl-query", "type == park, sort_by=price, limit=2")
    page.press("#planning-board .pl-query", "Enter")
    cmds = sent(bp)
    assert cmds[0]["command"] == "propose" and cmds[0]["args"] == [", ".join(v["sites"][i]["name"] for i in (4, 9, 2))]
    assert cmds[1]["command"] == "search" and " ".join(cmds[1]["args"]) == "type == park, sort_by=price, limit=2"
    bp.assert_commands_private()
    bp.assert_no_errors()


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_user_sees_preferences_timeline_scorecard_and_answers(browser_page, size):
    bp = browser_page("planning", viewport=size)
    g = PlanningGame(1, {})
    names = [g.names[i] for i in g.inst["best_itinerary"]]
    m = match_after([("assistant", "propose", (f"{names[0]}, NULL, {names[2]}",))])
    show(bp, m.game.view("user"), "user")
    page = bp.page
    assert page.locator("#planning-board .pl-prefs li").count() == len(g.prefs)
    assert page.locator("#planning-board .pl-accept").count() == 0        # a suggestion needs no answer
    m.handle(Command("assistant", "propose", (", ".join(names),), t=2.0))
    uv = m.game.view("user")
    show(bp, uv, "user")
    assert page.locator("#planning-board .pl-timeline li").count() == 5
    card = uv["proposals"][-1]["card"]
    assert f"Overall score: {card['total']}" in page.inner_text("#planning-board .pl-scorecard")
    assert names[1] in page.inner_text("#planning-board .pl-timeline")
    bp.screenshot(f"planning-user-{size[0]}x{size[1]}.png")
    page.click("#planning-board .pl-reject")
    page.click("#planning-board .pl-accept")
    assert [c["command"] for c in sent(bp)] == ["reject", "accept"]
    assert [c["args"] for c in sent(bp)] == [[str(uv["pending"]["id"])]] * 2  # bound to the proposal shown
    bp.assert_no_errors()


def test_names_are_inserted_as_text(browser_page):
    bp = browser_page("planning")
    v = copy.deepcopy(match_after().game.view("assistant"))
    v["sites"][0]["name"] = '<img src=x onerror="window.pwned=1">'
    show(bp, v, "assistant")
    page = bp.page
    page.click('#planning-board table.pl-sites tr[data-site="0"]')
    assert page.locator("#planning-board img").count() == 0
    assert "<img" in page.inner_text("#planning-board .pl-detail")
    assert page.evaluate("window.pwned === undefined")
    bp.assert_no_errors()


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_the_detail_card_of_a_row_far_down_opens_in_view(browser_page, size):
    """A row at the bottom of the 39-site table opens the detail card where the person looks (the card's column
    stays in view while the table scrolls); before, it opened at the top of the page, off screen."""
    bp = browser_page("planning", viewport=size)
    show(bp, match_after().game.view("assistant"), "assistant")
    page = bp.page
    last = page.locator("#planning-board table.pl-sites tr[data-site]").last
    last.scroll_into_view_if_needed()
    last.click()
    box = page.locator("#planning-board .pl-detail").bounding_box()
    assert box and 0 <= box["y"] and box["y"] + box["height"] <= size[1], box
    page.click("#planning-board .pl-add")
    assert page.locator("#planning-board .pl-slot").first.inner_text().startswith("1. ")
    assert "(empty)" not in page.locator("#planning-board .pl-slot").first.inner_text()
