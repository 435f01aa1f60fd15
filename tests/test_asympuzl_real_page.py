"""AsymPuzl in real Chromium pages on a REAL Slurk server (opt-in: markers `conformance` and `browser`;
tests/real_room.py): two people solve a puzzle (A types the shapes by position, B places its pairs with the picker and
types them, A places the colours and ends the turn), and a person as A solves one with the `share-all` agent as B.
Screenshots at 1366x768 and 1920x1080: artifacts/screenshots/real-asympuzl-*."""
from __future__ import annotations

from tests.real_room import REAL_PAGE_MARKS, RealRoom
from tests.test_real_page import WAIT, wait_until

pytestmark = REAL_PAGE_MARKS


def place(rp, position: int, shape: str, colour: str) -> None:
    """Click a position of the answer row, pick a shape and a colour, press Replace."""
    page = rp.page
    page.click(f'#asympuzl-board .ap-hyp [data-pos="{position}"]')
    page.click(f'#asympuzl-board .ap-shape[data-shape="{shape}"]')
    page.click(f'#asympuzl-board .ap-colour[data-colour="{colour}"]')
    page.click("#asympuzl-board .ap-replace")


def my_turn(rr, rp) -> bool:
    return rr.view(rp).get("turn") == "me"


def test_two_people_solve_a_puzzle(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "asympuzl", people=2, task_options={"size": 3}) as rr:
        pages = [rr.login("Ann"), rr.login("Bo")]
        rr.announce()
        for rp in pages:
            rr.wait_phase(rp, "playing")
            rp.page.wait_for_selector("#asympuzl-board .ap-hyp", timeout=WAIT * 1000)
        by = {rr.view(rp)["role"]: rp for rp in pages}
        a, b = by["A"], by["B"]
        shapes = [c[0] for c in rr.view(a)["clue_shapes"]]
        colour_of = dict(rr.view(b)["clue_pairs"])
        assert "clue_pairs" not in rr.view(a) and "clue_shapes" not in rr.view(b)  # each sees only its own clues
        a.type(", ".join(f"position {i + 1} is the {s}" for i, s in enumerate(shapes)))
        wait_until(lambda: my_turn(rr, b), what="B's turn")
        for i, s in enumerate(shapes):
            place(b, i + 1, s, colour_of[s])
        wait_until(lambda: rr.view(b)["hypothesis"] == [[s, colour_of[s]] for s in shapes], what="B's placements")
        rr.shots(b, "real-asympuzl-people-1-b-placed")
        b.type("; ".join(f"{i + 1}: {colour_of[s]} {s}" for i, s in enumerate(shapes)))
        wait_until(lambda: my_turn(rr, a), what="A's turn again")
        for i, s in enumerate(shapes):
            place(a, i + 1, s, colour_of[s])
        rr.shots(a, "real-asympuzl-people-2-a-placed")
        a.page.click("#asympuzl-board .ap-done")
        for rp in pages:
            rr.wait_phase(rp, "over")
        assert rr.view(a)["result"]["success"] and rr.view(b)["result"]["success"]
        for rp, who in ((a, "a"), (b, "b")):
            rr.shots(rp, f"real-asympuzl-people-3-end-{who}")
            assert not rp.page_errors, rp.page_errors


def test_a_person_solves_a_puzzle_with_the_share_all_agent(chromium, tmp_path):
    with RealRoom(chromium, tmp_path, "asympuzl", people=1, agents={"b": "share-all"},
                  task_options={"size": 4}) as rr:
        ann = rr.login("Ann")
        rr.announce()
        v = rr.wait_phase(ann, "playing")
        assert v["role"] == "A"
        shapes = [c[0] for c in v["clue_shapes"]]
        ann.type("hi! " + ", ".join(f"{i + 1} {s}" for i, s in enumerate(shapes)))
        # the agent answers with its pairs in plain words; the person reads them off the chat
        wait_until(lambda: my_turn(rr, ann), timeout=WAIT * 2, what="A's turn after the agent")

        def said() -> str:
            return " ".join(m for _, user, m in ann.chat() if user.strip() not in ("Ann", "You")).lower()
        wait_until(lambda: "pairs" in said(), what="the agent's pairs in the chat")
        said = said()
        palette = rr.view(ann)["colours"]
        colour_of = {}
        for s in shapes:
            near = [(said.find(f"{c} {s}"), c) for c in palette if f"{c} {s}" in said]
            near += [(said.find(f"{s} is {c}"), c) for c in palette if f"{s} is {c}" in said]
            assert near, f"the agent did not say the colour of the {s}: {said}"
            colour_of[s] = min(near)[1]
        rr.shots(ann, "real-asympuzl-agent-1-pairs")
        # her own line is in her chat too (the bot shows it in her name; her page shows its own relayed line)
        assert any("hi! 1 " in m for _, _, m in ann.chat()), ann.chat()
        for i, s in enumerate(shapes):
            place(ann, i + 1, s, colour_of[s])
        ann.page.click("#asympuzl-board .ap-done")
        rr.wait_phase(ann, "over", timeout=WAIT * 2)
        assert rr.view(ann)["result"]["success"], rr.view(ann)["result"]
        rr.shots(ann, "real-asympuzl-agent-2-end")
        assert not ann.page_errors, ann.page_errors
