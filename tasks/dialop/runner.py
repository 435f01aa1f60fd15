"""Self-play on the released instances and prompted self-play (PSP), with the humans' own figures in the same table.

`run_released(spec, games, agents, mode)`: for each released game (a task adapter's objects with `index`,
`instance`, `inputs`, `record`, `human_results()`), build a match on its instance with agents in both seats; with a
PSP mode, replay the human prefix through the rules (`MatchDriver.replay`: brains observe it, exactly as a seat
would) under a word budget equal to the human dialogue's words, then let the agents continue (`resume`).
"""
from __future__ import annotations

import importlib
import os
import sys
from typing import Optional

from tasks.core import Abort, MatchDriver, SeatInfo, build_match, llm_acts
from tasks.core.evaluation import format_table, summarize_results

from . import psp
from .data import default_path
from .metrics import summarize_dialogues
from .replaying import NO_TIMERS



def play_released(spec, game, agents: dict, mode: Optional[str] = None, llm=None, brain_options=None,
                  options: Optional[dict] = None) -> dict:
    # agents alternate turns where the game has that mode (a relayed three-seat game chats freely only)
    alternate = "alternate" in getattr(spec.game_class, "turn_modes", ("free", "alternate"))
    opts = {"turns": "free" if mode or not alternate else "alternate", **(options or {})}
    prefix = []
    if mode:
        n = psp.cut_index(game.record, mode)
        prefix = game.inputs[:n]
        opts["word_budget"] = sum(psp.message_words(game.record))
        opts["psp"] = mode
        # the human prefix counts its words but is never cut short by the budget (games that read this option)
        opts["budget_after"] = max([getattr(i, "t", 0.0) for i in prefix] or [0.0])
    seats = {s: SeatInfo("agent", s, agents[s]) for s in spec.seats}
    match, brains = build_match(spec, game.index, seats, options=opts, instance=game.instance, llm=llm,
                                timers=NO_TIMERS, brain_options=brain_options)
    import time as _time
    t_end = max([getattr(i, "t", 0.0) for i in prefix] or [0.0])
    t0 = _time.time()
    driver = MatchDriver(match, brains, clock=lambda: t_end + (_time.time() - t0))
    driver.replay(prefix)
    driver.wake()  # the agents take over: each gets a first look (the prefix may end on a refused line)
    if not match.over:
        for _ in driver.resume():
            pass
    if not match.over:
        for _ in driver.feed(Abort("stalled", "The agents stopped without finishing the game.")):
            pass
    res = dict(match.results)
    res["human_index"] = game.index
    res["prefix_entries"] = len(prefix)
    if driver.llm_acts:
        from tasks.core import llm_acts
        res["llm"] = llm_acts.per_seat(driver.llm_acts)
    return res


def run_released(spec, games: list, agents: dict, mode: Optional[str] = None, llm=None, brain_options=None,
                 progress: bool = True, options: Optional[dict] = None, parallel: int = 1) -> list[dict]:
    from tasks.core.parallel import map_games

    return map_games(lambda i, g: play_released(spec, g, agents, mode, llm, brain_options, options), games, parallel,
                     "games" if progress else "")


def load_games(spec, path: Optional[str]) -> list:
    adapter = importlib.import_module(f"tasks.{spec.name}.released")
    path = default_path() if path in (None, "", "default") else path
    if not os.path.exists(path):
        raise SystemExit(f"the released DialOp data is not at {path}; download data.zip from the DialOp release "
                         "and pass its path (--data PATH or --human-instances PATH)")
    return list(adapter.load(path))


def evaluate(spec, run) -> Optional[int]:
    """`TaskSpec.evaluator` of the DialOp tasks: `--psp MODE` and `--human-instances [PATH]` runs play the released
    games (`main_released`); None leaves every other run to the ordinary local evaluation."""
    if not (run.options.get("psp") or run.options.get("human_instances")):
        return None
    return main_released(spec, run.agents, run.options, run.llm, run.games if run.games > 1 else None,
                         run.brain_options, parallel=run.parallel)


def main_released(spec, agents: dict, options: dict, llm, games_limit: Optional[int] = None,
                  brain_options=None, parallel: int = 1) -> int:
    """The CLI of `--psp MODE` / `--human-instances [PATH]`: one table with the agents' row and the humans' row."""
    mode = options.pop("psp", None)
    path = options.pop("human_instances", None) or options.pop("data", None)
    options.pop("data", None)
    games = load_games(spec, path)
    if games_limit:
        games = games[:games_limit]
    results = run_released(spec, games, agents, mode, llm, brain_options, options=options, parallel=parallel)
    label = llm_acts.agent_label(agents, spec.seats, results)
    cond = f"psp {mode}" if mode else "self-play (released instances)"
    summarize = spec.summarize or summarize_dialogues  # a task's own summary adds columns (e.g. words per party)
    rows = [{"agents": label, "condition": cond, **summarize_results(spec, results, summarize)},
            {"agents": "humans", "condition": "released dialogues",
             **summarize([g.human_results() for g in games])}]
    header = []
    for r in rows:
        header += [k for k in r if k not in header]
    print(format_table(header, [[r.get(k, "") for k in header] for r in rows]))
    return 0
