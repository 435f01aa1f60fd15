"""DialOp PLANNING: an assistant who sees every site plans a 3-stop day out for a user with private preferences.

Seats "user" (talks first; sees its preferences as text and a scorecard of every proposal) and "assistant" (sees
all sites with features, prices and a map; `/search` answers privately). Only the assistant proposes an
itinerary of 3 ordered sites; a partial one (an empty slot) is advisory: shown and scored to the user, needing no
answer (the original deadlocked there). A full one must be answered: /accept ends the game, /reject clears it. A
site cannot be in an itinerary twice. Score: reference §3.5 (`scoring`); normalised by the best and worst
itinerary over all ordered triples, computed exactly at generation.

Options: turns free|alternate (chat passes the turn; proposals and searches do not; the user must answer a full
proposal before chatting), word_budget / final_at (prompted self-play: below 25 words left a full proposal is
accepted automatically), rules fixed|original (default: the instance's; generated instances use the fixed rules,
released ones the original's so stored scores replay), and for generation catalogue own|released, catalogue_dir,
prefs code|paper, num_prefs.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Context, RuleError
from tasks.core.offers import answer_id, check_answer
from tasks.dialop.game import DialopGame

from . import generator, query
from .parse import ProposalError, card_text, format_itinerary, parse_itinerary
from .scoring import FIXED_RULES, ORIGINAL_RULES, extremes, normalise, score

SEAT_NAMES = {"user": "User", "assistant": "Assistant"}
BONUS_TIERS = ((1.0, 2.0), (0.9, 1.0), (0.8, 0.5))
SEARCHES_SHOWN = 5


def _shown_card(card: dict) -> dict:
    """A scorecard as the original's user saw it: per slot and checklist, not per preference (a preference's own
    score would give its hidden weight away)."""
    return {k: v for k, v in card.items() if k != "per_pref"}


class PlanningGame(DialopGame):
    task = "planning"
    title = "Travel Planning"
    seats = ("user", "assistant")
    seat_names = SEAT_NAMES

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        o = self.options
        self.set_up_dialogue(SEAT_NAMES, proposers=("assistant",), responders=("user",), first="user")
        self.sites = self.inst["sites"]
        self.prefs = self.inst["prefs"]
        self.names = [s["name"] for s in self.sites]
        self.rules = dict(self.inst["rules"])
        self.best, self.worst = int(self.inst["best"]), int(self.inst["worst"])
        if o.get("rules") in ("fixed", "original"):
            wanted = FIXED_RULES if o["rules"] == "fixed" else ORIGINAL_RULES
            if wanted != self.rules:  # re-score this instance under other rules (e.g. released games, fixed)
                self.rules = dict(wanted)
                ext = extremes(self.sites, self.prefs, self.rules)
                self.best, self.worst = ext["best"], ext["worst"]
        # prompted self-play: moves up to this time are the human prefix (counted, never refused or forced)
        self.prefix_until = (self.inst.get("psp_cut_t") or {}).get(str(o["psp"])) if o.get("psp") else None
        self.history: list[dict] = []   # every proposal: id, slots, full, card (the user's), status
        self.searches: list[dict] = []  # the assistant's searches: query, text, columns, rows, matched
        self.counts = {"messages": {s: 0 for s in self.seats}, "words": {s: 0 for s in self.seats}, "rejected": 0}

    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        return generator.generate(seed, catalogue=str(options.get("catalogue", "own")),
                                  catalogue_dir=options.get("catalogue_dir"), prefs=str(options.get("prefs", "code")),
                                  num_prefs=int(options.get("num_prefs", 10)))

    # --- privacy ------------------------------------------------------------------------------------------------
    def private_parts(self, seat: str) -> list:
        """The user's preferences with their weights (and their texts); the assistant's search results."""
        if seat == "user":
            return ([{"desc": p["desc"], "weight": p["weight"]} for p in self.prefs]
                    + [p["desc"] for p in self.prefs] + [{"weights": [p["weight"] for p in self.prefs]}]
                    + [h["card"] for h in self.history])
        return [s["text"] for s in self.searches if s["matched"]]

    def agent_briefing(self, seat: str) -> dict:
        """A simulated user's structured preferences with their weights (a person only reads the texts: the
        weights never reach any page, the user's own included)."""
        return {"pref_specs": self.prefs} if seat == "user" else {}

    # --- start, views, results ----------------------------------------------------------------------------------
    def start(self, ctx: Context) -> None:
        turns = " Take turns: a chat message passes the turn." if self.turns_mode == "alternate" else ""
        budget = "" if self.words.limit is None else f" You have {self.words.left()} words of chat in all."
        ctx.say("Welcome! The user has a day out to plan with private preferences; the assistant sees every site "
                "(features, prices, map) and proposes itineraries of 3 stops. Partial proposals are suggestions; "
                "a full one must be accepted or rejected, and accepting ends the game." + turns + budget)
        ctx.say("Your preferences (the assistant cannot see them; tell it what matters):\n"
                + "\n".join(f"- {p['desc']}" for p in self.prefs), to="user")
        ctx.say("You see every site. /search finds sites privately (e.g. /search vegan options == true, "
                "price <= 40, sort_by=distance_to(" + self.names[0] + "), limit=3); /propose A, B, C proposes "
                "an itinerary (NULL for an empty slot). The user talks first.", to="assistant")

    def _slot_sites(self, slots: list) -> list:
        return [None if s is None else {"name": self.sites[s]["name"], "etype": self.sites[s]["etype"],
                                         "price": self.sites[s]["price"], "features": self.sites[s]["features"],
                                         "loc": self.sites[s]["loc"]} for s in slots]

    def view(self, seat: str) -> dict:
        p = self.proposals.pending
        turn = None
        if self.turns_mode == "alternate":
            turn = "me" if self.order.current == seat else "partner"
        common = {"role": seat, "rules": dict(self.rules), "distance": self.rules["distance"], "turn": turn,
                  "turns_mode": self.turns_mode, "words_left": self.words.left(),
                  "final": self.words.final, "pending": None if p is None else {"id": p.id, "slots": list(p.value)},
                  "result": self._result_view(seat)}
        if seat == "user":
            return {**common, "preferences": [pr["desc"] for pr in self.prefs],
                    "random_best": self.inst.get("random_best"),
                    "must_respond": p is not None,
                    "proposals": [{"id": h["id"], "full": h["full"], "status": h["status"], "slots": h["slots"],
                                   "sites": self._slot_sites(h["slots"]), "card": _shown_card(h["card"])}
                                  for h in self.history]}
        return {**common, "sites": self.sites, "features": self.inst["features"],
                "proposals": [{"id": h["id"], "full": h["full"], "status": h["status"], "slots": h["slots"]}
                              for h in self.history],
                "searches": self.searches[-SEARCHES_SHOWN:]}

    def _result_view(self, seat: str) -> Optional[dict]:
        f = self._final
        if f is None:
            return None
        out = {"status": f["status"], "accepted": f["itinerary"] is not None, "itinerary": f["itinerary"],
               "normalized": f["normalized_score"]}
        if seat == "user":
            out.update(score=f["score"], best=self.best, worst=self.worst)
        return out

    def _outcome(self, status: str) -> dict:
        it = self.accepted
        sc = score(self.sites, self.prefs, self.rules, it)["total"] if it is not None else None
        norm = normalise(sc, self.best, self.worst) if sc is not None else 0.0
        return {"status": status, "itinerary": list(it) if it is not None else None, "score": sc,
                "normalized_score": norm}

    def results(self) -> dict:
        if self._final is None:
            self._final = self._outcome("ended")
        f = self._final
        c = self.counts
        messages = sum(c["messages"].values())
        props = len(self.history)
        bonus = self._bonus(f["itinerary"] is not None, f["normalized_score"], BONUS_TIERS)
        return {
            "score": f["score"], "best": self.best, "worst": self.worst, "normalized_score": f["normalized_score"],
            "itinerary": None if f["itinerary"] is None else format_itinerary(f["itinerary"], self.names),
            "accepted": f["itinerary"] is not None, "optimal": f["score"] == self.best,
            "proposals": props, "partial_proposals": sum(not h["full"] for h in self.history),
            "rejected": c["rejected"], "searches": len(self.searches), "messages": messages,
            "words": sum(c["words"].values()), "turns": messages + props, "forced_final": self.forced,
            "turns_mode": self.turns_mode, "word_budget": self.words.limit, "rules": self.rules["keys"],
            "source": self.inst.get("source"), "prefs_mode": self.inst.get("prefs_mode"), "seed": self.seed,
            "tokens": 0, "bonus": bonus,
        }

    # --- rules --------------------------------------------------------------------------------------------------
    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        if self.turns_mode == "alternate":
            if seat == "user" and self.proposals.pending is not None:
                raise RuleError("Please /accept or /reject the full proposal first.")
            self._check_turn(ctx, seat, "talk")
        n = self._spend_words(ctx, text)
        self.counts["messages"][seat] += 1
        self.counts["words"][seat] += n
        self._pass_turn(ctx, seat)
        if self.words.final:
            ctx.say(f"Words left: {max(0, self.words.left())}. The assistant must make its best final proposal now "
                    "(a full one is accepted automatically).")

    def cmd_search(self, ctx: Context, seat: str, args) -> None:
        """/search type == cafe, has wifi, price <= 20, sort_by=distance_to(Rose Garden), limit=3: find sites"""
        if seat != "assistant":
            raise RuleError("Only the assistant can search the sites.")
        text = " ".join(args)
        try:
            res = query.search(text, self.sites, self.inst["features"], self.rules["distance"])
        except query.QueryError as exc:
            raise RuleError(f"Search not understood: {exc}") from None
        out = query.render(res)
        self.searches.append({"query": text, "text": out, "columns": res["columns"], "rows": res["rows"],
                              "matched": res["matched"]})
        ctx.log("search", seat=seat, query=text, matched=res["matched"], ids=res["ids"])
        ctx.tell(out)

    def cmd_propose(self, ctx: Context, seat: str, args) -> None:
        """/propose Site A, Site B, Site C: propose an itinerary (NULL for an empty slot makes it a suggestion)"""
        if seat != "assistant":
            raise RuleError("Only the assistant proposes itineraries; tell it what you would like.")
        try:
            slots = parse_itinerary(" ".join(args), self.names)
        except ProposalError as exc:
            raise RuleError(str(exc)) from None
        if not self.words.final:  # once nobody may chat, the assistant proposes whoever's turn it was
            self._check_turn(ctx, seat, "propose")
        full = all(s is not None for s in slots)
        prop, _ = self.proposals.propose(seat, slots, advisory=not full)
        if full:
            self.proposals.advisory = None
        else:
            self.proposals.pending = None  # a newer suggestion supersedes an unanswered full proposal
        for h in self.history:
            if h["status"] == "open":
                h["status"] = "replaced"
        card = score(self.sites, self.prefs, self.rules, slots)
        self.history.append({"id": prop.id, "slots": slots, "full": full, "card": card,
                             "status": "open" if full else "suggestion"})
        ctx.log("proposal", seat=seat, id=prop.id, slots=slots, full=full, score=card["total"])
        text = format_itinerary(slots, self.names)
        if full and self.words.final and not self._prefix(ctx):
            self.forced = True
            ctx.say(f"The assistant makes the final proposal: {text}. It is accepted automatically.")
            ctx.say(card_text(prop.id, slots, self.sites, card), to="user")
            self.proposals.agree("user")
            self._accept(ctx, slots)
            return
        ask = (" User: Accept or Reject it on your page (or /accept, /reject)." if full
               else " (a partial suggestion: no answer needed)")
        ctx.say(f"The assistant proposes: {text}.{ask}")
        ctx.say(card_text(prop.id, slots, self.sites, card), to="user")

    def cmd_accept(self, ctx: Context, seat: str, args) -> None:
        """/accept: accept the assistant's full proposal (this ends the game)"""
        prop = self.proposals.agree(seat, self._answered(args))
        ctx.log("response", seat=seat, answer="accept", id=prop.id)
        ctx.say(f"The user accepts proposal {prop.id}: {format_itinerary(prop.value, self.names)}.")
        self._accept(ctx, list(prop.value))

    def _answered(self, args) -> Optional[int]:
        """The id an answer is for: the page's (a stale one is refused, naming the open full proposal), else the
        open full proposal's."""
        wanted, p, a = answer_id(args), self.proposals.pending, self.proposals.advisory
        if a is not None and wanted == a.id:
            return wanted  # a suggestion: the proposal cycle says it needs no answer
        check_answer(wanted, p.id if p else None, format_itinerary(p.value, self.names) if p else "")
        return wanted

    def cmd_reject(self, ctx: Context, seat: str, args) -> None:
        """/reject: reject the assistant's full proposal (it is cleared)"""
        prop = self.proposals.reject(seat, self._answered(args))
        self.counts["rejected"] += 1
        for h in self.history:
            if h["id"] == prop.id:
                h["status"] = "rejected"
        ctx.log("response", seat=seat, answer="reject", id=prop.id)
        ctx.say(f"The user rejects proposal {prop.id}: {format_itinerary(prop.value, self.names)}.")

    def _accept(self, ctx: Context, slots: list) -> None:
        for h in self.history:
            if h["slots"] == slots and h["status"] == "open":
                h["status"] = "accepted"
        self.accepted = list(slots)
        self._final = self._outcome("completed")
        f = self._final
        ctx.log("score", score=f["score"], best=self.best, worst=self.worst, normalized=f["normalized_score"],
                itinerary=slots)
        ctx.say(f"Itinerary agreed. Your score is {f['score']}; the best possible was {self.best} and the worst "
                f"{self.worst} ({f['normalized_score']:.0%} of the way).", to="user")
        ctx.say(f"Itinerary agreed: {f['normalized_score']:.0%} of the best possible for this user.", to="assistant")
        ctx.end("completed")
