"""DialOp Planning rules: only the assistant proposes; a partial itinerary is an advisory suggestion (scored for
the user, no answer needed, the game goes on); a full one must be answered, accept ends with the normalised score,
reject clears it; duplicates and unknown sites are refused with a reason; the private /search with its typed
query language (malformed queries explained, nothing changed); alternating turns and the word budget's forced
final proposal."""
from __future__ import annotations

import pickle

import pytest

from tasks.core.evaluation import LOCAL_TIMERS
from tasks import get_task
from tasks.core import Chat, Command, Join, Message, SeatInfo, build_match
from tasks.planning import query
from tasks.planning.parse import parse_itinerary
from tasks.planning.scoring import normalise, score

SPEC = get_task("planning")


def _match(seed=1, **options):
    seats = {s: SeatInfo("person", s) for s in SPEC.seats}
    m, _ = build_match(SPEC, seed, seats, options=options, timers=LOCAL_TIMERS, with_brains=False)
    m.open(0.0)
    for s in SPEC.seats:
        m.handle(Join(s))
    return m


def _errors(effects, seat=None):
    return [e.text for e in effects if isinstance(e, Message) and e.kind == "error" and (seat is None or e.to == seat)]


def _names(m, slots):
    return ", ".join("NULL" if s is None else m.game.names[s] for s in slots)


def test_full_proposal_needs_an_answer_and_accept_scores_it():
    m = _match(2)
    g = m.game
    best = g.inst["best_itinerary"]
    assert _errors(m.handle(Command("user", "propose", (_names(m, best),))), "user")  # users do not propose
    eff = m.handle(Command("assistant", "propose", (_names(m, best),)))
    assert not _errors(eff)
    card = [e for e in eff if isinstance(e, Message) and e.to == "user"]
    assert card and "TOTAL SCORE" in card[0].text
    public = [e.text for e in eff if isinstance(e, Message) and e.to is None]
    assert public and "TOTAL" not in " ".join(public)          # the scorecard is the user's alone
    assert _errors(m.handle(Command("assistant", "accept")))   # the assistant cannot answer its own proposal
    m.handle(Command("user", "accept"))
    assert m.over and m.results["normalized_score"] == 1.0 and m.results["score"] == g.best
    assert m.results["itinerary"] == _names(m, best)


def test_partial_proposals_are_advisory_and_reject_clears_a_full_one():
    m = _match(3)
    eff = m.handle(Command("assistant", "propose", (f"{m.game.names[0]}, NULL, {m.game.names[5]}",)))
    assert not _errors(eff) and "no answer needed" in " ".join(e.text for e in eff if isinstance(e, Message))
    assert "only a suggestion" in _errors(m.handle(Command("user", "accept")))[0]
    uview = m.game.view("user")
    assert uview["proposals"][0]["full"] is False and uview["proposals"][0]["card"]["legs"] == [None, None]
    assert not _errors(m.handle(Chat("user", "hmm, and a third stop?")))  # the game goes on (no deadlock)
    m.handle(Command("assistant", "propose", (_names(m, [0, 1, 2]),)))
    assert m.game.view("user")["must_respond"]
    m.handle(Command("user", "reject"))
    assert not m.over and m.game.proposals.pending is None and m.results == {}
    assert m.game.view("assistant")["proposals"][-1]["status"] == "rejected"


@pytest.mark.parametrize("text,why", [("Rose Garden, Rose Garden, Book Barn", "twice"),
                                      ("Nowhere Land, Book Barn, NULL", "No site called"),
                                      ("A, B, C, D", "3 slots"), ("NULL, NULL", "at least one site")])
def test_bad_itineraries_are_refused_and_change_nothing(text, why):
    m = _match(4)
    before = pickle.dumps(m.game)
    errors = _errors(m.handle(Command("assistant", "propose", tuple(text.split()))), "assistant")
    assert errors and why in errors[0]
    assert pickle.dumps(m.game) == before


def test_names_are_forgiving():
    names = ["Rose Garden", "The Reading Nook", "Crumb and Kettle"]
    assert parse_itinerary("rose garden; reading nook -> Crumb & Kettle", names) == [0, 1, 2]
    assert parse_itinerary("[Rose Gardn, NULL, The Readng Nook]", names) == [0, None, 1]


def test_search_is_private_logged_and_explains_bad_queries():
    m = _match(5)
    eff = m.handle(Command("assistant", "search", tuple("type == cafe, sort_by=price, limit=2".split())))
    answers = [e for e in eff if isinstance(e, Message)]
    assert answers and all(e.to == "assistant" for e in answers) and answers[0].text.startswith("Search Results (5)")
    assert any(getattr(e, "event", "") == "search" for e in eff)
    assert m.game.view("assistant")["searches"][-1]["matched"] == 5 and "searches" not in m.game.view("user")
    before = pickle.dumps(m.game)
    err = _errors(m.handle(Command("assistant", "search", ("vegan", "options", "==", "maybe"))), "assistant")
    assert err and "true or false" in err[0] and pickle.dumps(m.game) == before
    assert _errors(m.handle(Command("user", "search", ("type", "==", "cafe"))), "user")


def test_query_language_filters_or_sort_limit_columns():
    inst = SPEC.generate(6, {})
    sites, feats = inst["sites"], inst["features"]
    res = query.search("Search(fields=[name, price], filters=[type == restaurant OR type == cafe, price <= 40], "
                       "sort_by=[-price], limit=3)", sites, feats)
    want = sorted((s for s in sites if s["etype"] in ("restaurant", "cafe") and s["price"] <= 40),
                  key=lambda s: -s["price"])
    assert res["columns"] == ["name", "price"] and res["matched"] == len(want)
    assert [r[1] for r in res["rows"]] == [s["price"] for s in want[:3]]
    veg = query.search("vegetarian, not touristy", sites, feats)
    assert all(sites[i]["features"].get("vegetarian options") is True and sites[i]["features"].get("touristy") is False
               for i in veg["ids"])
    near = query.search(f"sort_by=distance_to({sites[0]['name']}), limit=2, type == {sites[0]['etype']}", sites, feats)
    assert near["ids"][0] == 0 and near["rows"][0][near["columns"].index("distance")] == 0.0
    for bad, msg in [("cuisine == pizza", "cuisine is one of"), ("colour == red", "Unknown field"),
                     ("price <= cheap", "takes a number"), ("filters=[type == cafe", "not closed"),
                     ("", "Empty search"), ("limit=0", "at least 1")]:
        with pytest.raises(query.QueryError, match=msg):
            query.search(bad, sites, feats)


def test_alternating_turns_and_the_forced_final_proposal():
    m = _match(7, turns="alternate", word_budget=40)
    assert _errors(m.handle(Chat("assistant", "hello there")))               # the user talks first
    assert not _errors(m.handle(Chat("user", "hi i like museums and parks and cheap places please")))
    names = _names(m, m.game.inst["best_itinerary"])
    m.handle(Command("assistant", "propose", (names,)))
    assert _errors(m.handle(Chat("user", "ok")))                           # answer the full proposal first
    m.handle(Command("user", "reject"))
    eff = m.handle(Chat("assistant", "how about this plan then with a museum and a park"))
    assert m.game.words.final and not _errors(eff)
    assert _errors(m.handle(Chat("user", "fine")))                        # no words left for chat
    m.handle(Command("assistant", "propose", (names,)))
    assert m.over and m.results["forced_final"] and m.results["words"] <= 40


def test_views_keep_the_preferences_with_the_user():
    m = _match(8)
    user, assistant = m.game.view("user"), m.game.view("assistant")
    assert user["preferences"] == [p["desc"] for p in m.game.prefs]
    assert "preferences" not in assistant and "pref_specs" not in assistant and len(assistant["sites"]) == 39
    text = repr(assistant)
    assert not any(p["desc"] in text for p in m.game.prefs)


def test_released_rules_option_rescores_an_instance():
    inst = SPEC.generate(9, {})
    m = _match(9, rules="original")
    assert m.game.rules["distance"] == "degrees" and (m.game.best, m.game.worst) != (None, None)
    card = score(m.game.sites, m.game.prefs, m.game.rules, inst["best_itinerary"])
    assert normalise(card["total"], m.game.best, m.game.worst) <= 1.0


def test_the_weights_reach_no_page_only_a_simulated_users_briefing():
    """As in the original, weights are never shown, the user's own page included (its JSON is readable); a simulated
    user gets them in-process through the game's agent briefing."""
    m = _match(8)
    user = m.game.view("user")
    assert "weights" not in user and "pref_specs" not in user
    assert not any(isinstance(x, dict) and "weight" in x for x in user.get("preferences", []))
    assert m.game.agent_briefing("user")["pref_specs"] == m.game.prefs
    assert m.game.agent_briefing("assistant") == {}
