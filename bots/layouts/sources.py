"""Script sources as Slurk's layout compiler reads them: our plugin files as data URLs, split into small chunks
when one would be too long.

Large plugins: Slurk's compiler also tries `open(<plugins dir>/<source>.js)` for every source and only catches
FileNotFoundError, so a source longer than the OS path limit (4096 bytes with the directory) fails with
ENAMETOOLONG and `POST /layouts` answers 500 (measured on the test server: a 4028-character data URL passed, 4096
failed). A plugin whose data URL would exceed `MAX_SOURCE_LEN` is therefore shipped as several small `plain`
sources: the first ones append the code, as a JS string literal with its braces escaped (each source must balance
`{`/`}` on its own), to `window.__slurk_plugin_src[<file>]`, and the last one runs it with a global (indirect) eval,
so top-level declarations still become globals as with a plain script. `plugin_code_from_sources()` reverses this.

The server log: that same file lookup logs "ERROR in layout: Could not find script: data:..." once per data: source
of every upload (a page of many plugins: ~37 lines), after urllib has already read the source; the stored layout script holds every
source in full (tests/test_operator_layouts.py checks it on a real Slurk). No embedding avoids it: a source that is
not a stock plugin name always misses that file, a URL Slurk could fetch would need a web server of our own, and
fewer, longer sources hit the path limit above. The lines are harmless and can be filtered out of the log.
"""
from __future__ import annotations

import base64
import json
import re
import urllib.request

DATA_URL_PREFIX = "data:text/javascript;base64,"
# Longest script source we hand to Slurk (see the module doc: ENAMETOOLONG above ~4000 characters, depending on the
# length of the server's install path; 3000 leaves room for a deep virtualenv path).
MAX_SOURCE_LEN = 3000
CHUNK_REGISTRY = "window.__slurk_plugin_src"


class LayoutError(ValueError):
    """A layout or plugin that Slurk would reject or that would break the page."""


def data_url(code: str) -> str:
    return DATA_URL_PREFIX + base64.b64encode(code.encode("utf-8")).decode("ascii")


def fetch_script(source: str) -> str:
    """The content of a script source the way Slurk's compiler gets it (urllib, which decodes data: URLs)."""
    with urllib.request.urlopen(source, timeout=10) as resp:
        return resp.read().decode("utf-8")


def is_url(source: str) -> bool:
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

