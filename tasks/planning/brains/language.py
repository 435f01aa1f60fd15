"""Reading what a traveller says about their preferences, in plain English with typos ("i'm vegetarian",
"nothing over $50", "my friend said Tea Garden is great", "too far", "no live music, too loud").

`read(text, sites)` returns `Mention`s: what the text is about (a feature with liked / disliked values, a
budget, a site or a type to visit, travel distance), how strongly (1-10, from the wording) and whether it says
that it does not matter. It works clause by clause: a clause's negation and intensity words apply to what it
names. Words are matched with a little tolerance for typos (difflib ratio >= 0.8 on words of 5+ letters).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Optional

from tasks.core.discipline import is_deferral

# feature -> phrases; the first matching phrase wins. Order matters where phrases overlap (parking before park).
BOOL_WORDS = [
    ("has parking", ["parking", "park the car", "driving", "rental car", "renting a car", "a car"]),
    ("vegan options", ["vegan"]),
    ("vegetarian options", ["vegetarian", "veggie", "meatless"]),
    ("good for kids", ["kid", "kids", "children", "child", "family", "toddler"]),
    ("good for groups", ["group", "groups", "big party", "party of", "eight of us", "all of us", "crowd of"]),
    ("has takeout", ["takeout", "take out", "take-out", "food to go", "grab food", "takeaway", "take away"]),
    ("accepts reservations", ["reservation", "reservations", "reserve", "reservable", "book tables",
                              "book ahead", "book a table"]),
    ("outdoor seating", ["outdoor", "outside", "outdoors", "patio", "fresh air", "covid", "open air"]),
    ("live music", ["live music", "live band", "band", "concert", "music", "loud", "noisy", "noise", "quiet"]),
    ("has wifi", ["wifi", "wi-fi", "internet", "emails", "laptop"]),
    ("viewpoint", ["viewpoint", "view", "views", "panoramic", "scenic", "overlook", "vista"]),
    ("open late", ["open late", "late night", "late-night"]),
    ("touristy", ["touristy", "tourist", "tourists", "must-see places", "must see places", "must-see spots",
                  "famous", "classic spots", "hidden",
                  "off the beaten", "non-touristy", "locals", "crowded"]),
]
# phrases that flip a touristy / music mention on their own
NEGATIVE_PHRASES = {"hidden": "touristy", "off the beaten": "touristy", "non-touristy": "touristy",
                    "locals": "touristy", "crowded": "touristy", "loud": "live music", "noisy": "live music",
                    "noise": "live music", "quiet": "live music", "tourist trap": "touristy",
                    "non touristy": "touristy",
                    "not touristy": "touristy", "less touristy": "touristy", "untouristy": "touristy"}
CATEGORY_WORDS = {
    "cuisine": {"american": ["american", "burger", "burgers"], "chinese": ["chinese", "dim sum"],
                "japanese": ["japanese", "sushi", "ramen"], "korean": ["korean"], "french": ["french"],
                "ethiopian": ["ethiopian"], "spanish": ["spanish", "tapas"], "kosher": ["kosher"],
                "thai": ["thai"], "seafood": ["seafood", "fish"]},
    "ambience": {v: [v] for v in ("hipster", "casual", "trendy", "intimate", "romantic", "classy", "serious")}
    | {"divey": ["divey", "dive bars", "dive bar", "dives", "dingy"]},
    "alcohol type": {"beer": ["beer", "beers", "brewery", "ale"], "wine": ["wine", "wines"],
                     "cocktails": ["cocktail", "cocktails", "mixed drinks"]},
}
TYPE_WORDS = {"restaurant": ["restaurant", "restaurants", "dinner", "lunch", "eat"],
              "bar": ["bar", "bars", "pub", "drinks"],
              "cafe": ["cafe", "cafes", "café", "coffee", "coffee shop"], "museum": ["museum", "museums", "gallery"],
              "landmark": ["landmark", "landmarks", "monument", "memorial", "sight", "sights", "sightseeing"],
              "park": ["park", "parks", "garden", "gardens", "nature", "trail", "hike"],
              "shop": ["shop", "shops", "shopping", "mall", "market", "store"]}
DISTANCE_WORDS = ["far", "further", "farther", "far away", "travel", "travelling", "traveling", "distance", "walk",
                  "walking", "close together",
                  "nearby", "near each other", "close to each other", "short trips", "driving around", "miles",
                  "spread out", "commute", "close by"]
NEG = re.compile(r"\b(not (?:a |the )?(?:big |huge )?fans? of|no fan of|nowhere|"  # "not a fan of X": the X
                 r"no|not|non|don'?t|dont|never|avoid|without|hate|despise|detest|loathe|dislikes?|can'?t stand|"
                 r"cant stand|rather not|"
                 r"skip|nothing|none|less|aren'?t|isn'?t|keen to avoid|stay away|not into|not keen|no more)\b")
NEUTRAL = re.compile(r"(don'?t|dont|do not) (really )?(care|mind)|doesn'?t matter|not important|no preference|"
                     r"either way|whatever|don'?t have (a|any) preference|fine either")
HIGH = re.compile(r"\b(really|must|definitely|need|needs|have to|has to|love|hate|very|super|extremely|absolutely|"
                  r"important|priority|crucial|essential|a lot|can'?t stand|insist|insists|only|max|strict)\b|!")
TOP = re.compile(r"\b(must|definitely|absolutely|essential|crucial|top priority|insist|insists|really really|"
                 r"non-negotiable)\b")
LOW = re.compile(r"\b(would be nice|be nice|nice to have|nice if|bonus|slightly|a bit|kinda|kind of|not a big deal|"
                 r"if possible|maybe|would be cool|not a must|ok if not|okay if not|small thing|minor|little|"
                 r"somewhat|no big deal|not crucial)\b")
LOWEST = re.compile(r"\b(slightly|barely|tiny|not a big deal|no big deal|minor)\b")
SITE_NEG = re.compile(r"\b(bad|avoid|not|no|don'?t|dont|hate|skip|isn'?t|wasn'?t|never|dislike|further|farther|"
                      r"far away|too (far|expensive|pricey|loud|crowded|busy|much)|ditch|swap|replace|remove|drop|"
                      r"get rid of|instead of|different (than|from)|other than|iffy|do better|meh|a bit mid|"
                      r"not sure about|(pretty|very|really|kinda|kind of|a bit|quite|so) (expensive|pricey|far))\b")
# "a bar near the Artisan Street Fair", "close to Liberty Memorial": the place is a landmark to plan around
NEAR = r"\b(near|nearby|close to|next to|around|by|from)\s+(the\s+)?"
PLACE_LACKS = re.compile(r"\b(it|this|that place|that one|they|there)\s+(has|have|had|does ?n'?t|doesn'?t|lacks?)\b")
# "the museum is much too far", "that bar is too pricey": about the trip or the price, not a wish for the type
TOO_FAR = re.compile(r"\b(too (far|expensive|pricey|much)|further|farther|far away)\b")
# "that is a touristy location", "The Cakery has live music": a description of a place (usually a complaint),
# never a change of mind about the feature itself
DESCRIBES = re.compile(r"^\s*(that|this|it|which|there)( place| one)?( i|'| )s?\b|^\s*(that|this|it)( one)? (has|is)\b")
SOFT = re.compile(r"(,?\s*but )?(places )?without (it|them) (are|is) (fine|ok|okay)( too)?|fine if not|ok if not|"
                  r"okay if not|not a must")
COMPLAINT = re.compile(r"\b(has|have|had|with) no\b|does ?n'?t have|doesn'?t offer|\blacks?\b|bad for (?!me)|"
                       r"(not|isn'?t) (that |very |so |really |particularly |too )?(good|great) for")
# "is not that good for kids", with or without the place named: said of a place, so the feature is wanted
NOT_GOOD_FOR = re.compile(r"\b(not|isn'?t) (that |very |so |really |particularly |too )?(good|great) for\b")
LIKE = re.compile(r"\b(like|love|enjoy|happy with|prefer|fan of|want)\b")
ENOUGH = re.compile(r"\b(that'?s (about )?(it|all)|nothing else|you (choose|pick|decide)|up to you|sounds good|"
                    r"that is all|all i can think|no other)\b")


@dataclass
class Mention:
    kind: str                       # feature | budget | want_to_go | at_least_one | distance
    strength: float = 5.0           # 1..10 from the wording
    neutral: bool = False           # "don't care about X"
    key: Optional[str] = None       # feature name
    good: list = field(default_factory=list)
    bad: list = field(default_factory=list)
    budget: Optional[int] = None
    sites: list = field(default_factory=list)
    etype: Optional[str] = None
    describes: bool = False         # said about a named place ("X has live music"): never flips a known wish
    penalize: Optional[bool] = None  # a wish for a place: does missing it cost? None = not said
    hint: bool = False              # a short yes taking up a question or proposal: a weak hint, its own strength


def _norm(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9$.'\- ]+", " ", text.lower().replace("’", "'")) + " "


def _has(clause: str, phrase: str) -> bool:
    if re.search(r"(?<![a-z])" + re.escape(phrase) + r"(?![a-z])", clause):
        return True
    if " " in phrase or len(phrase) < 6:
        return False
    return any(len(w) >= 6 and difflib.SequenceMatcher(None, w, phrase).ratio() >= 0.8 for w in clause.split())


def _find_sites(clause: str, names: list) -> list[str]:
    """Site names in a clause: exactly, without a leading "the", or within a typo (same number of words)."""
    out = []
    for name, low in sorted(names, key=lambda x: -len(x[1])):  # longest first; a found name is taken out
        short = low[4:] if low.startswith("the ") else low
        for cand in (low, short):
            if len(cand) >= 4 and re.search(r"(?<![a-z])" + re.escape(cand) + r"(?![a-z])", clause):
                out.append(name)
                clause = clause.replace(cand, " ")
                break
    toks = clause.split()
    for name, low in names:
        short = low[4:] if low.startswith("the ") else low
        if name in out or len(short) < 6:
            continue
        n = len(short.split())
        for i in range(len(toks) - n + 1):
            if difflib.SequenceMatcher(None, " ".join(toks[i:i + n]), short).ratio() >= 0.85:
                out.append(name)
                break
    return out


def strength(clause: str) -> float:
    if TOP.search(clause):
        return 9.5
    if LOWEST.search(clause):
        return 1.5
    if LOW.search(clause):
        return 3.0
    if HIGH.search(clause):
        return 7.5
    return 5.0


MEATLESS = re.compile(r"\b(don'?t|dont|do not|never|no longer) eat(ing)? meat\b|\bno meat\b|\bplant[- ]based\b|"
                      r"\bmeat[- ]free\b")


def clauses(text: str) -> list[str]:
    text = MEATLESS.sub("vegetarian", text.lower())
    # a new clause: a full stop (not the one in "4.5 stars"), "but", ", and", "what about", ", any ..." and
    # ", can we ..." (a new question or request), "and i ..."
    parts = re.split(r"[;!?\n/]+|(?<!\d)\.+|\.+(?!\d)|,?\s+but\s+|\s+though\s+|\s+however\s+|,\s*and\s+|"
                     r",\s*(?=(?:what|how) about\b)|"
                     r",\s*(?=(?:and\s+)?(?:no|not|also|plus|i)\b)|,\s*(?=any(?:thing|where|one)?\b)|"
                     r",\s*(?=(?:can|could|would|will|lets|let's|please|maybe) (?:we|you|i|us|just|add|try)\b)|"
                     r"\s+and\s+(?=i\s)", text)
    return [_norm(p) for p in parts if p and p.strip()]


def read(text: str, sites: list) -> list[Mention]:
    out: list[Mention] = []
    names = [(s["name"], _norm(s["name"]).strip()) for s in sites]
    for c in clauses(text):
        start = len(out)
        soft = bool(SOFT.search(c))  # "..., but places without it are fine too": no penalty for lacking it
        c = SOFT.sub(" ", c)
        neutral = bool(NEUTRAL.search(c))
        neg = bool(NEG.search(c)) and not neutral
        st = strength(c)
        found_site = False
        # sites by name (full name, or its distinctive words)
        hit = _find_sites(c, names)
        lows = dict(names)
        hit = [h for h in hit if not re.search(NEAR + re.escape(lows[h][4:] if lows[h].startswith("the ")
                                                                else lows[h]), c)]
        about_feature = any(_has(c, w) for _, words in BOOL_WORDS for w in words) or bool(
            re.search(r"\b(rated|rating|stars?|budget|\$|miles|far|further|farther|food|places)\b", c))
        against = bool(SITE_NEG.search(c))
        # "X has no vegan options": avoid X, and vegan options are wanted (without a named place, "a restaurant
        # that doesn't have live music" is a plain wish against the feature)
        lacking = (bool(COMPLAINT.search(c)) and (bool(hit) or bool(PLACE_LACKS.search(c)))
                   or bool(NOT_GOOD_FOR.search(c)))
        describes = (bool(hit) or bool(DESCRIBES.search(c))) and not LIKE.search(c) and not neg
        if hit and not neutral and (lacking or not (against and about_feature)):
            # "X is bad for me: no parking" is about parking, not about X
            out.append(Mention("want_to_go", st, sites=hit, good=[not (against or lacking)], penalize=_insists(c)))
            found_site = True
            c_rest = c
            for _, low in names:
                c_rest = c_rest.replace(low, " ")
            c = c_rest
        # budget
        m = re.search(r"\$\s*(\d{1,4})|(\d{1,4})\s*(dollars|bucks|usd)|(?:budget|under|below|less than|max|over|"
                      r"spend|spending|up to|limit)\D{0,12}?(\d{2,4})", c)
        # "a place 25 or below": a price cap said without a dollar sign
        m = m or re.search(r"()()()(?<![\d.])(\d{2,4})\s+(?:or (?:below|less|under|cheaper)|and under)\b", c)
        if m and re.match(r"\s*(still|that'?s|thats|it'?s|its|costs?)\s+(about\s+)?\$?\d", c):
            m = None  # "still $85!", "that's $110": the price of a plan, not a budget
        if m or re.search(r"\b(budget|cheap|expensive|pricey|afford)\b", c):
            b = next((int(g) for g in (m.group(1), m.group(2), m.group(4)) if g), None) if m else None
            if b is None and re.search(r"\b(tight|cheap|low|small|limited|too expensive|too pricey)\b", c):
                b = 40  # "a tight budget", "nothing too expensive": no number said, a low one meant
            if b is not None or not neutral:
                out.append(Mention("budget", st, neutral=neutral, budget=b))
        # travel distance
        said = any(m.kind == "distance" for m in out[start:])
        if any(_has(c, w) for w in DISTANCE_WORDS) and not found_site and not said:
            lenient = neutral or re.search(r"\b(don'?t mind|ok with|fine with|happy to|(isn'?t|not) (too |that |so )?"
                                           r"bad|not a (big )?(problem|issue|concern)|no problem)\b", c)
            out.append(Mention("distance", 2.0 if lenient else st, neutral=False))
        # categories (cuisine, ambience, drinks)
        cat_hit = False
        for key, values in CATEGORY_WORDS.items():
            for value, words in values.items():
                if any(_has(c, w) for w in words):
                    cat_hit = True
                    local_neg = neg and _negated_near(c, words)
                    out.append(Mention("feature", st, neutral, key=key, good=[] if local_neg else [value],
                                       bad=[value] if local_neg else []))
        # rating
        r = re.search(r"(\d(?:\.\d)?)\s*(?:\+|stars?|star|or more|and up|or higher|or above|-?\s*rated)", c) or \
            re.search(r"\b(?:rated|ratings?|reviews?|stars?)\s+(?:of\s+)?(?:above|over|at least|minimum(?: of)?|min|"
                      r"of)\s+(\d(?:\.\d)?)\b", c)
        if r or any(_has(c, w) for w in ("rated", "rating", "ratings", "reviews", "reviewed")):
            thr = float(r.group(1)) if r else 4.0
            thr = min(5.0, max(3.0, thr))
            good = [v for v in (3, 3.5, 4, 4.5, 5) if v >= thr]
            out.append(Mention("feature", st, neutral, key="rating", good=good, bad=[1, 1.5, 2, 2.5]))
        # boolean features
        for key, words in BOOL_WORDS:
            w = next((w for w in words if _has(c, w)), None)
            if w is None:
                continue
            if key == "has parking" and re.search(r"\bpark(s)?\b(?! the car)", c) and "parking" not in c:
                continue
            if w == "outside" and re.search(r"\boutside (of|my|the|our)\b", c):
                continue  # "a little outside of my budget": not about sitting outside
            # "hidden spots", "no tourist traps", "too loud": against the feature whatever the negation says
            flip = any(p in c for p, k in NEGATIVE_PHRASES.items() if k == key)
            positive = True if lacking else False if flip else not (neg and _negated_near(c, [w]))
            out.append(Mention("feature", st, neutral, key=key, good=[positive], bad=[] if soft else [not positive],
                               describes=describes))
        # types to visit ("at least one museum"); not when the clause was about a category or a site
        # with a place named in the clause, only an explicit "at least one shop" is a wish for a type (the
        # clause's other type words usually describe the place)
        explicit = {t for t, words in TYPE_WORDS.items()
                    if any(re.search(r"\b(at least (one|1|a)|one|1)\s+(\w+\s+)?" + re.escape(w) + r"\b", c)
                           for w in words)}
        if not found_site or explicit:
            for etype, words in TYPE_WORDS.items():
                if found_site and etype not in explicit:
                    continue
                if cat_hit and etype in ("restaurant", "bar", "cafe"):
                    continue  # "thai food", "cocktails": a category, not a wish for a type
                if any(_has(c, w) for w in words) and not (etype == "park" and re.search(r"parking|street park", c)):
                    if etype in ("restaurant", "bar") and any(m.kind == "feature" for m in out[-3:]) and not \
                            re.search(r"\b(at least|one|a|an|some|visit|go to|see|check out)\b", c):
                        continue
                    if neutral or TOO_FAR.search(c):
                        continue
                    avoid = neg and _negated_near(c, words)  # "can we skip the museum", "no bars please"
                    out.append(Mention("at_least_one", st, etype=etype, good=[not avoid]))
    return out


# The original's wordings: "definitely want to go to X" costs points when X is missed; "heard good things about X"
# only gives points when X is in. People echo those words.
INSIST = re.compile(r"\b(definitely|must|have to|need to|got to|gotta|insists?|absolutely)\b")
HEARSAY = re.compile(r"\b(heard|good things|recommend\w*|supposed to be|said|told me)\b")


def _insists(clause: str) -> Optional[bool]:
    if INSIST.search(clause):
        return True
    if HEARSAY.search(clause):
        return False
    return None


def _negated_near(clause: str, words: list[str]) -> bool:
    """Is the negation in this clause about these words: a negation before them with no liking word in between
    ("i'd rather avoid thai or korean or french food" negates all three)?"""
    toks = clause.split()
    firsts = [w.split()[0] for w in words]
    for i, t in enumerate(toks):
        if t in firsts or any(len(t) >= 6 and difflib.SequenceMatcher(None, t, f).ratio() >= 0.8 for f in firsts):
            before = " " + " ".join(toks[:i]) + " "
            negs = [m.end() for m in NEG.finditer(before)]
            # "do not want thai", "don't really like touristy areas": the word right after the negation (and
            # its adverbs) belongs to it
            after = re.sub(r"^\s*(?:(?:really|particularly|that|very|too|so|much|actually|even|necessarily)\s+)*\S+",
                           " ", before[negs[-1]:]) if negs else ""
            # "avoid tourist traps and hit up romantic places": a new phrase after "and" ends the negation
            tail = after.split(" and ")[-1].split() if " and " in after else None
            if negs and not LIKE.search(after) and not (tail is not None and len(tail) >= 1):
                return True
            return False
    return bool(NEG.search(clause))  # not located word by word: the clause's negation decides


def enough(text: str) -> bool:
    """The traveller says there is nothing more to tell ("that's it", "you choose", "whatever works")."""
    return bool(ENOUGH.search(text.lower())) or is_deferral(text)
