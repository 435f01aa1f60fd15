"""``SlurkDouble``: an in-process Slurk 3 server (REST + Socket.IO) for tests.

It runs aiohttp + python-socketio on its own asyncio loop in a background thread,
bound to a free port on 127.0.0.1. Several instances can run side by side.

    with SlurkDouble() as slurk:
        user_id, token = slurk.provision_user("Bot", {"api": True, "send_message": True}, room_id=...)
        socketio.Client().connect(slurk.url, headers={"Authorization": f"Bearer {token}", "user": str(user_id)})

Failure injection (for outage tests; not part of Slurk, off unless called):

    slurk.fail_rest(503)   # every REST request is answered 503 (as a proxy does while the app restarts);
    slurk.fail_rest(None)  # the socket side keeps working meanwhile
    slurk.crash()          # like `kill -9` of the server: the port stops listening, every connection is cut
    slurk.restart()        # (no socket.io disconnect packet, no disconnect handler: users keep their dead
                           # session_id, as in Slurk's database), then the same state is served on the same port
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import socket
import threading
from typing import Any, Callable

from aiohttp import web

from .client import ADMIN_TOKEN, SlurkRest
from .model import State
from .rest import RestApi, json_errors
from .sockets import SocketHub


class SlurkDouble:
    def __init__(self, etag: bool = False, admin_token: str = ADMIN_TOKEN, cors_allowed_origins: Any = None):
        """``etag``: behave like Slurk without ``SLURK_DISABLE_ETAG`` (ETag headers, If-Match required).
        ``cors_allowed_origins``: None = same origin only (Slurk's setting); "*" lets a page served
        elsewhere (e.g. a browser test) open a socket to the double."""
        self.etag = etag
        self.admin_token = admin_token
        self.cors_allowed_origins = cors_allowed_origins
        self.port: int | None = None
        self.state: State | None = None
        self.hub: SocketHub | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._rest: SlurkRest | None = None
        self.rest_failure: int | None = None  # fail_rest()
        self._keep_state = False  # restart(): serve the crashed server's state again

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("SlurkDouble is not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> "SlurkDouble":
        if self.is_running:
            return self
        self._ready.clear()
        self._error = None
        self._thread = threading.Thread(target=self._main, name="slurk-double", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout=30):
            raise RuntimeError("SlurkDouble did not start within 30 s")
        if self._error is not None:
            raise RuntimeError("SlurkDouble failed to start") from self._error
        self._rest = SlurkRest(self.url, self.admin_token, self.etag)
        return self

    def stop(self) -> None:
        if not self.is_running or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._thread = None

    def __enter__(self) -> "SlurkDouble":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._startup())
        except BaseException as exc:  # report to start()
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._shutdown())
            loop.close()

    async def _startup(self) -> None:
        if not (self._keep_state and self.state is not None):
            self.state = State(self.admin_token)
        self.hub = SocketHub(self.state, self.cors_allowed_origins)
        app = web.Application(middlewares=[self._failure_injection, json_errors])
        self.hub.sio.attach(app)
        RestApi(self.state, self.hub, self.etag).add_routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port if self._keep_state and self.port else 0))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()

    async def _shutdown(self) -> None:
        hub = self.hub
        for sid in [] if hub.dead else list(hub._credentials):
            try:
                await hub.sio.disconnect(sid, namespace="/")
            except Exception:
                pass
        await hub.sio.shutdown()
        await self._runner.cleanup()
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    # ------------------------------------------------------------------ failure injection (not part of Slurk)
    @web.middleware
    async def _failure_injection(self, request: web.Request, handler):
        if self.rest_failure is not None and request.path.startswith("/slurk/api"):
            return web.Response(status=self.rest_failure, text="Service Unavailable (injected by the test double)")
        return await handler(request)

    def fail_rest(self, status: int | None = 503) -> None:
        """Answer every REST request with ``status`` from now on (None: serve them again)."""
        self.rest_failure = status

    def crash(self) -> None:
        """Stop like a killed process: stop listening and cut every connection, without socket.io disconnect packets
        and without running the disconnect handlers (so users keep their dead ``session_id``, as in Slurk's
        database). ``restart()`` serves the same state on the same port again."""
        if not self.is_running or self._loop is None:
            return
        hub = self.hub

        async def cut():
            hub.dead = True
            server = self._runner.server
            for site in list(self._runner.sites):
                site._server.close()  # the listening socket goes now (site.stop() would wait for handlers)
            for handler in list(getattr(server, "connections", ())):
                transport = getattr(handler, "transport", None)
                if transport is not None:
                    transport.abort()

        asyncio.run_coroutine_threadsafe(cut(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._thread = None

    def restart(self) -> "SlurkDouble":
        """After ``crash()``: serve the same state (users, rooms, logs) on the same port again."""
        self._keep_state = True
        try:
            return self.start()
        finally:
            self._keep_state = False

    # ------------------------------------------------------------------ test helpers (not part of Slurk)
    def call(self, fn: Callable[[State], Any], timeout: float = 10) -> Any:
        """Run ``fn(state)`` on the double's loop and return its result (for inspection)."""
        if not self.is_running:
            raise RuntimeError("SlurkDouble is not started")

        async def run():
            return fn(self.state)

        future: concurrent.futures.Future = asyncio.run_coroutine_threadsafe(run(), self._loop)
        return future.result(timeout)

    def provision_user(
        self, name: str, permissions: dict, room_id: int | None = None, task_id: int | None = None
    ) -> tuple[int, str]:
        """Create permissions, a one-registration token and a user; returns ``(user_id, token)``."""
        return self._require_rest().provision_user(name, permissions, room_id=room_id, task_id=task_id)

    def create_room(self, layout: dict | None = None) -> int:
        """Create a layout (given JSON or a small default) and a room with it; returns the room id."""
        return self._require_rest().create_room(layout)

    def create_task(self, name: str, num_users: int, layout_id: int) -> int:
        return self._require_rest().create_task(name, num_users, layout_id)

    def logs(self, room_id: int) -> list[dict]:
        """The room's logs in ascending id order."""
        return self._require_rest().logs(room_id)

    def layout_source(self, layout_id: int) -> dict:
        """The JSON a layout was created/updated from (title, html, css, scripts, ...)."""
        return self.call(lambda state: dict(state.tables["layouts"][layout_id].source))

    def _require_rest(self) -> SlurkRest:
        if self._rest is None:
            raise RuntimeError("SlurkDouble is not started")
        return self._rest
