"""A reusable browser harness for every task plugin: a Slurk page double in headless Chromium.

Usage in a test module (fixtures are imported, there is no conftest)::

    from tests.browser.harness import browser_page, chromium, contract_server  # noqa: F401  (pytest fixtures)

    def test_board(browser_page):
        bp = browser_page("travel")                       # layouts/travel.json built by bots.layouts.build_layout
        view["core"]["bot"] = bp.bot                      # the bot's user id, as the bot puts it in every view
        bp.text_update("travel-state", json.dumps(view))  # like the bot's PATCH /rooms/{id}/text/travel-state
        bp.page.click("#travel-propose")
        assert bp.emitted("message_command")[-1] == {"command": {...}, "room": bp.room, "receiver_id": bp.bot}
        bp.type_chat("/agree")                            # Enter in Slurk's chat box
        bp.assert_commands_private()                      # no message_command went to the whole room
        bp.screenshot("travel-board.png")                 # -> artifacts/screenshots/travel-board.png

What the page provides (slurk-protocol.md §3.4): Slurk's fixed element ids (#custom, #chat-area, #text, ...), the
globals `socket` (a fake that records emits), `self_user`, `self_room`, `user_map`, `markdown`, `TOKEN`, `$` (a tiny
shim), and the functions `display_message`, `display_info`, `submit_text`, `submit_command`, ..., `text_update`,
`attribute_update`, `remove_attribute`, `class_add`, `class_remove` (registered as socket handlers, like Slurk's
layout.js). The room has the person (self_user), a partner and the task bot (`BOT`, user id 3); the fake socket
acknowledges `text` and `message_command` like Slurk's emit_message, with the permissions of a participant as
`setup` creates them (bots.study.provision.PERSON_PERMISSIONS) unless a test passes others. The layout is
compiled the way Slurk compiles it (`bots.layouts.compile_layout`: data-URL plugins fetched
with urllib, triggers glued together without semicolons) and applied like connection.js: html into #custom, then
`window.eval` of the script. Slurk's stock plugins are replaced by small stand-ins written for this harness.

Chromium: /usr/bin/chromium (or $CHROMIUM_PATH), headless, no network features. Missing Chromium or playwright
skips the tests with the install command in the message.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union
from urllib.parse import unquote, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots.layouts import build_layout, compile_layout  # noqa: E402
from bots.study.provision import PERSON_PERMISSIONS  # noqa: E402

PAGE = Path(__file__).with_name("page_contract.html")
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_PATH = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
BOT = {"id": 3, "name": "TaskBot"}          # the task bot's Slurk user in every test room
PARTNER = {"id": 2, "name": "Bob"}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

# Stand-ins for Slurk's stock plugins (bodies of the trigger functions), written for this harness.
STOCK_STANDINS: dict[str, str] = {
    "display-text": "display_message(data.user, data.timestamp, data.message, data.private, false);",
    "markdown": "display_message(data.user, data.timestamp, data.message, data.private, data.html);",
    "display-image": "display_image(data.user, data.timestamp, data.url, data.width, data.height, data.private);",
    "send-message": (     # '/cmd' -> a message_command to the whole room (no receiver), shown privately
        "if (text.charAt(0) === '/') { submit_command(text.substring(1));\n"
        "  display_message(current_user, current_timestamp, text.substring(1), true); }\n"
        "else { submit_text(text); display_message(current_user, current_timestamp, text, false); }"
    ),
    "send-intercepted-message": (
        "if (!text || !text.trim()) { return; }\n"
        "submit_command(text);\n"
        "display_message(current_user, current_timestamp, text, false, false);"
    ),
    "plain-history": (
        "if (element.event === 'text_message' && element.data) "
        "{ display_message(element.user, element.date_created, element.data.message, !!element.receiver_id, false); }"
    ),
    "markdown-history": (
        "if (element.event === 'text_message' && element.data) "
        "{ display_message(element.user, element.date_created, element.data.message, !!element.receiver_id, "
        "element.data.html); }"
    ),
    "attribute-history": (
        "if (element.event === 'set_text' && element.data) { text_update(element.data); }\n"
        "if (element.event === 'set_attribute' && element.data) { attribute_update(element.data); }\n"
        "if (element.event === 'class_add' && element.data) { class_add(element.data); }"
    ),
    "typing-users": "",
}


# ----------------------------------------------------------------------------------------------------------------
# HTTP server for the page and per-page configurations


class ContractServer:
    """Serves the page double and the compiled layouts on 127.0.0.1 from a daemon thread."""

    def __init__(self):
        self.configs: dict[str, bytes] = {}
        page = PAGE.read_bytes()
        configs = self.configs

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                path = urlparse(self.path).path
                if path in ("/", "/page"):
                    self._send(200, "text/html; charset=utf-8", page)
                elif path.startswith("/config/") and path.endswith(".json"):
                    body = configs.get(unquote(path[len("/config/"):-len(".json")]))
                    if body is None:
                        self._send(404, "text/plain", b"no such config")
                    else:
                        self._send(200, "application/json", body)
                else:
                    self._send(404, "text/plain", b"not found")

            def _send(self, code, ctype, body):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="contract-page", daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, config: Mapping[str, Any]) -> str:
        key = uuid.uuid4().hex
        self.configs[key] = json.dumps(config).encode("utf-8")
        return f"{self.base_url}/page?config={key}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def compile_for_page(layout: Union[str, Mapping[str, Any]], build: bool = True) -> dict:
    """The layout as Slurk would serve it. `build=False` compiles a raw layout dict without build_layout's checks
    (to show what a bad plugin does to the page)."""
    body = build_layout(layout) if build else dict(layout)
    return compile_layout(body, stock=lambda name: STOCK_STANDINS.get(name))


# ----------------------------------------------------------------------------------------------------------------
# The helper a test gets


class BrowserPage:
    bot = BOT["id"]
    partner = PARTNER["id"]

    def __init__(self, page, room: int, user: Mapping[str, Any], layout: dict):
        self.page = page
        self.room = room
        self.user = dict(user)
        self.layout = layout
        self.page_errors: list[str] = []
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))

    # -- events -----------------------------------------------------------------------------------------------
    def deliver(self, event: str, data: Any) -> int:
        """Fire the page's socket handlers for `event` (as if the server sent it); returns how many ran."""
        return self.page.evaluate("([e, d]) => window.__deliver(e, d)", [event, data])

    def text_update(self, element_id: str, text: str) -> int:
        """What the bot's `PATCH /rooms/{room}/text/{element_id}` produces on the page."""
        return self.deliver("text_update", {"id": element_id, "text": text})

    def deliver_command(self, command: Any, user: Optional[Mapping[str, Any]] = None, private: bool = True) -> int:
        """A `command` event as Slurk delivers it (from the bot unless `user` is given)."""
        return self.deliver("command", {"user": dict(user or BOT), "room": self.room,
                                        "timestamp": "2026-01-01 10:00:00",
                                        "private": private, "command": command, "broadcast": False})

    def deliver_text(self, message: str, user: Optional[Mapping[str, Any]] = None, private: bool = False,
                     html: bool = False) -> int:
        """A `text_message` event (from the partner unless `user` is given). `html=True`: as the task bot sends
        every line it shows (only a bot may; plain text escaped, bots/slurk/delivery.py `as_html`)."""
        return self.deliver("text_message", {"user": dict(user or PARTNER), "room": self.room,
                                             "timestamp": "2026-01-01 10:00:00", "private": private,
                                             "message": message, "html": html, "broadcast": False})

    def type_chat(self, text: str) -> None:
        """Type a line into Slurk's chat box (#text) and press Enter."""
        self.page.fill("#text", text)
        self.page.press("#text", "Enter")

    def chat_lines(self) -> list[str]:
        """The lines in the chat area, oldest first ("You: ..." for one's own, "Bob: ..." for others)."""
        return self.page.eval_on_selector_all("#chat-area .msg", "els => els.map(e => e.textContent)")

    def wait_idle(self) -> None:
        """Let pending acks (answered with setTimeout 0) and MutationObserver callbacks run."""
        self.page.evaluate("() => new Promise(r => setTimeout(r, 20))")

    def handler_count(self, event: str) -> int:
        return self.page.evaluate("(e) => window.__handlerCount(e)", event)

    def set_ack(self, event: str, *args: Any) -> None:
        """Ack arguments for emits of `event` (default `True`), e.g. `set_ack("message_command", False, "no")`."""
        self.page.evaluate("([e, a]) => { window.__acks[e] = a; }", [event, list(args)])

    # -- what the page sent -----------------------------------------------------------------------------------
    def emits(self) -> list[dict]:
        """Every emit as {"event": name, "data": payload}, oldest first."""
        return self.page.evaluate("() => window.__emitted")

    def emitted(self, event: Optional[str] = "message_command") -> list[Any]:
        """Payloads emitted for `event` (all emits as {"event","data"} when event is None)."""
        found = self.emits()
        if event is None:
            return found
        return [e["data"] for e in found if e["event"] == event]

    def broadcast_commands(self) -> list[Any]:
        """message_command payloads without a receiver: Slurk sends those to everyone in the room."""
        return [d for d in self.emitted("message_command") if not isinstance(d, dict) or d.get("receiver_id") is None]

    def assert_commands_private(self) -> None:
        """Every message_command so far went to the bot alone (receiver_id = the bot), none to the whole room."""
        sent = self.emitted("message_command")
        assert self.broadcast_commands() == [], f"commands sent to the whole room: {self.broadcast_commands()}"
        assert all(d.get("receiver_id") == self.bot for d in sent), sent

    def clear_emitted(self) -> None:
        self.page.evaluate("() => { window.__emitted.length = 0; }")

    # -- errors, screenshots ------------------------------------------------------------------------------------
    @property
    def errors(self) -> list[str]:
        """Uncaught page errors plus errors raised while the layout script was evaluated."""
        return self.page.evaluate("() => window.__errors.slice()") + list(self.page_errors)

    def assert_no_errors(self) -> None:
        errors = self.errors
        assert not errors, f"errors on the page: {errors}"

    def screenshot(self, path: Union[str, Path], full_page: bool = False) -> Path:
        p = Path(path)
        if not p.is_absolute():
            p = SCREENSHOTS / p
        p.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(p), full_page=full_page)
        return p

    def eval(self, js: str, arg: Any = None) -> Any:
        return self.page.evaluate(js, arg)


# ----------------------------------------------------------------------------------------------------------------
# Fixtures


def require_browser() -> str:
    """Skip (with what to install) unless playwright and Chromium are present; returns the Chromium path."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("browser tests need playwright: pip install playwright (Chromium comes from apt-get install "
                    "chromium)")
    path = CHROMIUM_PATH if os.path.isfile(CHROMIUM_PATH) else shutil.which("chromium")
    if not path:
        pytest.skip(f"browser tests need Chromium at {CHROMIUM_PATH}: apt-get install chromium")
    return path


@pytest.fixture(scope="session")
def chromium():
    """A headless Chromium (playwright Browser), shared by the session."""
    path = require_browser()
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
    except Exception as e:
        pw.stop()
        pytest.fail(f"Chromium at {path} is installed but did not start: {e}")
    yield browser
    browser.close()
    pw.stop()


@pytest.fixture(scope="session")
def contract_server():
    server = ContractServer()
    yield server
    server.close()


@pytest.fixture
def browser_page(chromium, contract_server):
    """Factory: `browser_page(layout, **options) -> BrowserPage` with the layout applied and its plugin loaded.

    layout: a layout name under layouts/ ("travel"), a path, or a layout dict. Options: build=True (False compiles a
    raw dict without build_layout's checks), self_user={"id": 1, "name": "Alice"}, self_room=7,
    user_map={1: "Alice", 2: "Bob", 3: "TaskBot"}, members=[ids in the room] (default: user_map's),
    permissions=PERSON_PERMISSIONS (this user's Slurk permission flags, checked by the fake socket),
    history=[log entries passed to print_history], viewport=(1280, 800),
    allow_errors=False (by default the test fails at teardown if the page raised an error).
    """
    opened: list[tuple[Any, BrowserPage, bool]] = []

    def open_page(layout: Union[str, Mapping[str, Any]], *, build: bool = True,
                  self_user: Optional[Mapping[str, Any]] = None, self_room: int = 7,
                  user_map: Optional[Mapping[Any, str]] = None, history: Iterable[Mapping[str, Any]] = (),
                  viewport: tuple[int, int] = (1280, 800), allow_errors: bool = False,
                  permissions: Optional[Mapping[str, bool]] = None,
                  members: Optional[Iterable[int]] = None) -> BrowserPage:
        compiled = compile_for_page(layout, build=build)
        user = dict(self_user or {"id": 1, "name": "Alice"})
        users = user_map or {user["id"]: user["name"], PARTNER["id"]: PARTNER["name"], BOT["id"]: BOT["name"]}
        url = contract_server.add({
            "layout": compiled, "self_user": user, "self_room": self_room,
            "user_map": {str(k): v for k, v in users.items()},
            "members": [str(m) for m in (members if members is not None else users)],
            "permissions": dict(PERSON_PERMISSIONS if permissions is None else permissions),
            "history": list(history),
        })
        context = chromium.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                       device_scale_factor=1)
        page = context.new_page()
        helper = BrowserPage(page, self_room, user, compiled)
        opened.append((context, helper, allow_errors))
        page.goto(url)
        page.wait_for_function("() => window.__ready === true")
        return helper

    yield open_page
    failures = []
    for context, helper, allow_errors in opened:
        try:
            if not allow_errors and helper.errors:
                failures.append(helper.errors)
        finally:
            context.close()
    if failures:
        pytest.fail(f"errors on the page: {failures}")
