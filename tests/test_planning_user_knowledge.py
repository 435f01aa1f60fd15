"""Planning's simulated users know what the original's users saw (reference §3.3, §3.5): the preference texts and
the scorecards, never the hidden weights. The default user's words and judgement do not change when only the
weights change; `simuser-weights` (ours, labelled) is told them and says them."""
from __future__ import annotations

import json
import random

import pytest

from tasks import get_task
from tasks.core import View
from tasks.planning.brains import language
from tasks.planning.game import PlanningGame
from tasks.planning.scoring import score

SPEC = get_task("planning")
USERS = ["simuser", *sorted(n for n in SPEC.brains if n.startswith("person-"))]


def _reweighted(prefs: list, seed: int) -> list:
    """The same preferences (texts, meaning, order) with other weights (signs kept)."""
    rng = random.Random(seed)
    return [dict(p, weight=(1 if p["weight"] > 0 else -1) * rng.randint(1, 10)) for p in prefs]


def _opening(brain_name: str, game: PlanningGame, prefs: list, options=None) -> list[str]:
    brain = SPEC.make_brain(brain_name, "user", 7, None, {})
    brain.briefing = {"pref_specs": prefs}
    brain.observe(View("user", game.view("user")))
    return [getattr(m, "text", None) or m.name for m in brain.act()]


@pytest.mark.parametrize("brain", USERS)
def test_the_default_users_first_words_do_not_depend_on_the_hidden_weights(brain):
    for seed in range(8):
        game = PlanningGame(seed, {})
        said = _opening(brain, game, game.prefs)
        for other in range(3):
            assert _opening(brain, game, _reweighted(game.prefs, other)) == said, (seed, said)


def test_the_default_user_tells_its_wishes_in_the_order_shown_with_no_strength_words():
    strength_words = ("must", "really", "would be nice", "slightly", "absolutely", "not a big deal", "a lot")
    for seed in range(10):
        game = PlanningGame(seed, {})
        text = " ".join(_opening("simuser", game, game.prefs)).lower()
        assert not any(w in text for w in strength_words), text
        # the planner reads every feature wish at the same strength: no weight in the words
        strengths = {m.strength for m in language.read(text, game.sites) if m.kind == "feature"}
        assert strengths <= {5.0}, (text, strengths)
        told = [p for p in game.prefs if p["kind"] == "feature"][:1]
        if told and game.prefs.index(told[0]) < 3:  # the first feature shown is among the first three told
            assert any(m.kind == "feature" for m in language.read(text, game.sites)), text


def test_ours_says_its_weights_most_important_first():
    changed = 0
    for seed in range(8):
        game = PlanningGame(seed, {})
        said = _opening("simuser-weights", game, game.prefs)
        changed += any(_opening("simuser-weights", game, _reweighted(game.prefs, k)) != said for k in range(3))
    assert changed >= 6


def test_the_default_users_judgement_follows_the_scorecard_not_the_weights():
    """Two users whose preferences differ only in weights behind the same scorecard answer a proposal alike."""
    game = PlanningGame(3, {})
    slots = game.inst["best_itinerary"][:2] + [next(i for i in range(len(game.sites))
                                                    if i not in game.inst["best_itinerary"])]
    card = score(game.sites, game.prefs, game.rules, slots)
    view = game.view("user")
    view["pending"] = {"id": 1, "slots": slots}
    view["proposals"] = [{"id": 1, "full": True, "status": "open", "slots": slots,
                          "sites": game._slot_sites(slots), "card": {k: v for k, v in card.items() if k != "per_pref"}}]
    answers = []
    for prefs in (game.prefs, _reweighted(game.prefs, 1), _reweighted(game.prefs, 2)):
        brain = SPEC.make_brain("simuser", "user", 7, None, {})
        brain.briefing = {"pref_specs": prefs}
        brain.opened = True
        brain.observe(View("user", view))
        answers.append([getattr(m, "text", None) or m.name for m in brain.act()])
    assert answers[0] == answers[1] == answers[2] and answers[0]


def test_no_weight_reaches_the_users_view_or_page():
    game = PlanningGame(5, {})
    game.history.append({"id": 1, "slots": [0, 1, 2], "full": True, "status": "open",
                         "card": score(game.sites, game.prefs, game.rules, [0, 1, 2])})
    view = game.view("user")
    text = json.dumps(view)
    assert '"weight' not in text and "per_pref" not in text
    assert view["preferences"] == [p["desc"] for p in game.prefs]
