"""What Slurk stores and serves for a layout (html, css and script strings), from the rules in slurk-protocol.md
§3.1-3.2: the browser test harness uses it to put a layout on a test page exactly the way Slurk would."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from .sources import fetch_script, is_url

_TRIGGER_WRAPPERS: dict[str, Callable[[str], str]] = {
    "incoming-text": lambda c: "incoming_text = function(data) {\n" + c + "\n}\n",
    "incoming-image": lambda c: "incoming_image = function(data) {\n" + c + "\n}\n",
    "submit-message": lambda c: "keypress = function(current_room, current_user, current_timestamp, text) {"
                                + c + "}",
    "print-history": lambda c: "print_history = function(element) {\n" + c + "\n}\n",
    "typing-users": lambda c: "update_typing = function(users) {\n" + c + "\n}\n",
    "document-ready": lambda c: "$(document).ready(function(){" + c + "});",
    "plain": lambda c: c,
}


def _compile_nodes(nodes: Any, indent: int = 0) -> str:
    if not nodes:
        return ""
    if isinstance(nodes, str):
        return " " * indent + nodes + "\n"
    html = ""
    for node in nodes:
        if isinstance(node, str):
            html += node
            continue
        tag = node.get("layout-type")
        if not tag:
            continue
        pad = " " * indent
        if tag == "br":
            html += pad + "<br>\n"
            continue
        attrs = "".join(f" {k}='{v}'" for k, v in node.items()
                        if k not in ("layout-type", "layout-content") and v)
        content = node.get("layout-content")
        if content:
            html += f"{pad}<{tag}{attrs}>\n{_compile_nodes(content, indent + 4)}{pad}</{tag}>\n"
        elif tag == "img":
            html += f"{pad}<{tag}{attrs} />\n"
        else:
            html += f"{pad}<{tag}{attrs}></{tag}>\n"
    return html


def compile_css(css: Optional[Mapping[str, Mapping[str, str]]]) -> str:
    out = ""
    for selector, props in (css or {}).items():
        out += selector + " {\n" + "".join(f"    {k}: {v};\n" for k, v in props.items()) + "}\n\n"
    return out


# One trigger order seen on a real server. Slurk's order is not the layout's key order and differs between server
# processes (two servers gave different orders), so nothing may rely on it; this one puts `plain` right after a
# trigger function, which is where a plugin starting with '(' breaks the page.
SLURK_TRIGGER_ORDER = ("submit-message", "plain", "typing-users", "incoming-image", "document-ready",
                       "incoming-text", "print-history")


def compile_script(scripts: Optional[Mapping[str, Any]],
                   stock: Optional[Callable[[str], Optional[str]]] = None,
                   order: tuple[str, ...] = SLURK_TRIGGER_ORDER) -> str:
    """Slurk's script string: each source fetched (URLs and data URLs via urllib, stock names via `stock`),
    wrapped per trigger and concatenated without any separator but blank lines. Omitted triggers become empty
    functions, as on the server."""
    script = ""
    scripts = dict(scripts or {})
    for trigger in list(order) + [t for t in scripts if t not in order]:
        sources = scripts.get(trigger)
        if sources is None:
            if trigger != "plain":
                script += _TRIGGER_WRAPPERS[trigger]("") + "\n\n\n"
            continue
        for source in ([sources] if isinstance(sources, str) else sources or []):
            code: Optional[str]
            if is_url(source):
                code = fetch_script(source)
            else:
                code = stock(source) if stock else None
            if code is None:
                continue                      # Slurk drops unknown plugins silently
            if code.count("{") != code.count("}"):
                continue                      # ... and unbalanced ones
            script += _TRIGGER_WRAPPERS[trigger](code) + "\n\n\n"
    return script


def compile_layout(layout: Mapping[str, Any], stock: Optional[Callable[[str], Optional[str]]] = None) -> dict:
    """{"title","subtitle","html","css","script","show_users",...} as Slurk would serve the built layout."""
    return {
        "title": layout.get("title"),
        "subtitle": layout.get("subtitle"),
        "html": _compile_nodes(layout.get("html")),
        "css": compile_css(layout.get("css")),
        "script": compile_script(layout.get("scripts"), stock),
        "show_users": layout.get("show_users", True),
        "show_latency": layout.get("show_latency", True),
        "read_only": layout.get("read_only", False),
    }
