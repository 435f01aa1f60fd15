"""How the assignment agents read people's plain English (brains/english.py): numbers, graded words in lists with
the topic carried across commas, negation, pronouns, unknown cells, questions and requests."""
from __future__ import annotations

import pytest

from tasks.assignment.brains.english import level_of, read_message
from tasks.assignment.names import PAPERS, REVIEWERS

R = {n.split()[0].lower(): i for i, n in enumerate(REVIEWERS)}
P = {p.lower(): j for j, p in enumerate(PAPERS)}


def cell(r: str, p: str) -> tuple[int, int]:
    return R[r], P[p]


def test_a_list_under_one_paper_grades_each_reviewer():
    rd = read_message("GLUE: Daniel Nguyen would be best, Ava Li would be good, Sofia Patel pretty good, "
                      "Joseph Santos would be bad")
    assert rd.best_in_paper == {P["glue"]: R["daniel"]}
    assert rd.rated[cell("ava", "glue")] > 60 and rd.rated[cell("sofia", "glue")] > 60
    assert rd.rated[cell("joseph", "glue")] < 45 and cell("joseph", "glue") in rd.bad


def test_negated_good_words_are_low_and_not_bad_is_middling():
    rd = read_message("SWAG: Daniel would be great, Ava and Noah wouldn't be very good")
    assert rd.rated[cell("daniel", "swag")] > 80
    assert rd.rated[cell("ava", "swag")] < 45 and rd.rated[cell("noah", "swag")] < 45
    assert 50 < level_of("ethan is not bad at glove") < 75


@pytest.mark.parametrize("text,want", [
    ("Noah GlOVe dark green, Noah RoBERTA dark green", {("noah", "glove"), ("noah", "roberta")}),
    ("Ava is killing it for SWAG", {("ava", "swag")}),
    ("Daniel looks really good for QuAC and Morgan for GLUE.", {("daniel", "quac"), ("morgan", "glue")}),
])
def test_strong_words_in_plain_english(text, want):
    rd = read_message(text)
    for r, p in want:
        assert rd.rated.get(cell(r, p), 0) >= 78, (text, rd)


def test_pairs_put_forward_in_a_list_stand_alone():
    rd = read_message("Andrei on GloVe, not sure about Glue, Daniel on Llama, Sofia on Quac and Ava on Swag")
    assert {cell("andrei", "glove"), cell("daniel", "llama"), cell("sofia", "quac"), cell("ava", "swag")} <= rd.suggested
    assert not rd.bad


def test_lists_after_i_dont_know_and_questions_share_their_head():
    rd = read_message("I don't know Daniel-BLEU, Sofia-BLEU, Andrei-BLEU.")
    assert {cell("daniel", "bleu"), cell("sofia", "bleu"), cell("andrei", "bleu")} <= rd.unknown
    assert not rd.suggested
    rd = read_message("What do you have for Ava-GloVe, Noah-SWAG?")
    assert rd.asked_cells == {cell("ava", "glove"), cell("noah", "swag")} and not rd.suggested


def test_pronouns_rank_numbers_and_tails():
    rd = read_message("I dont have much info other then that she isnt good at glove", prev=R["ava"])
    assert cell("ava", "glove") in rd.bad
    assert read_message("The #1 stand out is that Joseph Santos should get the GLUE paper").values == {}
    assert read_message("Ava is great for GloVe, like 80").values == {cell("ava", "glove"): 80}
    rd = read_message("My main pick would be Joseph for Bleu, the other options there dont seem great")
    assert cell("joseph", "bleu") in rd.suggested and cell("joseph", "bleu") not in rd.bad


@pytest.mark.parametrize("text", ["you choose", "just propose", "Your call.", "can you send a proposal?",
                                  "go ahead and propose"])
def test_requests_for_a_proposal(text):
    assert read_message(text).request


def test_questions_without_names():
    assert read_message("whats ur highest number?").asked_top
    assert read_message("any good ones on your side?").asked_any
    assert not read_message("lol").question


def test_relative_statements_and_words_that_only_look_like_names():
    rd = read_message("Noah is better than Ava for BLEU")
    assert rd.rated[cell("noah", "bleu")] > rd.rated[cell("ava", "bleu")]
    rd = read_message("for glue, sofia is worse than daniel")
    assert rd.rated[cell("daniel", "glue")] > rd.rated[cell("sofia", "glue")]
    assert R["ethan"] not in {r for r, _ in rd.rated}  # "than" is not Ethan
    for text in ("no clue, thanks! can we swap?", "i agreed, feel free to resend"):
        assert not read_message(text).rated and not read_message(text).suggested and not read_message(text).unknown
