"""What one input may be before any rule sees it: the length of a chat line and of a command's arguments, and the
size, depth and values of a page action (checked without recursion, so no nesting can exhaust the stack)."""
from __future__ import annotations

from typing import Optional

MAX_CHAT_CHARS = 4000
MAX_ACTION_BYTES = 4096
MAX_ARGS = 32  # arguments of a command; items of any list or object in a page action
# Checked before any parsing, so no parser ever sees a longer string. The longest honest argument a task page sends
# is about 150 characters (an assignment proposal naming all eight pairs); a typed command's arguments are words.
MAX_ARG_CHARS = 400  # every argument of a command, every string (and key) anywhere in a page action
MAX_NAME_CHARS = 40  # a command's name
MAX_ACTION_DEPTH = 4  # nesting of a page action (the pages send {"command": .., "args": [..]}: depth 2)


def check_payload(payload) -> Optional[str]:
    """Why a page action is refused before any parsing (None: it may be handled). Walked without recursion, so no
    nesting can exhaust the stack; every string and key is bounded, so no parser sees a long one."""
    if not isinstance(payload, dict):
        return "expected a JSON object"
    todo, size = [(payload, 1)], 0
    while todo:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_ACTION_DEPTH:
                return f"it is nested too deeply (at most {MAX_ACTION_DEPTH} levels)"
            if len(value) > MAX_ARGS:
                return f"a list or object in it has more than {MAX_ARGS} items"
            items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
            for key, v in items:
                if key is not None and not isinstance(key, str):
                    return "it is not valid JSON"
                todo.append((v, depth + 1))
                if key is not None:
                    todo.append((key, depth + 1))
        elif isinstance(value, str):
            if len(value) > MAX_ARG_CHARS:
                return f"it is too large (a text of {len(value):,} characters; the limit is {MAX_ARG_CHARS})"
            size += len(value)
        elif isinstance(value, bool) or value is None:
            size += 5
        elif isinstance(value, int):
            if not -10 ** 15 < value < 10 ** 15:
                return "a number in it is too large"
            size += 16
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                return "it is not valid JSON"
            size += 24
        else:
            return "it is not valid JSON"
        if size > MAX_ACTION_BYTES:
            return f"it is too large (over {MAX_ACTION_BYTES} bytes)"
    return None
