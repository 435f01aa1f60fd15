"""Deal or No Deal (Lewis et al. 2017; Hua et al.'s "Game-theoretic LLM" §5) as a task of the bot suite."""
from tasks.core import Benchmark, CliOption, Preset, TaskSpec

from . import metrics
from .brains import BRAINS
from .game import DondGame
from .paper_prompt import RELEASE, RELEASE_FILES
from .reproduction import REPRODUCTION

# Reference §1 and §7: the release's models run at temperature 1.0 with at most 2,000 output tokens; up to 10 tries
# per answer (config.MAX_TRIAL); 20 rounds; its 50 sampled instances (44 played). The halting rule is the code's for
# GPT and o1 models ("both"; --option halt=either is its rule for Claude models).
PAPER = Preset(
    "paper",
    "Hua et al.'s protocol: the release's prompt text (--paper-prompts), free-text turns with offers extracted by a "
    "model call, halting and the present-deal ending, temperature 1.0, 20 rounds, its 50-instance file",
    options={"protocol": "paper", "halt": "both", "max_rounds": 20, "data": "paper"},
    brain_options={"sampling": {"*": {"temperature": 1.0, "max_tokens": 2000, "deadline": 300}}, "retries": 10},
    release_files=RELEASE_FILES, release=RELEASE)

DEFAULT = "bayes" if "bayes" in BRAINS else next(iter(BRAINS))

SPEC = TaskSpec(
    name="dond",
    title="Deal or No Deal",
    game_class=DondGame,
    # Values are private and instances repeat (released selections, `instance: K`): people's lines go through the
    # bot as addressed messages, never as public Slurk rows other rooms can read (task option chat: open switches back).
    chat="relay",
    instance_option="instance",
    brains=dict(BRAINS),
    default_brains=(DEFAULT, DEFAULT),
    population=("alice", tuple(n for n in BRAINS if n.startswith("person-"))),  # scripted people, brains/people.py
    # The paper's LLM self-play on envy-free instances: deals that are envy-free and Pareto optimal.
    benchmark=(Benchmark("llm-workflow pair", ("llm-workflow", "llm-workflow"), (), "EF&PO", "fraction"),
               Benchmark("llm pair", ("llm", "llm"), (), "EF&PO", "fraction")),
    summarize=metrics.summarize,
    per_game_columns=("deal", "alice_score", "bob_score", "total", "pareto_optimal", "envy_free", "ef_po", "rounds",
                      "best_total", "l1", "source", "line", "end"),
    roles={"alice": "Alice (moves first)", "bob": "Bob"},
    condition_keys=("hard",),
    presets={"paper": PAPER},
    reproduction=REPRODUCTION,  # `./run_bot.sh reproduce dond`: Tables 10-12, 17, 18 beside this run
    cli_options=(
        CliOption("--data", "data", str, "play released dialogues: a path to deal_no_deal_test.txt (the DND test "
                  "split) or sampled_50_deal_no_deal.txt (the paper's 50), 'default' ($DOND_DATA, else "
                  "../shared/data/dond/deal_no_deal_test.txt) or 'paper' (the paper's 50, from --paper-prompts "
                  "when given, else ../shared/data/dond/); the format is checked; with --games N the "
                  "first N selected instances, else all of them"),
        CliOption("--hard", "hard", str, "only the reference's hard cases with L1 distance <= d, e.g. L1<=4 "
                  "(duplicates, all-even counts and 'maximum covered' removed; generated instances too)"),
        CliOption("--max-rounds", "max_rounds", int, "rounds before the game ends without a deal (default 20)"),
        CliOption("--halt", "halt", str, "paper protocol: which 'halt negotiation' ends the talk: both (both messages "
                  "of a round, the release's rule for GPT models) or either (its rule for Claude models)",
                  ("both", "either")),
        CliOption("--ef-only", "ef_only", str, "released data: only instances with an envy-free split, as the paper "
                  "(default true)", ("true", "false")),
    ),
    renderer="tasks.dond.render:render_view",
    evaluator="tasks.dond.evaluate:evaluate",  # --games N / --data: the paper's Tables 9-18 layout
    layout="dond.json",
    state_element="dond-state",
    description=(
        "Alice and Bob divide books, hats and balls (5-7 items). Each has private values for the items (0-10 each, "
        "all items worth 10 to each of them) and sees only their own. They chat and make offers (/propose what "
        "they get, /accept, /reject); a deal is made when one accepts the other's standing offer; without a deal "
        "within 20 rounds both score 0."),
)
