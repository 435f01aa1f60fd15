"""Attacks through people's own inputs, on Slurk (the double with ETags off and on, and a real Slurk when
configured): nothing a person types or sends from a page can close the room.

Before (issue 28): `/propose books=¹` three times closed a dond room with status `error` (str.isdigit took the
superscript, int() refused it, and the ValueError counted as a room fault); `/search sort_by=ambience` three times
did the same in planning (float() on a category). Now each is refused (or answered) privately, the room stays
open, and the partner plays on.
"""
from __future__ import annotations

from tasks import get_task
from tests.test_privacy import _room_with_two
from tests.test_slurk_runtime import finish, wait_logs

ATTEMPTS = 4  # one more than the old limit of three faults in a row


def _private_lines(person, needle: str) -> list[str]:
    return [str(d.get("message")) for e, d in person.rec.events
            if e == "text_message" and d.get("private") and needle in str(d.get("message"))]


def _open(bot, room) -> bool:
    match = bot.room(room).match
    return match.phase == "playing" and match.status is None


def test_a_superscript_digit_in_a_dond_offer_never_closes_the_room(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, get_task("dond"), tmp_path, task_options={"instance": 3})
    try:
        alice, bob = people["alice"], people["bob"]
        alice.view()
        for i in range(ATTEMPTS):
            attack = "propose books=¹" if i % 2 == 0 else {"command": "propose", "args": ["books=¹", "hats=①"]}
            assert alice.send(attack) is True
        alice.rec.wait_for("text_message", lambda d: d.get("private")
                           and "is not an item and a number" in str(d.get("message")), count=ATTEMPTS, timeout=30)
        assert _open(bot, room)
        assert not _private_lines(bob, "is not an item"), "the refusal went to the sender only"
        # the partner still plays: an offer, accepted from the page, ends the game with a deal
        counts = bob.view()["counts"]
        assert bob.send(f"propose books=0 hats={counts[1]} balls=0") is True
        offer = alice.view(lambda v: v["can_accept"] is not None)["can_accept"]
        assert alice.send({"command": "accept", "args": [str(offer)]}) is True
        end = wait_logs(srv, room, "game_end")[0]["data"]
        assert end["status"] == "completed" and end["results"]["deal"]
    finally:
        finish(bot)


def test_sorting_a_planning_search_by_a_category_never_closes_the_room(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, get_task("planning"), tmp_path)
    try:
        assistant, user = people["assistant"], people["user"]
        assistant.view()
        for field in ("ambience", "cuisine", "alcohol type", "ambience"):
            assert assistant.send({"command": "search", "args": [f"sort_by={field}"]}) is True
        assert assistant.send("search sort_by=ambience, limit=¹") is True  # a typed search with a superscript limit
        v = assistant.view(lambda v: len(v.get("searches") or []) >= ATTEMPTS)
        assert "ambience" in v["searches"][-1]["text"].splitlines()[1], "sorted, with the column shown"
        assistant.rec.wait_for("text_message", lambda d: d.get("private")
                               and "limit takes a whole number" in str(d.get("message")), timeout=30)
        assert _open(bot, room)
        # the partner still plays: a proposal reaches the user, who can answer it
        names = [s["name"] for s in v["sites"]][:3]
        assert assistant.send({"command": "propose", "args": [", ".join(names)]}) is True
        pending = user.view(lambda v: v.get("pending") is not None)["pending"]
        assert pending and _open(bot, room)
    finally:
        finish(bot)
