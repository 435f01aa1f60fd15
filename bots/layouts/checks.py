"""The checks of a built layout against what Slurk rejects (422) or compiles into a broken page (slurk-protocol.md
§3 and §8.1), and our CSS files parsed into Slurk's css dict."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from .sources import DATA_URL_PREFIX, LayoutError, fetch_script, is_url

LAYOUT_FIELDS = ("title", "subtitle", "html", "css", "scripts", "show_users", "show_latency", "read_only",
                 "openvidu_settings")
TRIGGERS = ("incoming-text", "incoming-image", "submit-message", "print-history", "typing-users", "document-ready",
            "plain")
REQUIRED_TRIGGERS = ("submit-message", "incoming-text", "print-history")
# The shared page script (window.SlurkTask) and its submit-message body.
SHARED_PLUGIN = "slurk-task.js"
SHARED_SUBMIT = "slurk-task-submit.js"
# Slurk's stock plugins (slurk/views/static/plugins/<name>.js); anything else without a scheme must be our file.
STOCK_PLUGINS = frozenset({
    "display-text", "markdown", "display-image", "send-message", "send-intercepted-message", "plain-history",
    "markdown-history", "attribute-history", "typing-users", "ask-reload", "enforce-fullscreen",
    "collapsible-task-instructions", "bounding-boxes", "mouse-tracking", "live-typing", "keylogger",
})


def check_plugin_code(code: str, name: str = "plugin") -> None:
    """Raise LayoutError unless the code is safe to glue into Slurk's compiled layout script."""
    body = code.lstrip("\ufeff \t\r\n")
    if not body.startswith(";"):
        first = body[:1] or "end of file"
        raise LayoutError(
            f"{name} must start with ';' (it starts with {first!r}): Slurk concatenates a layout's script triggers "
            "without semicolons, so a plugin that begins with '(' is parsed as a call of the previous trigger "
            "function and breaks the page (slurk-protocol.md §8.1). Put ';' as the first character.")
    if code.count("{") != code.count("}"):
        raise LayoutError(
            f"{name} has {code.count('{')} '{{' but {code.count('}')} '}}': Slurk silently drops a script whose "
            "braces do not balance (it counts them, strings and comments included).")


def _check_html(nodes: Any, where: str = "html") -> None:
    if not isinstance(nodes, list):
        raise LayoutError(f"{where} must be a list of nodes (Slurk renders a dict's keys and rejects a str at "
                          f"the top level), got {type(nodes).__name__}")
    for i, node in enumerate(nodes):
        at = f"{where}[{i}]"
        if isinstance(node, str):
            continue
        if not isinstance(node, dict):
            raise LayoutError(f"{at} must be a str or an object, got {type(node).__name__}")
        if not node.get("layout-type"):
            raise LayoutError(f"{at} has no 'layout-type' (Slurk would skip it)")
        for k, v in node.items():
            if k in ("layout-type", "layout-content"):
                continue
            if isinstance(v, str) and "'" in v:
                raise LayoutError(f"{at} attribute {k!r} contains a single quote; Slurk renders name='value'")
            if not isinstance(v, (str, int, float, bool)) and v is not None:
                raise LayoutError(f"{at} attribute {k!r} must be a scalar, got {type(v).__name__}")
        content = node.get("layout-content")
        if content is None or isinstance(content, str):
            continue
        if isinstance(content, list):
            _check_html(content, f"{at}.layout-content")
        else:
            raise LayoutError(f"{at}.layout-content must be a str or a list (a dict renders its keys in Slurk)")


def _names(sources: Any) -> list:
    return [sources] if isinstance(sources, str) else list(sources or [])


def check_shared_plugin(scripts: Mapping[str, Any], pdir: Path) -> None:
    """Raise LayoutError if a plugin file uses SlurkTask but slurk-task.js is not loaded (before it) in `plain`."""
    plain = _names(scripts.get("plain"))
    for trigger, sources in scripts.items():
        for i, source in enumerate(_names(sources)):
            if not isinstance(source, str) or source == SHARED_PLUGIN or is_url(source) or source in STOCK_PLUGINS:
                continue
            path = pdir / source
            if not path.is_file() or "SlurkTask" not in path.read_text(encoding="utf-8"):
                continue
            if SHARED_PLUGIN not in plain:
                raise LayoutError(f"{source} (trigger {trigger!r}) uses window.SlurkTask: add {SHARED_PLUGIN!r} to the "
                                  f"'plain' trigger")
            if trigger == "plain" and plain.index(SHARED_PLUGIN) > i:
                raise LayoutError(f"{source} uses window.SlurkTask: list {SHARED_PLUGIN!r} before it in 'plain' "
                                  f"(the sources of a trigger run in their order)")


def validate_layout(layout: Mapping[str, Any]) -> None:
    """Raise LayoutError for anything Slurk would reject (422) or compile into a broken page."""
    unknown = sorted(set(layout) - set(LAYOUT_FIELDS))
    if unknown:
        raise LayoutError(f"unknown layout field(s) {unknown}: Slurk answers 422 'Unknown field.'")
    if not isinstance(layout.get("title"), str) or not layout["title"]:
        raise LayoutError("a layout needs a non-empty 'title'")
    if "html" in layout and layout["html"] is not None:
        _check_html(layout["html"])
    css = layout.get("css")
    if css is not None:
        if not isinstance(css, dict) or not all(isinstance(v, dict) for v in css.values()):
            raise LayoutError("'css' must be a dict selector -> {property: value}")
    scripts = layout.get("scripts") or {}
    if not isinstance(scripts, dict):
        raise LayoutError("'scripts' must be a dict trigger -> source or [sources]")
    bad = sorted(set(scripts) - set(TRIGGERS))
    if bad:
        raise LayoutError(f"unknown script trigger(s) {bad}; Slurk knows {list(TRIGGERS)} (422 otherwise)")
    for trigger in REQUIRED_TRIGGERS:
        if not scripts.get(trigger):
            raise LayoutError(
                f"script trigger {trigger!r} is not set: Slurk compiles an omitted trigger into an empty function "
                "(e.g. no 'submit-message' means Enter clears the chat box and sends nothing). Use the stock "
                "'send-message' (or our 'slurk-task-submit.js'), 'markdown' and 'markdown-history' unless the "
                "task needs its own.")
    for trigger, sources in scripts.items():
        for source in ([sources] if isinstance(sources, str) else sources or []):
            if not isinstance(source, str) or not source:
                raise LayoutError(f"script trigger {trigger!r} has a non-string source {source!r}")
            if source.startswith(DATA_URL_PREFIX):
                check_plugin_code(fetch_script(source), f"{trigger} source")


# ----------------------------------------------------------------------------------------------------------------
# CSS files -> Slurk's css dict


def parse_css(text: str, name: str = "css") -> dict[str, dict[str, str]]:
    """Flat CSS (rules of `selector { prop: value; ... }`, comments) -> Slurk's css dict.

    At-rules (@media, @keyframes, ...) cannot be expressed in Slurk's css dict and are refused. A selector that
    appears twice is merged, later properties winning.
    """
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    at = re.search(r"@[a-zA-Z-]+", text)
    if at:
        raise LayoutError(f"{name}: at-rules such as {at.group(0)!r} do not fit Slurk's css dict")
    out: dict[str, dict[str, str]] = {}
    pos = 0
    for m in re.finditer(r"([^{}]*)\{([^{}]*)\}", text):
        between = text[pos:m.start()].strip()
        if between:
            raise LayoutError(f"{name}: cannot parse {between[:60]!r}")
        pos = m.end()
        selector = " ".join(m.group(1).split())
        if not selector:
            raise LayoutError(f"{name}: a rule without a selector")
        props = out.setdefault(selector, {})
        for decl in m.group(2).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            if ":" not in decl:
                raise LayoutError(f"{name}: bad declaration {decl!r} in {selector!r}")
            prop, value = decl.split(":", 1)
            props[prop.strip()] = " ".join(value.split())
    rest = text[pos:].strip()
    if rest:
        raise LayoutError(f"{name}: cannot parse {rest[:60]!r} (nested or unbalanced braces?)")
    return out

