"""Tests for bots/llm.py against the loopback fake OpenAI server (tests/fake_openai.py)."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
for _p in (str(_HERE.parent), str(_HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from bots.llm import LLMClient, LLMConfig, LLMError, Usage, extract_json_object  # noqa: E402
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
    assert client.usage.as_dict() == {"prompt_tokens": 42, "completion_tokens": 7, "calls": 1, "failures": 0,
                                      "retries": 0, "estimated": 0, "total_tokens": 49}
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
    assert body["response_format"] == {"type": "json_object"}
    # no message mentioned JSON: the system message now asks for it and carries the schema
    assert "JSON" in body["messages"][0]["content"] and '"move"' in body["messages"][0]["content"]
    assert MSGS[0]["content"] == "You play a game."  # the caller's messages are not mutated


def test_chat_json_without_json_mode(fake):
    fake.script([{"json": {"move": "go"}}])
    client, _ = make_client(fake, json_mode=False)
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "go"}
    assert "response_format" not in fake.requests[0]["json"]


def test_chat_json_falls_back_when_response_format_unsupported(fake):
    fake.script([{"status": 400, "error": "response_format is not supported by this server"},
                 {"json": {"move": "a"}}, {"json": {"move": "b"}}])
    client, sleeps = make_client(fake)
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "a"}
    assert "response_format" in fake.requests[0]["json"]
    assert "response_format" not in fake.requests[1]["json"]
    assert client.chat_json(MSGS, MOVE_SCHEMA) == {"move": "b"}  # remembered for later calls
    assert "response_format" not in fake.requests[2]["json"]
    assert sleeps == [] and client.usage.failures == 0


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
    assert client.usage.as_dict() == Usage().add(game1).add(game2).as_dict()
    assert client.usage.total_tokens == 66


def test_usage_add_and_as_dict():
    u = Usage(prompt_tokens=1, completion_tokens=2, calls=1)
    assert u.add(Usage(prompt_tokens=10, completion_tokens=20, calls=2, failures=1)) is u
    assert u.as_dict() == {"prompt_tokens": 11, "completion_tokens": 22, "calls": 3, "failures": 1, "retries": 0,
                           "estimated": 0, "total_tokens": 33}


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
