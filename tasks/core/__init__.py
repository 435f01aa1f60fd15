"""The game core shared by every task: inputs and effects, the match, shared mechanisms, brains, the driver."""
from .brain import Brain
from .builder import brain_seed, build_match
from .codes import CompletionConfig, new_code
from .driver import MatchDriver
from .game import Context, Game, esc
from .match import Match, SeatInfo, TimerConfig
from .mechanisms import CommitReveal, Proposal, ProposalCycle, RuleError, SubmitGate
from .turns import ChatTurns, Phases, TurnBudget, TurnOrder, WordBudget
from . import wording
from .results import RESULT_KEYS, complete_results, schema_problems
from .protocol import (
    Abort, Action, AgentUsage, CancelTimer, Chat, ChatShown, Command, Effect, GameOver, Input, Join, Leave, LogEvent, Message,
    SetText, SetTimer, TimerFired, View, addressed_to, effect_to_json, input_from_json, input_to_json,
    parse_command_text,
)
from .presets import Preset, PresetError, resolve_preset
from .spec import Benchmark, CliOption, TaskSpec

__all__ = [name for name in dir() if not name.startswith("_")]
