"""The LLM client's own HTTP (bots/llm/transport.py): kept-alive connections, a connection the server closed while
idle, proxies from the environment, and the transport seam a test can fill without any server."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bots.llm import LLMClient, LLMConfig, LLMError
from bots.llm.transport import Reply, TransportTimeout, _proxy_for

ROOT = Path(__file__).resolve().parent.parent
SECRET = "sk-test-SECRET-51c0ffee"
MSGS = [{"role": "user", "content": "Your move?"}]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "CountingServer"

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.connections += 1

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append({"path": self.path, "json": body,
                                         "headers": {k.lower(): v for k, v in self.headers.items()}})
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        # A server whose keep-alive timeout passes: it closes the connection without having said so in the answer.
        self.close_connection = self.server.close_idle


class CountingServer(ThreadingHTTPServer):
    """An OpenAI-compatible answer to every POST; counts the TCP connections it accepted."""
    daemon_threads = True

    def __init__(self, close_idle: bool = False):
        self.connections = 0
        self.requests: list[dict] = []
        self.close_idle = close_idle
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "CountingServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def _client(base_url: str, **overrides) -> tuple[LLMClient, list]:
    sleeps: list = []
    cfg = LLMConfig(**{"model": "m", "base_url": base_url, "api_key": SECRET, "timeout": 5.0, **overrides})
    return LLMClient(cfg, sleep=sleeps.append), sleeps


def test_calls_one_after_another_share_one_connection():
    with CountingServer() as server:
        client, sleeps = _client(server.url)
        with client:
            assert [client.chat(MSGS) for _ in range(5)] == ["hi"] * 5
    assert server.connections == 1 and len(server.requests) == 5 and sleeps == []
    first = server.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["headers"]["authorization"] == f"Bearer {SECRET}"
    assert first["json"]["messages"] == MSGS and first["json"]["model"] == "m"


def test_a_connection_the_server_closed_while_idle_is_not_used_again():
    with CountingServer(close_idle=True) as server:
        client, sleeps = _client(server.url)
        with client:
            assert client.chat(MSGS) == "hi"
            time.sleep(0.3)  # the server has closed the kept connection by now
            assert client.chat(MSGS) == "hi"
    # A fresh connection at once: neither a failed attempt nor a retry's back-off.
    assert server.connections == 2 and len(server.requests) == 2 and sleeps == []
    assert client.usage.retries == 0 and client.usage.failures == 0


def test_plain_http_goes_through_the_environments_proxy(monkeypatch):
    with CountingServer() as proxy:
        for name in ("no_proxy", "NO_PROXY", "HTTP_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.server_address[1]}")
        client, _ = _client("http://llm.invalid:8000/v1")
        with client:
            assert client.chat(MSGS) == "hi"
    assert proxy.requests[0]["path"] == "http://llm.invalid:8000/v1/chat/completions"


def test_proxy_settings_from_the_environment(monkeypatch):
    for name in ("no_proxy", "NO_PROXY", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    api = urllib.parse.urlsplit("https://api.openai.com/v1")
    assert _proxy_for(api) is None
    monkeypatch.setenv("https_proxy", "http://lab:pa%3Ass@proxy.example:3128")
    host, port, headers = _proxy_for(api)
    assert (host, port) == ("proxy.example", 3128)
    assert headers == {"Proxy-Authorization": "Basic bGFiOnBhOnNz"}  # base64("lab:pa:ss")
    monkeypatch.setenv("no_proxy", "localhost,api.openai.com")
    assert _proxy_for(api) is None


class ScriptedTransport:
    """The seam: LLMClient(config, transport) with any object that has post(payload, timeout) and close()."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.sent: list[tuple[dict, float]] = []
        self.closed = False

    def post(self, payload: bytes, timeout: float) -> Reply:
        self.sent.append((json.loads(payload), timeout))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def close(self) -> None:
        self.closed = True


def _answer(content: str, **extra) -> Reply:
    return Reply(200, {}, json.dumps({"choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                                      **extra}).encode())


def test_a_scripted_transport_answers_without_any_server():
    transport = ScriptedTransport([
        Reply(429, {"retry-after": "2"}, b'{"error": {"message": "slow down"}}'),
        TransportTimeout("timeout"),
        _answer('{"move": "pass"}', usage={"prompt_tokens": 9, "completion_tokens": 4}),
    ])
    sleeps: list = []
    cfg = LLMConfig(model="m", base_url="http://unused.invalid/v1", api_key=SECRET, seed=5, timeout=7.0)
    with LLMClient(cfg, transport, sleep=sleeps.append) as client:
        schema = {"type": "object", "properties": {"move": {"type": "string"}}, "required": ["move"]}
        assert client.chat_json(MSGS, schema) == {"move": "pass"}
    assert sleeps == [2.0, 1.0]  # Retry-After of the 429, then the doubled back-off after the timeout
    request, timeout = transport.sent[0]
    assert request["seed"] == 5 and request["response_format"]["type"] == "json_schema" and timeout == 7.0
    assert (client.usage.prompt_tokens, client.usage.completion_tokens, client.usage.retries) == (9, 4, 2)
    assert not transport.closed  # an injected transport is left to its owner


def test_an_answer_that_is_not_a_completion_is_an_error_not_retried():
    transport = ScriptedTransport([Reply(200, {}, b"<html>proxy login</html>"), _answer("never")])
    sleeps: list = []
    client = LLMClient(LLMConfig(model="m", base_url="http://unused.invalid/v1"), transport, sleep=sleeps.append)
    with pytest.raises(LLMError, match="not JSON"):
        client.chat(MSGS)
    assert len(transport.sent) == 1 and sleeps == [] and client.usage.failures == 1


def test_the_client_does_not_load_the_openai_package():
    """Importing openai cost ~1.4 s of CPU per run and its request handling ~4 ms per request (bench_parallel)."""
    code = "import sys, bots.llm; print('openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
