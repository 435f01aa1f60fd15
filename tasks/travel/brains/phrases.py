"""Word lists of the travel reader (reader.py) and its reading of attitude: agreement, refusal, "you choose".

Agreement and refusal are read from whole phrases first ("sounds good", "I don't think so", "not sure"), so that
"good" in "a good tour" or "no" in "no idea" do not count; short phrasings with typos ("agred", "sounds god") are
matched with rapidfuzz.
"""
from __future__ import annotations

import re

from rapidfuzz import fuzz

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
                "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
                # frequent misspellings
                "fiv": 5, "sevn": 7, "seven's": 7, "thre": 3, "nien": 9, "eigth": 8, "fife": 5, "tree": 3}
_DIGIT_RE = re.compile(r"\b(" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b")

YOU = {"you", "your", "yours", "ur", "u", "ya"}
JOINT_WORDS = {"together", "total", "joint", "combined", "both", "sum", "altogether", "overall"}
QUESTION_STARTS = {"what", "how", "could", "can", "would", "will", "which", "do", "does", "tell", "share", "give",
                   "please", "may", "is", "are", "whats", "what's", "let", "show", "reveal", "hows", "and", "any",
                   "wat", "wht", "wats", "hw"}
REQUESTS = {"tell", "share", "give", "show", "reveal"}  # "tell me L-A please"
MOVE_WORDS = {"go", "visit", "next", "then", "suggest", "propose", "try", "route", "path", "tour", "head", "move",
              "continue", "start", "via", "after", "plan", "order", "lets", "let's", "shall", "should", "why"}
BETWEEN = {"between", "btwn", "betwen", "beetween", "bewteen", "inbetween"}
ROOM_WORDS = {"room", "rooms", "rom", "roon", "rooom", "romm"}
# Words before a number that still make it the coins of the hallway just named ("for K-A I've got five").
FILLER_WORDS = {"is", "are", "has", "have", "had", "with", "there", "i", "my", "it", "its", "it's", "holds", "hold",
                "gives", "give", "got", "get", "worth", "of", "about", "for", "me", "mine", "coins", "coin",
                "hallway", "hallways", "in", "on", "at", "the", "world", "light", "ghost", "only", "just", "be",
                "would", "will", "equals", "exactly", "carries", "contains", "i've", "ive", "i'm", "im", "see", "a",
                "r", "best", "hav", "iv", "theres", "there's", "that's", "thats", "one's", "ones", "gets", "makes"}
PREP_AFTER_NUM = {"coins", "coin", "on", "in", "for", "at", "between", "along", "through", "across", "from", "the",
                  "hallway", "btwn", "way"}
# Words rapidfuzz must not take for room names (close to "living", "bath", "attic", ...).
NOT_ROOMS = {"giving", "having", "thinking", "both", "with", "path", "other", "others", "tour", "attack", "math",
             "bathe", "kitten", "then", "than", "that", "this", "there", "their", "these", "those", "what", "about",
             "kind", "like", "live", "lives", "loving", "moving", "going", "coming", "attach", "rather", "gather",
             "hello", "empathy", "guarded", "garbage", "pardon", "emptied", "best", "last", "first", "next", "back",
             "coins", "coin", "hallway", "room", "rooms", "sure", "think", "kinda", "plan", "trip", "right"}
NOT_PAIRS = {"be", "ok", "ab", "al", "la", "el", "ae", "ac", "ce", "ba", "ca_"}
NOT_RUNS = {"OK", "ALL", "ACE", "CAB", "BAE"}

ASK_ALL_RE = re.compile(r"\b(all|every|each)\b.*\b(coins?|hallways?|numbers?|values?|weights?)\b"
                        r"|\b(your|ur)\s+(coins|numbers|values|weights|hallways)\b"
                        r"|\bwhat (do|did|have) (you|u) (have|got|see)\b")
CAP_RE = re.compile(
    r"(?:at most|no more than|not more than|up to|max(?:imum)?(?: of)?|<=|≤)\s*(\d+)"
    r"|(?<!\d)(\d+)\s*(?:or less|or fewer|or below|or lower|max\b)"  # at a run's start: linear
    r"|(?:less than|fewer than|below|under|<)\s*(\d+)")
CAP_SCOPE = re.compile(r"\b(other|others|rest|remaining|unshared|all of my|all my|every other|everything else|"
                       r"the others)\b")

# Attitude. Neutral phrases are removed before anything else is read.
NEUTRAL = ("not sure", "no idea", "no problem", "no worries", "no clue", "not a problem", "no rush")
DEFER = ("you choose", "you chose", "u choose", "you decide", "u decide", "up to you", "whatever you", "you pick",
         "u pick", "your call", "your choice", "i don't mind", "i dont mind", "dont care", "don't care",
         "you lead", "either is fine", "either way", "dealer's choice", "your pick", "i trust you",
         "whichever you", "your decision", "leave it to you", "leave it up to you", "you can choose", "you can decide")
NO_PHRASES = ("don't agree", "dont agree", "do not agree", "don't like", "dont like", "do not like", "don't think so",
              "dont think so", "not that", "rather not", "not good", "not great", "i disagree", "not agree",
              "can't agree", "cannot agree", "not convinced", "doesn't work", "doesnt work", "that's worse",
              "is worse", "mine is better", "too low", "bad idea", "don't want", "dont want", "not really",
              "something else", "different tour", "another tour", "prefer another")
YES_PHRASES = ("sounds good", "sounds great", "sounds fine", "let's do it", "lets do it", "let's do that",
               "lets do that", "go with yours", "go with your", "take yours",
               "works for me", "fine by me", "fine with me", "go for it", "good idea", "looks good",
               "that's good", "thats good", "i agree", "we agree", "i'm in", "makes sense", "all good")
YES_STRONG = {"yes", "yeah", "yep", "yup", "ok", "okay", "okey", "okie", "oki", "sure", "agreed", "agree",
              "deal", "yess", "yea", "ya", "yas", "accept", "accepted", "absolutely", "definitely", "lgtm", "kk"}
YES_SHORT = {"good", "great", "perfect", "fine", "right", "correct", "alright", "excellent", "nice", "cool"}
NO_FIRST = {"no", "nope", "nah", "nay", "nop", "noo"}
NO_WORDS = {"disagree", "reject", "rejected", "decline", "worse", "wrong"}
DEFER_RE = re.compile(r"\b(you|u)\b[a-z' ]{0,20}\b(choose|chose|decide|pick)\b|\bwhatever (you|u)\b")
INTERJECTIONS = {"hmm", "hm", "um", "uh", "well", "oh", "sorry", "ah", "erm", "mmm"}
NEGATIONS = {"not", "don't", "dont", "do't", "can't", "cannot", "won't", "never", "hardly"}


def digits(text: str) -> str:
    """Number words as digits ("at most five" -> "at most 5")."""
    return _DIGIT_RE.sub(lambda m: str(NUMBER_WORDS[m.group(1)]), text)


def _has(low: str, phrases) -> bool:
    for p in phrases:
        if re.search(r"(?<![a-z'])" + re.escape(p) + r"(?![a-z])", low):
            return True
    return False


def _fuzzy_has(low: str, phrases) -> bool:
    """Typos in longer phrases ("sounds god"): a near match of the whole phrase within the text."""
    for p in phrases:
        if len(p) >= 10 and fuzz.partial_ratio(p, low, score_cutoff=90):
            return True
    return False


def attitude(text: str) -> tuple[bool, bool, bool]:
    """(yes, no, defer) of one message."""
    low = " ".join(re.findall(r"[a-z']+", text.lower().replace("\u2019", "'")))
    for p in NEUTRAL:
        low = low.replace(p, " ")
    words = ["no" if re.fullmatch(r"no+", w) else w for w in low.split()]
    lead = [w for w in words[:3] if w not in INTERJECTIONS][:1]
    defer = _has(low, DEFER) or bool(DEFER_RE.search(low))
    no = _has(low, NO_PHRASES) or bool(set(words) & NO_WORDS) or bool(lead and lead[0] in NO_FIRST)
    yes = False
    if not no:
        # (typos in a phrase only in short replies: in a long line a near match is mostly another phrase)
        yes = _has(low, YES_PHRASES) or (len(words) <= 5 and _fuzzy_has(low, YES_PHRASES))
        for i, w in enumerate(words):
            strong = w in YES_STRONG or (len(w) >= 5 and fuzz.ratio(w, "agreed", score_cutoff=85))
            if strong or (w in YES_SHORT and len(words) <= 4):
                if set(words[max(0, i - 2):i]) & NEGATIONS:
                    no = True
                else:
                    yes = True
        if no:
            yes = False
    if defer and not (words and words[0] in NO_FIRST):
        no = False  # "hmm, you decide" is no refusal
    return yes, no, defer
