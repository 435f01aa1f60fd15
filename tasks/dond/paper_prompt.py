"""The paper's Deal-or-No-Deal prompt text, read at run time from a checkout of its original release
(https://github.com/Wenyueh/game_theory; `--paper-prompts PATH`), never bundled: the wording is the paper's.

`src/deal_no_deal/deal_no_deal.py` and `deal_no_deal_metrics.py` are read by tasks/core/release_text.py (parsed with
`ast`, never imported): their f-strings become templates whose placeholders are the source expressions, filled by
`Template.render` over a namespace of what this task knows.
Reference game-theory-negotiation.md §7 describes the protocol the pieces belong to:
- game: the game description with the seat's item values (`Agent.game_setting`; `special` picks the variant with
  the Pareto / envy-freeness explanation, the code's --special_prompting);
- negotiate: the turn instruction (`initial_negotiation_message`); history: the heading of the earlier messages;
- said / replied: how Alice's and Bob's messages are logged ("... in round N: ...", `DealNoDeal.negotiation`);
- has_deal / summarize / message: the proposal extraction (`whether_new_deal_proposed`,
  `summarize_deal_basedon_message`); present: the closing question (`present_deal`);
- values: `translate_values` of the metrics module; system: the code's default `--system_prompt`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tasks.core.release_text import ReleaseError, ReleaseFile, Template, missing

RELEASE = "https://github.com/Wenyueh/game_theory"
GAME_FILE = "src/deal_no_deal/deal_no_deal.py"
METRICS_FILE = "src/deal_no_deal/deal_no_deal_metrics.py"
SAMPLE_FILE = "src/deal_no_deal/sampled_50_deal_no_deal.txt"
RELEASE_FILES = (GAME_FILE, METRICS_FILE, SAMPLE_FILE)
__all__ = ["PaperPrompts", "RELEASE", "RELEASE_FILES", "ReleaseError", "Template", "read_release"]


@dataclass(frozen=True)
class PaperPrompts:
    game: Template
    negotiate: Template
    history: Template
    said: str          # Alice's line, "{}" = the round
    replied: str       # Bob's line
    has_deal: Template
    summarize: Template
    message: Template
    present: Template
    values: Template
    system: str
    max_rounds: int


@lru_cache(maxsize=8)
def read_release(root: str, special: bool = False) -> PaperPrompts:
    """The prompt pieces from the checkout at `root`; ReleaseError naming the files and the release otherwise."""
    gone = missing(root, (GAME_FILE, METRICS_FILE))
    if gone:
        raise ReleaseError(f"{root} lacks {', '.join(gone)}: pass --paper-prompts PATH, a checkout of {RELEASE}")
    game, metrics = ReleaseFile(root, GAME_FILE, RELEASE), ReleaseFile(root, METRICS_FILE, RELEASE)
    fn = game.function
    # the messages appended to the history, Alice's line first ("... in round {}: ")
    lines = game.format_strings(fn("DealNoDeal.negotiation"), "previous_message.append")
    if len(lines) != 2:
        raise game.error("expected Alice's and Bob's message lines in DealNoDeal.negotiation")
    negotiate, summarize = fn("Agent.initial_negotiation_message"), fn("Agent.summarize_deal_basedon_message")
    return PaperPrompts(
        game=game.string(game.branch(fn("Agent.game_setting"), "self.args.special_prompting", special),
                         "self.game_description"),
        negotiate=game.string(negotiate, "negotiate_prompt"),
        history=game.string(negotiate, "previous_messages"),
        said=lines[0], replied=lines[1],
        has_deal=game.string(fn("Agent.whether_new_deal_proposed"), "whether_new_deal_proposed_prompt"),
        summarize=game.string(summarize, "proposal_summarizer_prompt"),
        message=game.string(summarize, "negotiation_message"),
        present=game.string(fn("Agent.present_deal"), "present_deal_prompt"),
        values=metrics.string(metrics.function("translate_values"), "text"),
        system=str(game.argparse_default("--system_prompt")),
        max_rounds=int(game.argparse_default("--max_negotiation_round")),
    )
