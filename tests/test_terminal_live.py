"""`./run_bot.sh TASK --play`: while an agent thinks, the terminal says so and answers the person's own commands
(/help), as the Slurk page does; the agent's move arrives when its act ends. Driven through pipes, with an agent
that thinks until the test lets it go (tests/terminal_play.py)."""
from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATIENCE = 60.0  # seconds to wait for a line before the test fails (not a speed target)


class Terminal:
    def __init__(self, proc: subprocess.Popen):
        self.proc, self.seen = proc, ""

    def until(self, text: str, after: str = "") -> str:
        """Everything printed up to `text` (printed after `after`); AssertionError when it does not come."""
        end = time.monotonic() + PATIENCE
        while text not in self.seen[self.seen.find(after) + len(after) if after in self.seen else len(self.seen):]:
            left = end - time.monotonic()
            assert left > 0 and self.proc.poll() is None, f"never printed {text!r}; printed:\n{self.seen}"
            if select.select([self.proc.stdout], [], [], min(left, 1.0))[0]:
                self.seen += os.read(self.proc.stdout.fileno(), 4096).decode("utf-8", "replace")
        return self.seen

    def type(self, line: str) -> None:
        self.proc.stdin.write(f"{line}\n".encode())
        self.proc.stdin.flush()


def test_help_is_answered_while_the_agent_thinks_and_its_move_comes_after(tmp_path):
    release = tmp_path / "release"
    proc = subprocess.Popen([sys.executable, "-u", "-m", "tests.terminal_play", str(release), str(tmp_path / "out")],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    term = Terminal(proc)
    try:
        term.until("(B is thinking…)")
        term.type("/help")
        shown = term.until("/help: this list")
        assert "b proposes" not in shown  # the agent is still thinking: /help did not wait for its turn
        release.touch()
        term.until("b proposes")
        shown = term.until("\nA> ", after="b proposes")  # the prompt again, under the agent's lines
        assert "A> B:" not in shown and "A> (B is" not in shown  # no line follows the waiting prompt on its line
        term.type("/quit")
        term.until("you left the game")
        assert proc.wait(timeout=PATIENCE) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
