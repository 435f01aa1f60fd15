"""DialOp Planning: the embedded catalogue, seeded generation (reference §3.2, paper vs code preferences), the
scorecard (reference §3.5) with the original's bugs fixed (misspelt keys, duplicates, degrees x 69) and kept as
the `original` rules, and the vectorised normaliser checked against the brute force over every ordered triple."""
from __future__ import annotations

import random

import pytest

from tasks.planning import catalogue, generator, scoring
from tasks.planning.scoring import FIXED_RULES, ORIGINAL_RULES


def test_the_own_catalogue_needs_no_external_data(monkeypatch, tmp_path):
    monkeypatch.setenv(catalogue.ENV_VAR, str(tmp_path / "nowhere"))
    c = catalogue.own()
    assert len(c.sites) == 39 and len({n for n, _ in c.sites}) == 39
    assert len(c.features) == 17 and len(c.points) >= 39
    inst = generator.generate(3)
    assert inst["catalogue"] == "own" and len(inst["sites"]) == 39
    with pytest.raises(FileNotFoundError, match="not bundled"):
        catalogue.released()


@pytest.mark.parametrize("seed", range(5))
def test_generation_is_seeded_and_follows_the_schema(seed):
    inst = generator.generate(seed)
    assert inst == generator.generate(seed)
    feats = inst["features"]
    for s in inst["sites"]:
        lo, hi = catalogue.PRICE_RANGES[s["etype"]]
        assert s["price"] in range(lo, hi, 10)
        assert len(s["features"]) == 5
        for f, v in s["features"].items():
            assert s["etype"] in feats[f].get("event_types", catalogue.TYPES)
            assert isinstance(v, bool) if feats[f]["type"] == "bool" else v in feats[f]["values"]
    assert inst["prefs"][-1]["kind"] == "distance" and len(inst["prefs"]) <= 11
    assert inst["random_best"] <= inst["best"]


def test_paper_mode_always_has_a_budget_and_code_mode_sometimes_not():
    code = [any(p["kind"] == "budget" for p in generator.generate(s)["prefs"]) for s in range(60)]
    paper = [any(p["kind"] == "budget" for p in generator.generate(s, prefs="paper")["prefs"]) for s in range(60)]
    assert all(paper) and not all(code) and sum(code) > 40
    assert generator.generate(1, prefs="paper")["prefs_mode"] == "paper"


def _site(name, etype, loc, price, **features):
    return {"name": name, "etype": etype, "loc": list(loc), "price": price,
            "features": {k.replace("_", " "): v for k, v in features.items()}}


SITES = [_site("A", "shop", (0.0, 0.0), 100, has_parking=True, rating=1),
         _site("B", "park", (0.0, 0.01), 0, has_parking=False, viewpoint=True),
         _site("C", "cafe", (0.01, 0.01), 15, rating=4.5)]


def test_misspelt_template_keys_score_under_the_fixed_rules_only():
    pref = [{"kind": "feature", "key": "has_parking", "bad": [False], "good": [True], "weight": 4, "desc": "car"}]
    assert scoring.score(SITES, pref, FIXED_RULES, [0, 1, None])["total"] == 0  # +4 - 4
    assert scoring.score(SITES, pref, FIXED_RULES, [0, None, None])["by_slot"] == [4, 0, 0, 0, 0]
    assert scoring.score(SITES, pref, ORIGINAL_RULES, [0, None, None])["total"] == 0  # the original never matched


def test_a_boolean_never_matches_a_rating_of_one():
    pref = [{"kind": "feature", "key": "rating", "bad": [1, 1.5], "good": [True], "weight": 3, "desc": "r"}]
    assert scoring.score(SITES, pref, FIXED_RULES, [0, None, None])["total"] == -3
    pref[0]["bad"] = [True]
    assert scoring.score(SITES, pref, FIXED_RULES, [0, None, None])["total"] == 0


def test_duplicates_are_refused_and_normalised_scores_stay_in_range():
    with pytest.raises(ValueError, match="twice"):
        scoring.score(SITES, [], FIXED_RULES, [0, 0, 1])
    assert scoring.normalise(50, 10, -20) == 1.0 and scoring.normalise(-30, 10, -20) == 0.0


def test_distances_in_haversine_miles_or_the_original_degrees():
    a, b = (-122.5, 37.87), (-122.0, 37.87)
    assert scoring.miles(a, b, "degrees") == 34.5                                      # 0.5 degrees x 69
    assert scoring.miles(a, b, "haversine") == pytest.approx(0.5 * 69.1 * 0.7893, abs=0.1)  # x cos(37.87°)
    assert scoring.miles((0, 0), (0, 1), "haversine") == pytest.approx(69.1, abs=0.1)


def test_the_scorecard_has_slots_legs_and_checklist():
    prefs = [{"kind": "distance", "weight": -5, "desc": "d"},
             {"kind": "budget", "budget": 100, "weight": -3, "desc": "b"},
             {"kind": "want_to_go", "sites": ["C"], "weight": 4, "penalize": True, "desc": "w"},
             {"kind": "at_least_one", "etype": "museum", "weight": 2, "penalize": False, "desc": "m"}]
    card = scoring.score(SITES, prefs, FIXED_RULES, [0, None, 2])
    assert card["legs"] == [None, None] and card["by_slot"][1] == card["by_slot"][3] == 0
    assert [c["score"] for c in card["checklist"]] == [-3, 4, 0]   # 115 > 100; C is in; no museum, no penalty
    # met = the itinerary does what the preference asks: no museum is not met, even when it costs nothing
    assert [c["met"] for c in card["checklist"]] == [False, True, False]
    full = scoring.score(SITES, prefs, FIXED_RULES, [0, 1, 2])
    d = scoring.miles(SITES[0]["loc"], SITES[1]["loc"])
    assert full["by_slot"][1] == int(-5 * d) and full["total"] == sum(full["per_pref"])


def _instances():
    """50 instances: the own and the released catalogue, code and paper preferences, fixed and original rules;
    5 with all 39 sites, 45 cut to 12-24 sites (the brute force takes about a second per full instance)."""
    out = []
    for i in range(50):
        cat = "released" if i % 3 == 2 and catalogue.os.path.exists(catalogue.default_dir()) else "own"
        inst = generator.generate(100 + i, catalogue=cat, prefs="paper" if i % 2 else "code")
        sites, prefs = inst["sites"], inst["prefs"]
        if i >= 5:
            sites = random.Random(i).sample(sites, random.Random(i + 1).randint(12, 24))
        out.append((sites, prefs, ORIGINAL_RULES if i % 4 == 3 else FIXED_RULES))
    return out


def test_the_fast_normaliser_equals_the_brute_force_on_50_instances():
    for sites, prefs, rules in _instances():
        fast, slow = scoring.extremes(sites, prefs, rules), scoring.brute_force(sites, prefs, rules)
        assert (fast["best"], fast["worst"]) == (slow["best"], slow["worst"])
        assert scoring.score(sites, prefs, rules, fast["best_itinerary"])["total"] == fast["best"]


def test_every_triple_is_scored_like_the_scorecard():
    inst = generator.generate(9)
    t, total = scoring.all_scores(inst["sites"], inst["prefs"], inst["rules"])
    assert len(t) == 39 * 38 * 37
    for k in random.Random(0).sample(range(len(t)), 300):
        assert scoring.score(inst["sites"], inst["prefs"], inst["rules"], list(t[k]))["total"] == total[k]
