"""`--play` with a slow agent, for tests/test_terminal_live.py (run as a subprocess, stdin and stdout piped):
the toy game with a person in seat a and, in seat b, the toy agent whose act waits until the file named by argv[1]
exists (the test creates it), so the agent is thinking for as long as the test wants."""
import dataclasses
import os
import sys
import time

from tasks.core.evaluation import play_at_terminal
from tests.toygame import SPEC, ToyBrain

RELEASE = sys.argv[1]


class SlowBrain(ToyBrain):
    def act(self):
        while not os.path.exists(RELEASE):
            time.sleep(0.02)
        return super().act()


if __name__ == "__main__":
    spec = dataclasses.replace(SPEC, brains={**SPEC.brains, "slow": SlowBrain})
    sys.exit(play_at_terminal(spec, "a", 4, {"a": "toy", "b": "slow"}, {}, None, sys.argv[2], {}))
