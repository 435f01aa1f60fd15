"""How the planner reads a human dialogue it takes over (prompted self-play) or a person's plain English: "too far"
about a named place is about travel, "not a fan of" negates, a wish for a place "that doesn't have live music" is
against live music, a description of a place ("that is a touristy spot") never flips a stated wish, an explicit
"at least one shop" counts next to a named place, a short "yes" takes up what the other assistant asked or
proposed, and the prior for what was never said follows the generator's own wordings."""
from __future__ import annotations

from tasks import get_task
from tasks.core import Chat, Command, MatchDriver, SeatInfo, TimerConfig, build_match
from tasks.planning import generator
from tasks.planning.brains import language
from tasks.planning.brains.belief import PRIOR_MEAN, Belief

SPEC = get_task("planning")
INST = generator.generate(3)
SITES = INST["sites"]
NO_TIMERS = TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None)


def kinds(text):
    return [(m.kind, m.key, m.good, m.sites, m.etype) for m in language.read(text, SITES)]


def test_too_far_about_a_named_place_is_about_travel_not_a_wish_for_it():
    park = next(s["name"] for s in SITES if s["etype"] == "park")
    got = kinds(f"{park}'s even further away, though")
    assert any(k == "distance" for k, *_ in got)
    assert not any(k == "want_to_go" for k, *_ in got), got
    assert not any(k == "at_least_one" for k, *_ in kinds("the museum is just much, much too far away"))


def test_negations_people_use():
    assert ("feature", "live music", [False]) in [x[:3] for x in kinds("Not a fan of live music")]
    assert ("feature", "live music", [False]) in [x[:3] for x in kinds("yeah, nowhere with live music")]
    want = ("feature", "live music", [False])
    assert want in [x[:3] for x in kinds("find a restaurant that costs less and doesn't have live music")]
    assert ("feature", "touristy", [True]) in [x[:3] for x in kinds("maybe not a bar then, what about a touristy spot")]


def test_a_description_of_a_place_never_flips_a_stated_wish():
    b = Belief(SITES, {"distance": "haversine"})
    b.learn(language.read("i hate tourist traps", SITES))
    b.learn(language.read("that is a touristy location, anything closer?", SITES))
    assert b.prefs[("feature", "touristy")]["good"] == [False]


def test_an_explicit_type_next_to_a_named_place_counts():
    name = next(s["name"] for s in SITES if s["etype"] == "cafe")
    got = kinds(f"i'd like to see {name}, at least one shop, and avoid touristy spots")
    assert ("at_least_one", "shop") in [(k, t) for k, _, _, _, t in got]


def test_the_prior_for_what_was_never_said_follows_the_generators_wordings():
    b = Belief(SITES, {"distance": "haversine"})
    prior = b.prior_prefs()
    touristy = [p for p in prior if p["kind"] == "feature" and p["key"] == "touristy"]
    music = [p for p in prior if p["kind"] == "feature" and p["key"] == "live music"]

    def value(prefs, v):
        return sum(p["weight"] * ((v in p["good"]) - (v in p["bad"])) for p in prefs)
    assert value(touristy, False) > value(touristy, True)   # 2 of the 3 touristy wordings want hidden spots
    assert abs(value(music, True)) < 1e-9 and abs(value(music, False)) < 1e-9  # live music's two wordings cancel
    assert any(p["kind"] == "budget" for p in prior) and any(p["kind"] == "at_least_one" for p in prior)
    b.learn(language.read("my budget is $50 and i want at least one museum", SITES))
    assert not any(p["kind"] in ("budget", "at_least_one") for p in b.prior_prefs())
    b.prior = True
    assert len(set(b.best())) == 3  # fractional prior weights go through the exact argmax


def _planner_after(lines):
    seats = {"user": SeatInfo("agent", "user", "simuser"), "assistant": SeatInfo("agent", "assistant", "planner")}
    match, brains = build_match(SPEC, 3, seats, options={"turns": "free"}, instance=INST, timers=NO_TIMERS)
    driver = MatchDriver(match, brains, clock=lambda: 1.0)
    driver.replay(lines)
    planner = brains["assistant"]
    planner.act()
    return planner


def test_a_short_yes_takes_up_the_question_a_human_assistant_asked():
    p = _planner_after([Chat("user", "hello", t=1.0), Chat("assistant", "Do you like viewpoints?", t=1.0),
                        Chat("user", "I do!", t=1.0)])
    assert p.belief.prefs[("feature", "viewpoint")]["good"] == [True]
    p = _planner_after([Chat("user", "hello", t=1.0), Chat("assistant", "Do you like viewpoints?", t=1.0),
                        Chat("user", "not really, what else is there", t=1.0)])
    assert ("feature", "viewpoint") not in p.belief.prefs


def test_a_short_yes_to_a_proposal_we_did_not_make_wants_its_places():
    names = [SITES[i]["name"] for i in (0, 1)]
    p = _planner_after([Chat("user", "hi", t=1.0),
                        Command("assistant", "propose", (f"{names[0]}, {names[1]}, NULL",), t=1.0),
                        Chat("user", "sounds great", t=1.0)])
    wanted = {s for k, pr in p.belief.prefs.items() if k[0] == "want_to_go" and pr["weight"] > 0 for s in pr["sites"]}
    assert wanted == set(names)


def test_people_replacing_a_place_do_not_want_it_and_a_place_to_plan_around_is_no_wish():
    shop, museum, landmark = (next(s["name"] for s in SITES if s["etype"] == t) for t in ("shop", "museum", "landmark"))
    for text in (f"maybe replace {shop} with something cheaper", f"we can ditch {shop}", f"kinda iffy on {shop}",
                 f"would rather do something different than {shop}", f"{shop} is pretty expensive"):
        wishes = [m for m in language.read(text, SITES) if m.kind == "want_to_go"]
        assert all(m.good == [False] for m in wishes), (text, [(m.sites, m.good) for m in wishes])
    assert not any(m.kind == "want_to_go" for m in language.read(f"a touristy spot near {landmark}", SITES))
    liked = [m for m in language.read(f"i really like {museum}, it's a keeper", SITES) if m.kind == "want_to_go"]
    assert liked and liked[0].good == [True]


def test_whether_missing_a_place_costs_follows_the_wording():
    name = SITES[4]["name"]
    b = Belief(SITES, {"distance": "haversine"})
    b.learn(language.read(f"i definitely want to go to {name}", SITES))
    assert [p["penalize"] for p in b.prefs.values() if p["kind"] == "want_to_go"] == [True]
    b = Belief(SITES, {"distance": "haversine"})
    b.learn(language.read(f"i heard good things about {name}", SITES))
    assert [p["penalize"] for p in b.prefs.values() if p["kind"] == "want_to_go"] == [False]


def _one(text, key):
    return [(m.good, m.bad, m.strength) for m in language.read(text, SITES) if m.kind == "feature" and m.key == key]


def test_negations_ratings_prices_and_travel_people_write():
    assert _one("I didn't mention this before, but I despise live music", "live music")[0][0] == [False]
    assert _one("I don't really like touristy areas", "touristy")[0][0] == [False]
    # a negation ends where a new question starts ("not travel much, any places for kids?")
    got = language.read("let's try to not travel much, any good places for kids or outdoor seating", SITES)
    assert {(m.key, tuple(m.good)) for m in got if m.kind == "feature"} == {("good for kids", (True,)),
                                                                              ("outdoor seating", (True,))}
    assert _one("I don't like much of that, can we go somewhere with outdoor seating",
                "outdoor seating")[0][0] == [True]
    park = next(s["name"] for s in SITES if s["etype"] == "park")
    assert _one(f"{park} is decent but is not that good for kids", "good for kids")[0][0] == [True]
    for text in ("options with ratings above 4.5", "i only want 4.5 rated spots", "4.5 stars please"):
        assert _one(text, "rating")[0][0] == [4.5, 5], text  # the full stop inside 4.5 ends no sentence
    assert not _one("it's a little outside of my budget", "outdoor seating")
    assert _one("we love sitting outside", "outdoor seating")
    assert [m.budget for m in language.read("a place 25 or below", SITES) if m.kind == "budget"] == [25]
    assert [m.strength for m in language.read("the travel distance isnt too bad for me", SITES)
            if m.kind == "distance"][0] < 3


def test_under_the_original_rules_parking_and_takeout_weigh_nothing():
    """The release's misspelt keys never score under the original rules (public: in every seat's view)."""
    original = Belief(SITES, {"distance": "degrees", "keys": "original"})
    original.learn(language.read("i need parking and i prefer takeout, and vegan food", SITES))
    assert {k[1] for k in original.prefs if k[0] == "feature"} == {"vegan options"}
    assert ("feature", "has parking") in original.heard  # heard: no need to ask again
    assert not any(p.get("key") in ("has parking", "has takeout") for p in original.prior_prefs())
    fixed = Belief(SITES, {"distance": "haversine", "keys": "fixed"})
    fixed.learn(language.read("i need parking and i prefer takeout, and vegan food", SITES))
    assert {k[1] for k in fixed.prefs if k[0] == "feature"} == {"has parking", "has takeout", "vegan options"}


def test_the_wording_of_people_in_a_dialogue_taken_over_carries_no_weight():
    """A person sees the preference texts only, never the weights: in a replayed human dialogue "a must" and
    "would be nice" weigh the same (the generator's mean); the simulated user's own wording keeps its strength."""
    lines = [Chat("user", "vegan food is a must for me. a view would be nice, not a big deal", t=1.0),
             Chat("assistant", "ok!", t=1.0)]

    def weights(take_over):
        seats = {"user": SeatInfo("agent", "user", "simuser"), "assistant": SeatInfo("agent", "assistant", "planner")}
        match, brains = build_match(SPEC, 3, seats, options={"turns": "free"}, instance=INST, timers=NO_TIMERS)
        driver = MatchDriver(match, brains, clock=lambda: 1.0)
        driver.replay(lines)
        if take_over:
            driver.wake()  # the agents take over the human dialogue
        planner = brains["assistant"]
        planner.act()
        return {k[1]: p["weight"] for k, p in planner.belief.prefs.items() if k[0] == "feature"}

    live, replayed = weights(False), weights(True)
    assert live["vegan options"] > live["viewpoint"]
    assert replayed["vegan options"] == replayed["viewpoint"] == round(PRIOR_MEAN)
