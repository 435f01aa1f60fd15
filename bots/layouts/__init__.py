"""Slurk room layouts: load `layouts/<task>.json`, embed our plugins (sources.py), validate (checks.py), and compile
like Slurk does (compile.py).

`build_layout()` turns a layout file into the JSON body for `POST /slurk/api/layouts`:

* every script entry that names one of our plugin files (``"<task>.js"``) becomes a
  ``data:text/javascript;base64,...`` URL of the file's content. Slurk's layout compiler fetches each script
  source with urllib at layout-creation time, and urllib decodes data URLs, so nothing has to be copied into the
  server (slurk-protocol.md §3.2, §8.1). Stock plugin names (``"markdown"``, ``"send-message"``, ...) and real URLs
  are kept as they are.
* CSS files listed under the layout's own key ``"plugins_css": ["<task>.css"]`` are parsed into Slurk's ``css``
  dict (selector -> {property: value}); the key itself is removed because Slurk rejects unknown fields (422).
* the result is checked against the pitfalls in slurk-protocol.md §3 and §8.1, with a clear `LayoutError`:
  each plugin must start with ``;`` (Slurk glues triggers together without semicolons, so a leading ``(`` turns
  the plugin into a call of the previous trigger function), its ``{``/``}`` must balance (Slurk silently drops an
  unbalanced trigger), ``submit-message``, ``incoming-text`` and ``print-history`` must be set (omitted triggers
  compile to empty functions: Enter would send nothing), ``html`` must be a list and ``layout-content`` a str or a
  list, attribute values must not contain a single quote (Slurk renders ``name='value'``).

Large plugins are shipped as several small sources (sources.py says why and how).

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
from .build import build_all_layouts, build_layout, layout_path, layout_paths, plugin_paths
from .checks import (
    LAYOUT_FIELDS, REQUIRED_TRIGGERS, SHARED_PLUGIN, SHARED_SUBMIT, STOCK_PLUGINS, TRIGGERS, check_plugin_code,
    parse_css, validate_layout,
)
from .compile import compile_layout
from .sources import (
    DATA_URL_PREFIX, MAX_SOURCE_LEN, LayoutError, data_url, fetch_script, plugin_code_from_sources, plugin_sources,
)

__all__ = [name for name in dir() if not name.startswith("_")]
