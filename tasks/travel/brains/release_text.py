"""The paper's own prompt text, read at run time from a checkout of its original release (`--paper-prompts PATH`):
the wording is the authors', so it is never bundled, copied or imported here.

The release's prompt files (GAME/AGENTS/prompts_*.py) build each prompt in a function (`GHOST_prompt(params, N)`,
`USER_LIGHT_prompt(params, N)`, `get_current_ws(N)`) from a dict of room descriptions, the board's coins and one
f-string template. `render(root, variant, function, params, n)` reads such a file as text, parses it with `ast`
(the templates use Python 3.12's nested same-quote f-strings, which older parsers refuse, so each template is cut out
first and its fields are parsed one by one) and evaluates the function's assignments with a small interpreter that
knows only the few expressions these functions use: names, literals, subscripts, comprehensions, f-strings,
`str.join`, `dict.get`/`keys`, `list`, `chr`, `combinations`. Nothing of the file is executed.
"""
from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path
from typing import Any

RELEASE = "https://github.com/coli-saar/collaborative-problem-solving"
PROMPT_FILES = {
    "baseline": "GAME/AGENTS/prompts_baseline.py",
    "grounding": "GAME/AGENTS/prompts_coin_tracking.py",  # the release calls the Grounding agent "coin tracking"
    "state-tracking": "GAME/AGENTS/prompts_state_tracking.py",
    "problem-solving": "GAME/AGENTS/prompts_problem_solving.py",
}
AGENT_FUNCTION = {"ghost": "GHOST_prompt", "light": "USER_LIGHT_prompt"}  # BOT = ghost world, USER = light world
GSM_FUNCTION = "get_current_ws"
_TEMPLATE = re.compile(r"\bf('''|\"\"\")")
_CALLS = {"list": list, "tuple": tuple, "chr": chr, "str": str, "len": len, "combinations": itertools.combinations}
_METHODS = {(str, "join"), (dict, "get"), (dict, "keys"), (dict, "values"), (dict, "items")}


class ReleaseError(ValueError):
    """The release file is missing or holds something this reader does not know (a changed release)."""


def render(root: str, variant: str, function: str, params: dict, n: int) -> str:
    """The text `function` of the variant's prompt file returns for these board coins ({"LE": 6, ...}) and rooms."""
    path = Path(root) / PROMPT_FILES[variant]
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReleaseError(f"cannot read {path} of the paper's release ({RELEASE}): {exc}") from exc
    source, templates = _cut_templates(source)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ReleaseError(f"{path}: not the release's prompt file ({exc})") from exc
    fn = next((f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == function), None)
    if fn is None:
        raise ReleaseError(f"{path} has no function {function}")
    return _run(fn, {"params": params, "N": n}, templates, path)


def _cut_templates(source: str) -> tuple[str, dict]:
    """The source with every triple-quoted f-string replaced by a name, and those names' template bodies."""
    out, templates, pos = [], {}, 0
    while True:
        m = _TEMPLATE.search(source, pos)
        if m is None:
            out.append(source[pos:])
            return "".join(out), templates
        end = source.find(m.group(1), m.end())
        if end < 0:
            raise ReleaseError("an f-string template is not closed")
        name = f"__template_{len(templates)}__"
        templates[name] = (m.group(1), source[m.end():end])
        out += [source[pos:m.start()], name]
        pos = end + 3


def _run(fn: ast.FunctionDef, env: dict, templates: dict, path: Path) -> str:
    for stmt in fn.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            v = stmt.value
            if isinstance(v, ast.Name) and v.id in templates:
                env[stmt.targets[0].id] = _fill(*templates[v.id], env, path)
            else:
                env[stmt.targets[0].id] = _eval(v, env, path)
        elif isinstance(stmt, ast.Return) and stmt.value is not None:
            out = _eval(stmt.value, env, path)
            if not isinstance(out, str):
                raise ReleaseError(f"{path}: {fn.name} does not return text")
            return out
        else:
            raise ReleaseError(f"{path}, line {stmt.lineno}: a statement this reader does not know")
    raise ReleaseError(f"{path}: {fn.name} returns nothing")


def _fill(quote: str, body: str, env: dict, path: Path) -> str:
    """An f-string template's text: literal parts (escapes decoded) and each {field} evaluated."""
    parts, i, literal = [], 0, []
    while i < len(body):
        c = body[i]
        if c in "{}" and body[i:i + 2] == c * 2:
            literal.append(c)
            i += 2
        elif c == "{":
            depth, j = 1, i + 1
            while j < len(body) and depth:
                depth += {"{": 1, "}": -1}.get(body[j], 0)
                j += 1
            parts += [_literal("".join(literal), quote), _field(body[i + 1:j - 1], env, path)]
            literal, i = [], j
        else:
            literal.append(c)
            i += 1
    parts.append(_literal("".join(literal), quote))
    return "".join(parts)


def _literal(text: str, quote: str) -> str:
    if text.endswith(quote[0]) and not text.endswith("\\" + quote[0]):
        text = text[:-1] + "\\" + quote[0]
    return ast.literal_eval(quote + text + quote) if text else ""


def _field(expr: str, env: dict, path: Path) -> str:
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ReleaseError(f"{path}: a template field this reader cannot parse: {expr[:60]!r}") from exc
    return str(_eval(node, env, path))


def _eval(node: ast.AST, env: dict, path: Path) -> Any:
    ev = lambda n: _eval(n, env, path)  # noqa: E731
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ReleaseError(f"{path}: unknown name {node.id}")
        return env[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [ev(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        return {ev(k): ev(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Subscript):
        s = node.slice
        key = slice(*(ev(x) if x is not None else None for x in (s.lower, s.upper, s.step))) \
            if isinstance(s, ast.Slice) else ev(s)
        return ev(node.value)[key]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return ev(node.left) + ev(node.right)
    if isinstance(node, ast.JoinedStr):
        return "".join(ev(v) if isinstance(v, ast.Constant) else _formatted(v, env, path) for v in node.values)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        return _comprehension(node, env, path)
    if isinstance(node, ast.Call) and not node.keywords:
        args = [ev(a) for a in node.args]
        f = node.func
        if isinstance(f, ast.Name) and f.id in _CALLS:
            return _CALLS[f.id](*args)
        if isinstance(f, ast.Attribute):
            obj = ev(f.value)
            if any(isinstance(obj, t) and f.attr == a for t, a in _METHODS):
                return getattr(obj, f.attr)(*args)
    raise ReleaseError(f"{path}, line {getattr(node, 'lineno', '?')}: an expression this reader does not know "
                       f"({type(node).__name__})")


def _formatted(v: ast.AST, env: dict, path: Path) -> str:
    if not isinstance(v, ast.FormattedValue) or v.format_spec is not None:
        raise ReleaseError(f"{path}: a formatted field this reader does not know")
    value = _eval(v.value, env, path)
    return repr(value) if v.conversion == ord("r") else str(value)


def _comprehension(node, env: dict, path: Path) -> list:
    gen = node.generators[0]
    names = [gen.target] if isinstance(gen.target, ast.Name) else list(getattr(gen.target, "elts", []))
    if not names or not all(isinstance(n, ast.Name) for n in names):
        raise ReleaseError(f"{path}: a comprehension this reader does not know")
    out = []
    for item in _eval(gen.iter, env, path):
        values = [item] if isinstance(gen.target, ast.Name) else list(item)
        inner = {**env, **{n.id: x for n, x in zip(names, values)}}
        if all(_eval(c, inner, path) for c in gen.ifs):
            out.append(_eval(node.elt, inner, path))
    return out
