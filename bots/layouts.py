"""Slurk room layouts: load `layouts/<task>.json`, embed our plugins, validate, and compile like Slurk does.

`build_layout()` turns a layout file into the JSON body for `POST /slurk/api/layouts`:

* every script entry that names one of our plugin files (``"travel.js"``) becomes a
  ``data:text/javascript;base64,...`` URL of the file's content. Slurk's layout compiler fetches each script
  source with urllib at layout-creation time, and urllib decodes data URLs, so nothing has to be copied into the
  server (slurk-protocol.md §3.2, §8.1). Stock plugin names (``"markdown"``, ``"send-message"``, ...) and real URLs
  are kept as they are.
* CSS files listed under the layout's own key ``"plugins_css": ["travel.css"]`` are parsed into Slurk's ``css``
  dict (selector -> {property: value}); the key itself is removed because Slurk rejects unknown fields (422).
* the result is checked against the pitfalls in slurk-protocol.md §3 and §8.1, with a clear `LayoutError`:
  each plugin must start with ``;`` (Slurk glues triggers together without semicolons, so a leading ``(`` turns
  the plugin into a call of the previous trigger function), its ``{``/``}`` must balance (Slurk silently drops an
  unbalanced trigger), ``submit-message``, ``incoming-text`` and ``print-history`` must be set (omitted triggers
  compile to empty functions: Enter would send nothing), ``html`` must be a list and ``layout-content`` a str or a
  list, attribute values must not contain a single quote (Slurk renders ``name='value'``).

Large plugins: Slurk's compiler also tries `open(<plugins dir>/<source>.js)` for every source and only catches
FileNotFoundError, so a source longer than the OS path limit (4096 bytes with the directory) fails with
ENAMETOOLONG and `POST /layouts` answers 500 (measured on the test server: a 4028-character data URL passed, 4096
failed). A plugin whose data URL would exceed `MAX_SOURCE_LEN` is therefore shipped as several small `plain`
sources: the first ones append the code, as a JS string literal with its braces escaped (each source must balance
`{`/`}` on its own), to `window.__slurk_plugin_src[<file>]`, and the last one runs it with a global (indirect) eval,
so top-level declarations still become globals as with a plain script. `plugin_code_from_sources()` reverses this.

The server log: that same file lookup logs "ERROR in layout: Could not find script: data:..." once per data: source
of every upload (travel: ~37 lines), after urllib has already read the source; the stored layout script holds every
source in full (tests/test_operator_layouts.py checks it on a real Slurk). No embedding avoids it: a source that is
not a stock plugin name always misses that file, a URL Slurk could fetch would need a web server of our own, and
fewer, longer sources hit the path limit above. The lines are harmless and can be filtered out of the log.

The shared page script ``slurk-task.js`` (``window.SlurkTask``: reads the bot's JSON view from a hidden element,
sends commands privately to the bot, handles the chat box) is a plugin file like any other. A plugin that uses
``SlurkTask`` needs it in the ``plain`` trigger, before itself when it is a ``plain`` plugin too (sources of one
trigger are concatenated in order; the order of the triggers themselves is not fixed, but function triggers such
as ``submit-message`` only run later, on an event); `build_layout` checks that. ``slurk-task-submit.js`` is the
small ``submit-message`` body that hands the chat line to ``SlurkTask.submit``. A plugin used as a function trigger
is wrapped as ``name = function(...) {<code>}``, so its last line must end with a newline (a trailing ``//``
comment would swallow the closing brace).

`compile_layout()` reproduces Slurk's compiler output (html, css, script strings) from the documented rules; the
browser test harness uses it to put a layout on a test page exactly the way Slurk would.
"""
from __future__ import annotations

import base64
import copy
import json
import re
import urllib.request
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

ROOT = Path(__file__).resolve().parents[1]

LAYOUT_FIELDS = ("title", "subtitle", "html", "css", "scripts", "show_users", "show_latency", "read_only",
                 "openvidu_settings")
TRIGGERS = ("incoming-text", "incoming-image", "submit-message", "print-history", "typing-users", "document-ready",
            "plain")
REQUIRED_TRIGGERS = ("submit-message", "incoming-text", "print-history")
CSS_KEY = "plugins_css"
DATA_URL_PREFIX = "data:text/javascript;base64,"
# Longest script source we hand to Slurk (see the module doc: ENAMETOOLONG above ~4000 characters, depending on the
# length of the server's install path; 3000 leaves room for a deep virtualenv path).
MAX_SOURCE_LEN = 3000
CHUNK_REGISTRY = "window.__slurk_plugin_src"
# The shared page script (window.SlurkTask) and its submit-message body.
SHARED_PLUGIN = "slurk-task.js"
SHARED_SUBMIT = "slurk-task-submit.js"
# Slurk's stock plugins (slurk/views/static/plugins/<name>.js); anything else without a scheme must be our file.
STOCK_PLUGINS = frozenset({
    "display-text", "markdown", "display-image", "send-message", "send-intercepted-message", "plain-history",
    "markdown-history", "attribute-history", "typing-users", "ask-reload", "enforce-fullscreen",
    "collapsible-task-instructions", "bounding-boxes", "mouse-tracking", "live-typing", "keylogger",
})

Layout = dict
SpecOrName = Union[str, Path, Mapping[str, Any], Any]


class LayoutError(ValueError):
    """A layout or plugin that Slurk would reject or that would break the page."""


# ----------------------------------------------------------------------------------------------------------------
# Paths


def _dir(path: Union[str, Path]) -> Path:
    """A directory argument: absolute as given; relative ones against the repository root, else the cwd."""
    p = Path(path)
    if p.is_absolute():
        return p
    if (ROOT / p).is_dir():
        return ROOT / p
    return Path.cwd() / p


def layout_paths(layouts_dir: Union[str, Path] = "layouts") -> dict[str, Path]:
    """Layout name (file stem) -> path, for every `layouts/*.json`."""
    d = _dir(layouts_dir)
    return {p.stem: p for p in sorted(d.glob("*.json"))}


def plugin_paths(plugins_dir: Union[str, Path] = "plugins") -> dict[str, Path]:
    """Plugin file name -> path, for every `plugins/*.js` and `plugins/*.css`."""
    d = _dir(plugins_dir)
    return {p.name: p for p in sorted(list(d.glob("*.js")) + list(d.glob("*.css")))}


def layout_path(name: str, layouts_dir: Union[str, Path] = "layouts") -> Path:
    stem = name[:-5] if name.endswith(".json") else name
    p = _dir(layouts_dir) / f"{stem}.json"
    if not p.is_file():
        known = ", ".join(layout_paths(layouts_dir)) or "none"
        raise LayoutError(f"no layout {stem!r}: {p} does not exist (layouts found: {known})")
    return p


# ----------------------------------------------------------------------------------------------------------------
# Data URLs


def data_url(code: str) -> str:
    return DATA_URL_PREFIX + base64.b64encode(code.encode("utf-8")).decode("ascii")


def fetch_script(source: str) -> str:
    """The content of a script source the way Slurk's compiler gets it (urllib, which decodes data: URLs)."""
    with urllib.request.urlopen(source, timeout=10) as resp:
        return resp.read().decode("utf-8")


def _is_url(source: str) -> bool:
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", source))


def _js_string(text: str) -> str:
    """A JS string literal for `text` without literal braces (Slurk counts braces in each source)."""
    return json.dumps(text, ensure_ascii=True).replace("{", "\\u007b").replace("}", "\\u007d")


def plugin_sources(code: str, name: str, max_len: int = MAX_SOURCE_LEN) -> list[str]:
    """Script sources that load `code` as a `plain` plugin: one data URL, or a chunked loader when that is too long."""
    whole = data_url(code)
    if len(whole) <= max_len:
        return [whole]
    key = json.dumps(name)
    slot = f"{CHUNK_REGISTRY}[{key}]"
    body = code + f"\n//# sourceURL=slurk-plugin/{name}\n"
    sources, pos, first = [], 0, True
    while pos < len(body):
        size = min(len(body) - pos, max_len)
        while True:
            piece = body[pos:pos + size]
            head = f";{CHUNK_REGISTRY} = {CHUNK_REGISTRY} || {{}};\n{slot} = " if first else f";{slot} += "
            src = data_url(head + _js_string(piece) + ";\n")
            if len(src) <= max_len:
                break
            size = max(1, int(size * 0.9) if size > 10 else size - 1)
        sources.append(src)
        pos += size
        first = False
    sources.append(data_url(f";(0, eval)({slot});\n"))
    return sources


_CHUNK_RE = re.compile(r'^;(?:window\.__slurk_plugin_src = window\.__slurk_plugin_src \|\| \{\};\n)?'
                       r'window\.__slurk_plugin_src\[("(?:[^"\\]|\\.)*")\] \+?= ("(?:[^"\\]|\\.)*");\n$', re.S)


def plugin_code_from_sources(sources: list[str]) -> str:
    """The plugin code that a list of `plain` sources from `plugin_sources()` evaluates (for tests and checks)."""
    codes = [fetch_script(s) for s in sources]
    if len(codes) == 1:
        return codes[0]
    out = ""
    for c in codes[:-1]:
        m = _CHUNK_RE.match(c)
        if not m:
            raise LayoutError(f"not a plugin chunk: {c[:80]!r}")
        out += json.loads(m.group(2))
    suffix = "\n//# sourceURL="
    return out[:out.rindex(suffix)] if suffix in out else out


# ----------------------------------------------------------------------------------------------------------------
# Checks


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
            if not isinstance(source, str) or source == SHARED_PLUGIN or _is_url(source) or source in STOCK_PLUGINS:
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


# ----------------------------------------------------------------------------------------------------------------
# Build


def _load(spec_or_name: SpecOrName, layouts_dir) -> tuple[dict, tuple[str, ...]]:
    """(layout dict, extra plugin files from a TaskSpec)."""
    extra: tuple[str, ...] = ()
    if isinstance(spec_or_name, Mapping):
        return copy.deepcopy(dict(spec_or_name)), extra
    if not isinstance(spec_or_name, (str, Path)):             # a TaskSpec (or anything with .layout/.plugins)
        name = getattr(spec_or_name, "layout", "") or getattr(spec_or_name, "name", "")
        extra = tuple(getattr(spec_or_name, "plugins", ()) or ())
        if not name:
            raise LayoutError(f"{spec_or_name!r} names no layout")
        spec_or_name = name
    p = Path(spec_or_name)
    path = p if (p.suffix == ".json" and p.is_file()) else layout_path(str(spec_or_name), layouts_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise LayoutError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise LayoutError(f"{path}: a layout must be a JSON object")
    return data, extra


def build_layout(spec_or_layout_name: SpecOrName, plugins_dir: Union[str, Path] = "plugins",
                 layouts_dir: Union[str, Path] = "layouts", max_source_len: int = MAX_SOURCE_LEN) -> dict:
    """The body for `POST /slurk/api/layouts`, with our plugins embedded as data URLs. Raises LayoutError.

    `spec_or_layout_name`: a layout name ("travel"), a path to a .json file, a layout dict, or a TaskSpec (its
    `layout`; its `plugins` not already named by the layout are appended: .js to the `plain` trigger, .css to
    `plugins_css`). Plugins whose data URL would be longer than `max_source_len` are split (see the module doc).
    """
    layout, extra = _load(spec_or_layout_name, layouts_dir)
    pdir = _dir(plugins_dir)
    scripts = dict(layout.get("scripts") or {})
    css_files = list(layout.pop(CSS_KEY, None) or [])
    named = {s for v in scripts.values() for s in ([v] if isinstance(v, str) else v or [])} | set(css_files)
    for f in extra:
        if f in named:
            continue
        if f.endswith(".css"):
            css_files.append(f)
        else:
            plain = scripts.get("plain") or []
            scripts["plain"] = ([plain] if isinstance(plain, str) else list(plain)) + [f]

    def embed(source: str, trigger: str) -> list[str]:
        if not isinstance(source, str) or not source:
            raise LayoutError(f"script trigger {trigger!r} has a non-string source {source!r}")
        if _is_url(source):
            if len(source) > max_source_len:
                raise LayoutError(f"script source for {trigger!r} is {len(source)} characters long; Slurk fails "
                                  f"with 500 above about 4000 (keep sources under {max_source_len})")
            return [source]
        path = pdir / source
        if source.endswith(".js") or path.is_file():
            if not path.is_file():
                raise LayoutError(f"script trigger {trigger!r} names {source!r} but {path} does not exist")
            code = path.read_text(encoding="utf-8")
            check_plugin_code(code, f"{path.name}")
            if trigger != "plain" and "//" in code.rstrip("\n").rsplit("\n", 1)[-1] and not code.endswith("\n"):
                raise LayoutError(f"{path.name} is used for {trigger!r} and ends in a '//' comment without a newline: "
                                  "Slurk appends the function's closing '}' right after it, inside the comment")
            sources = plugin_sources(code, path.name, max_source_len)
            if len(sources) > 1 and trigger != "plain":
                raise LayoutError(
                    f"{path.name} is too large for one data URL ({len(data_url(code))} > {max_source_len} "
                    f"characters) and only 'plain' plugins can be split; put the code in a 'plain' plugin and "
                    f"call it from a small {trigger!r} plugin")
            return sources
        if source not in STOCK_PLUGINS:
            raise LayoutError(f"script trigger {trigger!r} names {source!r}: neither a file in {pdir} nor one of "
                              f"Slurk's stock plugins (Slurk would drop it silently)")
        return [source]

    check_shared_plugin(scripts, pdir)
    for trigger, sources in list(scripts.items()):
        if isinstance(sources, list):
            scripts[trigger] = [u for s in sources for u in embed(s, trigger)]
        elif sources is not None:
            out = embed(sources, trigger)
            scripts[trigger] = out[0] if len(out) == 1 else out
    layout["scripts"] = scripts

    if css_files:
        css = dict(layout.get("css") or {})
        for f in css_files:
            path = pdir / f
            if not path.is_file():
                raise LayoutError(f"{CSS_KEY} names {f!r} but {path} does not exist")
            for selector, props in parse_css(path.read_text(encoding="utf-8"), path.name).items():
                css.setdefault(selector, {}).update(props)
        layout["css"] = css

    validate_layout(layout)
    return layout


def build_all_layouts(plugins_dir: Union[str, Path] = "plugins",
                      layouts_dir: Union[str, Path] = "layouts") -> dict[str, dict]:
    """Every layout under layouts/, built (name -> body)."""
    return {name: build_layout(str(p), plugins_dir, layouts_dir) for name, p in layout_paths(layouts_dir).items()}


# ----------------------------------------------------------------------------------------------------------------
# Compile (what Slurk stores and serves for a layout; from the rules in slurk-protocol.md §3.1-3.2)

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
            if _is_url(source):
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
