"""Hua et al.'s Deal-or-No-Deal LLM conditions for `./run_bot.sh reproduce dond` (reference §9): each row plays
preset `paper` (the release's prompts, the paper's protocol and sampling, its 44 instances) with the configured
model, beside the paper's figures for GPT-4o, the model the release's halting rule `both` was written for.

Rows: raw vs raw at temperature 1.0 (Table 10) and at temperature 0 (Table 11); both seats with the workflow
(Table 12), and one seat with it (Tables 17, 18). Under the preset `llm-workflow` plays the release's own workflow
turn: its "last round" blocks, draft, extraction, reflection and update question in the release's words (read at
run time), with the possibility sets and option lists our solver computes.
"""
from __future__ import annotations

from tasks.core.reproduction import ReproCondition, Reproduction

from . import published

COLUMNS = ("rounds", "agreement", "Alice", "Bob", "PO", "EF", "total")
# The preset's sampling with another temperature (a condition's brain options replace the preset's `sampling`).
TEMPERATURE_0 = {"sampling": {"*": {"temperature": 0.0, "max_tokens": 2000, "deadline": 300}}}


def _paper(name: str) -> dict:
    return {c: v for c, v in published.row(name).items() if c in COLUMNS}


REPRODUCTION = Reproduction(
    conditions=(
        ReproCondition("raw vs raw, temperature 1 (T10 GPT-4o)", ("llm", "llm"),
                       paper=_paper("T10 raw vs raw: GPT-4o")),
        ReproCondition("raw vs raw, temperature 0 (T11 GPT-4o)", ("llm", "llm"), brain_options=TEMPERATURE_0,
                       paper=_paper("T11 raw GPT-4o, temperature 0")),
        ReproCondition("workflow vs workflow (T12 GPT-4o)", ("llm-workflow", "llm-workflow"),
                       paper=_paper("T12 wf vs wf: GPT-4o")),
        ReproCondition("workflow Alice vs raw Bob (T17 GPT-4o)", ("llm-workflow", "llm"),
                       paper=_paper("T17 wf(Alice) vs raw(Bob): GPT-4o")),
        ReproCondition("raw Alice vs workflow Bob (T18 GPT-4o)", ("llm", "llm-workflow"),
                       paper=_paper("T18 raw(Alice) vs wf(Bob): GPT-4o")),
    ),
    columns=COLUMNS,
    source="Hua et al. 2024, Tables 10-12, 17, 18 (44 datapoints)",
    note="Workflow rows: the release's workflow prompts (draft, reflection, update) with our solver's possibility "
         "sets; the paper's extraction model was a fixed gpt-4o, here the configured model.",
)
