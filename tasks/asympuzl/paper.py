"""The paper's protocol as a preset, and its LLM table for `./run_bot.sh reproduce asympuzl`.

Cadet, Koh & Chin, "AsymPuzl" (arXiv 2512.03466); no code was released, so every figure and setting here comes
from the paper's text (../shared/reference/asympuzl.md in the project's notes). Preset `paper`: 5-piece puzzles,
the six feedback modes (one condition each), history 1, the 2N-round limit, temperature 0, up to 4,096 output
tokens, free-text answers that reason first and end with the JSON object (the last JSON object is read), an
unreadable answer passing its turn instead of a fallback playing it. The paper's 30 seeds per condition are
`--games 30` (our generator's puzzles; instances.py writes them as a set file). Our default ("ours") keeps the
JSON-only structured answer with one repair round, labelled "ours" in every table.
"""
from __future__ import annotations

from tasks.core.presets import Preset
from tasks.core.reproduction import ReproCondition, Reproduction

from .generator import FEEDBACK_MODES

PAPER_SIZE = 5
CONTROL = {"single_agent": True, "feedback": "both"}  # the control's feedback is not stated; "both" as the sizes'

PAPER_SAMPLING = {"turn": {"temperature": 0, "max_tokens": 4096, "deadline": 600}}

PRESETS = {
    "paper": Preset(
        name="paper",
        describe=("the paper's protocol: 5 pieces, the six feedback modes, history 1, temperature 0, up to 4,096 "
                  "output tokens, free text that reasons and ends with the JSON answer; 30 seeds = --games 30"),
        options={"size": PAPER_SIZE, "feedback": list(FEEDBACK_MODES), "history": 1},
        brain_options={"answer": "paper", "invalid_answer": "pass", "sampling": PAPER_SAMPLING},
    ),
}

# Success % over 30 seeds, 5 pieces, by feedback mode (none / own / own detailed / joint / both / both detailed).
PAPER_SUCCESS = {
    "GPT-4o": (43.3, 46.7, 63.3, 40.0, 80.0, 56.7),
    "Claude-3.5": (66.7, 73.3, 86.7, 73.3, 83.3, 36.7),
    "OSS-120B": (53.3, 93.3, 100, 90.0, 90.0, 96.7),
    "GPT-5": (100,) * 6, "Claude-4.0": (100,) * 6,
    "GPT-3.5-turbo": (0,) * 6, "Llama 3.2-11B": (0,) * 6,
}
SHOWN = "GPT-4o"


def _note() -> str:
    others = "; ".join(f"{m} {' / '.join(f'{v:g}' for v in vals)}" for m, vals in PAPER_SUCCESS.items()
                       if m != SHOWN)
    return (f"The paper's column is {SHOWN}; its other models (none / own / own-detailed / joint / both / "
            f"both-detailed): {others}. Single agent with full information: ~100% for most models at sizes 5, 10 "
            "and 20. Sizes 3 / 5 / 10 / 20 with feedback both: --preset paper --size 3,5,10,20 --feedback both.")


REPRODUCTION = Reproduction(
    conditions=tuple(
        ReproCondition(f"{PAPER_SIZE} pieces, feedback {mode}", ("llm", "llm"), options={"feedback": mode},
                       paper={"success %": PAPER_SUCCESS[SHOWN][i]})
        for i, mode in enumerate(FEEDBACK_MODES)
    ) + (
        ReproCondition(f"single agent, full information, {PAPER_SIZE} pieces", ("llm", "absent"),
                       options=dict(CONTROL), paper={"success %": "~100"}),
    ),
    columns=("success %",),
    source="Cadet, Koh & Chin (arXiv 2512.03466), success by feedback mode, 5 pieces, 30 seeds",
    note=_note(),
)
