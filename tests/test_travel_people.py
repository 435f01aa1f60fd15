"""The solver agent with people: plain-English lines go through a real match and we check what the agent does.
The person takes the light seat (fed by hand); the agent is SolverBrain in the ghost seat, on preset board 1
(optimum 52) unless a test says otherwise."""
from __future__ import annotations

import re

from tasks.core import ChatShown, Message
from tasks.travel.brains import SolverBrain
from tasks.travel.brains.reader import read
from tasks.travel.generator import PRESET_BOARDS

from .test_travel_brains import moves
from .test_travel_game import OTHER, Room, over

BOARD = PRESET_BOARDS[0]
GHOST = {f"{u}-{v}": w for (u, v), w in BOARD.weights["ghost"].items()}
LIGHT = {f"{u}-{v}": w for (u, v), w in BOARD.weights["light"].items()}


def agent_room(**options) -> Room:
    return Room(brains={"ghost": SolverBrain("ghost", 0)}, **options)


def lines(effects) -> list[str]:
    return [m[5:] for m in moves(effects, "ghost") if m.startswith("chat ")]


def cmds(effects) -> list[str]:
    return [m for m in moves(effects, "ghost") if m.startswith("/")]


def pending_by_agent(room):
    p = room.view("light")["pending"]
    return p["path"] if p and p["by"] == "ghost" else None


def test_coins_in_plain_english_are_understood():
    room = agent_room()
    room.chat("light", "for K-A I've got four, l-k 1 and kitchn to empty room is six")
    brain = room.driver.brains["ghost"]
    assert brain.k.partner == {("A", "K"): 4, ("K", "L"): 1, ("E", "K"): 6}


def test_a_question_about_coins_is_answered_truthfully_every_time():
    room = agent_room()
    for _ in range(2):
        out = room.chat("light", "What are your coins on E-L?")
        assert any(f"E-L {GHOST['E-L']}" in line for line in lines(out)), lines(out)
    assert room.view("light")["partner_coins"]["E-L"] == GHOST["E-L"]
    out = room.chat("light", "whats ur coins on b-c and kitchen-attic")
    said = " ".join(lines(out))
    assert f"B-C {GHOST['B-C']}" in said and f"A-K {GHOST['A-K']}" in said


def test_a_tour_typed_in_chat_is_taken_up():
    room = agent_room()
    room.cmd("light", "share", "all")
    out = room.chat("light", "What about L E A B K C L?")  # an optimal tour (52)
    assert pending_by_agent(room) == ["L", "E", "A", "B", "K", "C", "L"]
    assert any("Good idea" in line for line in lines(out))
    room.cmd("light", "reject")
    room.chat("light", "what about " + " ".join(OTHER).lower() + "?")  # worse: countered with a 52 tour
    assert BOARD.score(pending_by_agent(room)) == 52


def test_reject_then_you_choose_leads_to_concrete_proposals_and_no_stall():
    room = agent_room()
    room.cmd("light", "share", "all")
    first = pending_by_agent(room)
    assert first and BOARD.score(first) == 52
    out = room.cmd("light", "reject")  # a bare rejection: a concrete new proposal, not a question
    second = pending_by_agent(room)
    assert second and second != first and "/propose" in " ".join(cmds(out))
    assert not any("Which tour would you prefer" in line for line in lines(out))
    room.cmd("light", "reject")
    out = room.chat("light", "you choose")
    assert BOARD.score(pending_by_agent(room)) == 52  # my choice: the best tour
    room.cmd("light", "agree")
    end = over(room.cmd("light", "submit"))
    assert end and end.status == "completed" and end.results["optimal"]


def test_no_in_chat_counts_as_a_rejection():
    room = agent_room()
    room.cmd("light", "share", "all")
    first = pending_by_agent(room)
    room.chat("light", "nah, I don't like that one")
    assert pending_by_agent(room) not in (None, first)


def test_a_silent_partner_is_asked_once_then_the_agent_acts_on_what_it_knows():
    room = agent_room()
    said = []
    for text in ("hi", "hmm", "let me think", "ok..."):
        said += lines(room.chat("light", text))
    questions = [s for s in said if "What are your coins" in s or "share all your coins" in s]
    assert len(questions) == 1, said
    asked = re.findall(r"[A-Z]-[A-Z]", questions[0])
    assert not any(h in s for s in said[said.index(questions[0]) + 1:] for h in asked if "?" in s)
    assert pending_by_agent(room)  # it proposed a tour on what it knew


def test_every_message_gets_an_answer_and_no_line_repeats_back_to_back():
    room = agent_room()
    room.cmd("light", "share", "all")
    previous = None
    for text in ("hi", "hmm", "let me think", "what do you think?", "thanks", "ok?"):
        out = room.chat("light", text)
        said = lines(out)
        assert said or cmds(out), text
        if said:
            assert said[-1] != previous, said
            previous = said[-1]


def test_yes_in_chat_lets_a_person_finish_with_submit_only():
    room = agent_room()
    room.cmd("light", "share", "all")
    tour = pending_by_agent(room)
    out = room.chat("light", "sounds good!")
    assert "/submit " + " ".join(tour) in cmds(out)
    end = over(room.cmd("light", "submit", *tour))
    assert end.status == "completed" and end.results["optimal"]


def test_insistence_does_not_buy_a_worse_tour_and_yielding_late_says_why():
    room = agent_room()
    room.cmd("light", "share", "all")
    counters = []
    for _ in range(4):
        out = room.cmd("light", "propose", *OTHER)
        assert "/agree" not in cmds(out)
        counters += lines(out)
    assert all(re.search(r"\d+ coins", c) for c in counters)
    assert all(a != b for a, b in zip(counters, counters[1:]))
    late = agent_room(turn_limit=6)
    late.cmd("light", "share", "all")
    said = []
    for _ in range(5):
        if late.view("light")["turns_left"]["me"] == 0 or over(late.effects):
            break
        said += lines(late.cmd("light", "propose", *OTHER))
    assert late.view("light")["agreed"] == OTHER
    assert any("out of turns" in s and "more coins" in s for s in said)


def test_opening_statements_are_true():
    room = Room(brains={"light": SolverBrain("light", 0)})
    shared = room.view("ghost")["partner_coins"]
    opening = lines(room.effects)[0] if lines(room.effects) else moves(room.effects, "light")[1][5:]
    thr, cap = map(int, re.findall(r"(\d+) or more coins.*at most (\d+) coins", opening)[0])
    assert all(LIGHT[k] >= thr for k in shared) and all(w <= cap for k, w in LIGHT.items() if k not in shared)
    room = Room(brains={"light": SolverBrain("light", 0, None, {"share_policy": "all"})})
    assert len(room.view("ghost")["partner_coins"]) == 15
    assert any("all my coins" in m for m in moves(room.effects, "light"))


def test_the_agents_line_follows_the_move_it_refers_to():
    room = agent_room()
    out = room.cmd("light", "share", "all")
    told = next(i for i, e in enumerate(out) if isinstance(e, Message) and "Ghost proposes" in e.text)
    said = next(i for i, e in enumerate(out) if isinstance(e, ChatShown) and e.seat == "ghost")
    assert told < said


def test_without_share_the_agent_states_its_coins_in_chat():
    room = agent_room(rules="paper")
    out = room.chat("light", "hi! what are your coins on e-l?")
    assert not any(c.startswith("/share") for c in cmds(out))
    said = " ".join(lines(out))
    assert f"E-L {GHOST['E-L']}" in said
    for key, w in re.findall(r"([A-Z]-[A-Z]) (\d+)", said):
        assert GHOST[key] == int(w)  # every number it states is its true coin count


def test_a_person_who_only_types_plain_english_reaches_the_optimum():
    """No commands and no buttons except Submit: the person states coins in lower case, answers questions in words,
    says yes, and submits the tour the agent submitted."""
    for index in range(6):
        room = agent_room(index=index)
        board = room.game_now.board
        mine = {f"{u}-{v}".lower(): w for (u, v), w in board.weights["light"].items()}
        rich = ", ".join(f"{k} {w}" for k, w in mine.items() if w >= 5)
        out = room.chat("light", f"hi! {rich}")
        for _ in range(8):
            if over(room.effects):
                break
            v = room.view("light")
            if v["partner_submitted"]:
                room.cmd("light", "submit", *v["partner_submitted"])
                continue
            asked = read(" ".join(lines(out)), list(board.rooms))
            if asked.ask_all or asked.asks:
                keys = mine if asked.ask_all else {f"{u}-{v}".lower() for u, v in asked.asks}
                out = room.chat("light", ", ".join(f"{k} is {mine[k]}" for k in keys))
            elif pending_by_agent(room):
                out = room.chat("light", "sounds good")
            else:
                out = room.chat("light", "what do you suggest?")
        end = over(room.effects)
        assert end and end.status == "completed" and end.results["optimal"], index
        assert not [m for m in moves(room.effects, "light") if not m.startswith(("chat ", "/submit"))]


def test_a_tour_insisted_on_in_chat_is_countered_with_fresh_words():
    room = agent_room()
    room.cmd("light", "share", "all")
    room.cmd("light", "reject")
    said = []
    for _ in range(3):
        said += lines(room.chat("light", "i want " + " ".join(OTHER).lower()))
        assert BOARD.score(pending_by_agent(room)) == 52
    assert all(a != b for a, b in zip(said, said[1:])), said


def test_a_next_room_typed_in_chat_becomes_a_whole_tour():
    room = agent_room()
    room.cmd("light", "share", "all")
    room.cmd("light", "reject")
    room.chat("light", "lets go to the attic first")
    tour = pending_by_agent(room)
    assert tour[:2] == ["L", "A"] and len(tour) == 7 and BOARD.score(tour) == 52


def test_with_llm_reader_fallback_the_llm_reads_only_what_the_rules_cannot():
    class CountingLLM:
        def __init__(self):
            self.texts = []

        def chat_json(self, messages, schema, usage=None):
            self.texts.append(messages[-1]["content"])
            return {"coins": [], "asks": [], "ask_all": False, "cap": None, "path": [], "yes": False, "no": False,
                    "defer": True, "question": False}

    llm = CountingLLM()
    room = Room(brains={"ghost": SolverBrain("ghost", 0, llm, {"llm_reader": "fallback"})})
    room.cmd("light", "share", "all")
    room.chat("light", "What are your coins on E-L?")
    room.chat("light", "hmm, ur shout mate")
    assert llm.texts == ["hmm, ur shout mate"]


def test_unclear_input_gets_a_clarifying_question():
    room = agent_room()
    room.cmd("light", "share", "all")
    out = room.chat("light", "kitchen 5 attic 3 hmm")
    assert any("didn't quite get" in line for line in lines(out))
    out = room.chat("light", "hmm")  # plain chatter is no puzzle: no clarifying question
    assert not any("didn't quite get" in line for line in lines(out))
