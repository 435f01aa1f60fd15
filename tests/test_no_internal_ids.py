"""Nothing a person reads carries the program's insides: no Python literal (True/False/None, the repr of a dict, list
or tuple) and no internal id (seat ids like `user1`, mediation's event ids like `A9`, scorecard keys like `(c)`,
snake_case field names) in any game-master line, agent chat line or task page, for every task.

What counts as read:
- chat: every `Message` (the game master, to everyone or one seat) and every `ChatShown` line of an agent, from
  seeded local games of every task (agents in every seat, plus games where people send the commands that make the
  game master talk: searches, refused commands, leaving and coming back);
- pages: what Chromium shows of the task area (#custom: its innerText, and the `title` and `placeholder` texts a
  person sees on hover or in an empty box) after the plugin drew a seat's view, for every seat at the start, middle
  and end of a game. The JSON views themselves are not checked: they are data for the plugin, which words them.
"""
from __future__ import annotations

import json
import re

import pytest

from tasks import available_tasks, get_task
from tasks.core import Chat, ChatShown, Command, Join, Leave, MatchDriver, Message, SeatInfo, View, build_match
from tasks.core.protocol import TimerFired
from tests.browser.harness import BOT  # the browser fixtures come from conftest.py (imported twice they start Playwright twice)

LITERAL = re.compile(r"\b(True|False|None)\b")
# the repr of a Python container: a quote right after a bracket, a quoted dict key, a list of numbers, {} or []
REPR = re.compile(r"[\[{(]'|'\s*:\s|\[-?\d+(?:\.\d+)?(?:,\s*-?\d+(?:\.\d+)?)+\]|\{\s*\}|\[\s*\]")
SEAT_IDS = re.compile(r"(?<!@)\b(player[12]|user[12])\b")  # "@user1 text" is what a terminal user types
EVENT_IDS = re.compile(r"\b[AB]\d{1,2}\b")          # mediation's calendar event ids
SCORE_KEYS = re.compile(r"\([cpa]\) ")                # the original scorecard's (c)/(p)/(a) prefixes
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")             # a field name (must_respond, price_pref, ...)
# command syntax the game master teaches (/search ... sort_by=distance_to(...)) is meant to be typed
SNAKE_OK = {"sort_by", "distance_to"}


def problems(text: str) -> list[str]:
    found = []
    for name, rx in (("Python literal", LITERAL), ("Python repr", REPR), ("seat id", SEAT_IDS),
                     ("event id", EVENT_IDS), ("scorecard key", SCORE_KEYS)):
        found += [f"{name} {m.group(0)!r}" for m in rx.finditer(text)]
    found += [f"field name {m.group(0)!r}" for m in SNAKE.finditer(text) if m.group(0) not in SNAKE_OK]
    return found


def test_the_check_catches_what_it_is_for():
    assert problems("has parking: False, live music: True")
    assert problems("Conflicting events: A9, A10") and problems("(c) Try not to skip meetings")
    assert problems("accepted by user1") and problems("{'a': 1}") and problems("[3, 4]") and problems("must_respond")
    assert not problems("Player 2 proposes: BLEU: Ava Li. Accept or Reject it on your page (or /accept, /reject).")
    assert not problems("/search type == cafe, sort_by=distance_to(Willow Park), limit=3")


# ---- games ------------------------------------------------------------------------------------------------------

def _seats(spec, people=()):
    return {s: SeatInfo("person", f"Person {i + 1}") if s in people else SeatInfo("agent", "", b)
            for i, (s, b) in enumerate(zip(spec.seats, spec.default_brains))}


def _play(task: str, seed: int, options=None, people=(), inputs=()) -> list:
    """Every effect of a seeded local game: agents in the seats not in `people`; `inputs(match)` yields the people's
    inputs (after they joined)."""
    spec = get_task(task)
    match, brains = build_match(spec, seed, _seats(spec, people), options=dict(options or {}))
    driver = MatchDriver(match, brains, clock=lambda: 0.0)
    effects = [e for batch in driver.open() for e in batch]
    for seat in people:
        effects += [e for batch in driver.feed(Join(seat)) for e in batch]
    for make in inputs:
        inp = make(match)
        if inp is not None:
            effects += [e for batch in driver.feed(inp) for e in batch]
    return effects


def _leftnote(seat):
    return lambda m: TimerFired(f"core:leftnote:{seat}", m.pending_timers().get(f"core:leftnote:{seat}", -1), t=6.0)


# People's inputs that make the game master say more than an agents-only game does.
PEOPLE_GAMES = {
    "planning": (("assistant",), [
        lambda m: Command("assistant", "search", ("type", "==", "cafe,", "sort_by=price,", "limit=3")),
        lambda m: Command("assistant", "search", ("has", "parking", "==", "maybe")),
        lambda m: Command("assistant", "search", ("price", "<=", "10,", "good", "for", "kids")),
        lambda m: Command("assistant", "propose", ("NULL,", "NULL,", "NULL")),
        lambda m: Leave("assistant", t=1.0), _leftnote("assistant"), lambda m: Join("assistant", t=7.0),
        lambda m: Command("assistant", "propose", tuple(", ".join(s["name"] for s in m.game.sites[:3]).split())),
    ]),
    "mediation": (("user1", "user2"), [
        lambda m: Chat("user1", "I must not miss my Thursday meetings."),
        lambda m: Command("user1", "accept", ()), lambda m: Command("user2", "reject", ()),
        lambda m: Leave("user2", t=1.0), _leftnote("user2"), lambda m: Join("user2", t=7.0),
        lambda m: Command("user1", "accept", ()), lambda m: Command("user2", "accept", ()),
    ]),
    "assignment": (("player2",), [
        lambda m: Command("player2", "reject", ()), lambda m: Command("player2", "accept", ()),
        lambda m: Command("player2", "propose", ("nonsense",)),
    ]),
    "matrix-games": (("bob",), [
        lambda m: Chat("bob", "Let us both cooperate."), lambda m: Command("bob", "halt", ()),
        lambda m: Command("bob", "move", ("1",)),
    ]),
    "dond": (("bob",), [
        lambda m: Chat("bob", "what do you value?"), lambda m: Command("bob", "propose", ("books=0", "hats=1", "balls=1")),
        lambda m: Command("bob", "accept", ()), lambda m: Command("bob", "reject", ()),
    ]),
}
OPTIONS = {"matrix-games": {"negotiation": 2}}


def games(task: str) -> list[list]:
    out = [_play(task, seed, OPTIONS.get(task)) for seed in (1, 2)]
    if task in PEOPLE_GAMES:
        people, inputs = PEOPLE_GAMES[task]
        out.append(_play(task, 3, OPTIONS.get(task), people, inputs))
    return out


@pytest.mark.parametrize("task", available_tasks())
def test_no_chat_line_carries_an_internal_id_or_a_python_literal(task):
    bad = []
    for effects in games(task):
        for e in effects:
            if isinstance(e, Message) and not e.html:
                text, who = e.text, f"game master to {e.to or 'everyone'}"
            elif isinstance(e, ChatShown):
                text, who = e.text, f"{e.seat}'s chat line"
            else:
                continue
            bad += [f"{who}: {p} in {text[:160]!r}" for p in problems(text)]
    assert not bad, "\n".join(sorted(set(bad))[:30])


# ---- pages ------------------------------------------------------------------------------------------------------

# The texts a person reads in the task area: what is rendered, and hover titles and input placeholders.
READ_PAGE_JS = """() => {
  const root = document.getElementById('custom');
  const out = [root.innerText];
  root.querySelectorAll('[title], [placeholder]').forEach(e => {
    if (e.title) out.push(e.title);
    if (e.placeholder) out.push(e.placeholder);
  });
  root.querySelectorAll('svg title, svg text').forEach(e => out.push(e.textContent));
  return out.join('\\n');
}"""


def moments(effects) -> dict:
    """seat -> [(moment, view)]: the seat's first playing view, one from the middle, and its last."""
    by_seat: dict = {}
    for e in effects:
        if isinstance(e, View) and (e.data.get("core") or {}).get("phase") in ("playing", "over"):
            by_seat.setdefault(e.seat, []).append(e.data)
    return {s: [("start", vs[0]), ("middle", vs[len(vs) // 2]), ("end", vs[-1])] for s, vs in by_seat.items()}


@pytest.mark.browser
@pytest.mark.parametrize("task", available_tasks())
def test_no_page_shows_an_internal_id_or_a_python_literal(task, browser_page):
    spec = get_task(task)
    bad, seen = [], 0
    for effects in games(task):
        for seat, views in moments(effects).items():
            bp = browser_page(task)
            for when, view in views:
                view = json.loads(json.dumps(view))
                view["core"]["bot"] = BOT["id"]
                bp.text_update(spec.state_element, json.dumps(view))
                bp.page.wait_for_timeout(30)
                text = bp.page.evaluate(READ_PAGE_JS)
                seen += 1
                bad += [f"{seat} at the {when}: {p}" for p in problems(text)]
    assert seen >= 2 * len(spec.seats)
    assert not bad, "\n".join(sorted(set(bad))[:30])
