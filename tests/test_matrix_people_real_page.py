"""Issue 30 on a REAL Slurk in Chromium (opt-in: markers `conformance` and `browser`; tests/real_room.py): a person
who states a wish once and then only clicks, and a person who asks "why this one?", each play the `workflow` agent
in the battle of the sexes with 4 negotiation rounds. The agent answers every question on the page, never repeats a
line, and the move it plays is the move it last said it would play. Screenshots: artifacts/screenshots/
real-matrix-people-*."""
from __future__ import annotations

from tasks.matrix_games.parse import read_talk
from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS
OPTIONS = {"game": "battle-of-sexes", "negotiation": 4, "first": "alice"}


def agent_lines(rr, rp) -> list[str]:
    return [m["text"] for m in (rr.view(rp).get("negotiation") or {}).get("messages") or [] if m["who"] == "partner"]


def my_turn(rr, rp) -> bool:
    return (rr.view(rp).get("negotiation") or {}).get("turn") == "me"


def stated(rr, rp, lines) -> str:
    v = rr.view(rp)
    said = [read_talk(t, v["my_actions"], v["their_actions"]).theirs for t in lines]
    return [s for s in said if s][-1]


def finish(rr, rp, lines: list[str], name: str) -> None:
    """Wait for the move buttons, play the best reply to the agent's word (Football for Football, Opera for Opera
    in this game), and check the reveal against that word."""
    word = stated(rr, rp, lines)
    rp.page.wait_for_selector(f'#matrix-games-board button[data-move="{word}"]:enabled', timeout=WAIT * 2 * 1000)
    rr.shots(rp, f"{name}-2-talk")
    rp.page.click(f'#matrix-games-board button[data-move="{word}"]')
    rr.wait_phase(rp, "over", timeout=WAIT * 2)
    out = rr.view(rp)["outcomes"][-1]
    assert out["their_move"] == word, (out, lines)
    assert len(lines) == len(set(lines)), lines
    rr.shots(rp, f"{name}-3-reveal")
    assert not rp.page_errors, rp.page_errors


def test_a_person_who_states_a_wish_once_then_only_clicks(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "matrix-games", people=1, agents={"bob": "workflow"},
                  task_options=OPTIONS) as rr:
        ann = rr.login("Ann")
        rr.announce()
        rr.wait_phase(ann, "playing")
        wait_until(lambda: my_turn(rr, ann), what="Ann's turn to talk")
        ann.type("lets both do opera")
        ann.page.wait_for_selector("#matrix-games-board button.mg-halt:enabled", timeout=WAIT * 1000)
        ann.page.click("#matrix-games-board button.mg-halt")
        wait_until(lambda: rr.view(ann).get("stage") == "move" or agent_lines(rr, ann), what="the agent's answer")
        wait_until(lambda: rr.view(ann).get("stage") == "move", what="the talk to stop (the agent agrees)")
        rr.shots(ann, "real-matrix-people-once-1-agreed")
        lines = agent_lines(rr, ann) or [m[2] for m in ann.chat() if "I play" in m[2]]
        assert lines and "Opera" in lines[-1], lines
        finish(rr, ann, lines, "real-matrix-people-once")


def test_a_person_who_asks_why_this_one(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "matrix-games", people=1, agents={"bob": "workflow"},
                  task_options={**OPTIONS, "first": "bob"}) as rr:
        ann = rr.login("Ann")
        rr.announce()
        rr.wait_phase(ann, "playing")
        wait_until(lambda: my_turn(rr, ann), what="the agent's proposal, then Ann's turn")
        for question, answer in (("why this one?", "Because"), ("what will you play?", "I ")):
            n = len(agent_lines(rr, ann))
            ann.type(question)
            wait_until(lambda: len(agent_lines(rr, ann)) > n, what=f"the answer to {question!r}")
            assert answer in agent_lines(rr, ann)[-1], agent_lines(rr, ann)
            wait_until(lambda: my_turn(rr, ann) or rr.view(ann).get("stage") != "negotiate", what="Ann's turn")
        rr.shots(ann, "real-matrix-people-asker-1-answers")
        ann.page.click("#matrix-games-board button.mg-halt")
        wait_until(lambda: rr.view(ann).get("stage") == "move", what="the talk to stop")
        finish(rr, ann, agent_lines(rr, ann), "real-matrix-people-asker")
