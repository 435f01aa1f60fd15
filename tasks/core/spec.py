"""What a task declares so that every runtime (local, Slurk, replay, setup) can serve it without special cases.

A task folder `tasks/<task>/` has the shape tasks/README.md describes (`game.py`, `generator.py`, `parse.py`,
`render.py`, `metrics.py`, `brains/`, ...) and `spec.py` with `SPEC = TaskSpec(...)` tying them together. Its page is
`layouts/<layout>` with the plugins that layout names (`TaskSpec.plugins` reads them from it).
"""
from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from .brain import Brain
from .game import Game
from .reproduction import Reproduction


CHAT_MODES = ("open", "relay")
LAYOUTS_DIR = Path(__file__).resolve().parents[2] / "layouts"


def layout_plugins(layout: dict) -> tuple[str, ...]:
    """Our plugin files a Slurk layout names (scripts of every trigger, then `plugins_css`), each once, in order;
    Slurk's stock plugins (names without .js) and URLs are not ours."""
    scripts = layout.get("scripts") or {}
    named = [s for v in scripts.values() for s in ([v] if isinstance(v, str) else v or [])]
    named += list(layout.get("plugins_css") or [])
    ours = [s for s in named if isinstance(s, str) and s.endswith((".js", ".css")) and ":" not in s]
    return tuple(dict.fromkeys(ours))


def instance_fingerprint(instance: Any) -> str:
    """A short digest of an instance's JSON: two rooms with the same one play the same private values."""
    text = json.dumps(instance, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _load_function(ref: str) -> Optional[Callable]:
    """The function a "module:function" reference names; None for ""."""
    if not ref:
        return None
    module, _, fn = ref.partition(":")
    return getattr(importlib.import_module(module), fn)


def _flag(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class CliOption:
    """A task's own command-line option: `--flag VALUE` sets task option `key` (e.g. travel's --rooms, --boards)."""

    flag: str                      # "--rooms"
    key: str                       # task option name, "rooms"
    type: Callable[[str], Any] = str
    help: str = ""
    choices: Optional[tuple] = None


@dataclass(frozen=True)
class Benchmark:
    """One row of `./run_bot.sh benchmark`: the task's LLM agent in a set-up of its paper, and the main metric.

    `score` maps the summary column `metric` onto 0..1 (1 best) for the combined score: "fraction" (already 0..1),
    "percent" (0..100), "inverse" (a ratio to the optimum, >= 1, lower better: 1/x)."""

    label: str                     # e.g. "problem-solving vs solver, preset boards"
    agents: tuple[str, ...]        # one per seat
    options: tuple = ()            # task options as (key, value) pairs
    metric: str = "completed %"    # a column of the task's summary table
    score: str = "percent"


@dataclass
class TaskSpec:
    name: str                                   # CLI name, e.g. "travel"
    title: str                                  # shown to people
    game_class: type[Game]
    # brain name -> factory(seat, seed, llm, options) -> Brain
    brains: dict[str, Callable[..., Brain]] = field(default_factory=dict)
    default_brains: tuple[str, ...] = ()        # one per seat, for the embedded default game
    # seat -> brains that may sit there (a user simulator never takes an assistant's seat); missing seat = all
    seat_brains: dict[str, tuple[str, ...]] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)  # seat -> what that seat is, for people and docs
    # Summarise finished games' results (one dict per game) into named columns for the metrics table.
    summarize: Optional[Callable[[list[dict]], dict]] = None
    # Columns printed per game in --games runs (keys of Game.results()).
    per_game_columns: tuple[str, ...] = ()
    # The experiment grid: task option -> values; `--grid` plays every combination and the table gets one row per
    # condition. `condition_keys` are the options that tell conditions apart in a mixed set of games (replay).
    grid: dict[str, tuple] = field(default_factory=dict)
    condition_keys: tuple[str, ...] = ()
    cli_options: tuple[CliOption, ...] = ()
    renderer: str = ""                          # "module:function" drawing a view as HTML (transcripts)
    # "module:function"(spec, RunRequest) -> exit code, or None for an ordinary run: a task's own evaluation of
    # some local runs (a paper's table layout), `tasks.core.evaluation.RunRequest` saying what was asked.
    evaluator: str = ""
    layout: str = ""                            # file name under layouts/ (or a path); empty: <name>.json
    state_element: str = ""                     # page element whose text carries the seat's view as JSON
    # With `Game.page_shared`: the element whose text carries the part every seat's page shares (state_element then
    # carries the seat's own part), and the Python twin of the page script's combine(shared, own) -> view(seat)
    # without "core" (tests and tools read pages with it; tasks/core/pages.py).
    shared_element: str = ""
    combine_page: Optional[Callable[[dict, dict], dict]] = None
    description: str = ""
    # The partner population for `--population`: (seat the partners take, brain names that behave like different
    # people: terse, chatty, typos, never sharing, insisting, ...). The evaluated agent takes the other seat(s).
    population: tuple = ()
    # `./run_bot.sh benchmark`: the task's LLM agents in its paper's set-ups (Benchmark rows), with the main metric.
    benchmark: tuple = ()
    # Task options a study on Slurk starts from (`setup`; the researcher's --option / task_options override them):
    # the paper's set-up where the game's own defaults differ from it (e.g. negotiation rounds).
    study_options: dict = field(default_factory=dict)
    # How people chat when the task is served on Slurk: "open" (Slurk shows each line to the room itself) or "relay"
    # (each line goes privately to the bot, which shows it to the room's members as addressed messages). Empty: the
    # game's own policy (`Game.chat`). Slurk lets any participant read every room's public rows (slurk-protocol.md
    # §8), so tasks whose lines can reveal private values of an instance that other rooms may play relay by default;
    # task option `chat: open` switches back where the rules allow it (`chat_mode`).
    chat: str = ""
    # The task option that pins the instance whatever the room's seed (e.g. dond's `instance: K`), if any.
    instance_option: str = ""
    # The paper's LLM table for `./run_bot.sh reproduce` (tasks/core/reproduction.py); None: the task has none.
    reproduction: Optional[Reproduction] = None
    # Named option sets (`--preset NAME`, tasks/core/presets.py): at least "paper", its paper's protocol; "ours"
    # (the defaults) is implicit.
    presets: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        rules = getattr(self.game_class, "chat", "open")
        if not self.chat:
            self.chat = rules
        if self.chat not in CHAT_MODES or (rules == "relay" and self.chat != "relay"):
            raise ValueError(f"{self.name}: chat must be one of {CHAT_MODES} (and 'relay' when the game relays)")
        if self.reproduction is not None:
            self.reproduction.check(self)

    @property
    def seats(self) -> tuple[str, ...]:
        return self.game_class.seats

    @property
    def plugins(self) -> tuple[str, ...]:
        """File names under plugins/ that the task's page uses: the ones its layout names (written only there)."""
        path = Path(self.layout or f"{self.name}.json")
        if not (path.suffix == ".json" and path.is_file()):
            path = LAYOUTS_DIR / path
        try:
            return layout_plugins(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return ()

    def chat_mode(self, options: Optional[dict] = None) -> str:
        """The chat mode a room with these task options uses: option `chat` ("open" / "relay"), else `self.chat`.
        Raises ValueError for an unknown mode, or "open" for a game whose rules need the relay."""
        mode = (options or {}).get("chat") or self.chat
        if mode not in CHAT_MODES:
            raise ValueError(f"task option chat must be one of {', '.join(CHAT_MODES)}, not {mode!r}")
        if mode == "open" and getattr(self.game_class, "chat", "open") == "relay":
            raise ValueError(f"{self.name} relays every line by its rules (who may talk, when, to whom): chat: open "
                             "is not possible")
        return mode

    def fresh_instance(self, seed: int, options: dict, taken, new_seed: Callable[[], int], tries: int = 20):
        """(seed, options, instance, fingerprint) of an instance whose fingerprint is not in `taken` (the instances
        of the rooms open now): other seeds are tried, and a pinned instance (`instance_option`) that is taken is
        unpinned (`pin_dropped` in the returned options says so). `options["shared_instance"]` true skips the check.
        The last try is returned when every one is taken (a tiny instance pool): the caller says so."""
        options = dict(options)
        instance = self.generate(seed, options)
        fp = instance_fingerprint(instance)
        if _flag(options.get("shared_instance")):
            return seed, options, instance, fp
        for _ in range(tries):
            if fp not in taken:
                break
            if self.instance_option and options.get(self.instance_option) not in (None, ""):
                options["pin_dropped"] = options.pop(self.instance_option)
            seed = new_seed()
            instance = self.generate(seed, options)
            fp = instance_fingerprint(instance)
        return seed, options, instance, fp

    def generate(self, seed: int, options: Optional[dict] = None) -> dict:
        return self.game_class.generate(seed, dict(options or {}))

    def brains_for(self, seat: str) -> tuple[str, ...]:
        return tuple(self.seat_brains.get(seat, tuple(self.brains)))

    def check_brain(self, name: str, seat: str) -> None:
        if name not in self.brains:
            raise ValueError(f"unknown agent {name!r} for {self.name}; choose from {', '.join(self.brains)}")
        if name not in self.brains_for(seat):
            raise ValueError(f"agent {name!r} cannot take seat {seat!r} of {self.name}; "
                             f"that seat takes {', '.join(self.brains_for(seat))}")

    def wants_llm(self, name: str, options: Optional[dict] = None, seat: Optional[str] = None) -> bool:
        """Whether agent `name` is given the LLM: an LLM agent (class attribute `uses_llm` or `needs_llm`), or a
        symbolic one asked to read chat through it (brain option `reader`: "llm"; `SEAT.reader` for one seat, read
        when `seat` is given). Symbolic agents never call a model unless asked, so a table's "solver" is the solver
        alone."""
        factory = self.brains.get(name)
        options = for_seat(options or {}, seat) if seat else (options or {})
        return bool(getattr(factory, "uses_llm", False) or getattr(factory, "needs_llm", False)
                    or options.get("reader") == "llm")

    def llm_reader_seats(self, agents: dict, options: Optional[dict] = None) -> set:
        """Seats whose symbolic agent really reads through the LLM (brain option `reader` or `SEAT.reader`: "llm"),
        for the " (llm reader)" label."""
        return {s for s, a in agents.items() if not self.wants_llm(a) and self.wants_llm(a, options, s)}

    def check_seat_options(self, options: dict) -> None:
        """A `SEAT.KEY` brain option names a seat of this task (else the option would silently go nowhere)."""
        wrong = sorted(k for k in options or {} if "." in k and k.split(".", 1)[0] not in self.seats)
        if wrong:
            raise ValueError(f"brain option {wrong[0]!r}: {wrong[0].split('.', 1)[0]!r} is no seat of {self.name} "
                             f"(seats: {', '.join(self.seats)}; SEAT.KEY=VALUE sets KEY for that seat only)")

    def make_brain(self, name: str, seat: str, seed: int, llm=None, options: Optional[dict] = None) -> Brain:
        """The one place brains are built (every runtime goes through `build_match`): the LLM only where
        `wants_llm`; the brain gets the options as its seat sees them (`for_seat`)."""
        self.check_brain(name, seat)
        self.check_seat_options(options or {})
        options = for_seat(options or {}, seat)
        return self.brains[name](seat, seed, llm if self.wants_llm(name, options) else None, options)

    def load_renderer(self) -> Optional[Callable[[dict], str]]:
        return _load_function(self.renderer)

    def load_evaluator(self) -> Optional[Callable[..., Optional[int]]]:
        return _load_function(self.evaluator)

    def condition_of(self, options: dict) -> dict:
        keys = self.condition_keys or tuple(self.grid)
        return {k: options.get(k) for k in keys}


def for_seat(options: dict, seat: str) -> dict:
    """Brain options as seat `seat` gets them: `KEY` for every seat, `SEAT.KEY` for that seat only (it wins over
    `KEY`); other seats' keys are left out."""
    prefix = f"{seat}."
    mine = {k[len(prefix):]: v for k, v in options.items() if k.startswith(prefix)}
    return {**{k: v for k, v in options.items() if "." not in k}, **mine}
