"""A scriptable fake OpenAI-compatible HTTP server for tests (loopback only, stdlib only).

Usage::

    from fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        fake.script(["first answer", {"status": 500}, {"json": {"move": "pass"}}])
        client = openai.OpenAI(base_url=fake.url, api_key="sk-test")   # fake.url ends in /v1
        ...
        assert fake.requests[0]["json"]["model"] == "test-model"
        assert fake.requests[0]["headers"]["authorization"] == "Bearer sk-test"

Endpoints
    ``POST /v1/chat/completions``  answers with the next script entry (see below), then with ``default_responder``.
    ``GET  /v1/models``            lists ``models`` (handy for health checks); not scripted, not recorded.

Script entries (consumed one per chat request, in order):
    ``"text"``                  a normal ``chat.completion`` whose message content is ``"text"``.
    ``{"json": obj}``           content is ``json.dumps(obj)``.
    ``{"content": "text"}``     same as a plain string; may be combined with the keys below.
    ``{"status": 500}``         an error with an OpenAI-style body ``{"error": {"message", "type", "code"}}``;
                                ``"error": "message"`` sets the message. Works for any status (400, 401, 429, 503...).
    ``{"hang": seconds}``       sleeps that long before answering (to provoke client timeouts); combine with other
                                keys to choose what is eventually sent (default: the default responder's answer).
    ``{"drop": True}``          closes the connection without any response (a connection error for the client).
    ``{"body": obj}``           sends ``obj`` verbatim as the JSON body (with ``"status"``, default 200).
    ``{"interrupted": True}``   a streamed answer broken off after its first event (no finish reason), as
                                llama-cpp-python breaks streams off when another request waits.
    ``{"cut": True}``           a streamed answer whose body ends mid-chunk (the connection closes after its first
                                event): the client reads an incomplete chunked body.
    ``{"chunk_delay": seconds}`` a request with ``"stream": true`` gets its answer as server-sent events (always);
                                this many seconds pass between events (a slow model). The request's record gets
                                ``"chunks_sent"`` and, when the client closed the connection first, ``"abandoned"``.
    optional keys for successful answers: ``"usage": {...}`` (overrides the token counts) or ``"usage": None``
    (omits the usage block), ``"finish_reason": "length"``, ``"model": "name"``, ``"headers": {...}``
    (extra response headers, e.g. ``{"Retry-After": "1"}``).
    a callable ``fn(request_json)`` returning a string (the content) or any of the dict entries above.

The default responder (``fake.default_responder``, also the ``default=`` constructor argument) is used once the
script is exhausted; it has the callable signature above and by default returns ``"OK"``.

Recorded traffic: ``fake.requests`` is a list of dicts ``{"method", "path", "headers", "json", "port"}`` (header
names are lower-cased; ``port``: the client's, the same for requests on one kept-alive connection) for every chat
request, including those answered with errors. ``fake.last`` is the last one.
Token counts, when not scripted, are deterministic: prompt = total characters of message contents // 4 (at
least 1), completion = characters of the content // 4 (at least 1).

Set ``api_key=`` to make the server reject (401) requests without ``Authorization: Bearer <api_key>``.

Structured output: ``formats=`` (an iterable of form names) makes the server take only those ``response_format``
forms and answer the others the way real servers do, without consuming a script entry. Forms: ``"json_schema"``
(``{"type": "json_schema", ...}``), ``"json_object_schema"`` (``{"type": "json_object", "schema": ...}``),
``"json_object"`` (``{"type": "json_object"}``) and ``"off"`` (no response_format, or ``{"type": "text"}``; always
taken). ``reject_as=`` picks how a rejection looks: ``"openai"`` (400, ``invalid_request_error`` naming
response_format; OpenAI and vLLM), ``"llama-cpp-python"`` (500 with pydantic's literal_error for
``response_format.type``, as llama-cpp-python's server answers ``json_schema``) or ``"fastapi"`` (422 with a
``detail`` list). Every recorded request carries its ``"form"``.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable

__all__ = ["FakeOpenAI", "request_form", "request_schema", "FORMS"]

FORMS = ("json_schema", "json_object_schema", "json_object", "off")

Responder = Callable[[dict], Any]

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 429: "rate_limit_exceeded"}


def _default_responder(request_json: dict) -> str:
    return "OK"


def request_form(request_json: Any) -> str:
    """Which structured-output form a chat request asks for (see the module docstring)."""
    rf = request_json.get("response_format") if isinstance(request_json, dict) else None
    if not isinstance(rf, dict) or rf.get("type") in (None, "text"):
        return "off"
    if rf.get("type") == "json_schema":
        return "json_schema"
    if rf.get("type") == "json_object":
        return "json_object_schema" if "schema" in rf else "json_object"
    return f"unknown:{rf.get('type')}"


def request_schema(request_json: Any) -> dict | None:
    """The JSON schema a chat request sends as its response_format (json_schema or json_object + schema), else None."""
    rf = request_json.get("response_format") if isinstance(request_json, dict) else None
    if not isinstance(rf, dict):
        return None
    if rf.get("type") == "json_schema":
        return (rf.get("json_schema") or {}).get("schema")
    return rf.get("schema") if rf.get("type") == "json_object" else None


def _rejection(form: str, style: str, rf: Any) -> tuple[int, dict]:
    kind = rf.get("type") if isinstance(rf, dict) else None
    if style == "llama-cpp-python":
        msg = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
               f"'msg': \"Input should be 'text' or 'json_object'\", 'input': '{kind}', "
               "'ctx': {'expected': \"'text' or 'json_object'\"}}")
        return 500, {"error": {"message": msg, "type": "internal_server_error", "param": None, "code": None}}
    if style == "fastapi":
        return 422, {"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"],
                                 "msg": "Input should be 'text' or 'json_object'", "input": kind}]}
    what = "'schema' is not a supported field of response_format" if form == "json_object_schema" else \
        f"response_format type {kind!r} is not supported by this model"
    return 400, {"error": {"message": what, "type": "invalid_request_error", "param": "response_format",
                           "code": None}}


def _text_of(content: Any) -> str:
    """The text of a message content (a string, or a list of content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, fake: "FakeOpenAI"):
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request, client_address):  # clients that time out close the socket; stay quiet
        pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # keep test output clean
        pass

    # -- helpers -------------------------------------------------------------------------------------
    def _send_json(self, status: int, body: Any, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            pass

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"null")
        except ValueError:
            return None

    # -- endpoints -----------------------------------------------------------------------------------
    def do_GET(self):
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            fake = self.server.fake
            self._send_json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in fake.models]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found_error",
                                            "code": None}})

    def do_POST(self):
        fake = self.server.fake
        body = self._read_json()
        path = self.path.split("?", 1)[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found_error",
                                            "code": None}})
            return
        record = {"method": "POST", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                  "json": body, "form": request_form(body), "port": self.client_address[1]}
        if fake.api_key is not None and record["headers"].get("authorization") != f"Bearer {fake.api_key}":
            fake._record(record)  # recorded, but does not consume a script entry
            self._send_json(401, {"error": {"message": "Incorrect API key provided.", "type": "authentication_error",
                                            "code": "invalid_api_key"}})
            return
        if fake.formats is not None and record["form"] != "off" and record["form"] not in fake.formats:
            fake._record(record)  # recorded, but does not consume a script entry
            status, rejection = _rejection(record["form"], fake.reject_as, body.get("response_format"))
            self._send_json(status, rejection)
            return
        entry = fake._next_entry(record)
        request_json = body if isinstance(body, dict) else {}
        if callable(entry):
            entry = entry(request_json)
        if isinstance(entry, str):
            entry = {"content": entry}
        if not isinstance(entry, dict):
            raise TypeError(f"unsupported script entry {entry!r}")

        if "hang" in entry:
            fake._sleep(float(entry["hang"]))
            if fake._stopped.is_set():
                return
        if entry.get("drop"):
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        status = int(entry.get("status", 200))
        headers = entry.get("headers")
        if "body" in entry:
            self._send_json(status, entry["body"], headers)
            return
        if status >= 400:
            message = entry.get("error") or f"fake error {status}"
            err_type = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
            self._send_json(status, {"error": {"message": message, "type": err_type, "param": None,
                                               "code": entry.get("code")}}, headers)
            return

        if "json" in entry:
            content = json.dumps(entry["json"])
        elif "content" in entry:
            content = entry["content"]
        else:
            produced = fake.default_responder(request_json)
            content = produced if isinstance(produced, str) else json.dumps(produced)
        completion = fake._completion(request_json, content, entry)
        if request_json.get("stream"):
            self._send_events(completion, record, float(entry.get("chunk_delay", 0)),
                              bool((request_json.get("stream_options") or {}).get("include_usage")), headers,
                              bool(entry.get("interrupted")), bool(entry.get("cut")))
        else:
            self._send_json(200, completion, headers)

    def _send_events(self, completion: dict, record: dict, delay: float, with_usage: bool,
                     headers: dict | None, interrupted: bool = False, cut: bool = False) -> None:
        """The completion as server-sent events, as OpenAI streams it: a role chunk, the content in pieces of 4
        characters (`delay` seconds apart), a chunk with the finish reason, the usage chunk when asked for, and
        [DONE]. A client that closes the connection stops the stream: the record's "abandoned" says so."""
        fake = self.server.fake
        choice = completion["choices"][0]
        text = choice["message"]["content"]
        base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
        deltas = [{"role": "assistant"}] + [{"content": text[i:i + 4]} for i in range(0, len(text), 4)]
        events = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        if interrupted:  # llama-cpp-python breaks a stream off when another request waits: [DONE] after the role
            events = events[:1]
        else:
            events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
        if with_usage and "usage" in completion and not interrupted:
            events.append({**base, "choices": [], "usage": completion["usage"]})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        record["chunks_sent"] = 0
        try:
            for n, data in enumerate([*(json.dumps(e) for e in events), "[DONE]"]):
                if n and delay:
                    fake._sleep(delay)
                line = f"data: {data}\n\n".encode()
                if cut and n == 1:  # a chunk announced in full, half sent, then the connection closes
                    self.wfile.write(b"%x\r\n%s" % (len(line), line[:len(line) // 2]))
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                self.wfile.flush()
                record["chunks_sent"] = n + 1
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:  # the client went away: a real server stops generating here
            record["abandoned"] = True
            self.close_connection = True


class FakeOpenAI:
    """A fake OpenAI-compatible server on 127.0.0.1 (free port), run in a background thread.

    Use as a context manager (or call ``start()`` / ``stop()``). ``url`` is the base_url for ``openai.OpenAI``.
    """

    def __init__(self, default: Responder | None = None, *, api_key: str | None = None,
                 models: Iterable[str] = ("fake-model",), formats: Iterable[str] | None = None,
                 reject_as: str = "openai"):
        self.default_responder: Responder = default or _default_responder
        self.api_key = api_key
        self.formats = None if formats is None else set(formats)
        if reject_as not in ("openai", "llama-cpp-python", "fastapi"):
            raise ValueError(f"unknown reject_as {reject_as!r}")
        self.reject_as = reject_as
        self.models = list(models)
        self.requests: list[dict] = []
        self._script: deque = deque()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> "FakeOpenAI":
        if self._server is None:
            self._stopped.clear()
            self._server = _Server(self)
            self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                            name="fake-openai", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._stopped.set()  # wakes up hanging handlers
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not running")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """The base_url to give to an OpenAI client, e.g. ``http://127.0.0.1:54321/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting -------------------------------------------------------------------------------------
    def script(self, entries: Iterable[Any]) -> "FakeOpenAI":
        """Append entries to the script (see the module docstring); returns self."""
        with self._lock:
            self._script.extend(entries)
        return self

    def reset(self) -> None:
        """Forget the remaining script and the recorded requests."""
        with self._lock:
            self._script.clear()
            self.requests.clear()

    @property
    def remaining(self) -> int:
        """How many script entries have not been used yet."""
        with self._lock:
            return len(self._script)

    @property
    def last(self) -> dict | None:
        with self._lock:
            return self.requests[-1] if self.requests else None

    # -- internals -------------------------------------------------------------------------------------
    def _record(self, record: dict) -> None:
        with self._lock:
            self.requests.append(record)

    def _next_entry(self, record: dict) -> Any:
        with self._lock:
            self.requests.append(record)
            if self._script:
                return self._script.popleft()
        return {}  # empty dict entry → the default responder answers

    def _sleep(self, seconds: float) -> None:
        self._stopped.wait(seconds)

    def _completion(self, request_json: dict, content: str, entry: dict) -> dict:
        messages = request_json.get("messages") or []
        prompt_chars = sum(len(_text_of(m.get("content"))) for m in messages if isinstance(m, dict))
        body = {
            "id": f"chatcmpl-fake{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": entry.get("model") or request_json.get("model") or "fake-model",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": entry.get("finish_reason", "stop"),
            }],
        }
        if "usage" not in entry:
            p, c = max(1, prompt_chars // 4), max(1, len(content) // 4)
            body["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        elif entry["usage"] is not None:
            usage = dict(entry["usage"])
            usage.setdefault("total_tokens", usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0))
            body["usage"] = usage
        return body


def play_against(answer: Responder, spec: Any, seed: int, agents: dict, options: dict, log_path: str,
                 brain_options: dict | None = None) -> tuple[Any, list[dict]]:
    """One local game of task `spec` whose LLM is a FakeOpenAI answering with `answer` (a responder as above):
    the game's record and the JSON bodies of the requests, in order."""
    from bots.llm import LLMClient, LLMConfig  # here, so that the server itself stays stdlib-only
    from tasks.core import evaluation

    with FakeOpenAI(default=answer) as fake:
        cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            rec = evaluation.play_game(spec, seed, agents, options, llm=llm, log_path=log_path,
                                       brain_options=brain_options)
        return rec, [r["json"] for r in fake.requests]
