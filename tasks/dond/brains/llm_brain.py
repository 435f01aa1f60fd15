"""The paper's raw prompted agent for Deal or No Deal (`llm`; reference game-theory-negotiation.md §7), in our game
and our words (preset `paper` plays the paper's protocol with its own prompt text, read from its release:
llm_paper.py).

Each turn the model gets the game (the counts, its own values only, keep them private, no deal scores 0), the
negotiation so far ("Bob said in round 2: ...", plus the formal offers and rejections of our game, which the
paper's game did not have) and the instruction: think, then write the message between <s> and </s>, "<s>halt
negotiation</s>" once agreed. Like the paper, a second call extracts the deal the message proposes (is there a
concrete proposal, and what would the speaker get), here as one structured JSON answer. In our game the extracted
deal becomes an explicit `/propose` (a counter-offer rejects the partner's standing offer first), and "halt
negotiation" or an extracted acceptance becomes `/accept` of the partner's standing offer (with none standing but
one of ours, it asks for the /accept).

Departures, for a working game: the paper used a hard-coded gpt-4o for the extraction, we use the same model;
retries are bounded (`retries`, default 3, for the <s> tag; the JSON answer has the client's one repair round).
When the model fails, the `bayes` policy (whose posterior this agent keeps current from every offer and line)
decides the turn, visibly: the act is marked `fallback` (tables say `llm+fallback`); under `strict_llm` the game
is reported invalid instead. A preset's `sampling` brain option sets the calls' temperature and token limits.
"""
from __future__ import annotations

import re
from typing import Optional

from tasks.core import ChatShown, View
from tasks.core.limits import MAX_CHAT_CHARS

from .. import items as I
from .base import share_text
from .bayes import BayesBrain
from .llm_paper import PaperSession

SYSTEM = "You negotiate carefully and rationally for yourself."
TAG = re.compile(r"<s>(.*?)</s>", re.S | re.I)
MAX_LINE = 500


def game_prompt(view: dict) -> str:
    """The game and this seat's own values, in our words (preset `paper` reads the paper's from its release)."""
    c, v, me, other = view["counts"], view["values"], view["me_name"], view["partner_name"]
    worth = ", ".join(f"a {one} is worth {x} to you (there {'is' if n == 1 else 'are'} {n})"
                      for one, n, x in zip(I.ITEMS, c, v))
    return (f"You are {me}, negotiating with {other} over how to divide {I.describe(c)}; no item can be cut in "
            "two. Every kind of item is worth a whole number from 0 to 10 to each of you, and all the items together "
            f"are worth 10 to you and 10 to {other}. {other}'s values are hidden from you and may be far from yours. "
            "You score what the items you end up with are worth to you; if the two of you fail to agree, you both "
            "score 0. Keep your own values to yourself.\n\n### Your Values\n"
            f"{worth[0].upper() + worth[1:]}; everything together is worth {I.utility(c, v)} to you.\n")


def deal_schema(counts) -> dict:
    """The extraction answer: does the message propose a concrete deal, what would its SPEAKER get, does it
    accept the other's latest proposal."""
    props = {"proposal": {"type": "boolean"}, "accepts": {"type": "boolean"}}
    for p, n in zip(I.PLURALS, counts):
        props[p] = {"type": "integer", "minimum": 0, "maximum": int(n)}
    return {"title": "dond_deal", "type": "object", "additionalProperties": False, "properties": props,
            "required": ["proposal", "accepts", *I.PLURALS]}


class LLMBrain(BayesBrain):
    name = "llm"
    needs_llm = True
    uses_llm = True

    def new_game(self, view):
        super().new_game(view)
        self.log: list[str] = []                 # the negotiation so far, as the prompt shows it
        self.offer_status: dict = {}             # offer id -> status already logged
        self.paper: Optional[PaperSession] = None  # the paper's protocol (llm_paper.py), with its release's prompts
        self.paper_error: Optional[str] = None
        if view.get("protocol") == "paper":
            try:
                self.paper = PaperSession(self)
            except ValueError as exc:  # told in every act (a visible fallback, or an invalid game when strict)
                self.paper_error = str(exc)

    # --- the negotiation as the prompt tells it --------------------------------------------------------------------
    def observe(self, effect) -> None:
        super().observe(effect)
        if not self.view:
            return
        if self.paper is not None:
            self.paper.observe(effect)
        me, other = self.view["me_name"], self.view["partner_name"]
        r = self.view.get("round", 1)
        if isinstance(effect, ChatShown) and effect.seen_by(self.seat):
            who = me if effect.seat == self.seat else other
            self.log.append(f"{who} said in round {r}: {effect.text}")
        elif isinstance(effect, View) and effect.seat == self.seat:
            for o in self.view.get("offers") or []:
                before = self.offer_status.get(o["id"])
                self.offer_status[o["id"]] = o["status"]
                who = me if o["by"] == "me" else other
                if before is None:
                    self.log.append(f"({who} made formal offer #{o['id']} in round {o['round']}: you get "
                                    f"{share_text(o['mine'])}, {other} gets {share_text(o['theirs'])}.)")
                elif before != o["status"] and o["status"] == "rejected":
                    by = other if o["by"] == "me" else me
                    why = f' saying "{o["reason"]}"' if o.get("reason") else ""
                    self.log.append(f"({by} rejected {who}'s offer #{o['id']}{why}.)")

    def history(self) -> str:
        keep = int(self.options.get("history", 60))
        lines = self.log[-keep:]
        return ("### Negotiation Messages\n" + "\n".join(lines) + "\n") if lines else ""

    def standing_text(self) -> str:
        """Our game's formal state, which the paper's free-text game did not have."""
        other, out = self.view["partner_name"], []
        theirs, mine = self.open_offer(), self.my_open_offer()
        if theirs is not None:
            out.append(f"{other}'s standing offer: you get {share_text(theirs)} (worth {self.u(theirs)} to you), "
                       f"{other} gets {share_text(I.rest(self.counts, theirs))}.")
        if mine is not None:
            out.append(f"Your standing offer: you get {share_text(mine)}, {other} gets "
                       f"{share_text(I.rest(self.counts, mine))}.")
        return ("### Standing Offers\n" + "\n".join(out) + "\n") if out else ""

    def round_text(self) -> str:
        v = self.view
        text = f"This is round {v.get('round', 1)} of {v.get('max_rounds', 20)}."
        if v.get("last_round"):
            text += " It is the last round: without a deal now, neither of you will obtain any reward."
        return text

    # --- one turn ---------------------------------------------------------------------------------------------------
    def decide(self):
        self.absorb_offers()  # the bayes posterior stays current for a fallback
        saved = (self.readings, self.text_offer, self.partial)
        self.readings, self.text_offer, self.partial = [], None, None
        if self.llm is None:
            return self.fall_back(self.llm_missing("turn"), None, saved, error="no LLM configured")
        act = None
        try:
            with self.llm_act("turn") as act:
                if self.view.get("protocol") != "paper":
                    return self.llm_turn(act)
                if self.paper is None:
                    raise ValueError(self.paper_error or "the paper protocol needs its release's prompts")
                message = self.paper_message(act)[:MAX_CHAT_CHARS]
        except Exception as exc:
            return self.fall_back(act, exc, saved)
        return self.paper_answer(message)

    # --- the paper's protocol ---------------------------------------------------------------------------------------
    def paper_message(self, act) -> str:
        return self.paper.message(act)

    def paper_answer(self, message: str) -> tuple:
        """(the line, the move) of a paper turn whose message is written: the raw agent sends it as it is."""
        return message, self.paper_proposal(message)

    def paper_proposal(self, message: str) -> Optional[tuple]:
        """The paper's extraction of the message's proposal, its own act: ("propose", what I get) or None. A
        failed extraction leaves the proposal out (that act counts as invalid; nothing stands in for it, so it is no
        fallback) and the message goes; under `strict_llm` the game is invalid, as the release gave up on it."""
        act = None
        try:
            with self.llm_act("extract") as act:
                split = self.paper.extract(act, message)
        except Exception as exc:  # noqa: BLE001 (recorded on the act)
            if self.strict_llm:
                self.llm_fallback(act, exc)
            return None
        return ("propose", split) if split is not None else None

    def present_split(self) -> tuple:
        if self.paper is None or self.llm is None:
            return super().present_split()
        act = None
        try:
            with self.llm_act("present") as act:
                return self.paper.present(act)
        except Exception as exc:
            self.llm_fallback(act, exc)  # strict: the driver ends the game as invalid before this move
            return super().present_split()

    def fall_back(self, act, exc, saved, **data):
        if not self.llm_fallback(act, exc, **data):
            return None, None  # strict: the driver ends the game as invalid
        self.readings, self.text_offer, self.partial = saved
        return BayesBrain.decide(self)

    def sampling_for(self, use: str) -> dict:
        """Brain option `sampling` (a preset's) over our own default of `max_tokens` (1000) output tokens."""
        return {"max_tokens": int(self.options.get("max_tokens", 1000)), **self.sampling(use)}

    def message_prompt(self) -> str:
        other = self.view["partner_name"]
        return (game_prompt(self.view) + self.history() + self.standing_text() + "### Negotiation\n"
                f"{self.round_text()} Think about what to tell {other} to end up with as much value as you can, then "
                "write the message itself between <s> and </s>, like <s>Could I have the hats?</s>. Once the two of "
                "you agree, write <s>halt negotiation</s> to close the deal.")

    def ask_message(self, act, prompt: str) -> str:
        """The text between the last <s> and </s>; bounded retries, else ValueError."""
        for _ in range(max(1, int(self.options.get("retries", 3)))):
            text = self.llm.chat([{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                                 usage=act, **self.sampling_for("turn"))
            found = [m.strip() for m in TAG.findall(text or "") if m.strip()]
            if found and (not self.is_halt(found[-1]) or self.open_offer() or self.my_open_offer()):
                return found[-1]  # halting with no offer on the table would stall the game: ask again
        raise ValueError("no usable <s>...</s> answer")

    @staticmethod
    def is_halt(message: str) -> bool:
        return message.lower().strip(" .!'\"") == "halt negotiation"

    def extract(self, act, message: str) -> tuple[Optional[tuple], bool]:
        """The paper's proposal extraction: (what I would get, or None; does it accept the partner's offer)."""
        me, other = self.view["me_name"], self.view["partner_name"]
        theirs = self.open_offer()
        context = (f"{other}'s latest proposal gives {me} {share_text(theirs)} and {other} "
                   f"{share_text(I.rest(self.counts, theirs))}.\n" if theirs is not None else "")
        prompt = (f"There are {I.describe(self.counts)} to divide between {me} and {other}.\n{context}"
                  f"{me} said to {other}: \"{message}\"\n"
                  f"Does {me}'s message contain a concrete deal proposal (how many books, hats and balls each gets)? "
                  f"If yes, set proposal to true and give the numbers of books, hats and balls that {me} would get; "
                  "if not, set proposal to false and all numbers to 0. Set accepts to true only if the message "
                  f"accepts {other}'s latest proposal.")
        out = self.llm.chat_json([{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                                 deal_schema(self.counts), usage=act, **self.sampling_for("extract"))
        split = tuple(int(out[p]) for p in I.PLURALS) if out.get("proposal") else None
        if split is not None and not I.valid_split(self.counts, split):
            raise ValueError(f"extracted deal {split} does not fit the counts {self.counts}")
        return split, bool(out.get("accepts"))

    def llm_turn(self, act):
        message = self.ask_message(act, self.message_prompt())
        halt = self.is_halt(message)
        split, accepts = (None, False) if halt else self.extract(act, message)
        return self.to_moves(None if halt else message, split, halt or accepts)

    def to_moves(self, message: Optional[str], split: Optional[tuple], accept: bool):
        """A line and at most one move, in our game's terms."""
        theirs = self.open_offer()
        if theirs is not None and (split == theirs or (accept and split is None)):
            return None, ("accept",)  # proposing what their standing offer gives me is taking it
        if accept and theirs is None and message is None and self.my_open_offer() is not None:
            # "halt negotiation" with nothing to accept: our game needs the partner's /accept, so say so (once)
            return self.fresh("I think we agree: please accept my offer to close the deal."), None
        line = self.fresh(message[:MAX_LINE]) if message else None
        if split is not None and split != self.my_open_offer():
            return line, ("propose", split)
        return line, None


__all__ = ["LLMBrain", "SYSTEM", "game_prompt", "deal_schema"]
