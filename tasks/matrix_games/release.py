"""The wording the `paper` preset reads from the original release (Wenyueh/game_theory) at run time: the system
prompt with its personality slot and the six anti-negotiation prompts (the agent's other prompts: paper_wording.py).
The files are parsed with `ast` (never
imported, never copied into this project): the system prompt is the f-string the runner assigns to
`args.system_prompt`, the prompts are the int-keyed dict the agent assigns to `self.prompt_for_negotiate`.
"""
from __future__ import annotations

import ast
from functools import lru_cache

from tasks.core import release_text
from tasks.core.release_text import ReleaseError

RELEASE = "https://github.com/Wenyueh/game_theory"
SYSTEM_FILE = "src/simultaneous_game_main.py"
PROMPTS_FILE = "src/simultaneous_game_agent.py"
SEQUENTIAL_FILE = "src/sequential_game_agent.py"  # the tree games' agent (paper_wording.py)
WORKFLOW_FILE = "src/workflow_design.py"  # the LLM workflow (paper_workflow.py)
RELEASE_FILES = (SYSTEM_FILE, PROMPTS_FILE, SEQUENTIAL_FILE, WORKFLOW_FILE)
# The paper's "Prompt 1..6" (§6) in the code's keys: the code orders them differently (paper 3 = code 6, paper
# 4/5/6 = code 3/4/5; reference game-theory-negotiation.md §3).
PAPER_TO_CODE = {1: 1, 2: 2, 3: 6, 4: 3, 5: 4, 6: 5}
PERSONALITIES = ("rational", "compassionate", "friendly", "helpful", "pragmatic", "witty")  # the paper's §6 probe


def missing(root) -> list[str]:
    return release_text.missing(root, RELEASE_FILES)


def require(root, what: str) -> str:
    """The release checkout, or a ReleaseError naming the missing files and where to get them."""
    return release_text.require(root, RELEASE_FILES, RELEASE, what)


def _tree(root: str, rel: str) -> ast.Module:
    return release_text.ReleaseFile(root, rel, RELEASE).tree


def _target(node: ast.Assign, attr: str) -> bool:
    return any(isinstance(t, ast.Attribute) and t.attr == attr for t in node.targets)


@lru_cache(maxsize=8)
def system_template(root: str) -> str:
    """The runner's system prompt as a template with one `{personality}` slot."""
    for node in ast.walk(_tree(root, SYSTEM_FILE)):
        if isinstance(node, ast.Assign) and _target(node, "system_prompt") and isinstance(node.value, ast.JoinedStr):
            parts = node.value.values
            slots = [p for p in parts if isinstance(p, ast.FormattedValue)]
            if len(slots) == 1:
                return "".join(p.value.replace("{", "{{").replace("}", "}}") if isinstance(p, ast.Constant)
                               else "{personality}" for p in parts)
    raise ReleaseError(f"{SYSTEM_FILE} has no system prompt f-string with one slot (assigned to args.system_prompt); "
                       f"is it a checkout of {RELEASE}?")


@lru_cache(maxsize=8)
def negotiation_prompts(root: str) -> dict[int, str]:
    """The anti-negotiation prompts by the code's key (1..6), each with one `{}` slot for the partner's name."""
    for node in ast.walk(_tree(root, PROMPTS_FILE)):
        if isinstance(node, ast.Assign) and _target(node, "prompt_for_negotiate") and isinstance(node.value, ast.Dict):
            out = {}
            for k, v in zip(node.value.keys, node.value.values):
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and isinstance(v.value, str):
                    out[int(k.value)] = v.value
            if all(n in out for n in PAPER_TO_CODE.values()):
                return out
    raise ReleaseError(f"{PROMPTS_FILE} has no prompt_for_negotiate dict with keys 1..6; is it a checkout of "
                       f"{RELEASE}?")


def system_prompt(root, personality: str) -> str:
    return system_template(require(root, "The system prompt")).format(personality=personality)


def negotiation_prompt(root, number: int, partner: str, exact: bool = False) -> str:
    """The paper's anti-negotiation Prompt `number` (1..6, the paper's numbering) addressed to `partner`; `exact`
    keeps the release's spacing (its trailing newline), as the paper wording sends it."""
    if number not in PAPER_TO_CODE:
        raise ReleaseError(f"negotiation_prompt must be 0 (none) or the paper's Prompt 1..6, got {number!r}")
    text = negotiation_prompts(require(root, f"Anti-negotiation Prompt {number}"))[PAPER_TO_CODE[number]]
    text = text.replace("{}", partner)
    return text if exact else text.strip()
