"""The shared dialogue discipline (tasks/core/discipline.py): question detection, paraphrase-proof repeats, the
unanswered-question rule, announced moves, and the audit of a played game's log."""
import pickle

import pytest

from tasks.core.discipline import Discipline, audit, is_question, same_line


@pytest.mark.parametrize("text", [
    "why Willow Park?", "is Hop Yard good for us? why that one", "wht about something cheaper", "why this one",
    "ok but why that one", "is there anything cheaper", "can we do something closer", "how much is it in total",
    "any chance of a cheaper flight", "hmm, what about the museum", "y that one", "whats the price",
])
def test_questions_are_recognised(text):
    assert is_question(text)


@pytest.mark.parametrize("text", [
    "whatever works", "you pick", "anything is fine", "i love museums", "my budget is $30 total",
    "thursday 6/1 around midday (importance 10)", "sounds good", "no thanks", "have to be back by 5",
])
def test_statements_are_not_questions(text):
    assert not is_question(text)


def test_paraphrases_are_one_line_but_other_numbers_and_names_are_not():
    assert same_line("got it. anything else i should know?", "Got it! Anything else I should know")
    assert same_line("Sorry about that! Tell me and I'll adjust.", "sorry about that, tell me and ill adjust")
    assert not same_line("How about flight 3 for you ($120)?", "How about flight 4 for you ($180)?")
    assert not same_line("how about Willow Park, then Hop Yard?", "how about Rose Garden, then Hop Yard?")
    d = Discipline()
    d.said("got it. anything else i should know?")
    assert not d.fresh("Got it!! anything else I should know")
    assert d.pick("got it. anything else i should know?", "what else matters to you?") == "what else matters to you?"
    assert d.pick("got it. anything else i should know?") is None


def test_a_question_the_person_lets_pass_is_not_asked_again():
    d = Discipline()
    assert d.may_ask()
    d.said("what's your budget?")
    d.heard("i love parks", told=True)  # an answer: asking on is fine
    assert d.may_ask()
    d.said("anything else?")
    d.silent()  # woken again with nothing from the person
    assert not d.may_ask()
    d2 = Discipline()
    d2.said("anything else?")
    d2.heard("ok", told=False)
    assert not d2.may_ask()


def test_questions_from_the_person_are_owed_until_answered():
    d = Discipline()
    d.heard("why that one? anything cheaper?")
    d.heard("i like views")
    assert d.owed() == ["why that one? anything cheaper?"]
    d.answered()
    assert d.owed() == []


def test_an_announced_move_is_checked_and_the_object_pickles():
    d = Discipline()
    d.announce("Football", "Let's agree: I play Football")
    assert d.check("Football") is None
    assert d.check("Opera") == "Let's agree: I play Football"
    assert pickle.loads(pickle.dumps(d)).check("Opera") == "Let's agree: I play Football"


def _chat(seat, text, to=None):
    return {"event": "game_input", "data": {"input": {"type": "Chat", "seat": seat, "text": text, "to": to}}}


def _cmd(seat, name):
    return {"event": "game_input", "data": {"input": {"type": "Command", "seat": seat, "name": name, "args": []}}}


def test_audit_counts_repeats_unanswered_questions_and_stalls():
    rows = [
        _chat("user", "hi, i like parks"),
        _chat("agent", "got it. anything else i should know?"),
        _chat("user", "why willow park?"),
        _chat("agent", "Got it! Anything else I should know?"),   # a repeat, but it does answer (a line followed)
        _chat("user", "is it cheap"),
        _cmd("agent", "propose"),
        _chat("user", "hello?"),                                   # the previous question got no line: unanswered
        {"event": "agent_note", "data": {"seat": "user", "kind": "stall"}},
        {"event": "game_end", "data": {"status": "stalled"}},
    ]
    a = audit(rows, ["user"])
    assert a == {"repeats": 1, "questions": 3, "unanswered": 2, "stalls": 2}
    clean = audit([_chat("user", "why that one?"), _chat("agent", "it is the cheapest", to=["user"])], ["user"])
    assert clean == {"repeats": 0, "questions": 1, "unanswered": 0, "stalls": 0}
