"""Prompt text of a paper's original release, read at run time from a checkout (`--paper-prompts PATH`), never
bundled: the wording is the paper's, so a `paper` preset finds it in the release's code.

A release file is parsed with `ast` (never imported: releases import their model wrappers and config modules), and
its pieces are found by where the code puts them: the strings assigned to a name inside a function, the branch of an
`if` with a given test, the `'...'.format(...)` strings of a call, an argparse default. An f-string becomes a
`Template` whose placeholders are its source expressions; `Template.render` evaluates them over a namespace of what
the task knows (names, attributes, constant subscripts, calls of the callables given; nothing else), so a release
whose code changed stops with a ReleaseError instead of sending something else.
"""
from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, Iterator


class ReleaseError(ValueError):
    """The release is missing or its code no longer has the piece a preset reads."""


@dataclass(frozen=True)
class Template:
    """A string of the release: literal text and source expressions (("expr", source)), in order."""
    parts: tuple

    def render(self, names: dict) -> str:
        return "".join(p if isinstance(p, str) else str(_evaluate(ast.parse(p[1], mode="eval").body, names, p[1]))
                       for p in self.parts)


# the arithmetic a placeholder may do ("{id+1}", "{count - taken}", "{round(1 - p, 2)}")
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _evaluate(node: ast.AST, names: dict, source: str):
    """A placeholder's value: names from `names`, their attributes, subscripts (by an index, not a slice), negative
    numbers, + - * / and calls (without keywords) of callables found that way; anything else is a release this
    preset does not understand."""
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Attribute):
        return getattr(_evaluate(node.value, names, source), node.attr)
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        return _evaluate(node.value, names, source)[_evaluate(node.slice, names, source)]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, names, source)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        return _ARITHMETIC[type(node.op)](_evaluate(node.left, names, source), _evaluate(node.right, names, source))
    if isinstance(node, ast.Call) and not node.keywords and isinstance(node.func, (ast.Name, ast.Attribute)):
        func = names.get(node.func.id) if isinstance(node.func, ast.Name) else _evaluate(node.func, names, source)
        if callable(func):
            return func(*(_evaluate(a, names, source) for a in node.args))
    raise ReleaseError(f"the release's prompt uses {{{source}}}, which this preset cannot fill")


def template(node: ast.AST) -> Template:
    """The Template of a string constant or an f-string node."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Template((node.value,))
    if not isinstance(node, ast.JoinedStr):
        raise ReleaseError(f"expected a string at line {getattr(node, 'lineno', '?')}")
    return Template(tuple(str(v.value) if isinstance(v, ast.Constant) else ("expr", ast.unparse(v.value))
                          for v in node.values))


def concatenation(node: ast.AST) -> Template:
    """The Template of a string, an f-string or a `+` of them (`"\\n" + f"..."`), as one."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return Template(concatenation(node.left).parts + concatenation(node.right).parts)
    return template(node)


def in_order(nodes: Iterable[ast.AST]) -> list:
    """Nodes in source order (ast.walk visits breadth first)."""
    return sorted(nodes, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))


def missing(root, files: Iterable[str]) -> list[str]:
    return [f for f in files if not root or not (Path(str(root)) / f).is_file()]


def require(root, files: Iterable[str], release: str, what: str = "This preset's prompt text") -> str:
    """The checkout's root, or a ReleaseError naming the missing files and where to get them."""
    gone = missing(root, files)
    if gone:
        where = f"under {str(root)!r}" if root else "(no --paper-prompts PATH given)"
        raise ReleaseError(f"{what} is the paper's wording, read from its original release: missing {', '.join(gone)} "
                           f"{where}. Clone {release} and pass --paper-prompts PATH (the checkout's root).")
    return str(root)


class ReleaseFile:
    """One Python file of a release checkout, parsed; its lookups raise ReleaseError naming the file and release."""

    def __init__(self, root, rel: str, release: str):
        self.rel, self.release = rel, release
        path = Path(str(root)) / rel
        if not path.is_file():
            require(root, (rel,), release)
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)

    def error(self, what: str) -> ReleaseError:
        return ReleaseError(f"{self.rel}: {what}; this preset reads the code of {self.release}")

    @cached_property
    def functions(self) -> dict:
        """name -> FunctionDef, methods as Class.method."""
        out = {}
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef):
                out[node.name] = node
            elif isinstance(node, ast.ClassDef):
                out.update({f"{node.name}.{f.name}": f for f in node.body if isinstance(f, ast.FunctionDef)})
        return out

    def function(self, name: str) -> ast.AST:
        if name not in self.functions:
            raise self.error(f"the release has no {name}")
        return self.functions[name]

    def branch(self, scope: ast.AST, test: str, body: bool = True) -> ast.If:
        """The `if` (or `elif`) inside `scope` whose test reads `test` (source text), wrapped so that lookups see only
        its body (or its else part)."""
        for node in in_order(ast.walk(scope)):
            if isinstance(node, ast.If) and ast.unparse(node.test) == test:
                return ast.Module(body=node.body if body else node.orelse, type_ignores=[])
        raise self.error(f"no `if {test}:`")

    @staticmethod
    def assigned(scope: ast.AST, target: str) -> Iterator[ast.AST]:
        """The values assigned (= or +=) to `target` (its source text) inside `scope`, in source order."""
        for node in in_order(ast.walk(scope)):
            if isinstance(node, ast.Assign) and any(ast.unparse(t) == target for t in node.targets):
                yield node.value
            elif isinstance(node, ast.AugAssign) and ast.unparse(node.target) == target:
                yield node.value

    def strings(self, scope: ast.AST, target: str) -> list[Template]:
        """The strings assigned to `target` inside `scope`, in source order; a `"heading" + sep.join(...)` value counts
        as its heading."""
        out = []
        for value in self.assigned(scope, target):
            if isinstance(value, ast.BinOp):
                value = value.left
            if isinstance(value, (ast.JoinedStr, ast.Constant)) and isinstance(getattr(value, "value", ""), str):
                out.append(template(value))
        return out

    def pieces(self, scope: ast.AST, target: str) -> list[Template]:
        """Every value assigned (= or +=) to `target` inside `scope`, in source order, each a string or a `+` of
        strings (ReleaseError otherwise)."""
        return [concatenation(value) for value in self.assigned(scope, target)]

    def string(self, scope: ast.AST, target: str, index: int = 0) -> Template:
        found = self.strings(scope, target)
        if len(found) <= index:
            raise self.error(f"no string assigned to {target}")
        return found[index]

    def returned(self, scope: ast.AST, function: str) -> Template:
        """The string returned by the function `function` defined inside `scope` (a nested helper)."""
        for node in in_order(ast.walk(scope)):
            if isinstance(node, ast.FunctionDef) and node.name == function:
                for ret in in_order(ast.walk(node)):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, (ast.JoinedStr, ast.Constant)):
                        return template(ret.value)
        raise self.error(f"no string returned by {function}")

    def alternatives(self, scope: ast.AST, target: str) -> list[tuple[str, Template, Template]]:
        """(test source, if, else) of each `target = "a" if test else "b"` (or +=) inside `scope`, in source order."""
        return [(ast.unparse(v.test), template(v.body), template(v.orelse)) for v in self.assigned(scope, target)
                if isinstance(v, ast.IfExp)]

    def listed(self, scope: ast.AST, target: str) -> Template:
        """The item of `target = [f"..." for ...]` inside `scope`."""
        for value in self.assigned(scope, target):
            if isinstance(value, ast.ListComp) and isinstance(value.elt, (ast.JoinedStr, ast.Constant)):
                return template(value.elt)
        raise self.error(f"no list of strings assigned to {target}")

    def joined(self, scope: ast.AST, target: str) -> tuple[str, Template]:
        """(separator, item) of `target = 'sep'.join([f"..." for ...])` inside `scope`."""
        for value in self.assigned(scope, target):
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "join"
                    and isinstance(value.func.value, ast.Constant) and value.args
                    and isinstance(value.args[0], ast.ListComp)):
                return value.func.value.value, template(value.args[0].elt)
        raise self.error(f"no joined list of strings assigned to {target}")

    def format_strings(self, scope: ast.AST, call_suffix: str) -> list[str]:
        """The `'...'.format(...)` strings inside calls whose callee's source ends with `call_suffix`, first seen
        first, each once."""
        out = []
        for call in in_order(ast.walk(scope)):
            if not (isinstance(call, ast.Call) and ast.unparse(call.func).endswith(call_suffix)):
                continue
            for node in in_order(ast.walk(call)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
                        and isinstance(node.func.value, ast.Constant) and node.func.value.value not in out):
                    out.append(node.func.value.value)
        return out

    def argparse_default(self, flag: str):
        for node in ast.walk(self.tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == flag):
                for kw in node.keywords:
                    if kw.arg == "default":
                        return ast.literal_eval(kw.value)
        raise self.error(f"no default for {flag}")
