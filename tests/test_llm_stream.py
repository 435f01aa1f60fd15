"""Streamed answers (bots/llm: `stream: true`, server-sent events): an answer abandoned at its deadline is
cancelled by closing the connection, so the server stops generating; text, token counts from the final usage
chunk, structured output and retries work as for answers in one piece; `LLM_STREAM=0` switches streaming off."""
from __future__ import annotations

import time

import pytest

from bots.llm import LLMClient, LLMConfig, LLMDeadlineError, LLMError
from tests.fake_openai import FakeOpenAI, request_schema

MSGS = [{"role": "user", "content": "Your move?"}]
MOVE = {"type": "object", "properties": {"move": {"type": "string"}}, "required": ["move"]}


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server


def client_for(fake: FakeOpenAI, **overrides) -> LLMClient:
    return LLMClient(LLMConfig(**{"model": "m", "base_url": fake.url, "api_key": "sk-test", "timeout": 5.0,
                                  "backoff": 0.0, **overrides}))


def test_an_answer_streams_and_its_usage_comes_from_the_last_chunk(fake):
    fake.script([{"content": "I will pass this round.", "usage": {"prompt_tokens": 42, "completion_tokens": 7}}])
    with client_for(fake) as client:
        assert client.chat(MSGS) == "I will pass this round."
    sent = fake.requests[0]
    assert sent["json"]["stream"] is True and sent["json"]["stream_options"] == {"include_usage": True}
    assert sent["chunks_sent"] > 3 and "abandoned" not in sent  # the answer came in pieces, read to the end
    assert (client.usage.prompt_tokens, client.usage.completion_tokens, client.usage.estimated) == (42, 7, 0)


def test_structured_output_truncation_and_retries_stream_too(fake):
    fake.script([{"status": 503}, {"json": {"move": "north"}}, {"content": "cut", "finish_reason": "length"}])
    with client_for(fake) as client:
        assert client.chat_json(MSGS, MOVE) == {"move": "north"}
        assert client.chat(MSGS) == "cut"
    assert request_schema(fake.requests[1]["json"]) is not None and fake.requests[1]["json"]["stream"] is True
    assert client.usage.retries == 1 and client.usage.truncated == 1 and client.usage.calls == 2


def test_an_answer_without_a_usage_chunk_is_estimated(fake):
    fake.script([{"content": "x" * 40, "usage": None}])
    with client_for(fake) as client:
        assert client.chat(MSGS) == "x" * 40
    assert client.usage.completion_tokens == 10 and client.usage.estimated == 1


def test_an_answer_abandoned_at_its_deadline_stops_the_stream(fake):
    # 200 pieces of 4 characters, 0.05 s apart: 10 s of generation; the call may take 0.5 s
    fake.script([{"content": "word" * 200, "chunk_delay": 0.05}])
    with client_for(fake, max_retries=0) as client:
        with pytest.raises(LLMDeadlineError):
            client.chat(MSGS, deadline=0.5)
    record = fake.requests[0]
    for _ in range(200):  # the server notices the closed connection at its next write
        if record.get("abandoned"):
            break
        time.sleep(0.05)
    assert record.get("abandoned") is True
    assert record["chunks_sent"] < 200  # it stopped sending (generating) long before the end


def test_streaming_can_be_switched_off(fake):
    assert LLMConfig.from_env({"LLM_MODEL": "m", "LLM_API_KEY": "k"}).stream is True
    cfg = LLMConfig.from_env({"LLM_MODEL": "m", "LLM_BASE_URL": fake.url, "LLM_STREAM": "0"})
    assert cfg.stream is False
    fake.script([{"content": "whole", "usage": {"prompt_tokens": 3, "completion_tokens": 1}}])
    with LLMClient(cfg) as client:
        assert client.chat(MSGS) == "whole"
    assert "stream" not in fake.requests[0]["json"] and "chunks_sent" not in fake.requests[0]
    assert client.usage.prompt_tokens == 3


def test_a_long_answer_that_keeps_coming_outlasts_the_attempt_timeout(fake):
    # 60 pieces 0.05 s apart: 3 s in all, never 1 s without a byte; the old 1 s per attempt would cut it off
    fake.script([{"content": "word" * 60, "chunk_delay": 0.05}])
    with client_for(fake, timeout=1.0, max_retries=0) as client:
        assert client.chat(MSGS, deadline=60) == "word" * 60
    assert "abandoned" not in fake.requests[0]


def test_streamed_answers_read_to_the_end_keep_the_connection(fake):
    fake.script(["one answer", "another answer"])
    with client_for(fake) as client:
        assert client.chat(MSGS) == "one answer" and client.chat(MSGS) == "another answer"
    assert fake.requests[0]["port"] == fake.requests[1]["port"]  # one connection, kept alive


def test_a_stream_without_usage_counts_its_pieces_and_says_the_counts_are_estimates(fake, tmp_path, monkeypatch,
                                                                                   capsys):
    """llama-cpp-python streams without a usage chunk: completion tokens are the pieces (one token each there),
    and the act records, the per-seat figures and the dry run say that the counts are estimates."""
    from bots import local
    from tasks.core.llm_acts import per_seat
    fake.default_responder = lambda _request: "abcdefghij"  # 3 pieces: abcd, efgh, ij
    fake.script([{"content": "abcdefghij", "usage": None}])
    with client_for(fake) as client:
        client.chat(MSGS)
    assert (client.usage.completion_tokens, client.usage.estimated) == (3, 1)
    assert per_seat([{"seat": "a", "brain": "x", "use": "turn", "valid": True, "estimated": 1}])["a"]["estimated"] == 1
    for key, value in {"LLM_BASE_URL": fake.url, "LLM_MODEL": "m", "LLM_API_KEY": "k"}.items():
        monkeypatch.setenv(key, value)
    fake.script([{"content": "x", "usage": None}] * 200)
    assert local.main(["travel", "--boards", "generated", "--agents", "solver,problem-solving", "--quiet", "--games",
                       "4", "--dry-run", "--out", str(tmp_path)]) == 0
    assert "calls are estimates" in capsys.readouterr().out


def test_a_server_that_breaks_streams_off_gets_requests_in_one_piece(fake, caplog):
    """llama-cpp-python (interrupt_requests, on by default) ends a stream with [DONE] and no finish reason as soon
    as another request waits: that is no answer. The call is sent again at once, unstreamed, and so is every later
    call of that client."""
    fake.script([{"content": "lost", "interrupted": True}, "whole answer", "next answer"])
    with client_for(fake) as client:
        assert client.chat(MSGS) == "whole answer"
        assert client.chat(MSGS) == "next answer"
    assert [r["json"].get("stream") for r in fake.requests] == [True, None, None]
    assert client.usage.failures == 0 and client.usage.calls == 2
    assert "breaks streamed answers off" in caplog.text and "--interrupt_requests False" in caplog.text


def test_a_stream_cut_off_mid_body_is_sent_again_in_one_piece(fake, caplog):
    """A server under load that drops a streamed answer half-way (its chunked body ends early: IncompleteRead) gave
    every call of a run an error after minutes; the call is sent again at once, unstreamed, as for a stream broken
    off, and no attempt of the call's retries is spent on it."""
    fake.script([{"content": "lost in the middle", "cut": True}, "whole answer", "next answer"])
    with client_for(fake, max_retries=0) as client:
        assert client.chat(MSGS) == "whole answer"
        assert client.chat(MSGS) == "next answer"
    assert [r["json"].get("stream") for r in fake.requests] == [True, None, None]
    assert client.usage.failures == 0 and client.usage.calls == 2
    assert "breaks streamed answers off" in caplog.text


def test_a_calls_own_deadline_outlasts_llm_timeout_before_the_first_byte_and_between_pieces(fake):
    """`deadline=` of one call (a paper's long chain-of-thought turn) is what its first byte and each piece may take;
    `llm.timeout` still cuts an attempt of a call without one."""
    fake.script([{"content": "late", "hang": 0.8}, {"content": "slow pieces", "chunk_delay": 0.5},
                 {"content": "late", "hang": 0.8}])
    with client_for(fake, timeout=0.3, max_retries=0) as client:
        assert client.chat(MSGS, deadline=30) == "late"  # the first byte came after llm.timeout
        assert client.chat(MSGS, deadline=30) == "slow pieces"  # each piece too
        with pytest.raises(LLMError, match="timeout"):
            client.chat(MSGS)  # no deadline of its own: llm.timeout as before
    assert len(fake.requests) == 3 and "abandoned" not in fake.requests[1]
