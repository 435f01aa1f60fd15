"""Hua et al.'s protocol as the `paper` preset, and their LLM tables as the task's reproduction.

The preset: neutral action labels (choice_1..k: a name such as Defect tells the model which famous game it plays),
either side's halt ends the talk, the release's system prompt (its personality slot) read at run time, the tree
workflow told only the choices derived below a move (the model derives the rewards from the rules), and the
release's sampling: temperature 1.0 and 2,000 output tokens (src/model.py; o1 only takes its default temperature,
1, so the preset's 1.0 is o1's too), with a per-call deadline that lets a chain-of-thought answer of that length
finish (a 20 s deadline for the whole turn left `llm` at 0% valid on SmolLM2).

The reproduction: Tables 5-8 (NE / PO-NE rate per game, 10 trials, Sonnet / GPT-4o / Opus / o1), the §6 probes
(personality, the six anti-negotiation prompts, the Golden Balls jackpot sweep) and the further games of the
original configuration, which the paper reports no figure for. Figures: reference game-theory-negotiation.md §5,
§10; the Golden Balls split rates are counted from the release's result/human_verification/*.json.
"""
from __future__ import annotations

from tasks.core import Preset
from tasks.core.reproduction import ReproCondition, Reproduction

from . import release
from .catalogue import GOLDEN_BALLS_JACKPOTS, TESTBED

# One call may write the release's 2,000 tokens: a hosted model needs well under a minute, SmolLM2-135M on two busy
# cores about 90 s, so 240 s covers both without leaving a dead server's call hanging for long.
PAPER_SAMPLING = {"*": {"temperature": 1.0, "max_tokens": 2000, "deadline": 240}}

PRESETS = {"paper": Preset(
    name="paper",
    describe="Hua et al.'s protocol: actions named choice_1..k, either side's halt ends the talk, the release's "
             "system prompt (--paper-prompts), the tree workflow derives subtree rewards itself, temperature 1.0, "
             "2,000 output tokens, 240 s per call",
    options={"labels": "neutral", "halt": "either"},
    brain_options={"wording": "paper", "subtree_notes": "choices", "sampling": PAPER_SAMPLING},
    release_files=release.RELEASE_FILES,
    release=release.RELEASE,
)}

MODELS = "Sonnet/GPT-4o/Opus/o1"
# reference §5: game -> per table the four models' rates (the PO-NE, i.e. the paper's score; T5 also its NE column)
TABLES = {
    "T5 CoT, no negotiation": ("llm", 0, {
        "prisoners-dilemma": "1.0/.9/.9/1.0", "stag-hunt": (".6/.8/.9/.4", ".3/.4/.0/.1"),
        "battle-of-sexes": ".3/.2/.6/.5", "wait-go": ".4/.5/.7/.3", "duopoly": (".3/.2/.1/.7", ".2/.2/.1/.7"),
        "escalation": ".0/.2/.2/1.0", "monopoly": "1.0/.4/1.0/1.0", "hot-cold": ".9/.1/.7/1.0",
        "draco": ".3/.0/.7/.9", "trigame": ".0/.0/.1/1.0"}),
    "T6 CoT, 4 rounds": ("llm", 4, {
        "prisoners-dilemma": "0.0/.1/0.0/.9", "stag-hunt": "1.0/.9/1.0/.9", "battle-of-sexes": ".7/.9/.7/.8",
        "wait-go": "1.0/.8/.4/.8", "duopoly": ".1/.1/.0/.5", "escalation": ".6/.4/.6/1.0",
        "monopoly": "1.0/.9/1.0/1.0", "hot-cold": ".7/.2/.7/.4", "draco": "1.0/.8/1.0/1.0",
        "trigame": ".2/.5/.6/1.0"}),
    "T7 workflow, no negotiation": ("llm-workflow", 0, {
        "prisoners-dilemma": "1.0/1.0/1.0/1.0", "stag-hunt": "1.0/1.0/1.0/1.0", "battle-of-sexes": ".3/.3/.4/.5",
        "wait-go": ".2/.6/.1/.3", "duopoly": "1.0/.5/.6/.3", "escalation": ".5/.2/.3/1.0",
        "monopoly": "1.0/1.0/1.0/1.0", "hot-cold": "1.0/1.0/1.0/1.0", "draco": "1.0/1.0/1.0/1.0",
        "trigame": ".6/.9/.7/1.0"}),
    "T8 workflow, 4 rounds": ("llm-workflow", 4, {
        "prisoners-dilemma": "1.0/.9/.9/1.0", "stag-hunt": "1.0/1.0/1.0/1.0", "battle-of-sexes": ".7/.8/1.0/.8",
        "wait-go": ".9/.7/.6/.7", "duopoly": ".6/.7/.6/.3", "escalation": ".3/.2/.4/1.0",
        "monopoly": "1.0/1.0/1.0/1.0", "hot-cold": ".7/.8/1.0/1.0", "draco": ".8/1.0/.9/1.0",
        "trigame": ".3/.8/.9/1.0"}),
}
# Split (choice_1) share of the 40 decisions per jackpot and personality file in the release's
# result/human_verification/*.json, pooled over its personalities (260 decisions per jackpot).
GOLDEN_SPLIT_PERCENT = {250: 23, 500: 16, 1000: 18, 1500: 19, 2000: 16, 2500: 28, 5000: 24, 10000: 20, 15000: 26,
                        20000: 18, 25000: 22, 50000: 20, 100150: 22}
FURTHER_GAMES = ("radio-station", "iesds", "weakly-dominated", "imbalanced-actions", "odd-even")
PLOTTED = "plotted only (Figs 5-11)"


def _table_rows():
    for table, (agent, k, games) in TABLES.items():
        for game in TESTBED:
            fig = games[game]
            ne, pone = fig if isinstance(fig, tuple) else (fig, fig)
            paper = {"PO-NE": f"{MODELS} {pone}"}
            if table.startswith("T5"):
                paper["NE"] = f"{MODELS} {ne}"
            yield ReproCondition(f"{table}: {game}", (agent, agent), {"game": game, "negotiation": k}, paper=paper)


def _probe_rows():
    for personality in release.PERSONALITIES:  # §6; the games are ours to choose: the reference does not name them
        yield ReproCondition(f"personality {personality}: prisoners-dilemma", ("llm", "llm"),
                             {"game": "prisoners-dilemma", "negotiation": 0}, {"personality": personality},
                             paper={"PO-NE": PLOTTED})
    for number in sorted(release.PAPER_TO_CODE):  # after the talk that hurt most (T6: PD 0.0-.1 for three models)
        yield ReproCondition(f"anti-negotiation Prompt {number}: prisoners-dilemma, 4 rounds", ("llm", "llm"),
                             {"game": "prisoners-dilemma", "negotiation": 4}, {"negotiation_prompt": number},
                             paper={"PO-NE": PLOTTED})
    for jackpot in GOLDEN_BALLS_JACKPOTS:
        yield ReproCondition(f"Golden Balls, jackpot {jackpot}", ("llm", "llm"),
                             {"game": f"golden-balls-{jackpot}", "negotiation": 0},
                             paper={"choice_1 %": f"{GOLDEN_SPLIT_PERCENT[jackpot]} (release files; people 53)"})
    for game in FURTHER_GAMES:
        yield ReproCondition(f"further game: {game}", ("llm", "llm"), {"game": game, "negotiation": 0},
                             paper={"PO-NE": "not reported"})


REPRODUCTION = Reproduction(
    conditions=(*_table_rows(), *_probe_rows()),
    columns=("PO-NE", "NE", "choice_1 %"),
    source="Hua et al. 2024 (arXiv 2411.05990), Tables 5-8 and §6",
    note="The paper's figures are 10 trials per game and model (Sonnet/GPT-4o/Opus/o1, temperature 1.0; o1 at its "
         "default); PO-NE is its score (the NE, or the Pareto-optimal NE when there are several; the subgame-"
         "perfect path in sequential games). choice_1 % is the share of decisions for each player's first action "
         "(split in Golden Balls; people split 53%, van den Assem et al. 2012).",
)
