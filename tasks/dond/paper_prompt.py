"""The paper's Deal-or-No-Deal prompt text, read at run time from a checkout of its original release
(https://github.com/Wenyueh/game_theory; `--paper-prompts PATH`), never bundled: the wording is the paper's.

`src/deal_no_deal/deal_no_deal.py` and `deal_no_deal_metrics.py` are parsed with `ast` (never imported: the release
imports its model wrappers and a missing config module) and their f-strings become templates whose placeholders are
the source expressions; `Template.render` evaluates them over a namespace of what this task knows (names, attributes,
constant subscripts and calls of the functions it is given, nothing else).
Reference game-theory-negotiation.md §7 describes the protocol the pieces belong to:
- game: the game description with the seat's item values (`Agent.game_setting`; `special` picks the variant with
  the Pareto / envy-freeness explanation, the code's --special_prompting);
- negotiate: the turn instruction (`initial_negotiation_message`); history: the heading of the earlier messages;
- said / replied: how Alice's and Bob's messages are logged ("... in round N: ...", `DealNoDeal.negotiation`);
- has_deal / summarize / message: the proposal extraction (`whether_new_deal_proposed`,
  `summarize_deal_basedon_message`); present: the closing question (`present_deal`);
- values: `translate_values` of the metrics module; system: the code's default `--system_prompt`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Optional

RELEASE = "https://github.com/Wenyueh/game_theory"
GAME_FILE = "src/deal_no_deal/deal_no_deal.py"
METRICS_FILE = "src/deal_no_deal/deal_no_deal_metrics.py"
SAMPLE_FILE = "src/deal_no_deal/sampled_50_deal_no_deal.txt"
RELEASE_FILES = (GAME_FILE, METRICS_FILE, SAMPLE_FILE)


class ReleaseError(ValueError):
    """The release is missing or its code no longer has the piece this preset reads."""


@dataclass(frozen=True)
class Template:
    """An f-string of the release: literal text and source expressions, in order."""
    parts: tuple  # str (literal) or ("expr", source)

    def render(self, names: dict) -> str:
        return "".join(p if isinstance(p, str) else str(_evaluate(ast.parse(p[1], mode="eval").body, names, p[1]))
                       for p in self.parts)


def _evaluate(node: ast.AST, names: dict, source: str):
    """A placeholder's value: names from `names`, their attributes, constant subscripts and calls of the callables
    in `names`; anything else is a release this preset does not understand."""
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Attribute):
        return getattr(_evaluate(node.value, names, source), node.attr)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return _evaluate(node.value, names, source)[node.slice.value]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and callable(names.get(node.func.id)):
        return names[node.func.id](*(_evaluate(a, names, source) for a in node.args))
    raise ReleaseError(f"the release's prompt uses {{{source}}}, which this preset cannot fill")


def _template(node: ast.AST) -> Template:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Template((node.value,))
    if not isinstance(node, ast.JoinedStr):
        raise ReleaseError(f"expected a string at line {getattr(node, 'lineno', '?')}")
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value))
        else:
            parts.append(("expr", ast.unparse(v.value)))
    return Template(tuple(parts))


def _functions(tree: ast.AST) -> dict:
    """name -> FunctionDef, methods as Class.method."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            out.update({f"{node.name}.{f.name}": f for f in node.body if isinstance(f, ast.FunctionDef)})
    return out


def _assigned(fn: ast.AST, target: str) -> Iterator[ast.AST]:
    """The values assigned to `target` (source text of the target) inside `fn`, in order."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and any(ast.unparse(t) == target for t in node.targets):
            yield node.value


def _first_string(fn: ast.AST, target: str, where: str) -> Template:
    for value in _assigned(fn, target):
        if isinstance(value, ast.BinOp):
            value = value.left  # "heading" + '\n'.join(...)
        if isinstance(value, (ast.JoinedStr, ast.Constant)):
            return _template(value)
    raise ReleaseError(f"{where}: no string assigned to {target}")


def _game_description(fn: ast.AST, special: bool) -> Template:
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "self.args.special_prompting":
            for stmt in (node.body if special else node.orelse):
                if isinstance(stmt, ast.Assign) and ast.unparse(stmt.targets[0]) == "self.game_description":
                    return _template(stmt.value)
    raise ReleaseError(f"{GAME_FILE}: Agent.game_setting has no game description")


def _round_lines(fn: ast.AST) -> list[str]:
    """The '... in round {}: ' format strings of the messages appended to the history (`previous_message.append`),
    first seen first."""
    out = []
    for call in ast.walk(fn):
        if not (isinstance(call, ast.Call) and ast.unparse(call.func).endswith("previous_message.append")):
            continue
        for node in ast.walk(call):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
                    and isinstance(node.func.value, ast.Constant) and node.func.value.value not in out):
                out.append(node.func.value.value)
    return out


def _argparse_default(tree: ast.AST, flag: str):
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == flag):
            for kw in node.keywords:
                if kw.arg == "default":
                    return ast.literal_eval(kw.value)
    raise ReleaseError(f"{GAME_FILE}: no default for {flag}")


@dataclass(frozen=True)
class PaperPrompts:
    game: Template
    negotiate: Template
    history: Template
    said: str          # Alice's line, "{}" = the round
    replied: str       # Bob's line
    has_deal: Template
    summarize: Template
    message: Template
    present: Template
    values: Template
    system: str
    max_rounds: int


@lru_cache(maxsize=8)
def read_release(root: str, special: bool = False) -> PaperPrompts:
    """The prompt pieces from the checkout at `root`; ReleaseError naming the files and the release otherwise."""
    base = Path(str(root))
    missing = [f for f in (GAME_FILE, METRICS_FILE) if not (base / f).is_file()]
    if missing:
        raise ReleaseError(f"{root} lacks {', '.join(missing)}: pass --paper-prompts PATH, a checkout of {RELEASE}")
    game_tree = ast.parse((base / GAME_FILE).read_text(encoding="utf-8"))
    fns = _functions(game_tree)
    metric_fns = _functions(ast.parse((base / METRICS_FILE).read_text(encoding="utf-8")))

    def fn(name: str, table: Optional[dict] = None):
        table = fns if table is None else table
        if name not in table:
            raise ReleaseError(f"{root}: the release has no {name}; this preset reads the code of {RELEASE}")
        return table[name]
    lines = _round_lines(fn("DealNoDeal.negotiation"))
    if len(lines) != 2:
        raise ReleaseError(f"{GAME_FILE}: expected Alice's and Bob's message lines in DealNoDeal.negotiation")
    summarize = fn("Agent.summarize_deal_basedon_message")
    return PaperPrompts(
        game=_game_description(fn("Agent.game_setting"), special),
        negotiate=_first_string(fn("Agent.initial_negotiation_message"), "negotiate_prompt", GAME_FILE),
        history=_first_string(fn("Agent.initial_negotiation_message"), "previous_messages", GAME_FILE),
        said=lines[0], replied=lines[1],
        has_deal=_first_string(fn("Agent.whether_new_deal_proposed"), "whether_new_deal_proposed_prompt", GAME_FILE),
        summarize=_first_string(summarize, "proposal_summarizer_prompt", GAME_FILE),
        message=_first_string(summarize, "negotiation_message", GAME_FILE),
        present=_first_string(fn("Agent.present_deal"), "present_deal_prompt", GAME_FILE),
        values=_first_string(fn("translate_values", metric_fns), "text", METRICS_FILE),
        system=str(_argparse_default(game_tree, "--system_prompt")),
        max_rounds=int(_argparse_default(game_tree, "--max_negotiation_round")),
    )
