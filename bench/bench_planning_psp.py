"""DialOp Planning, prompted self-play: the planner against oracles that know more than it can, at each cut, so the
gap to the >= 0.95 target splits into what reading could still win and what the dialogue never reveals.

Every variant plays the same PSP games (`simuser` user, `planner` assistant, the released human prefix, its word
budget); an oracle only replaces the planner's belief with the user's true preferences (the game's own, read from
the match: a bench-only look that no agent gets):
  planner   as shipped.
  values    what the planner detected, with its true values (wording, liked / disliked values, budget, penalty),
            at the generator's mean weight (5.5): people and the simulated user see the preference texts only, so
            their words carry no weight.
  texts     every preference's true values (all a person could ever tell: the texts they see), weights as above.
  weights   what the planner detected, with true values and true weights (weights nobody could have told).
Usage: .venv/bin/python -m bench.bench_planning_psp [modes, default 50,75,proposal] [variants] [games]"""
from __future__ import annotations

import statistics
import sys

from bench.figures import command_line, markdown_table, write_figure
from tasks.dialop import runner
from tasks.dialop.metrics import mean_ci
from tasks.planning.brains import belief as belief_mod
from tasks.planning.catalogue import canonical_key
from tasks.planning.spec import SPEC

VARIANTS = ("planner", "values", "texts", "weights")
MEAN = belief_mod.PRIOR_MEAN
_STATE = {"truth": [], "variant": "planner"}


def _matches(t: dict, k: tuple) -> bool:
    if t["kind"] == "feature":
        return k[0] == "feature" and canonical_key(t["key"]) == k[1]
    if t["kind"] in ("budget", "distance"):
        return k[0] == t["kind"]
    if t["kind"] == "want_to_go":
        return k[0] == "want_to_go" and bool(set(t["sites"]) & set(k[1]))
    return k[0] == "at_least_one" and t["etype"] == k[1]


def _oracle_prefs(b) -> list:
    variant, truth = _STATE["variant"], _STATE["truth"]
    out, used = [], set()
    for k, p in b.prefs.items():
        if k == ("distance",) and k not in b.heard:
            out.append(p)  # never talked about: the planner's prior stands
            continue
        for i, t in enumerate(truth):
            if i not in used and _matches(t, k):
                used.add(i)
                exact = variant == "weights"
                out.append(dict(t, weight=t["weight"] if exact else (MEAN if t["weight"] > 0 else -MEAN)))
    if variant == "texts":
        out += [dict(t, weight=MEAN if t["weight"] > 0 else -MEAN) for i, t in enumerate(truth) if i not in used]
        return out
    return out + (b.prior_prefs() if b.prior else [])


def _install() -> None:
    as_prefs = belief_mod.Belief.as_prefs

    def prefs(self):
        return as_prefs(self) if _STATE["variant"] == "planner" else _oracle_prefs(self)

    belief_mod.Belief.as_prefs = prefs
    build = runner.build_match

    def build_and_look(*a, **kw):
        match, brains = build(*a, **kw)
        _STATE["truth"] = match.game.prefs
        return match, brains

    runner.build_match = build_and_look


def main(modes=("50", "75", "proposal"), variants=VARIANTS, limit: int = 0) -> None:
    _install()
    games = runner.load_games(SPEC, None)
    games = games[:limit] if limit else games
    print("| cut | variant | games | mean (95% CI) | median |")
    print("|---|---|---|---|---|")
    rows = []
    for mode in modes:
        for variant in variants:
            _STATE["variant"] = variant
            res = runner.run_released(SPEC, games, {"user": "simuser", "assistant": "planner"}, mode, progress=False)
            norms = [float(r.get("normalized_score") or 0) if r.get("status") == "completed" else 0.0 for r in res]
            m, lo, hi = mean_ci(norms)
            rows.append((mode, variant, len(norms), f"{m:.3f} ({lo:.3f}-{hi:.3f})", f"{statistics.median(norms):.3f}"))
            print("| " + " | ".join(str(v) for v in rows[-1]) + " |", flush=True)
    write_figure("bench_planning_psp", [markdown_table(("cut", "variant", "games", "mean (95% CI)", "median"), rows)],
                 command_line(None, "bench.bench_planning_psp"))


if __name__ == "__main__":
    args = sys.argv[1:]
    main(tuple(args[0].split(",")) if args else ("50", "75", "proposal"),
         tuple(args[1].split(",")) if len(args) > 1 else VARIANTS, int(args[2]) if len(args) > 2 else 0)
