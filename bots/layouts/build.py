"""`build_layout()`: a layout file (or a TaskSpec's layout) as the body of `POST /slurk/api/layouts`, our plugins
embedded and the result checked (see the package's docstring)."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Mapping, Union

from .checks import STOCK_PLUGINS, check_plugin_code, check_shared_plugin, parse_css, validate_layout
from .sources import MAX_SOURCE_LEN, LayoutError, data_url, is_url, plugin_sources

ROOT = Path(__file__).resolve().parents[2]
CSS_KEY = "plugins_css"

Layout = dict
SpecOrName = Union[str, Path, Mapping[str, Any], Any]


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

    `spec_or_layout_name`: a layout name (a file stem in layouts/), a path to a .json file, a layout dict, or a TaskSpec (its
    `layout`; its `plugins` not already named by the layout are appended: .js to the `plain` trigger, .css to
    `plugins_css`). Plugins whose data URL would be longer than `max_source_len` are split (sources.py).
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
        if is_url(source):
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

