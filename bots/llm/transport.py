"""HTTP for the LLM client: a pool of keep-alive connections to one endpoint's ``/chat/completions``.

The standard library's ``http.client`` does the protocol. Measured against a local server (bench/bench_parallel.py),
one request cost ~4.5 ms of the client's CPU through the ``openai`` package (request transforms, response models)
and ~1.3 ms through httpx, ~0.4 ms here; at 64 games in flight that CPU, not the server, set the pace.

:class:`HTTPTransport` is the seam: :class:`~bots.llm.client.LLMClient` takes any object with
``post(payload: bytes, timeout: float) -> Reply`` and ``close()`` (a test may pass its own), and the transport raises
:class:`TransportTimeout` or :class:`TransportError` when no HTTP answer came. A transport with ``streams = True``
also takes ``post(..., stream=True, total=T)`` for a request that asks for server-sent events (``"stream": true``):
the events are read until ``[DONE]``, each within ``timeout`` seconds of the last (a long answer may take as long
as it keeps coming) and all within ``total`` seconds (None: no bound of its own), and when the time is up the
connection is closed, which is how a server learns that nobody waits for the rest of the answer and stops generating it
(llama-cpp-python, vLLM and OpenAI check for a closed connection between tokens; a server that answers a
non-streamed request keeps generating until the end). The events come back as the Reply's body, unparsed. Proxies come from the environment
(``https_proxy``, ``http_proxy``, ``no_proxy``) as other HTTP clients read them. The API key goes only into the
``Authorization`` header, never into an error message.
"""
from __future__ import annotations

import base64
import contextlib
import http.client
import select
import ssl
import threading
import time
import urllib.parse
import urllib.request
from typing import Mapping, NamedTuple

# Idle connections kept per endpoint (one per request that was in flight at once, up to this).
MAX_IDLE = 256


class Reply(NamedTuple):
    status: int
    headers: Mapping[str, str]  # lower-case names
    body: bytes


class TransportError(Exception):
    """No HTTP answer: the connection could not be made, or broke before the answer was read."""


class TransportTimeout(TransportError):
    """No HTTP answer within the attempt's timeout."""


class StreamBroken(TransportError):
    """A streamed answer whose body the server cut off mid-way (its chunked encoding ends early: IncompleteRead, or
    the connection reset while the events came), as a server under load that drops streams does."""


class HTTPTransport:
    """POSTs JSON to ``<base_url>/chat/completions``; thread-safe (each request takes a connection of its own)."""

    streams = True  # post(..., stream=True) reads server-sent events and can abandon them

    def __init__(self, base_url: str, api_key: str, *, user_agent: str = "slurk-bots-llm"):
        url = urllib.parse.urlsplit(base_url.rstrip("/"))
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"LLM base_url must be an http(s) URL, not {base_url!r}")
        self._tls = url.scheme == "https"
        self._host = url.hostname
        self._port = url.port or (443 if self._tls else 80)
        self._path = (url.path or "") + "/chat/completions"
        self._headers = {"Content-Type": "application/json", "Accept": "application/json",
                         "Authorization": f"Bearer {api_key}", "User-Agent": user_agent}
        self._proxy = _proxy_for(url)
        if self._proxy is not None and not self._tls:  # plain HTTP through a proxy: absolute URL, proxy's auth
            self._path = f"http://{url.netloc}{self._path}"
            self._headers.update(self._proxy[2])
        self._context = _tls_context() if self._tls else None
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._closed = False

    def post(self, payload: bytes, timeout: float, stream: bool = False, total: float | None = None) -> Reply:
        until = None if total is None else time.monotonic() + total
        conn = self._connection(timeout)
        response = None
        try:
            conn.request("POST", self._path, body=payload, headers=self._headers)
            sock = conn.sock  # the response keeps reading it after http.client lets go of it (will_close)
            response = conn.getresponse()
            events = response.getheader("content-type", "").startswith("text/event-stream")
            if stream and events:
                try:
                    body = _read_events(response, sock, timeout, until)
                except (http.client.IncompleteRead, ConnectionResetError) as e:
                    _abandon(conn, response)
                    raise StreamBroken(f"{type(e).__name__}: {e}") from None
            else:
                body = response.read()
        except TimeoutError:
            _abandon(conn, response)  # a timed-out connection may still carry the late answer: never reused
            raise TransportTimeout("timeout") from None
        except (OSError, http.client.HTTPException) as e:
            _abandon(conn, response)
            raise TransportError(f"{type(e).__name__}: {e}".rstrip(": ")) from None
        reply = Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
        if response.will_close or not response.isclosed():  # a body not read to its end: the connection is spent
            _abandon(conn, response)
        else:
            self._keep(conn)
        return reply

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    # -- connections -------------------------------------------------------------------------------------------
    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        while True:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return self._connect(timeout)
            if conn.sock is not None and not _readable(conn.sock):
                conn.sock.settimeout(timeout)
                conn.timeout = timeout
                return conn
            conn.close()  # the server closed it while it was idle (its keep-alive timeout)

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        host, port = (self._host, self._port) if self._proxy is None else self._proxy[:2]
        if self._tls:
            conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=self._context)
            if self._proxy is not None:
                conn.set_tunnel(self._host, self._port, headers=self._proxy[2])
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        return conn  # connects on its first request, within `timeout`

    def _keep(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()


def _read_events(response: http.client.HTTPResponse, sock, timeout: float, until: float | None) -> bytes:
    """The lines of an event stream up to ``data: [DONE]`` (or the end of the body); TimeoutError when a line takes
    longer than ``timeout`` or ``until`` (a time.monotonic() value) passes first."""
    lines = []
    while True:
        left = timeout if until is None else min(timeout, until - time.monotonic())
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        line = response.readline()
        if not line:
            break
        lines.append(line)
        if line.strip() == b"data: [DONE]":
            with contextlib.suppress(OSError, http.client.HTTPException):
                response.read()  # the body's end (the last chunk): then the connection can serve the next request
            break
    return b"".join(lines)


def _abandon(conn: http.client.HTTPConnection, response) -> None:
    """Close the connection for good: the response holds the socket open too (its file), so it is closed as well,
    or the server would not see that nobody reads any more."""
    if response is not None:
        response.close()
    conn.close()


def _readable(sock) -> bool:
    """Whether an idle connection has something to read: the server's close (or garbage), so it is not reused."""
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    except AttributeError:  # no poll() on this platform
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _proxy_for(url: urllib.parse.SplitResult) -> tuple[str, int, dict] | None:
    """(host, port, headers) of the environment's proxy for `url`, or None."""
    proxy = urllib.request.getproxies().get(url.scheme)
    if not proxy or urllib.request.proxy_bypass(url.hostname or ""):
        return None
    p = urllib.parse.urlsplit(proxy if "://" in proxy else "http://" + proxy)
    headers = {}
    if p.username:
        user = f"{urllib.parse.unquote(p.username)}:{urllib.parse.unquote(p.password or '')}"
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(user.encode()).decode()
    return p.hostname or "", p.port or 80, headers


def _tls_context() -> ssl.SSLContext:
    """The system's trust store, or certifi's bundle when it is installed (as requests and httpx use it)."""
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())
