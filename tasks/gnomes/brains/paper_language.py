"""The paper's language module (preset `paper` with `--paper-prompts PATH`, a checkout of the original release): its
message -> flag prompt and its inquiry prompt, read at run time from the release's
src/shared_control_language/aismcts_language_utils.py with `ast` (never imported, never copied: the wording is the
authors'), and its way of reading the flag answer (facts: ../shared/reference/gnomes-at-night.md §4).

- Flags: `chat_to_flag` sends a system message and a user prompt (a triple-quoted template filled with `.format(chat)`) and takes the LAST line
  of the free-text answer; every flag name found in it (STAY_PUT, RIGHT, UP, LEFT, DOWN, INQUIRY, ACCEPT, REJECT)
  is a candidate and one is drawn at random (seeded here); none found: no flag.
- Inquiries: `respond_inquiry` sends a system message and an f-string prompt with the token, the move taken now
  and the treasure (or that it is not seen), and uses the answer as it is.
"""
from __future__ import annotations

import ast
import random
from typing import Optional

from tasks.core.release_text import ReleaseError, ReleaseFile

RELEASE = "https://github.com/vivianchen98/shared_control_language"
RELEASE_FILE = "src/shared_control_language/aismcts_language_utils.py"
PAPER_FLAGS = {"STAY_PUT": "stay", "RIGHT": "right", "UP": "up", "LEFT": "left", "DOWN": "down",
               "INQUIRY": "Inquiry", "ACCEPT": "Accept", "REJECT": "Reject"}


def _function(root: str, name: str) -> ast.FunctionDef:
    return ReleaseFile(root, RELEASE_FILE, RELEASE).function(name)


def _assigned(fn: ast.FunctionDef, name: str) -> ast.expr:
    value = next(ReleaseFile.assigned(fn, name), None)
    if value is None:
        raise ReleaseError(f"{fn.name} of the release assigns no {name}")
    return value


def _system(fn: ast.FunctionDef) -> str:
    """The "content" of the request's system message."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Dict):
            d = {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
            role, content = d.get("role"), d.get("content")
            if isinstance(role, ast.Constant) and role.value == "system" and isinstance(content, ast.Constant):
                return str(content.value)
    raise ReleaseError(f"{fn.name} of the release sends no system message")


def flag_messages(root: str, chat: str) -> list[dict]:
    fn = _function(root, "chat_to_flag")
    prompt = _assigned(fn, "prompt")  # a string constant .format(chat)
    if not (isinstance(prompt, ast.Call) and isinstance(prompt.func, ast.Attribute) and prompt.func.attr == "format"
            and isinstance(prompt.func.value, ast.Constant)):
        raise ReleaseError("chat_to_flag's prompt is no longer a template filled with .format(chat)")
    return [{"role": "system", "content": _system(fn)},
            {"role": "user", "content": str(prompt.func.value.value).format(chat)}]


def read_flag(answer: str, rng: random.Random) -> Optional[str]:
    """Our flag name for the answer's last line, as the release reads it (a seeded draw among several)."""
    last = (answer or "").split("\n")[-1]
    found = [k for k in PAPER_FLAGS if k in last]
    return PAPER_FLAGS[rng.choice(found)] if found else None


def inquiry_messages(root: str, chat: str, token, action: int, treasure) -> list[dict]:
    """The release's inquiry prompt for a question `chat` at `token`, the move `action` (0-4) taken now and the
    treasure (None when this side does not see it)."""
    fn = _function(root, "respond_inquiry")
    seen = _assigned(fn, "treasure_msg")
    if not isinstance(seen, ast.IfExp):
        raise ReleaseError("respond_inquiry's treasure_msg is no longer a conditional")
    values = {"token": str(list(token)), "action": str(action), "chat": chat,
              "treasure": str(list(treasure)) if treasure is not None else ""}
    treasure_msg = _fill(seen.body, values) if treasure is not None else _fill(seen.orelse, values)
    return [{"role": "system", "content": _system(fn)},
            {"role": "user", "content": _fill(_assigned(fn, "prompt"), {**values, "treasure_msg": treasure_msg})}]


def _fill(node: ast.expr, values: dict) -> str:
    """A literal or an f-string of the release with its fields named by what they show (`info['token']...`
    -> the token, `action`, `chat`, `treasure_msg`, `info['treasure']...` -> the treasure)."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if not isinstance(node, ast.JoinedStr):
        raise ReleaseError("a prompt of the release is no longer a string")
    out = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            out.append(str(v.value))
            continue
        source = ast.unparse(v.value)
        key = next((k for k in ("treasure_msg", "token", "treasure", "action", "chat") if k in source), None)
        if key is None:
            raise ReleaseError(f"a prompt field of the release this reader does not know: {source}")
        out.append(values[key])
    return "".join(out)
