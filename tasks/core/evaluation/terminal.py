"""A person at the terminal while agents think (`./run_bot.sh TASK --play`), as on the Slurk page: each agent's act
runs in a worker thread (the driver's split API: `next_brain`, `think`, `apply_moves`), the person's lines are read
meanwhile and handled at once (`/help` and the other commands the game answers without a turn), and an act still
under way after `SHOW_AFTER` seconds is announced as "(<seat> is thinking…)".

Everything that touches the match runs on the calling thread, in the order events arrive: the person's lines, the
agents' finished acts. The next line is asked for only after the previous one was handled, so `ask` is never
called ahead of the game.
"""
from __future__ import annotations

import queue
import threading
import traceback
from typing import Callable, Optional

from tasks.core import MatchDriver
from tasks.core.driver import Thought

SHOW_AFTER = 0.5  # seconds an act must take before the terminal says the agent is thinking (as the Slurk page)
QUIT_WORDS = ("/quit", "/exit")  # the terminal's own: they never reach the game


class PromptLine:
    """The builtin input() shows its prompt on stdout, and lines printed while it waits would follow the prompt on
    its line: those start on a fresh line instead, and the prompt is shown again after them (`settle`)."""

    def __init__(self, show: Callable[[str], None], write: Callable[[str], object]):
        self.show, self.write = show, write
        self.waiting: Optional[str] = None  # the prompt on the screen while input() waits for a line
        self._moved = False

    def line(self, text: str) -> None:
        if self.waiting is not None and not self._moved:
            self.write("\n")
            self._moved = True
        self.show(text)

    def settle(self) -> None:
        if self.waiting is not None and self._moved:
            self.write(self.waiting)
        self._moved = False


class LiveTerminal:
    """One person's seat: `run(first_batches)` plays until the game ends, the person leaves, or input ends."""

    def __init__(self, driver: MatchDriver, seat: str, names: dict[str, str], ask: Callable[[str], str],
                 deliver: Callable[[list], None], say: Callable[[str], None], parse: Callable[[str], object],
                 screen: Optional[PromptLine] = None):
        self.driver, self.seat, self.names, self.screen = driver, seat, names, screen
        self.ask, self.deliver, self.say, self.parse = ask, deliver, say, parse
        self.events: "queue.Queue[tuple]" = queue.Queue()
        self._want_line = threading.Event()
        self._acts = 0  # numbers the acts, so a late "still thinking" signal of a finished act is ignored
        self._running: dict[str, int] = {}

    def run(self) -> None:
        threading.Thread(target=self._read, name="terminal-input", daemon=True).start()
        self._start_agents()
        self._want_line.set()
        while not self.driver.match.over:
            kind, data = self.events.get()
            if kind == "line":
                if data.strip().lower() in QUIT_WORDS:
                    self.say("(you left the game; it was not finished)")
                    return
                inp = self.parse(data)
                if inp is not None:
                    for batch in self.driver.feed(inp, act=False):
                        self.deliver(batch)
                self._start_agents()
                self._want_line.set()
            elif kind == "thought":
                self._running.pop(data.seat, None)
                for batch in self.driver.apply_moves(data):
                    self.deliver(batch)
                self._start_agents()
            elif kind == "slow":
                seat, act = data
                if self._running.get(seat) == act:
                    self.say(f"({self.names[seat]} is thinking…)")
            elif kind == "end":
                raise data
            if self.screen:
                self.screen.settle()

    def _read(self) -> None:
        prompt = f"{self.names[self.seat]}> "
        while True:
            self._want_line.wait()
            self._want_line.clear()
            if self.screen:
                self.screen.waiting = prompt
            try:
                line = self.ask(prompt)
            except (EOFError, KeyboardInterrupt) as exc:
                self.events.put(("end", exc))
                return
            finally:
                if self.screen:
                    self.screen.waiting = None
            self.events.put(("line", line))

    def _start_agents(self) -> None:
        """Every woken agent starts its act in a thread of its own; its result comes back as an event."""
        while (seat := self.driver.next_brain()) is not None:
            self._acts += 1
            self._running[seat] = self._acts
            threading.Thread(target=self._think, args=(seat,), name=f"agent-{seat}", daemon=True).start()
            timer = threading.Timer(SHOW_AFTER, self.events.put, (("slow", (seat, self._acts)),))
            timer.daemon = True
            timer.start()

    def _think(self, seat: str) -> None:
        try:
            thought = self.driver.think(seat)
        except Exception as exc:  # an agent that crashed: logged as its act's error, the game goes on
            thought = Thought(seat, error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
        self.events.put(("thought", thought))
