"""Tests for bots/llm.py against the loopback fake OpenAI server (tests/fake_openai.py)."""
from __future__ import annotations

import json
import logging
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
for _p in (str(_HERE.parent), str(_HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from bots.llm import (  # noqa: E402
    LLMClient, LLMConfig, LLMDeadlineError, LLMError, Usage, answer_budget, extract_json_object,
)
from fake_openai import FakeOpenAI  # noqa: E402

SECRET = "sk-test-SECRET-7f3a9c1e55d0"
MOVE_SCHEMA = {
    "type": "object",
    "properties": {"move": {"type": "string"}, "amount": {"type": "integer", "minimum": 0}},
    "required": ["move"],
}


_CLIENTS: list[LLMClient] = []


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server
        while _CLIENTS:
            _CLIENTS.pop().close()


class Sleeps(list):
    """An injectable sleep that records the delays instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_client(fake: FakeOpenAI, **overrides) -> tuple[LLMClient, Sleeps]:
    params = dict(model="test-model", base_url=fake.url, api_key=SECRET, timeout=5.0)
    params.update(overrides)
    sleeps = Sleeps()
    client = LLMClient(LLMConfig(**params), sleep=sleeps)
    _CLIENTS.append(client)
    return client, sleeps


MSGS = [{"role": "system", "content": "You play a game."}, {"role": "user", "content": "Your move?"}]


# ---------------------------------------------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------------------------------------------
def test_from_env_none_when_no_model():
    assert LLMConfig.from_env({}) is None
    assert LLMConfig.from_env({"LLM_API_KEY": SECRET, "LLM_BASE_URL": "http://x/v1"}) is None
    assert LLMConfig.from_env({"LLM_MODEL": ""}, {"base_url": "http://x/v1"}) is None


def test_from_env_env_overrides_file_config():
    file_config = {"model": "file-model", "base_url": "http://file:8000/v1", "api_key": "file-key",
                   "timeout": 12, "max_retries": 5, "temperature": 0.9, "seed": 7}
    cfg = LLMConfig.from_env({"LLM_MODEL": "env-model", "LLM_TIMEOUT": "3.5", "LLM_TEMPERATURE": "0"}, file_config)
    assert cfg.model == "env-model"
    assert cfg.timeout == 3.5
    assert cfg.temperature == 0.0
    # not overridden: from the file
    assert cfg.base_url == "http://file:8000/v1"
    assert cfg.api_key == "file-key"
    assert cfg.max_retries == 5
    assert cfg.seed == 7
    # defaults
    assert cfg.max_tokens == 800 and cfg.backoff == 0.5 and cfg.json_mode is True


def test_from_env_defaults():
    cfg = LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET})
    assert (cfg.base_url, cfg.timeout, cfg.max_retries, cfg.temperature, cfg.seed) == (None, 30.0, 2, 0.2, None)


def test_from_env_llm_prefix_beats_openai_aliases():
    env = {"LLM_MODEL": "m", "LLM_BASE_URL": "http://llm/v1", "OPENAI_BASE_URL": "http://openai/v1",
           "LLM_API_KEY": "llm-key", "OPENAI_API_KEY": "openai-key", "LLM_MAX_RETRIES": "4"}
    cfg = LLMConfig.from_env(env)
    assert (cfg.base_url, cfg.api_key, cfg.max_retries) == ("http://llm/v1", "llm-key", 4)
    cfg = LLMConfig.from_env({"LLM_MODEL": "m", "OPENAI_BASE_URL": "http://openai/v1", "OPENAI_API_KEY": "ok"},
                             {"base_url": "http://file/v1", "api_key": "file-key"})
    assert (cfg.base_url, cfg.api_key) == ("http://openai/v1", "ok")


def test_from_env_base_url_without_key_uses_placeholder():
    cfg = LLMConfig.from_env({"LLM_MODEL": "llama3", "LLM_BASE_URL": "http://localhost:11434/v1"})
    assert cfg.api_key and cfg.api_key == "not-needed"


def test_from_env_rejects_openai_endpoint_without_key_and_bad_numbers():
    with pytest.raises(ValueError, match="API key"):
        LLMConfig.from_env({"LLM_MODEL": "gpt-4o-mini"})
    with pytest.raises(ValueError, match="LLM_TIMEOUT"):
        LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET, "LLM_TIMEOUT": "soon"})


# ---------------------------------------------------------------------------------------------------------------
# the key stays secret
# ---------------------------------------------------------------------------------------------------------------
def test_key_hidden_in_repr_and_str(fake):
    cfg = LLMConfig(model="m", base_url=fake.url, api_key=SECRET)
    with LLMClient(cfg) as client:
        for text in (repr(cfg), str(cfg), repr(client), f"{cfg}"):
            assert SECRET not in text
    assert "api_key=***" in repr(cfg)
    assert "model='m'" in repr(cfg)


def test_key_sent_but_never_logged(fake, caplog):
    caplog.set_level(logging.DEBUG)  # every logger, including openai's and httpx's debug output
    fake.script(["hello", {"status": 500}, "again", {"status": 401, "error": "bad key"}])
    client, _ = make_client(fake)
    assert client.chat(MSGS) == "hello"
    assert client.chat(MSGS) == "again"
    with pytest.raises(LLMError):
        client.chat(MSGS)
    assert fake.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert caplog.records, "expected log output"
    assert SECRET not in caplog.text
    assert all(SECRET not in str(r.args) for r in caplog.records)


def test_error_message_never_contains_key_even_if_server_echoes_it(fake):
    fake.script([{"status": 401, "error": f"Incorrect API key provided: {SECRET}"}])
    client, _ = make_client(fake)
    with pytest.raises(LLMError) as info:
        client.chat(MSGS)
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value)
    assert "401" in str(info.value) and info.value.status_code == 401


# ---------------------------------------------------------------------------------------------------------------
# chat
# ---------------------------------------------------------------------------------------------------------------
def test_chat_success_sends_request_and_counts_usage(fake):
    fake.script([{"content": "I pass.", "usage": {"prompt_tokens": 42, "completion_tokens": 7}}])
    client, sleeps = make_client(fake, seed=11)
    assert client.chat(MSGS) == "I pass."
    body = fake.requests[0]["json"]
    assert body["model"] == "test-model"
    assert body["messages"] == MSGS
    assert body["temperature"] == 0.2 and body["max_tokens"] == 800 and body["seed"] == 11
    assert "response_format" not in body
    counts = {k: v for k, v in client.usage.as_dict().items() if not k.endswith("seconds")}
    assert counts == {"prompt_tokens": 42, "completion_tokens": 7, "calls": 1, "failures": 0, "retries": 0,
                      "estimated": 0, "invalid": 0, "repairs": 0, "truncated": 0, "total_tokens": 49}
    assert client.usage.seconds >= client.usage.model_seconds > 0
    assert sleeps == []


def test_chat_per_call_overrides_and_no_seed_by_default(fake):
    client, _ = make_client(fake)
    assert client.chat(MSGS, max_tokens=5, temperature=1.0) == "OK"  # the default responder
    body = fake.requests[0]["json"]
    assert body["max_tokens"] == 5 and body["temperature"] == 1.0
    assert "seed" not in body


def test_chat_estimates_tokens_when_usage_missing(fake):
    fake.script([{"content": "x" * 40, "usage": None}])
    client, _ = make_client(fake)
    client.chat([{"role": "user", "content": "y" * 80}])
    assert client.usage.prompt_tokens == 20
    assert client.usage.completion_tokens == 10
    assert client.usage.estimated == 1


def test_retries_on_500_then_succeeds(fake):
    fake.script([{"status": 500}, "recovered"])
    client, sleeps = make_client(fake)
    assert client.chat(MSGS) == "recovered"
    assert len(fake.requests) == 2
    assert sleeps == [0.5]
    assert client.usage.retries == 1 and client.usage.calls == 1 and client.usage.failures == 0


def test_retries_on_429_with_exponential_backoff(fake):
    fake.script([{"status": 429}, {"status": 429}, "finally"])
    client, sleeps = make_client(fake)
    assert client.chat(MSGS) == "finally"
    assert len(fake.requests) == 3
    assert sleeps == [0.5, 1.0]


def test_429_retry_after_header_is_respected_up_to_the_cap(fake):
    fake.script([{"status": 429, "headers": {"Retry-After": "3"}}, {"status": 429, "headers": {"Retry-After": "60"}},
                 "ok"])
    client, sleeps = make_client(fake, backoff_cap=10.0)
    assert client.chat(MSGS) == "ok"
    assert sleeps == [3.0, 10.0]


def test_backoff_doubles_up_to_cap_then_raises(fake):
    fake.script([{"status": 503}] * 5)
    client, sleeps = make_client(fake, backoff=1.0, backoff_cap=3.0, max_retries=4)
    with pytest.raises(LLMError) as info:
        client.chat(MSGS)
    assert sleeps == [1.0, 2.0, 3.0, 3.0]
    assert len(fake.requests) == 5
    assert info.value.status_code == 503 and info.value.attempts == 5
    assert client.usage.failures == 1 and client.usage.calls == 0


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(fake, status):
    fake.script([{"status": status, "error": "nope"}, "should not be reached"])
    client, sleeps = make_client(fake)
    with pytest.raises(LLMError) as info:
        client.chat(MSGS)
    assert info.value.status_code == status
    assert "nope" in str(info.value)
    assert len(fake.requests) == 1
    assert sleeps == []
    assert fake.remaining == 1


def test_timeout_is_retried_then_raises(fake):
    fake.script([{"hang": 5}, {"hang": 5}, {"hang": 5}, "too late"])
    client, sleeps = make_client(fake, timeout=0.3, max_retries=2)
    with pytest.raises(LLMError) as info:
        client.chat(MSGS)
    assert "timeout" in str(info.value).lower()
    assert info.value.status_code is None and info.value.attempts == 3
    assert len(fake.requests) == 3
    assert sleeps == [0.5, 1.0]
    assert client.usage.failures == 1 and client.usage.retries == 2


def test_timeout_then_success(fake):
    fake.script([{"hang": 5}, "in time"])
    client, sleeps = make_client(fake, timeout=0.3)
    assert client.chat(MSGS) == "in time"
    assert sleeps == [0.5]


def test_dropped_connection_is_retried(fake):
    fake.script([{"drop": True}, "back"])
    client, sleeps = make_client(fake)
    assert client.chat(MSGS) == "back"
    assert len(fake.requests) == 2 and sleeps == [0.5]


# ---------------------------------------------------------------------------------------------------------------
# chat_json
# ---------------------------------------------------------------------------------------------------------------
def test_chat_json_with_fenced_json_and_prose(fake):
    fake.script(['Sure! Here is my move:\n```json\n{"move": "pass", "amount": 3}\n```\nGood luck.'])
    client, _ = make_client(fake)
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "pass", "amount": 3}
    body = fake.requests[0]["json"]
    # the schema goes out as a structured-output request, in the first form the endpoint takes
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "answer", "schema": MOVE_SCHEMA, "strict": False}}
    assert client.structured_form == "json_schema"
    # no message mentioned JSON: the system message now asks for it and carries the schema
    assert "JSON" in body["messages"][0]["content"] and '"move"' in body["messages"][0]["content"]
    assert MSGS[0]["content"] == "You play a game."  # the caller's messages are not mutated


def test_chat_json_without_json_mode(fake):
    fake.script([{"json": {"move": "go"}}])
    client, _ = make_client(fake, json_mode=False)
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "go"}
    assert "response_format" not in fake.requests[0]["json"]


def test_chat_json_old_style_400_for_response_format_falls_down_the_forms(fake):
    fake.script([{"status": 400, "error": "response_format is not supported by this server"},
                 {"status": 400, "error": "response_format is not supported by this server"},
                 {"status": 400, "error": "response_format is not supported by this server"},
                 {"json": {"move": "a"}}, {"json": {"move": "b"}}])
    client, sleeps = make_client(fake)
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "a"}
    assert [r["form"] for r in fake.requests] == ["json_schema", "json_object_schema", "json_object", "off"]
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "b"}  # remembered for later calls
    assert fake.requests[-1]["form"] == "off" and client.structured_form == "off"
    assert sleeps == [] and client.usage.failures == 0 and client.usage.retries == 0


def test_chat_json_other_400_is_an_error(fake):
    fake.script([{"status": 400, "error": "context length exceeded"}, {"json": {"move": "a"}}])
    client, _ = make_client(fake)
    with pytest.raises(LLMError):
        client.chat_json(MSGS, MOVE_SCHEMA)
    assert len(fake.requests) == 1


def test_chat_json_repair_round_fixes_schema_violation(fake):
    fake.script([{"json": {"move": 5}}, {"json": {"move": "five"}}])
    client, _ = make_client(fake)
    game = Usage()
    assert client.chat_json(MSGS, MOVE_SCHEMA, usage=game) == {"move": "five"}
    assert len(fake.requests) == 2
    repair = fake.requests[1]["json"]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"move": 5}'}
    assert repair[-1]["role"] == "user"
    assert "5 is not of type 'string'" in repair[-1]["content"]
    assert "move" in repair[-1]["content"]  # where the error is
    assert repair[:-2] == fake.requests[0]["json"]["messages"]
    assert game.calls == 2 and game.failures == 0


def test_chat_json_repair_round_fixes_unparseable_answer(fake):
    fake.script(["I think I should pass.", '{"move": "pass"}'])
    client, _ = make_client(fake)
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "pass"}
    assert "no JSON object" in fake.requests[1]["json"]["messages"][-1]["content"]


def test_chat_json_two_invalid_answers_raise(fake):
    fake.script([{"json": {"amount": -1}}, {"json": {"move": "x", "amount": -1}}, {"json": {"move": "never"}}])
    client, _ = make_client(fake)
    game = Usage()
    with pytest.raises(LLMError) as info:
        client.chat_json(MSGS, MOVE_SCHEMA, usage=game)
    assert "-1 is less than the minimum of 0" in str(info.value)
    assert len(fake.requests) == 2  # exactly one repair round
    assert game.calls == 2 and game.failures == 1


def test_chat_json_keeps_messages_that_already_mention_json(fake):
    msgs = [{"role": "user", "content": 'Answer as JSON: {"move": ...}'}]
    fake.script([{"json": {"move": "m"}}])
    client, _ = make_client(fake)
    client.chat_json(msgs, MOVE_SCHEMA)
    assert fake.requests[0]["json"]["messages"] == msgs


# ---------------------------------------------------------------------------------------------------------------
# usage and logging
# ---------------------------------------------------------------------------------------------------------------
def test_usage_accumulates_per_game_and_for_the_lifetime(fake):
    fake.script([{"content": "a", "usage": {"prompt_tokens": 10, "completion_tokens": 1}},
                 {"content": "b", "usage": {"prompt_tokens": 20, "completion_tokens": 2}},
                 {"status": 500},
                 {"content": "c", "usage": {"prompt_tokens": 30, "completion_tokens": 3}},
                 {"status": 404}])
    client, _ = make_client(fake)
    game1, game2 = Usage(), Usage()
    client.chat(MSGS, usage=game1)
    client.chat(MSGS, usage=game1)
    client.chat(MSGS, usage=game2)
    with pytest.raises(LLMError):
        client.chat(MSGS, usage=game2)
    assert (game1.prompt_tokens, game1.completion_tokens, game1.calls, game1.failures) == (30, 3, 2, 0)
    assert (game2.prompt_tokens, game2.completion_tokens, game2.calls, game2.failures, game2.retries) == \
        (30, 3, 1, 1, 1)
    summed = Usage().add(game1).add(game2).as_dict()
    assert {k: v for k, v in client.usage.as_dict().items() if not k.endswith("seconds")} == \
        {k: v for k, v in summed.items() if not k.endswith("seconds")}
    assert client.usage.seconds == pytest.approx(summed["seconds"])
    assert client.usage.total_tokens == 66


def test_usage_add_and_as_dict():
    u = Usage(prompt_tokens=1, completion_tokens=2, calls=1, seconds=0.5)
    assert u.add(Usage(prompt_tokens=10, completion_tokens=20, calls=2, failures=1, invalid=1, seconds=0.25)) is u
    assert u.as_dict() == {"prompt_tokens": 11, "completion_tokens": 22, "calls": 3, "failures": 1, "retries": 0,
                           "estimated": 0, "invalid": 1, "repairs": 0, "truncated": 0, "seconds": 0.75,
                           "model_seconds": 0.0, "queue_seconds": 0.0, "total_tokens": 33}


def test_one_info_line_per_call_without_prompt(fake, caplog):
    caplog.set_level(logging.DEBUG, logger="bots.llm")
    fake.script([{"status": 500}, {"content": "ok", "usage": {"prompt_tokens": 12, "completion_tokens": 3}}])
    client, _ = make_client(fake)
    client.chat([{"role": "user", "content": "PRIVATE-PROMPT " + "z" * 1000}])
    info = [r for r in caplog.records if r.name == "bots.llm" and r.levelno >= logging.INFO]
    assert len(info) == 1
    line = info[0].getMessage()
    for part in ("model=test-model", "prompt_tokens=12", "completion_tokens=3", "retries=1", "duration="):
        assert part in line
    assert "PRIVATE-PROMPT" not in line
    debug = "\n".join(r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG)
    assert "PRIVATE-PROMPT" in debug and "z" * 1000 not in debug  # truncated


# ---------------------------------------------------------------------------------------------------------------
# one overall deadline per call / per turn
# ---------------------------------------------------------------------------------------------------------------
class HangingEndpoint:
    """An OpenAI-compatible address whose server accepts every connection, reads the request and never answers
    (a real socket: the client's own timeouts are all that end a request). ``accepted`` counts connections, i.e.
    HTTP attempts (a timed-out connection is not reused)."""

    def __init__(self):
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.05)
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="hanging-endpoint", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    @property
    def accepted(self) -> int:
        with self._lock:
            return len(self._conns)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (socket.timeout, OSError):
                continue
            with self._lock:
                self._conns.append(conn)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._sock.close()
        with self._lock:
            for c in self._conns:
                c.close()

    def __enter__(self) -> "HangingEndpoint":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def test_deadline_from_env_and_file_config():
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET}).deadline == 20.0
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET}, {"deadline": 7}).deadline == 7.0
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET, "LLM_DEADLINE": "4.5"},
                              {"deadline": 7}).deadline == 4.5
    with pytest.raises(ValueError, match="LLM_DEADLINE"):
        LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET, "LLM_DEADLINE": "soon"})


def test_hanging_endpoint_gives_up_at_the_deadline_not_after_every_timeout():
    # Per attempt 30 s, three attempts: without a deadline this call would hang for 90 s.
    with HangingEndpoint() as endpoint:
        client = LLMClient(LLMConfig(model="m", base_url=endpoint.url, api_key=SECRET, timeout=30.0, max_retries=2,
                                     deadline=0.5), sleep=Sleeps())
        _CLIENTS.append(client)
        started = time.monotonic()
        with pytest.raises(LLMDeadlineError) as info:
            client.chat(MSGS)
        elapsed = time.monotonic() - started
        assert endpoint.accepted == 1  # the one attempt used up the deadline: no retry was started
    assert isinstance(info.value, LLMError) and info.value.attempts == 1 and info.value.status_code is None
    assert "deadline passed" in str(info.value) and "timeout" in str(info.value)
    assert client.usage.failures == 1 and client.usage.calls == 0
    assert elapsed < 10  # generous: the point is "not 90 s"


def test_each_attempt_is_capped_by_the_time_left(fake):
    fake.script([{"hang": 5}] * 6)
    client, sleeps = make_client(fake, timeout=0.6, max_retries=5, backoff=0.0, deadline=1.0)
    with pytest.raises(LLMDeadlineError) as info:
        client.chat(MSGS)
    # attempt 1 times out after its own 0.6 s; attempt 2 gets only the ~0.4 s left; no third attempt
    assert info.value.attempts == 2 and len(fake.requests) == 2
    assert client.usage.retries == 1 and client.usage.failures == 1


def test_no_retry_starts_when_the_back_off_would_pass_the_deadline(fake):
    fake.script([{"status": 503}, "too late"])
    client, sleeps = make_client(fake, backoff=5.0, backoff_cap=8.0, deadline=1.0)
    with pytest.raises(LLMDeadlineError) as info:
        client.chat(MSGS)
    assert info.value.attempts == 1 and sleeps == [] and len(fake.requests) == 1 and fake.remaining == 1
    assert "HTTP 503" in str(info.value)


def test_errors_before_the_deadline_stay_plain_errors(fake):
    fake.script([{"status": 503}] * 3)
    client, sleeps = make_client(fake, deadline=20.0)
    with pytest.raises(LLMError) as info:
        client.chat(MSGS)
    assert not isinstance(info.value, LLMDeadlineError) and info.value.attempts == 3


def test_a_turn_shares_one_deadline_across_calls(fake):
    fake.script([{"hang": 5}, "after the turn"])
    client, _ = make_client(fake, timeout=5.0, deadline=0.5)
    with client.turn():
        with pytest.raises(LLMDeadlineError):
            client.chat(MSGS)
        with pytest.raises(LLMDeadlineError) as info:
            client.chat(MSGS)  # nothing left of the turn's deadline: not even sent
        assert info.value.attempts == 0 and len(fake.requests) == 1
    assert client.usage.failures == 2
    assert client.chat(MSGS) == "after the turn"  # a new call, a new deadline


def test_chat_json_repair_round_shares_the_deadline(fake):
    fake.script([{"hang": 0.4, "content": "not json at all"}, {"hang": 5, "json": {"move": "late"}}])
    client, _ = make_client(fake, timeout=5.0, deadline=0.8)
    with pytest.raises(LLMDeadlineError) as info:
        client.chat_json(MSGS, MOVE_SCHEMA)
    assert info.value.attempts == 1 and len(fake.requests) == 2  # the repair request got only what was left


def test_deadline_zero_means_none(fake):
    fake.script([{"hang": 5}, "in time"])
    client, sleeps = make_client(fake, timeout=0.3, deadline=0)
    assert client.chat(MSGS) == "in time" and sleeps == [0.5]


# ---------------------------------------------------------------------------------------------------------------
# extract_json_object
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('```json\n{"a": {"b": [1, 2]}}\n```', {"a": {"b": [1, 2]}}),
    ('```\n{"a": 2}\n```', {"a": 2}),
    ('Use {braces} wisely. My answer: {"a": "}"} and {"b": 2}', {"a": "}"}),
    ('<think>maybe {"a": 0}?</think>\n{"a": 3}', {"a": 3}),
])
def test_extract_json_object(text, expected):
    assert extract_json_object(text) == expected


@pytest.mark.parametrize("text", ["", "no json here", "[1, 2, 3]", '{"a": 1', "```json\n{'a': 1}\n```"])
def test_extract_json_object_raises(text):
    with pytest.raises(ValueError):
        extract_json_object(text)


# ---------------------------------------------------------------------------------------------------------------
# structured answers: which response_format the endpoint honours, found once
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("formats, reject_as, found", [
    ({"json_schema", "json_object_schema", "json_object"}, "openai", "json_schema"),           # OpenAI, vLLM
    ({"json_object_schema", "json_object"}, "llama-cpp-python", "json_object_schema"),        # llama-cpp-python
    ({"json_object"}, "openai", "json_object"),
    ({"json_object"}, "fastapi", "json_object"),
    (set(), "fastapi", "off"),
    (set(), "llama-cpp-python", "off"),
])
def test_structured_form_is_found_once_per_endpoint(formats, reject_as, found):
    with FakeOpenAI(formats=formats, reject_as=reject_as) as fake:
        fake.script([{"json": {"move": "a"}}, {"json": {"move": "b"}}])
        client, sleeps = make_client(fake)
        assert client.structured_form is None
        assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "a"}
        tried = [r["form"] for r in fake.requests]
        order = ["json_schema", "json_object_schema", "json_object", "off"]
        assert tried == order[:order.index(found) + 1]  # most specific first, each rejected form once
        assert client.structured_form == found
        n = len(fake.requests)
        assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "b"}
        assert [r["form"] for r in fake.requests[n:]] == [found]  # remembered: no more probing
        # the form that was taken carries the schema, when it can
        rf = fake.requests[-1]["json"].get("response_format")
        if found == "json_schema":
            assert rf["json_schema"]["schema"] == MOVE_SCHEMA
        elif found == "json_object_schema":
            assert rf == {"type": "json_object", "schema": MOVE_SCHEMA}
        elif found == "off":
            assert rf is None
            assert '"move"' in fake.requests[-1]["json"]["messages"][0]["content"]  # the schema is in the prompt
        # rejected forms are neither failures nor retries, and nothing slept
        assert client.usage.failures == 0 and client.usage.retries == 0 and sleeps == []
        client.close()


def test_chat_stays_free_text_whatever_the_endpoint_honours():
    with FakeOpenAI(formats={"json_schema"}) as fake:
        client, _ = make_client(fake)
        fake.script([{"json": {"move": "a"}}, "a free line"])
        client.chat_json(MSGS, MOVE_SCHEMA)
        assert client.chat(MSGS) == "a free line"
        assert fake.requests[-1]["form"] == "off" and "response_format" not in fake.requests[-1]["json"]
        client.close()


@pytest.mark.parametrize("overrides, expected", [
    ({"structured": "off"}, ["off"]),
    ({"json_mode": False}, ["off"]),
    ({"structured": "json_object"}, ["json_object"]),
    ({"structured": "json_object_schema"}, ["json_object_schema"]),
])
def test_structured_setting_pins_the_form(fake, overrides, expected):
    fake.script([{"json": {"move": "a"}}, {"json": {"move": "b"}}])
    client, _ = make_client(fake, **overrides)
    client.chat_json(MSGS, MOVE_SCHEMA)
    client.chat_json(MSGS, MOVE_SCHEMA)
    assert [r["form"] for r in fake.requests] == expected * 2


def test_a_pinned_form_the_server_rejects_still_falls_down():
    with FakeOpenAI(formats={"json_object"}, reject_as="llama-cpp-python") as fake:
        fake.script([{"json": {"move": "a"}}])
        client, _ = make_client(fake, structured="json_schema")
        assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "a"}
        assert [r["form"] for r in fake.requests] == ["json_schema", "json_object_schema", "json_object"]
        client.close()


def test_errors_that_are_not_about_the_format_are_errors_while_probing(fake):
    fake.script([{"status": 400, "error": "This model's maximum context length is 4096 tokens."},
                 {"json": {"move": "a"}}])
    client, _ = make_client(fake)
    with pytest.raises(LLMError) as info:
        client.chat_json(MSGS, MOVE_SCHEMA)
    assert info.value.status_code == 400 and len(fake.requests) == 1
    assert client.structured_form is None  # nothing was learnt: the next call probes again from the top
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "a"}
    assert fake.requests[-1]["form"] == "json_schema"


def test_once_the_form_is_known_a_server_error_is_retried_not_probed(fake):
    fake.script([{"json": {"move": "a"}}, {"status": 500, "error": "json_schema grammar crashed"},
                 {"json": {"move": "b"}}])
    client, sleeps = make_client(fake)
    client.chat_json(MSGS, MOVE_SCHEMA)
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "b"}
    assert [r["form"] for r in fake.requests] == ["json_schema"] * 3 and sleeps == [0.5]


def test_structured_from_env():
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET}).structured == "auto"
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET, "LLM_STRUCTURED": "off"}).structured == "off"
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET}, {"structured": "json-object"}).structured \
        == "json_object"
    with pytest.raises(ValueError, match="LLM_STRUCTURED"):
        LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET, "LLM_STRUCTURED": "grammar"})


# ---------------------------------------------------------------------------------------------------------------
# max_tokens per act
# ---------------------------------------------------------------------------------------------------------------
BOUNDED = {"type": "object", "additionalProperties": False, "required": ["flag", "note", "path"],
           "properties": {"flag": {"enum": ["up", "down", "Inquiry"]}, "note": {"type": "string", "maxLength": 40},
                          "path": {"type": "array", "maxItems": 3, "items": {"type": "string", "enum": ["L", "K"]}},
                          "n": {"type": "integer", "enum": [1, 2, 10]}}}


def test_answer_budget_counts_what_a_valid_answer_can_hold():
    # {"flag": "Inquiry", "note": <40 chars>, "path": ["L","K","L"], "n": 10}, compact
    longest = {"flag": "Inquiry", "note": "x" * 40, "path": ["L", "K", "L"], "n": 10}
    chars = len(json.dumps(longest, separators=(",", ":")))
    budget = answer_budget(BOUNDED)
    assert budget is not None and budget >= chars / 2
    assert budget < chars  # and not wildly more
    assert answer_budget({"type": "object", "properties": {"a": {"type": "string"}}}) is None  # unbounded string
    assert answer_budget({"type": "array", "items": {"type": "integer"}}) is None  # no maxItems
    assert answer_budget({"type": "object", "properties": {"a": {"type": "boolean"}}}) is None  # open object
    assert answer_budget({"type": "object", "additionalProperties": False,
                          "properties": {"a": {"type": "boolean"}}}) is not None


def test_max_tokens_is_sized_per_act(fake):
    fake.script([{"json": {"flag": "up", "note": "", "path": []}}] * 3 + [{"json": {"move": "m"}}])
    client, _ = make_client(fake, max_tokens=800)
    client.chat_json(MSGS, BOUNDED)
    assert fake.requests[-1]["json"]["max_tokens"] == answer_budget(BOUNDED) < 800
    client.chat_json(MSGS, BOUNDED, max_tokens=7)  # the caller's word wins
    assert fake.requests[-1]["json"]["max_tokens"] == 7
    small, _ = make_client(fake, max_tokens=16)  # the config caps it
    small.chat_json(MSGS, BOUNDED)
    assert fake.requests[-1]["json"]["max_tokens"] == 16
    client.chat_json(MSGS, MOVE_SCHEMA)  # unbounded: the config's
    assert fake.requests[-1]["json"]["max_tokens"] == 800


def test_truncated_and_repaired_answers_are_counted(fake):
    fake.script([{"content": '{"move": "pa', "finish_reason": "length"}, {"json": {"move": "pass"}}])
    client, _ = make_client(fake)
    u = Usage()
    assert client.chat_json(MSGS, MOVE_SCHEMA, usage=u) == {"move": "pass"}
    assert (u.truncated, u.invalid, u.repairs, u.calls, u.failures) == (1, 1, 1, 2, 0)


# ---------------------------------------------------------------------------------------------------------------
# concurrent calls per endpoint
# ---------------------------------------------------------------------------------------------------------------
class InFlight:
    """A fake responder that answers after `delay` seconds and records the most requests it had at once, and the
    order in which requests (tagged by their last message) arrived."""

    def __init__(self, delay: float):
        self.delay = delay
        self.now = self.most = 0
        self.order: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, request):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.order.append(request["messages"][-1]["content"])
        time.sleep(self.delay)
        with self.lock:
            self.now -= 1
        return "done"


def _calls_in_threads(client, tags, stagger=0.05):
    errors: list = []

    def run(tag):
        try:
            client.chat([{"role": "user", "content": tag}])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    threads = []
    for tag in tags:
        t = threading.Thread(target=run, args=(tag,))
        t.start()
        threads.append(t)
        time.sleep(stagger)
    for t in threads:
        t.join(10)
    return errors


def test_default_concurrency_is_one_for_a_local_server_and_more_for_openai():
    assert LLMClient(LLMConfig(model="m", base_url="http://127.0.0.1:9/v1")).concurrency == 1
    assert LLMClient(LLMConfig(model="m", api_key=SECRET)).concurrency == 8
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": SECRET, "LLM_CONCURRENCY": "3"}).concurrency == 3


def test_concurrent_calls_queue_first_come_first_served():
    responder = InFlight(0.15)
    with FakeOpenAI(default=responder) as fake:
        client, _ = make_client(fake, concurrency=1)
        other, _ = make_client(fake, concurrency=1)  # a second client of the same endpoint shares the queue
        tags = [f"room-{i}" for i in range(5)]
        assert _calls_in_threads(client, tags[:3]) == []
        assert _calls_in_threads(other, tags[3:]) == []
    assert responder.most == 1
    assert responder.order == tags
    assert client.usage.queue_seconds > 0.1 and client.usage.calls == 3


def test_concurrency_limit_above_one_and_zero_for_none():
    responder = InFlight(0.3)
    with FakeOpenAI(default=responder) as fake:
        client, _ = make_client(fake, concurrency=2)
        assert _calls_in_threads(client, ["a", "b", "c", "d"], stagger=0.02) == []
        assert responder.most == 2
        free, _ = make_client(fake, concurrency=0)
        responder.most = 0
        assert _calls_in_threads(free, ["a", "b", "c"], stagger=0.02) == []
        assert responder.most == 3


def test_waiting_for_a_slot_counts_against_the_deadline():
    responder = InFlight(1.5)
    with FakeOpenAI(default=responder) as fake:
        client, _ = make_client(fake, concurrency=1, deadline=0.4)
        slow, _ = make_client(fake, concurrency=1, deadline=5.0)
        t = threading.Thread(target=slow.chat, args=([{"role": "user", "content": "first"}],))
        t.start()
        time.sleep(0.1)
        started = time.monotonic()
        with pytest.raises(LLMDeadlineError) as info:
            client.chat([{"role": "user", "content": "second"}])
        waited = time.monotonic() - started
        t.join(5)
    assert info.value.attempts == 0 and "request slot" in str(info.value)
    assert responder.order == ["first"]  # the second request was never sent
    assert 0.25 < waited < 1.2
    assert client.usage.failures == 1 and client.usage.queue_seconds > 0.25
