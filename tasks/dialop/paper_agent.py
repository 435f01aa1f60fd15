"""The DialOp paper's LLM agent (Lin et al. 2023; the release's players.py, play_gpt3.py and evaluate.py), one
implementation for Assignment, Planning and Mediation; each task's `brains/paper.py` says what its seats read and
write (`PaperBrain` hooks below).

Prompt (one text, sent as the only message of a chat request): the release's few-shot file for the task and role,
read at run time from `<paper_prompts>/dialop/prompts/<file>` (a checkout of the original repository: the project
never bundles its wording), then the seat's context as the release's templates render a game's first observation,
then the dialogue history one line per move in the release's format ("You: [message] ...", "Partner: [propose]
...", a refused move followed by "Error: ..."), then the turn prefix ("\\nYou:"; the mediation assistant's
"\\nYou to", so it writes " 0: [message] ..."). The model writes one line a turn: `[message] text`, `[propose]
...`, `[accept]`, `[reject]`, and where the release's protocol has them (Planning) `[think] ...` (kept in the
prompt; the model is asked again) and `[tool] Search(...)` (our game's /search: its private result comes back as
the next lines of the prompt).

The release's stop words end the answer ("\n", "You", the other speakers' names), applied here to the answer's
text rather than sent: a chat model may open its answer with a line break or by repeating the "You:" it was given,
which the release's completion model, writing on after "You:", never did; both are skipped, then the answer ends
at the first stop word, exactly where the release's model would have been stopped. (Sending them would end such an
answer before its first word; the cost is up to 128 answer tokens a call instead of one line's.)

Sampling as the paper (brain option `sampling`, set by each task's `paper` preset): temperature 0.1, top_p 0.95,
max_tokens = min(4096 - prompt tokens, 128), the prompt's tokens counted as the release
counted them, with cl100k_base (tasks/core/tokens.py; the model's own tokenizer may differ: the server's count is
in the act's figures). Over the window, the release's optional span is cut once (Assignment: the first example;
the mediation assistant: the example's "User 0 Information" block); still over, the act is invalid. An answer that
is no line of the seat's protocol is sampled again, 3 samples in all (evaluate.py's loop: `while resample and
resample_cnt < 3`), each its own call inside the same LLM act; then the act is invalid. There is no fallback: under `strict_llm` (the paper
preset) an invalid act ends the game "invalid" (the release re-ran such games), else the seat waits.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple, Optional

from tasks.core import Brain, ChatShown, Message, View
from tasks.core.tokens import count as count_tokens

RELEASE = "https://github.com/jlin816/dialop"
PROMPTS_DIR = "dialop/prompts"
CONTEXT_TOKENS = 4096   # text-davinci-003's window, which the release's max_tokens formula assumes
ATTEMPTS = 3            # samples of one turn's line (evaluate.py)
MAX_STEPS = 15          # model lines a seat: the release stopped a game after 30 (45 in Mediation, 3 seats)
MAX_THINKS = 3          # [think] lines in a row before the act counts as invalid (ours: the release had no cap)

_LINE = re.compile(r"^(?:(?P<to>0|1|all)\s*:\s*)?\[(?P<kind>[A-Za-z]+)\](?P<body>.*)$")


def by_protocol(ours: type, paper: type):
    """The factory of a task's `llm` agent: the paper's agent when brain option `protocol` is "paper" (set by the
    task's `paper` preset), else ours (the JSON-act agent, the default)."""
    def make(seat, seed=0, llm=None, options=None):
        cls = paper if (options or {}).get("protocol") == "paper" else ours
        return cls(seat, seed, llm, options)
    make.name, make.uses_llm, make.needs_llm = ours.name, True, True
    make.__doc__ = ours.__doc__
    return make


class PaperPromptsMissing(FileNotFoundError):
    """The release's prompt files are not under the given path."""


def release_files(*names: str) -> tuple[str, ...]:
    """The paths (relative to a checkout of the release) of the prompt files `names`."""
    return tuple(f"{PROMPTS_DIR}/{n}" for n in names)


def read_prompt(root: Optional[str], name: str) -> str:
    """The text of the release's prompt file `name`; PaperPromptsMissing naming the file and the release when the
    checkout is not given or lacks it."""
    rel = release_files(name)[0]
    if not root:
        raise PaperPromptsMissing(f"the DialOp paper agent reads {rel} from a checkout of {RELEASE}: pass "
                                  "--paper-prompts PATH (the folder holding dialop/)")
    path = Path(root) / rel
    if not path.is_file():
        raise PaperPromptsMissing(f"{path} is missing: --paper-prompts must name a checkout of {RELEASE} "
                                  f"(it needs {rel})")
    return path.read_text(encoding="utf-8")


class Line(NamedTuple):
    kind: str          # message, propose, accept, reject, think, tool
    body: str
    to: Optional[str]  # the mediation assistant's recipient: "0", "1" or "all"


class LineError(ValueError):
    """An answer that is no line of the seat's protocol (it is sampled again)."""


def parse_line(answer: str, kinds: tuple[str, ...], recipient: bool = False) -> Line:
    """The first non-empty line of `answer` as a protocol line; LineError says why it is not one (the release's
    `_parse_message` checks: a known type, a body except for accept/reject, a recipient where one is needed)."""
    text = next((ln.strip() for ln in (answer or "").splitlines() if ln.strip()), "")
    m = _LINE.match(text)
    if m is None:
        raise LineError(f"not a protocol line: {text[:80]!r}")
    kind, body, to = m["kind"].lower(), m["body"].strip(), m["to"]
    if kind not in kinds:
        raise LineError(f"[{kind}] is not a move of this role ({', '.join(kinds)})")
    if recipient and to is None:
        raise LineError("a recipient (0:, 1: or all:) is needed")
    if recipient and (to == "all") != (kind == "propose"):
        raise LineError("proposals go to all, messages to one user")
    if kind not in ("accept", "reject") and not body:
        raise LineError(f"[{kind}] needs a text")
    return Line(kind, body, to)


class PaperBrain(Brain):
    """The paper's agent for one seat. A task's subclass sets `prompt_files` (seat -> file name), `kinds` (seat ->
    line types), `stops` (seat -> stop words) and implements `context`, `moves` and `wants_turn`; `speaker`,
    `view_lines` and `message_lines` turn what the seat perceives into history lines."""

    name = "llm-paper"
    uses_llm = True
    needs_llm = True
    prompt_files: dict = {}
    kinds: dict = {}
    stops: dict = {}
    prefix = "\nYou:"
    recipient = False   # the seat's lines name a recipient (the mediation assistant)
    max_steps = MAX_STEPS

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.fewshot = read_prompt(self.options.get("paper_prompts"), self.prompt_files[seat])
        self.history: list[str] = []
        self.news = True          # something new to answer (the first turn counts as news)
        self.steps = 0            # model lines this game
        self.last_line = ""       # the line last sent as a move (shown again with the game's error)
        self.optional_cut = False

    # --- what the seat perceives ------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View):
            old, self.view = self.view, effect.data
            lines = self.view_lines(old or {}, effect.data)
        elif isinstance(effect, ChatShown):
            lines = [f"{self.speaker(effect)}: [message] {effect.text}"]
        elif isinstance(effect, Message) and effect.kind == "error" and effect.to == self.seat:
            mine = f"You: {self.last_line}"
            lines = [mine] if self.last_line and (self.history or [""])[-1] != mine else []
            lines.append(f"Error: {effect.text}")
        elif isinstance(effect, Message):
            lines = self.message_lines(effect)
        else:
            return
        self.history += lines
        # news: a line of someone else's (or the game's); the seat's own moves come back too and are no news
        self.news = self.news or any(not ln.startswith("You") for ln in lines)

    def speaker(self, chat: ChatShown) -> str:
        return "You" if chat.seat == self.seat else "Partner"

    def view_lines(self, old: dict, new: dict) -> list[str]:
        """History lines a change of the seat's view stands for (proposals and answers; one string a move, its
        continuation lines inside)."""
        return []

    def message_lines(self, message: Message) -> list[str]:
        """History lines a game message stands for (e.g. a search's private result)."""
        return []

    # --- the prompt -------------------------------------------------------------------------------------------
    def context(self) -> str:
        """The seat's first observation as the release's template renders it."""
        raise NotImplementedError

    def optional_span(self, fewshot: str) -> str:
        """The part of the few-shot file the release cut out once when a prompt overflowed ('' = none)."""
        return ""

    def prompt(self) -> str:
        history = "".join("\n" + ln for ln in self.history)
        return self.fewshot + self.context().rstrip() + history + self.prefix

    def _fit(self) -> tuple[str, int]:
        """The prompt and the room left for the answer in the window (cutting the optional span once)."""
        text = self.prompt()
        left = int(self.options.get("context_tokens", CONTEXT_TOKENS)) - count_tokens(text)
        span = self.optional_span(self.fewshot)
        if left < 1 and span and not self.optional_cut:
            self.fewshot = self.fewshot.replace(span, "", 1)
            self.optional_cut = True
            self.note("paper_prompt_cut", span_chars=len(span))
            return self._fit()
        return text, left

    # --- acting -----------------------------------------------------------------------------------------------
    def wants_turn(self) -> bool:
        """Whether the seat may move now (its turn, or an answer it owes)."""
        raise NotImplementedError

    def moves(self, line: Line) -> list:
        """The game inputs of a parsed line (LineError when its form is not the protocol's). What the game refuses
        (a site it does not have, a proposal out of turn) comes back as an "Error:" line and the seat moves again,
        as the release appended its GameErrors to the prompt."""
        raise NotImplementedError

    def act(self):
        v = self.view
        if v is None or v.get("result") is not None or not self.wants_turn():
            return []
        if v.get("turn") is None and not self.news:
            return []  # free chat: answer what is new (with alternating turns, the turn itself is the cue)
        if self.steps >= int(self.options.get("max_steps", self.max_steps)):
            return []
        self.news = False
        if self.llm is None:
            act = self.llm_missing("turn")
            self._invalid(act, "no LLM configured")
            return []
        act = None
        try:
            with self.llm_act("turn") as act:
                return self._turn(act)
        except Exception as exc:  # the endpoint failed (after the client's retries): no move, no fallback
            return self._invalid(act, f"{type(exc).__name__}: {exc}"[:300])

    def _turn(self, act) -> list:
        thinks = 0
        while True:
            text, left = self._fit()
            if left < 1:
                return self._invalid(act, f"the prompt fills the {self.options.get('context_tokens', 4096)}-token "
                                          "window")
            line, error = None, ""
            for _ in range(int(self.options.get("attempts", ATTEMPTS))):
                answer = self.cut(self._call(act, text, left))
                try:
                    line = parse_line(answer, self.kinds[self.seat], self.recipient)
                    moves = [] if line.kind == "think" else self.moves(line)
                    break
                except LineError as exc:
                    line, error = None, str(exc)
            if line is None:
                return self._invalid(act, f"no protocol line in {int(self.options.get('attempts', ATTEMPTS))} "
                                          f"samples ({error})")
            self.steps += 1
            shown = f"{line.to}: [{line.kind}] {line.body}" if line.to else f"[{line.kind}] {line.body}".rstrip()
            if line.kind == "think":
                thinks += 1
                self.history.append(f"You: {shown}")
                if thinks > MAX_THINKS:
                    return self._invalid(act, f"{MAX_THINKS} [think] lines without a move")
                continue
            if line.kind == "tool":
                self.history.append(f"You: {shown}")  # the result follows as the game's private message
            self.last_line = shown
            return moves

    def _call(self, act, text: str, left: int) -> str:
        sampling = dict(self.sampling("turn"))
        sampling["max_tokens"] = max(1, min(left, int(sampling.get("max_tokens") or 128)))
        return self.llm.chat([{"role": "user", "content": text}], usage=act, **sampling)

    def cut(self, answer: str) -> str:
        """The answer as the release's stop words would have ended it, after any line breaks and an echo of the
        turn prefix ("You:", "You to") at its start."""
        text = (answer or "").lstrip()
        label = self.prefix.strip()
        if text.startswith(label):
            text = text[len(label):]
        ends = [i for i in (text.find(w) for w in self.stops.get(self.seat, ())) if i >= 0]
        return text[:min(ends)] if ends else text

    def _invalid(self, act, error: str) -> list:
        """The act gave no move: invalid, never a fallback (strict mode: the game ends invalid)."""
        act.valid = False
        act.error = error
        if self.strict_llm:
            act.failed = True
        self.note("llm_failed" if self.strict_llm else "llm_invalid", error=error)
        return []
