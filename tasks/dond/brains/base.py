"""What every Deal-or-No-Deal agent shares: it keeps its seat's view (always in its own frame: `mine` is what it
would get) and the partner's unanswered lines, and decides once per new event (the game starts with it to move, the
partner made, rejected or accepted an offer, or the partner wrote something). Subclasses implement `decide`, which
returns (line or None, move or None); a move is ("accept",), ("reject", reason) or ("propose", split).

Never stall, never spam: every partner event gets exactly one answer (one line and at most one move), the same line
is never said twice, nor any sentence of it, paraphrases included (`fresh` and `compose` reword it or drop it),
and an agent with nothing new to say stays quiet.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from tasks.core import Brain, ChatShown, View
from tasks.core.discipline import same_line

from .. import items as I


def share_text(split: Sequence[int]) -> str:
    """Plain English for one share, zeros left out: '2 books and 1 ball', 'nothing'."""
    parts = [f"{n} {one if n == 1 else many}" for n, one, many in zip(split, I.ITEMS, I.PLURALS) if n]
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _sentences(text: str) -> list[str]:
    return [p for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p]


class DondBrain(Brain):
    name = "dond"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.view: dict = {}
        self.heard: list[str] = []      # the partner's lines since my last answer
        self.said: set = set()          # every line I said (never repeat one)
        self.sentences: list = []       # every sentence I said (never repeat one, paraphrases included)
        self.pending = False            # something new to answer
        self.started = False
        self._seen_offers: list = []    # (by, mine, status) as last seen
        self.has_presented = False      # the paper's ending: my /present is sent

    # --- observing ----------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.seat == self.seat:
            v = effect.data
            offers = [(o["by"], tuple(o["mine"]), o["status"]) for o in v.get("offers") or []]
            if not self.started:
                self.started = True
                self.new_game(v)
                if v.get("first") == "me" and not offers:
                    self.pending = True
            old = self._seen_offers
            for i, o in enumerate(offers):
                before = old[i] if i < len(old) else None
                if o[0] == "partner" and before is None:
                    self.pending = True                       # a new partner offer
                elif o[0] == "me" and before is not None and before[2] != o[2] and o[2] in ("rejected", "accepted"):
                    self.pending = True                       # the partner answered my offer
            self._seen_offers = offers
            self.view = v
            self.saw_view(v)
        elif isinstance(effect, ChatShown) and effect.seen_by(self.seat):
            if effect.seat != self.seat:
                self.heard.append(effect.text)
                self.pending = True
                self.heard_line(effect.text)
            else:
                self._record(effect.text)

    # --- view helpers (own frame) -------------------------------------------------------------------------------
    @property
    def counts(self) -> tuple:
        return tuple(self.view["counts"])

    @property
    def values(self) -> tuple:
        return tuple(self.view["values"])

    def u(self, split: Sequence[int]) -> int:
        return I.utility(split, self.values)

    def ef_for_me(self, split: Sequence[int]) -> bool:
        return I.envy_free_for(self.counts, split, self.values)

    def open_offer(self) -> Optional[tuple]:
        """The partner's standing offer as what I would get, or None."""
        for o in reversed(self.view.get("offers") or []):
            if o["by"] == "partner" and o["status"] == "open":
                return tuple(o["mine"])
        return None

    def my_open_offer(self) -> Optional[tuple]:
        for o in reversed(self.view.get("offers") or []):
            if o["by"] == "me" and o["status"] == "open":
                return tuple(o["mine"])
        return None

    def offers_by(self, who: str) -> list[tuple]:
        return [tuple(o["mine"]) for o in self.view.get("offers") or [] if o["by"] == who]

    def rounds_left(self) -> int:
        """Rounds after the one of the last move (0 or 1: the rounds are nearly out)."""
        if self.view.get("last_round"):
            return 0
        return int(self.view.get("max_rounds", 20)) - int(self.view.get("round", 1))

    def deal_text(self, split: Sequence[int]) -> str:
        """'I take 2 books and the ball, you get 1 book and 2 hats' (split = what I take)."""
        return f"I take {share_text(split)}, you get {share_text(I.rest(self.counts, split))}"

    def fresh(self, *options: Optional[str]) -> Optional[str]:
        """The first option none of whose sentences was said before (paraphrases included), else None."""
        for text in options:
            if text and text.strip().lower() not in self.said and self._new(text):
                return text
        return None

    def compose(self, *slots) -> Optional[str]:
        """One line from slots (a wording, or a tuple of wordings of the same thing): per slot the first wording
        with a sentence not said before, without its sentences said before; a slot with none is left out. None
        when nothing is left."""
        out: list[str] = []
        for slot in slots:
            options = (slot,) if isinstance(slot, str) else tuple(slot or ())
            for text in options:
                new = [p for p in _sentences(text or "") if self._new(p) and not any(same_line(p, o) for o in out)]
                if new:  # a sentence said before is left out, the rest of the wording stays
                    out.extend(new)
                    break
        return " ".join(out) or None

    def _new(self, text: str) -> bool:
        return not any(same_line(part, old) for part in _sentences(text) for old in self.sentences)

    def _record(self, text: str) -> None:
        if text.strip().lower() not in self.said:
            self.said.add(text.strip().lower())
            self.sentences.extend(_sentences(text))

    # --- hooks ---------------------------------------------------------------------------------------------------
    def new_game(self, view: dict) -> None:
        """The first view of the game."""

    def saw_view(self, view: dict) -> None:
        """Every view (after `self.view` is set)."""

    def heard_line(self, text: str) -> None:
        """One partner line, as it arrives."""

    def decide(self) -> tuple[Optional[str], Optional[tuple]]:
        return None, None

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        v = self.view
        if v.get("phase") == "presenting" and not v.get("presented") and not self.has_presented:
            self.has_presented = True  # the paper's ending: say once which deal I believe was made
            return [self.command("present", *(f"{p}={n}" for p, n in zip(I.PLURALS, self.present_split())))]
        if not v or v.get("phase") != "negotiating" or not self.pending:
            return []
        self.pending = False
        line, move = self.decide()
        self.heard = []
        if move and move[0] == "accept":
            # Accepting ends the game; alone, it is also the one move that still counts after the last round.
            return self.move_inputs(move)
        if not line:
            return self.move_inputs(move) if move else []
        self._record(line)
        if v.get("protocol") == "paper":
            # Under the paper's protocol the message closes the turn (the round check follows Bob's message), so
            # the moves go first; in ours the line explains the move that follows it.
            moves = self.move_inputs(move) if move else []
            return moves + [self.say(line, first=not moves)]
        return [self.say(line)] + (self.move_inputs(move, first=False) if move else [])

    def present_split(self) -> tuple:
        """The paper's ending: the deal I believe was made, what I get: the accepted offer, else the standing
        offers (mine first), else my last offer, else everything."""
        offers = self.view.get("offers") or []
        for o in reversed(offers):
            if o["status"] == "accepted":
                return tuple(o["mine"])
        for split in (self.my_open_offer(), self.open_offer()):
            if split is not None:
                return split
        mine = self.offers_by("me")
        return mine[-1] if mine else self.counts

    def open_id(self) -> list[str]:
        """The id of the partner's standing offer as an answer's first argument ([] without one): the answer is
        bound to the offer this agent saw, and a reason that starts with a number is never read as an id."""
        for o in reversed(self.view.get("offers") or []):
            if o["by"] == "partner" and o["status"] == "open":
                return [str(o["id"])] if o.get("id") is not None else []
        return []

    def move_inputs(self, move: tuple, first: bool = True) -> list:
        kind = move[0]
        if kind == "accept":
            return [self.command("accept", *self.open_id(), first=first)]
        if kind == "reject":
            return [self.command("reject", *self.open_id(), *(move[1] or "").split(), first=first)]
        # A counter-offer rejects the partner's standing offer first (the game keeps it standing otherwise), so the
        # partner hears why: "not fair" (it leaves me envious, the paper's R1) or "we can do better" (R2).
        out = []
        if self.open_offer() is not None and self.view.get("protocol") != "paper":  # the paper's talk has no rejects
            reason = "not fair" if not self.ef_for_me(self.open_offer()) else "we can do better"
            out.append(self.command("reject", *self.open_id(), *reason.split(), first=first))
            first = False
        split = move[1]
        out.append(self.command("propose", *(f"{p}={n}" for p, n in zip(I.PLURALS, split)), first=first))
        return out
