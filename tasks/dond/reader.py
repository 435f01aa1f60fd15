"""A rule-based reader of plain English in Deal or No Deal (no LLM needed).

`read(text, counts)` returns a `Reading` of one chat line, from the SPEAKER's side:
- an offer: what the speaker takes and what they give ("i want the books and a hat", "I'd like the books, you can
  have the rest", "you can have the balls", "give me 2 hats", "you take the hat, i keep everything else");
  `complete()` turns it into a full split when the line settles every item (what one side does not name goes to
  the other), else the types left open are listed;
- statements about the speaker's own values: "hats are worthless to me", "i don't need the balls", "i really need
  the ball", "books are worth the most to me", "i like hats more than books", "books and balls are worth the same";
- questions: "what do you want?", "what are hats worth to you?", "which do you value most?";
- agreement, refusal (with the paper's reason when given: "not fair" = R1, "i want more" = R2) and "you choose".

Item names may carry typos ("bokos", "hatts", "bal"): rapidfuzz matches words against the three names. Number
words count ("two hats", "a hat", "both balls"). It stays conservative: a number is read as a quantity only next to
an item. The phrase corpus tests/fixtures/phrases/dond.yaml measures it (tests/test_dond_reader.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from rapidfuzz import fuzz, process

from .items import ITEMS, PLURALS

NUMBERS = {"a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "both": 2, "pair": 2, "three": 3, "four": 4,
           "no": 0, "zero": 0, "none": 0}
ALL_WORDS = ("all", "every", "all the", "all of the", "the")
SPEAKER = r"(?:i(?:'d| would)?(?: really| just| also| still)? (?:want|like|need|take|get|keep)|i(?:'d| would) have|" \
          r"i'll (?:take|get|keep|have)|ill (?:take|get|keep)|give me|let me (?:have|take|keep)|" \
          r"can i (?:have|get|take)|could i (?:have|get)|i(?:'ll| will) take|i get|i keep|me:|" \
          r"i can (?:take|have|get|keep)|i should get|i'd take|id like|id take|i wanna|leave me)"
LISTENER = r"(?:(?:you|u) (?:can|could|may|should|will|would|'ll)? ?(?:have|take|get|keep)|you get|you take|you keep|" \
           r"you'll get|youll get|for you|you:|i(?:'ll| will| can)? give you|yours|take the)"
REST = r"(?:the rest|it all|all of it|everything else|all the rest|the others|rest|remaining|all else|the remainder|whatever is left|" \
       r"everything|all the other stuff|other stuff|anything else)"
YES = ("ok", "okay", "k", "deal", "agreed", "agree", "sure", "yes", "yep", "yeah", "ya", "sounds good", "fine",
       "alright", "all right", "lets do it", "let's do it", "great", "perfect", "accepted", "accept", "works for me",
       "good", "i accept", "that works", "done", "yup", "cool")
NO_WORDS = ("no", "nope", "nah", "no way", "not fair", "unfair", "i refuse", "reject", "i reject", "not good",
            "not enough", "can't accept", "cannot accept", "cant accept", "i don't think so", "not happy",
            "that's too little", "too little", "not acceptable", "never")
R1_WORDS = ("not fair", "unfair", "more than me", "less than you", "you get more", "i get less", "envy", "lopsided",
            "one-sided", "one sided", "isn't fair", "isnt fair", "not even", "uneven")
R2_WORDS = ("i want more", "deserve more", "need more than", "want more than", "we can do better", "i can do better", "could be better", "you can do better",
            "better for both", "better deal", "i need more", "more for me")
DEFER = ("you choose", "your choice", "first offer", "whatever you want", "you go first", "you start",
         "you make the offer", "you make an offer", "you decide", "up to you", "your call", "you pick", "make me an offer", "make an offer",
         "what do you suggest", "what do you propose", "you propose", "your turn", "whatever you think",
         "what would you offer", "what's your offer", "whats your offer", "what is your offer", "you tell me",
         "dealer's choice", "surprise me", "your offer")


@dataclass
class Reading:
    text: str
    give_speaker: dict = field(default_factory=dict)   # type -> count the speaker takes
    give_listener: dict = field(default_factory=dict)  # type -> count the listener takes
    rest_to: Optional[str] = None                      # "speaker" | "listener": who gets what is not named
    statements: list = field(default_factory=list)     # (kind, k, j) about the speaker's own values (see Belief.stated)
    ask_want: bool = False                             # "what do you want?"
    ask_value: list = field(default_factory=list)      # types asked about ("what are hats worth to you?"), [None] = all
    yes: bool = False
    no: bool = False
    reason: Optional[str] = None                       # "R1" | "R2" when a refusal says why
    defer: bool = False
    question: bool = False

    @property
    def has_offer(self) -> bool:
        return bool(self.give_speaker or self.give_listener or self.rest_to)

    def complete(self, counts: Sequence[int]) -> tuple[Optional[tuple], list[int]]:
        """(the speaker's share, []) when every type is settled, else (None, types left open)."""
        share: list[Optional[int]] = [None] * len(counts)
        for k, n in self.give_speaker.items():
            share[k] = min(n, counts[k])
        for k, n in self.give_listener.items():
            if share[k] is None or share[k] + n > counts[k]:
                share[k] = max(0, counts[k] - min(n, counts[k]))
        rest_to = self.rest_to
        if rest_to is None and self.give_speaker and not self.give_listener:
            rest_to = "listener"
        if rest_to is None and self.give_listener and not self.give_speaker:
            rest_to = "speaker"
        open_types = []
        for k, c in enumerate(counts):
            if share[k] is None:
                if rest_to == "speaker":
                    share[k] = c
                elif rest_to == "listener":
                    share[k] = 0
                else:
                    open_types.append(k)
        if open_types:
            return None, open_types
        return tuple(int(n) for n in share), []


def _item(word: str) -> Optional[int]:
    w = word.lower().strip(".,!?'\"")
    for k, (one, many) in enumerate(zip(ITEMS, PLURALS)):
        if w in (one, many, one + "s", many + "es"):
            return k
    if len(w) >= 3 and w not in _NOT_ITEMS and w[0] in "bh":  # typos rarely hit the first letter
        best = process.extractOne(w, list(ITEMS) + list(PLURALS), scorer=fuzz.ratio)
        if best and best[1] >= 72:
            return best[2] % len(ITEMS)
    return None


# common words that a fuzzy match could take for an item name
_NOT_ITEMS = {"all", "bad", "but", "bit", "hat's", "that", "what", "have", "had", "has", "back", "both", "bot",
              "book's", "ok", "box", "boss", "bill", "call", "tell", "well", "fall", "hate", "bias", "bolt", "hall",
              "ball's", "balance", "books's", "hot", "hit", "how", "bye", "bet", "boo", "book.", "hey", "heh",
              "bull", "bell", "mall", "hut", "though", "bowl", "look", "took", "cook", "oh", "hmm", "them", "then",
              "these", "those", "sure", "best", "both", "bag", "big", "hard", "half", "help", "boat", "bonus",
              "bad.", "abit", "cool", "deal", "fine", "bal.", "baby", "body", "boy", "boys", "hello", "heat", "mate",
              "hats's", "fool", "too", "halt", "shall", "shot", "hold"}


def _tokens(text: str) -> list[str]:
    t = text.lower().replace("’", "'")
    return re.findall(r"[0-9]+|[a-z]+(?:'[a-z]+)?|[?!.,;:]", t)


def _quantities(clause: str, counts: Sequence[int]) -> tuple[dict, bool]:
    """{type: count} named in a clause, and whether it names "the rest"."""
    words = _tokens(clause)
    found: dict = {}
    for i, w in enumerate(words):
        k = _item(w)
        if k is None:
            continue
        prev = words[i - 1] if i > 0 else ""
        prev2 = words[i - 2] if i > 1 else ""
        if prev.isdigit():
            n = int(prev)
        elif prev in NUMBERS:
            n = NUMBERS[prev] if prev != "both" else counts[k]
        elif prev in ("all", "every") or (prev == "the" and prev2 == "all"):
            n = counts[k]
        elif prev == "the" or prev in ("my", "your", "those", "these"):
            n = counts[k] if (w.endswith("s") or counts[k] == 1) else 1
        else:
            n = counts[k] if w.endswith("s") or counts[k] == 1 else 1
        found[k] = max(0, min(n, counts[k]))
    if re.search(r"\b(one|1) of (each|every)", clause):
        found = {k: 1 for k in range(len(counts))}
    return found, bool(re.search(r"\b" + REST + r"\b", clause))


def _clauses(text: str) -> list[str]:
    """Pieces that each give to one side: split at punctuation and before a new owner ('and you', 'but i')."""
    t = text.lower().replace("’", "'")
    parts = re.split(r"[.;!?\n]|,|\b(?:and|but|while|so|then|if)\b(?=\s+(?:you|u|i|give|let|for me|for you|me)\b)", t)
    return [p.strip() for p in parts if p and p.strip()]


def _offer(r: Reading, counts: Sequence[int]) -> None:
    for sentence in re.split(r"[.;!?\n]", r.text):
        owner = None  # a clause naming no side continues the last one ("i need 1 book, no hats and 3 balls")
        for clause in _clauses(sentence):
            c = " " + clause + " "
            if re.search(r"\b(don't|dont|do not|doesn't|not)\b", c) and not re.search(r"\bif not\b", c):
                owner = None
                continue  # "i don't need hats" is a statement, not an offer
            if re.search(r"\b(what|which|how much|how many)\b", c) and not re.search(r"\bhow about\b", c):
                continue
            if re.search(r"\b(worth|value|valuable|worthless|useless|than|same|equal|equally|prefer|important|"
                         r"favou?rite|matters?|mean|means|no use|least|most)\b", c):
                owner = None
                continue  # a statement about values, not an offer
            lst = re.search(LISTENER, c)
            spk = re.search(SPEAKER, c)
            if lst or spk:
                owner = "listener" if lst and (not spk or lst.start() < spk.start()) else "speaker"
            if owner is None:
                continue
            found, rest = _quantities(c, counts)
            target = r.give_speaker if owner == "speaker" else r.give_listener
            for k, n in found.items():
                target[k] = n
            if rest:
                r.rest_to = owner


def _statement_clauses(low: str) -> list[str]:
    """Split at punctuation, 'but' and 'and'; a piece without a verb ('books' in 'books and balls are worth the
    same') joins the next one."""
    out, carry = [], []
    for piece in re.split(r"[.;!\n]|,|\bbut\b|\bwhile\b|\band\b", low):
        carry.append(piece)
        # only the new piece can hold the verb (the carried ones had none): each piece is searched once, so a long
        # line of verbless pieces costs linear time, not quadratic
        if _VERB.search(piece):
            out.append(" and ".join(carry))
            carry = []
    if carry:
        out.append(" and ".join(carry))
    return out


_VERB = re.compile(r"\b(is|are|am|'s|worth|need|want|like|love|value|care|prefer|mean|means|matter|matters)\b|'s\b")


def _chain(r: Reading, sentence: str) -> bool:
    """'hats are worth the most to me, then books and balls', 'books > hats > balls': groups in falling order
    (types in one group are worth the same; every type in a chain is worth something). True when read."""
    if ">" in sentence:
        pieces = sentence.split(">")
    elif re.search(r"\bthen\b", sentence) and re.search(r"\b(most|best|first|favou?rite|top)\b", sentence):
        pieces = re.split(r"\bthen\b|\bfollowed by\b|\bafter that\b", sentence)
    else:
        return False
    groups = []
    for piece in pieces:
        piece = re.split(r"\b(worth nothing|worthless|nothing)\b", piece)[0]
        ks = list(dict.fromkeys(k for k in (_item(w) for w in _tokens(piece)) if k is not None))
        if ks:
            groups.append(ks)
    if len(groups) < 2:
        return False
    for g in groups:
        for k in g:
            r.statements.append(("positive", k, None))
        for k in g[1:]:
            r.statements.append(("same", g[0], k))
    r.statements.append(("top", groups[0][0], None))
    for g, h in zip(groups, groups[1:]):
        r.statements.append(("more", g[0], h[0]))
    return True


def _statements(r: Reading, low: str) -> None:
    rest = []
    for part in re.split(r"[.;!?\n]", low):
        if not _chain(r, part):
            rest.append(part)
    low = " . ".join(rest)
    for clause in _statement_clauses(low):
        c = " " + clause.strip() + " "
        ks = [k for k in (_item(w) for w in _tokens(c)) if k is not None]
        ks = list(dict.fromkeys(ks))
        if not ks or "?" in c or re.search(r"\b(what|which|how|do you|are you|is your)\b", c):
            continue
        k = ks[0]
        if re.search(r"\b(worthless|useless|worth nothing|worth 0|worth zero|no value|zero value|"
                     r"don't need|dont need|do not need|don't want|dont want|do not want|don't care|dont care|"
                     r"don't value|dont value|not worth anything|aren't worth anything|isn't worth anything|"
                     r"mean nothing|means nothing|nothing to me|no use|(?:don't|doesn't|do not|does not) mean anything|"
                     r"(?:don't|doesn't|do not|does not) matter)\b", c):
            for k2 in ks:
                r.statements.append(("zero", k2, None))
        elif len(ks) >= 2 and re.search(r"\b(same|equal|equally|as much as)\b", c):
            r.statements.append(("same", ks[0], ks[1]))
        elif len(ks) >= 2 and re.search(r"\b(more\b.*\bthan|over|rather than|better than|prefer|>|above)\b", c):
            r.statements.append(("more", ks[0], ks[1]))
        elif len(ks) >= 2 and re.search(r"\b(less\b.*\bthan|below|fewer than)\b", c):
            r.statements.append(("more", ks[1], ks[0]))
        elif re.search(r"\b(worth the most|most valuable|most important|the most|most|favou?rite|really need|"
                       r"really want|love)\b", c) and not re.search(r"\bleast\b", c):
            if re.search(r"\b(most|favou?rite|really|love)\b", c):
                r.statements.append(("top", k, None))
            else:
                r.statements.append(("positive", k, None))
        elif re.search(r"\b(least|not much|little value|barely|worth little|don't really need|not very|"
                       r"not worth much|isn't worth much|aren't worth much|not that|not important)\b", c):
            r.statements.append(("bottom", k, None))
        elif re.search(r"\b(i need|i want|i value|i like|worth something|valuable|useful|matters?)\b", c) \
                and not r.give_speaker:
            r.statements.append(("positive", k, None))


def _questions(r: Reading, low: str) -> None:
    if "?" not in low and not re.match(r"\s*(what|which|how|do you|tell me)\b", low):
        return
    for clause in re.split(r"[.!;]", low):
        if "?" not in clause and not re.match(r"\s*(what|which|how|do you|tell me)\b", clause.strip()):
            continue
        ks = [k for k in (_item(w) for w in _tokens(clause)) if k is not None]
        if re.search(r"\b(what|which)\b.*\b(you|u)\b.*\b(want|like|need|prefer|hoping|looking for|after|get)\b",
                     clause) and not ks and not re.search(r"\b(worth|value|valuable|important)\b", clause):
            r.ask_want = True
            r.question = True
        elif re.search(r"\b(worth|value|valuable|need|care|like|mean|important|prefer|favou?rite)\b", clause) \
                and re.search(r"\b(you|your|u|ur)\b", clause):
            r.ask_value.extend(ks or [None])
            r.question = True
        elif ks and "?" in clause and len(_tokens(clause)) <= 5 and not r.has_offer:
            r.ask_value.extend(ks)  # a follow-up: "and hats?", "what about the ball?"
            r.question = True
        elif clause.strip():
            r.question = True


# frequent misspellings and chat shorthand, mended word by word before reading
MEND = {"realy": "really", "relly": "really", "rly": "really", "reallly": "really", "wnat": "want", "wantt": "want",
        "ned": "need", "tak": "take", "tkae": "take", "giv": "give", "gve": "give", "nned": "need", "neeed": "need", "gimme": "give me", "wanna": "want", "ur": "your",
        "yor": "your", "thats": "that's", "dont": "don't", "cant": "can't", "im": "i'm", "id": "i'd", "ill": "i'll",
        "worht": "worth", "wroth": "worth", "nothign": "nothing", "nothin": "nothing", "valu": "value",
        "waht": "what", "whats": "what's", "wat": "what", "whta": "what", "pls": "please", "plz": "please", "ok.": "ok", "okk": "ok"}


def mend(text: str) -> str:
    return re.sub(r"[a-z]+(?:'[a-z]+)?", lambda m: MEND.get(m.group(0), m.group(0)),
                  text.lower().replace("’", "'"))


def read(text: str, counts: Sequence[int]) -> Reading:
    text = mend(text)
    r = Reading(text)
    low = " " + text.strip() + " "
    bare = re.sub(r"[^a-z' ]+", " ", low).strip()
    bare = re.sub(r"\s+", " ", bare)
    r.defer = any(re.search(r"\b" + re.escape(p) + r"\b", low) for p in DEFER)
    _offer(r, counts)
    _statements(r, low)
    _questions(r, low)
    if r.defer and not r.has_offer:
        r.ask_want = False
    words = bare.split()
    r.no = any(re.search(r"(?<![a-z'])" + re.escape(p) + r"(?![a-z'])", bare) for p in NO_WORDS if p != "no") \
        or bare == "no" or bool(re.search(r"^no\b(?! (?:books?|hats?|balls?|problem|worries|use|value)\b)", bare)) \
        or bool(re.search(r"\bno\s*[,.!]", low))
    r.yes = not r.no and not r.question and (
        bare in YES or any(re.match(re.escape(p) + r"\b", bare) for p in YES)
        or (len(words) <= 5 and not r.has_offer and any(re.search(r"\b" + re.escape(p) + r"\b", bare)
                                                         for p in YES if len(p) > 1)))
    if any(p in bare for p in R1_WORDS):
        r.reason = "R1"
        r.no = True
        r.yes = False
    elif any(p in bare for p in R2_WORDS):
        r.reason = "R2"
        r.no = r.no or not r.has_offer
        r.yes = False
    return r


def reason_of(text: Optional[str]) -> Optional[str]:
    """The paper's rejection reason in a `/reject` comment or a line: "R1" (envy), "R2" (wants more) or None."""
    if not text:
        return None
    low = text.lower()
    if low.strip() in ("r1", "r2"):
        return low.strip().upper()
    return read(text, (1, 1, 1)).reason
