"""bots.layouts: layouts built for Slurk's POST /layouts with our plugins embedded as data URLs, and validated."""
from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots.layouts import (DATA_URL_PREFIX, LAYOUT_FIELDS, MAX_SOURCE_LEN, REQUIRED_TRIGGERS,  # noqa: E402
                          SHARED_PLUGIN, SHARED_SUBMIT, LayoutError, build_all_layouts, build_layout, check_plugin_code,
                          compile_layout, data_url, fetch_script, layout_paths, parse_css, plugin_code_from_sources,
                          plugin_paths, plugin_sources)

PLUGINS = ROOT / "plugins"


def sources(value):
    return [value] if isinstance(value, str) else list(value)


def decode(url: str) -> str:
    assert url.startswith(DATA_URL_PREFIX)
    return base64.b64decode(url[len(DATA_URL_PREFIX):]).decode("utf-8")


@pytest.fixture
def workspace(tmp_path):
    """A plugins/ and layouts/ pair to build small layouts from."""
    (tmp_path / "plugins").mkdir()
    (tmp_path / "layouts").mkdir()

    def make(layout: dict, plugins: dict[str, str]):
        for name, code in plugins.items():
            (tmp_path / "plugins" / name).write_text(code, encoding="utf-8")
        (tmp_path / "layouts" / "t.json").write_text(json.dumps(layout), encoding="utf-8")
        return lambda **kw: build_layout("t", plugins_dir=tmp_path / "plugins", layouts_dir=tmp_path / "layouts", **kw)
    return make


def base_layout(**scripts):
    s = {"incoming-text": "markdown", "submit-message": "send-message", "print-history": "markdown-history"}
    s.update(scripts)
    return {"title": "T", "html": [{"layout-type": "div", "id": "board"}], "scripts": s}


# ----------------------------------------------------------------------------------------------------------------
# The travel layout


def test_travel_layout_embeds_its_plugins_and_keeps_stock_plugins():
    body = build_layout("travel")
    assert set(body) <= set(LAYOUT_FIELDS)                # nothing Slurk would reject with 422
    scripts = body["scripts"]
    # chat lines are shown by the shared page script (game-master marks, the chat limit), live and after a reload
    assert scripts["incoming-text"] == data_url((PLUGINS / "slurk-task-incoming.js").read_text(encoding="utf-8"))
    assert scripts["print-history"] == data_url((PLUGINS / "slurk-task-history.js").read_text(encoding="utf-8"))
    # the chat box: our small submit-message body, one data URL (function triggers cannot be split)
    submit = (PLUGINS / SHARED_SUBMIT).read_text(encoding="utf-8")
    assert scripts["submit-message"] == data_url(submit) and len(scripts["submit-message"]) <= MAX_SOURCE_LEN
    plain = sources(scripts["plain"])
    assert all(s.startswith(DATA_URL_PREFIX) for s in plain)
    assert all(len(s) <= MAX_SOURCE_LEN for s in plain)
    # the shared page script first, then the task plugin; what Slurk's urllib fetch of each file's sources
    # evaluates is exactly the file
    shared = (PLUGINS / SHARED_PLUGIN).read_text(encoding="utf-8")
    travel = (PLUGINS / "travel.js").read_text(encoding="utf-8")
    first = plugin_sources(shared, SHARED_PLUGIN)
    assert plain == first + plugin_sources(travel, "travel.js")
    assert plugin_code_from_sources(plain[:len(first)]) == shared
    assert plugin_code_from_sources(plain[len(first):]) == travel
    # the CSS file went into Slurk's css dict; its own key is gone
    assert "plugins_css" not in body
    assert body["css"]["#travel-state"]["display"] == "none !important"
    assert body["css"]["#travel-shared"]["display"] == "none !important"  # the shared part of the view (JSON)
    assert body["css"][".travel-app"]["color"] == "#1d2433"
    assert body["title"] == "Traveling Adventurers" and body["show_users"] is True


def test_travel_layout_has_the_elements_the_plugin_and_bot_use():
    html = compile_layout(build_layout("travel"))["html"]
    for element in ("travel-board", "travel-state", "travel-shared", "travel-propose", "travel-clear", "travel-agree",
                    "travel-reject", "travel-undo", "travel-share", "travel-submit", "travel-result", "travel-code"):
        assert f"id='{element}'" in html, element


@pytest.mark.parametrize("name,plugin", [("travel", "travel.js"), ("gnomes", "gnomes.js")])
def test_task_layouts_load_the_shared_page_script(name, plugin):
    raw = json.loads((ROOT / "layouts" / f"{name}.json").read_text(encoding="utf-8"))["scripts"]
    assert raw["plain"] == [SHARED_PLUGIN, plugin] and raw["submit-message"] == SHARED_SUBMIT
    script = compile_layout(build_layout(name))["script"]
    assert "keypress = function(current_room, current_user, current_timestamp, text) {;" in script
    assert "window.SlurkTask.submit(current_room, current_user, current_timestamp, text);" in script


def test_plugin_using_slurk_task_needs_the_shared_script_first(workspace):
    shared = (PLUGINS / SHARED_PLUGIN).read_text(encoding="utf-8")
    task = ";window.SlurkTask.watch('s', function () {});\n"
    plugins = {SHARED_PLUGIN: shared, "task.js": task}
    assert workspace(base_layout(plain=[SHARED_PLUGIN, "task.js"]), plugins)()
    with pytest.raises(LayoutError, match="before it"):
        workspace(base_layout(plain=["task.js", SHARED_PLUGIN]), plugins)()
    with pytest.raises(LayoutError, match="add 'slurk-task.js'"):
        workspace(base_layout(plain=["task.js"]), plugins)()
    submit = (PLUGINS / SHARED_SUBMIT).read_text(encoding="utf-8")
    with pytest.raises(LayoutError, match="add 'slurk-task.js'"):
        workspace(base_layout(**{"submit-message": SHARED_SUBMIT}), {SHARED_SUBMIT: submit})()


def test_function_trigger_plugin_ending_in_a_comment_is_refused(workspace):
    build = workspace(base_layout(**{"submit-message": "s.js"}), {"s.js": ";submit_text(text); // send"})
    with pytest.raises(LayoutError, match="closing"):
        build()
    assert workspace(base_layout(**{"submit-message": "s.js"}), {"s.js": ";submit_text(text); // send\n"})()


def test_task_spec_plugins_are_added(tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "layouts").mkdir()
    (tmp_path / "plugins" / "extra.js").write_text(";window.extra = 1;")
    (tmp_path / "plugins" / "extra.css").write_text("/* c */ .x { color: red; }\n.x { margin: 0 }")
    (tmp_path / "layouts" / "t.json").write_text(json.dumps(base_layout()))
    spec = SimpleNamespace(name="t", layout="t.json", plugins=("extra.js", "extra.css"))
    body = build_layout(spec, plugins_dir=tmp_path / "plugins", layouts_dir=tmp_path / "layouts")
    assert [decode(u) for u in sources(body["scripts"]["plain"])] == [";window.extra = 1;"]
    assert body["css"] == {".x": {"color": "red", "margin": "0"}}


def test_every_layout_in_the_repository_builds():
    built = build_all_layouts()
    assert "travel" in built and "travel" in layout_paths()
    for name, body in built.items():
        for trigger in REQUIRED_TRIGGERS:
            assert body["scripts"].get(trigger), (name, trigger)


@pytest.mark.parametrize("name", sorted(n for n in plugin_paths() if n.endswith(".js")))
def test_every_plugin_file_starts_with_a_semicolon(name):
    code = (PLUGINS / name).read_text(encoding="utf-8")
    assert code.startswith(";"), f"plugins/{name} must start with ';' (slurk-protocol.md §8.1)"
    check_plugin_code(code, name)                          # and its braces balance


# ----------------------------------------------------------------------------------------------------------------
# Embedding


def test_small_plugin_is_one_data_url_that_decodes_to_the_file(workspace):
    code = ";var board = {size: 3};\n// ünïcödé comment\n"
    body = workspace(base_layout(plain=["p.js", "markdown"]), {"p.js": code})()
    plain = body["scripts"]["plain"]
    assert len(plain) == 2 and plain[1] == "markdown"
    assert decode(plain[0]) == code
    assert fetch_script(plain[0]) == code                  # what Slurk's urllib fetch sees


def test_large_plugin_is_split_into_balanced_sources_that_rebuild_it():
    code = ";window.big = (function () {\n" + "".join(
        f"    var f{i} = function (x) {{ return {{v: x + {i}, s: '\\u00e9{{'.length }}; }};\n" for i in range(400)
    ) + "    return 1;\n}());\n"
    srcs = plugin_sources(code, "big.js")
    assert len(srcs) > 2
    for s in srcs:
        assert len(s) <= MAX_SOURCE_LEN
        check_plugin_code(fetch_script(s), "chunk")       # each source starts with ';' and balances on its own
    assert plugin_code_from_sources(srcs) == code


def test_large_plugin_in_a_function_trigger_is_refused(workspace):
    big = ";" + "var x = 1;\n" * 600
    build = workspace(base_layout(**{"incoming-text": "big.js"}), {"big.js": big})
    with pytest.raises(LayoutError, match="only 'plain' plugins can be split"):
        build()


def test_urls_are_kept(workspace):
    body = workspace(base_layout(plain="https://example.org/x.js"), {})()
    assert body["scripts"]["plain"] == "https://example.org/x.js"


# ----------------------------------------------------------------------------------------------------------------
# Refusals


def test_plugin_starting_with_a_parenthesis_is_refused(workspace):
    build = workspace(base_layout(plain=["iife.js"]), {"iife.js": "(function () { window.x = 1; })();\n"})
    with pytest.raises(LayoutError, match=r"must start with ';'.*'\('"):
        build()


def test_plugin_with_unbalanced_braces_is_refused(workspace):
    build = workspace(base_layout(plain=["b.js"]), {"b.js": ";var s = '{';\n"})
    with pytest.raises(LayoutError, match="braces do not balance"):
        build()


@pytest.mark.parametrize("missing", REQUIRED_TRIGGERS)
def test_required_triggers_must_be_set(workspace, missing):
    layout = base_layout()
    del layout["scripts"][missing]
    with pytest.raises(LayoutError, match=missing):
        workspace(layout, {})()


@pytest.mark.parametrize("layout,match", [
    ({**base_layout(), "colour": "red"}, "unknown layout field"),
    (base_layout(**{"on-load": "markdown"}), "unknown script trigger"),
    (base_layout(plain="missing.js"), "does not exist"),
    (base_layout(plain="no-such-stock-plugin"), "stock plugins"),
    ({**base_layout(), "html": {"layout-type": "div"}}, "must be a list"),
    ({**base_layout(), "html": [{"layout-type": "div", "layout-content": {"layout-type": "span"}}]}, "str or a list"),
    ({**base_layout(), "html": [{"layout-type": "div", "title": "it's"}]}, "single quote"),
    ({**base_layout(), "title": ""}, "title"),
    ({**base_layout(), "plugins_css": ["missing.css"]}, "does not exist"),
])
def test_bad_layouts_are_refused(workspace, layout, match):
    with pytest.raises(LayoutError, match=match):
        workspace(layout, {})()


def test_unknown_layout_name_lists_the_known_ones():
    with pytest.raises(LayoutError, match="travel"):
        build_layout("no-such-task")


def test_css_parser():
    css = parse_css("/* x */\n#a, .b > c { color: red; margin : 0 1px ;}\n.d{}\n#a, .b > c { color: blue }")
    assert css == {"#a, .b > c": {"color": "blue", "margin": "0 1px"}, ".d": {}}
    with pytest.raises(LayoutError, match="at-rules"):
        parse_css("@media (max-width: 10px) { .a { color: red; } }")
    with pytest.raises(LayoutError):
        parse_css(".a { color: red; ")


# ----------------------------------------------------------------------------------------------------------------
# Compiling like Slurk


def test_compile_follows_slurks_rules():
    layout = {
        "title": "T",
        "html": [{"layout-type": "div", "id": "a", "class": "", "layout-content": [
            {"layout-type": "br"}, {"layout-type": "img", "src": "x.png"}, "raw <b>text</b>"]}],
        "css": {"#a": {"color": "red"}},
        "scripts": {"plain": data_url(";window.p = 1;"), "incoming-text": "markdown"},
    }
    out = compile_layout(layout, stock=lambda name: "show(data);" if name == "markdown" else None)
    assert out["html"] == "<div id='a'>\n    <br>\n    <img src='x.png' />\nraw <b>text</b></div>\n"
    assert out["css"] == "#a {\n    color: red;\n}\n\n"
    script = out["script"]
    # omitted triggers become empty functions; the plain plugin follows a trigger function with no semicolon
    assert "keypress = function(current_room, current_user, current_timestamp, text) {}\n\n\n;window.p = 1;" in script
    assert "incoming_text = function(data) {\nshow(data);\n}\n" in script
    assert "print_history = function(element) {\n\n}\n" in script


# ----------------------------------------------------------------------------------------------------------------
# Against a real Slurk server (optional)


@pytest.mark.conformance
def test_real_slurk_accepts_the_built_layouts():
    url, token = os.environ.get("SLURK_TEST_URL"), os.environ.get("SLURK_TEST_ADMIN_TOKEN")
    if not (url and token):
        pytest.skip("set SLURK_TEST_URL and SLURK_TEST_ADMIN_TOKEN to run against a real Slurk server")
    import requests
    for name, body in build_all_layouts().items():
        r = requests.post(url.rstrip("/") + "/slurk/api/layouts", json=body,
                          headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert r.status_code == 201, (name, r.status_code, r.text[:300])
        script = r.json()["script"] or ""
        for s in sources(body["scripts"].get("plain") or []):
            if s.startswith(DATA_URL_PREFIX):
                assert fetch_script(s) in script, name


def test_every_task_page_has_the_elements_its_views_go_to():
    """The state element, and the shared element of a page in two parts (tasks/core/pages.py), are in the layout."""
    from tasks import available_tasks, get_task

    for name in available_tasks():
        spec = get_task(name)
        if not spec.layout:
            continue
        html = compile_layout(build_layout(name))["html"]
        for element in filter(None, (spec.state_element, spec.shared_element)):
            assert f"id='{element}'" in html, (name, element)
