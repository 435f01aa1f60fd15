"""The site catalogue of DialOp Planning: sites (name, type), price ranges per type, the 17 features and the
preference templates. Two sources with one shape (`Catalogue`):

* `own()`: a small catalogue written for this project (its own site names, a fictional town's map points, its own
  preference wordings; the feature schema and the template kinds follow the reference §3.1) so the default game
  needs no external data;
* `released(folder)`: the release's `planning.yaml` and `locations.geojson` (never bundled; default
  `../shared/data/dialop/`, or `$DIALOP_PLANNING_DIR`), read with PyYAML.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

ENV_VAR = "DIALOP_PLANNING_DIR"
TYPES = ("restaurant", "bar", "cafe", "museum", "landmark", "park", "shop")

OWN_SITES = {
    "restaurant": ["Juniper Table", "Golden Lantern", "Casa Marisol", "The Olive Branch", "Saffron House",
                   "Pier Nine Chowder", "Blue Fern Bistro", "Ramen Alley", "Smokestack BBQ", "The Copper Pot"],
    "bar": ["The Tipsy Owl", "Foghorn Tavern", "Velvet Room", "Hop Yard", "Night Heron", "The Rusty Anchor"],
    "cafe": ["Morning Glory Cafe", "Bean There", "Tea Garden", "The Reading Nook", "Crumb and Kettle"],
    "museum": ["Museum of Maps", "Harbor History Museum", "Glassworks Gallery"],
    "landmark": ["Old Lighthouse", "Clock Tower", "Founders Bridge", "Signal Hill Monument"],
    "park": ["Willow Park", "Cedar Ridge Trail", "Rose Garden", "Lakeside Commons", "Fox Hollow Meadow",
             "Sunset Bluffs"],
    "shop": ["Maple Street Market", "The Galleria", "Flea Yard", "Harbor Outlets", "Book Barn"],
}
PRICE_RANGES = {"restaurant": (10, 200), "cafe": (5, 20), "museum": (0, 50), "bar": (10, 100),
                "landmark": (0, 20), "park": (0, 1), "shop": (50, 500)}

_FOOD = ("restaurant", "cafe")
FEATURES = {  # name -> {"type": bool|categorical, "values": [...], "event_types": [...] (missing: every type)}
    "rating": {"type": "categorical", "values": [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5]},
    "has parking": {"type": "bool"},
    "has takeout": {"type": "bool", "event_types": ["restaurant"]},
    "touristy": {"type": "bool"},
    "cuisine": {"type": "categorical", "event_types": ["restaurant"],
                "values": ["american", "chinese", "japanese", "korean", "french", "ethiopian", "spanish", "kosher",
                           "thai", "seafood"]},
    "good for kids": {"type": "bool", "event_types": ["restaurant", "cafe", "museum", "landmark", "park", "shop"]},
    "accepts reservations": {"type": "bool", "event_types": ["restaurant"]},
    "open late": {"type": "bool"},
    "good for groups": {"type": "bool"},
    "ambience": {"type": "categorical", "event_types": ["restaurant", "cafe", "bar"],
                 "values": ["divey", "hipster", "casual", "trendy", "intimate", "romantic", "classy", "serious"]},
    "outdoor seating": {"type": "bool", "event_types": ["restaurant", "cafe", "bar"]},
    "vegetarian options": {"type": "bool", "event_types": list(_FOOD)},
    "vegan options": {"type": "bool", "event_types": list(_FOOD)},
    "live music": {"type": "bool", "event_types": ["restaurant", "bar"]},
    "has wifi": {"type": "bool", "event_types": ["cafe"]},
    "alcohol type": {"type": "categorical", "values": ["beer", "wine", "cocktails"], "event_types": ["bar"]},
    "viewpoint": {"type": "bool", "event_types": ["park"]},
}

_F, _T = [False], [True]
# key -> {"generate": fixed|any_k|any_1, "prefs": [{"value_sets": [bad, good], "description"}]} (own wordings)
OWN_TEMPLATES = {
    "rating": {"generate": "fixed", "prefs": [
        {"value_sets": [[1, 1.5, 2, 2.5], [3, 3.5, 4, 4.5, 5]],
         "description": "only places with decent reviews (3 stars or more)"},
        {"value_sets": [[1, 1.5, 2, 2.5], [4, 4.5, 5]],
         "description": "well-reviewed places please, 4 stars and up"},
        {"value_sets": [[1, 1.5, 2, 2.5], [4.5, 5]],
         "description": "only the very best rated spots, 4.5 stars or more"}]},
    "has parking": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "driving in, so places with parking"},
        {"value_sets": [[], _T], "description": "parking would be handy but is not a must"}]},
    "has takeout": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "would rather grab food to go"}]},
    "touristy": {"generate": "fixed", "prefs": [
        {"value_sets": [[], _T], "description": "keen on the famous must-see places"},
        {"value_sets": [[], _F], "description": "off-the-beaten-path places would be fun"},
        {"value_sets": [_T, _F], "description": "avoid crowded tourist spots"}]},
    "cuisine": {"generate": "any_k"},
    "good for kids": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "travelling with two kids, so kid-friendly places"}]},
    "accepts reservations": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "want to book tables ahead of time"}]},
    "good for groups": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "there are eight of us, so places that suit a big group"}]},
    "ambience": {"generate": "any_1"},
    "outdoor seating": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "prefer sitting outside when eating or drinking"}]},
    "vegetarian options": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "vegetarian food matters to me"}]},
    "vegan options": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "need vegan choices"}]},
    "live music": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "love hearing a live band"},
        {"value_sets": [_T, _F], "description": "live music is too noisy for me"}]},
    "has wifi": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "need wifi somewhere to answer emails"}]},
    "alcohol type": {"generate": "any_k"},
    "viewpoint": {"generate": "fixed", "prefs": [
        {"value_sets": [_F, _T], "description": "want a spot with a great view over town"}]},
}

# A fictional town's map points (lon, lat), written for this project; sites are shuffled over them per game.
OWN_POINTS = [
    (-123.05743, 44.02552), (-123.08879, 44.03847), (-123.12204, 44.04682), (-123.07149, 44.06706),
    (-123.11512, 44.07681), (-123.0888, 44.06633), (-123.05532, 44.07462), (-123.07424, 44.04211),
    (-123.07391, 44.06583), (-123.12298, 44.04067), (-123.067, 44.05611), (-123.07535, 44.03828),
    (-123.09019, 44.07916), (-123.06265, 44.0454), (-123.06922, 44.06641), (-123.06213, 44.02607),
    (-123.06489, 44.04285), (-123.07563, 44.04924), (-123.08798, 44.06375), (-123.11295, 44.04777),
    (-123.10912, 44.04908), (-123.07622, 44.07583), (-123.06598, 44.07925), (-123.10072, 44.02897),
    (-123.11542, 44.06206), (-123.05359, 44.07109), (-123.08189, 44.05683), (-123.09979, 44.07999),
    (-123.06926, 44.0493), (-123.08771, 44.07559), (-123.12261, 44.02606), (-123.11909, 44.04222),
    (-123.0456, 44.03883), (-123.08386, 44.04515), (-123.06036, 44.04808), (-123.11946, 44.06302),
    (-123.09636, 44.04755), (-123.08642, 44.06367), (-123.12025, 44.06992), (-123.08124, 44.03129),
    (-123.07498, 44.06733), (-123.10728, 44.04022), (-123.09884, 44.02527), (-123.07178, 44.05816),
    (-123.10515, 44.02774), (-123.07987, 44.05849), (-123.12305, 44.05675), (-123.08548, 44.03075),
    (-123.12196, 44.07051), (-123.07317, 44.07568), (-123.07432, 44.03569), (-123.0773, 44.05664),
    (-123.04871, 44.06996), (-123.11745, 44.02704), (-123.06876, 44.03566), (-123.09447, 44.03373),
    (-123.05674, 44.05414), (-123.07726, 44.06467), (-123.08013, 44.07178), (-123.09382, 44.04816),
]


@dataclass
class Catalogue:
    source: str                                   # "own" or "released"
    sites: list                                   # [(name, type)]
    price_ranges: dict                            # type -> (lo, hi): price = one of range(lo, hi, 10)
    features: dict                                # FEATURES shape
    templates: dict                               # OWN_TEMPLATES shape (keys as the source spells them)
    points: list                                  # [(lon, lat)]
    want_to_go_wording: dict = field(default_factory=dict)

    def check(self) -> "Catalogue":
        """Templates must name real features (the release's `has_parking` / `has_takeout` do not: reported, and
        matched by the fixed rules through `canonical_key`)."""
        for key in self.templates:
            if canonical_key(key) not in self.features:
                raise ValueError(f"preference template {key!r} names no feature")
        if len(self.points) < len(self.sites):
            raise ValueError("fewer map points than sites")
        return self


def canonical_key(key: str) -> str:
    """One spelling for feature names: the release wrote two template keys with underscores."""
    return str(key).replace("_", " ").strip()


def own() -> Catalogue:
    sites = [(name, t) for t in TYPES for name in OWN_SITES[t]]
    return Catalogue("own", sites, dict(PRICE_RANGES), FEATURES, OWN_TEMPLATES, list(OWN_POINTS)).check()


def default_dir() -> str:
    if os.environ.get(ENV_VAR):
        return os.environ[ENV_VAR]
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(os.path.dirname(here), "shared", "data", "dialop")


def released(folder: str | None = None) -> Catalogue:
    """The release's planning.yaml + locations.geojson from `folder` (default `default_dir()`)."""
    import yaml

    folder = folder or default_dir()
    ypath, gpath = os.path.join(folder, "planning.yaml"), os.path.join(folder, "locations.geojson")
    for p in (ypath, gpath):
        if not os.path.exists(p):
            raise FileNotFoundError(f"{p} not found: the released Planning data is not bundled; pass its folder "
                                    f"(option catalogue_dir or ${ENV_VAR})")
    with open(ypath, encoding="utf-8") as fh:
        y = yaml.safe_load(fh)
    with open(gpath, encoding="utf-8") as fh:
        g = json.load(fh)
    sites = [(e["name"], str(e["type"]).strip()) for e in y["all_events"]]
    prices = {t: tuple(v["price_range"]) for t, v in y["all_types"].items()}
    feats = {k: {kk: vv for kk, vv in v.items()} for k, v in y["features"].items()}
    for v in feats.values():
        v["type"] = str(v["type"]).strip()
    points = [tuple(f["geometry"]["coordinates"]) for f in g["features"]]
    return Catalogue("released", sites, prices, feats, y["preferences"], points).check()


def load(source: str = "own", folder: str | None = None) -> Catalogue:
    if source == "own":
        return own()
    if source == "released":
        return released(folder)
    raise ValueError(f"catalogue must be 'own' or 'released', not {source!r}")
