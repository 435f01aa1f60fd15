"""The OpenAI chat-completions format on the wire: the request's JSON, the few fields read from an answer, and what
an error answer says. Only what the client uses is parsed (the answer's text, finish reason and token counts)."""
from __future__ import annotations

import json
from typing import Any, NamedTuple

from .transport import Reply

# A response_format the server does not take comes back as one of these (OpenAI/vLLM 400, FastAPI servers 422,
# llama-cpp-python 500 with its validation error), with a message about the format.
_FORM_REJECT_STATUS = (400, 415, 422, 500, 501)
_FORM_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar", "structured", "guided")


class StatusError(Exception):
    """An HTTP error answer: ``status_code``, ``headers`` (lower-case names), ``body`` (JSON or text) and its
    ``message`` (at most 500 characters)."""

    def __init__(self, reply: Reply):
        self.status_code = reply.status
        self.headers = reply.headers
        try:
            self.body: Any = json.loads(reply.body) if reply.body else None
        except ValueError:
            self.body = reply.body.decode("utf-8", "replace")
        self.message = error_message(self.body) or f"HTTP {reply.status}"
        super().__init__(f"HTTP {self.status_code}: {self.message}")

    def rejects_format(self) -> bool:
        """Whether this error says the endpoint does not take the request's response_format."""
        if self.status_code not in _FORM_REJECT_STATUS:
            return False
        try:
            body_text = json.dumps(self.body) if self.body is not None else ""
        except (TypeError, ValueError):
            body_text = str(self.body)
        text = f"{self.message} {body_text}".lower()
        return any(w in text for w in _FORM_WORDS)


class BadAnswer(Exception):
    """A success status whose body is not a chat completion."""


class StreamInterrupted(Exception):
    """A streamed answer that ended without a finish reason: the server broke it off (llama-cpp-python does so
    whenever another request waits for the model, its `interrupt_requests` setting, on by default)."""


class Completion(NamedTuple):
    text: str
    finish: str | None
    prompt_tokens: int | None  # None: the answer had no usage block
    completion_tokens: int     # without a usage block: the pieces of a streamed answer (0 for one in one piece)


def encode(request: dict) -> bytes:
    return json.dumps(request, separators=(",", ":")).encode()


def read_completion(reply: Reply) -> Completion:
    """The answer's text, finish reason and token counts; StatusError for an error status, BadAnswer for a body
    that is not a chat completion. A streamed answer (server-sent events) is read the same way."""
    if not 200 <= reply.status < 300:
        raise StatusError(reply)
    if reply.headers.get("content-type", "").startswith("text/event-stream"):
        return read_events(reply.body)
    try:
        data = json.loads(reply.body)
    except ValueError as e:
        raise BadAnswer(f"the answer is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise BadAnswer("the answer is not a JSON object")
    text, finish = "", None
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        text = content if isinstance(content, str) else ""
        finish = choices[0].get("finish_reason")
    return _completion(text, finish, data.get("usage"))


def read_events(body: bytes) -> Completion:
    """A streamed chat completion: the content of every chunk's delta, the last finish reason, and the usage of
    the final chunk (sent when the request asked for ``stream_options: {include_usage: true}``; for servers that do
    not send it, llama-cpp-python's among them, the client estimates the prompt's tokens and counts the pieces)."""
    parts: list[str] = []
    finish, usage = None, None
    for line in body.decode("utf-8", "replace").splitlines():
        if not line.startswith("data:"):
            continue  # blank separators, comments (": ping"), event names
        data = line[5:].strip()
        if data == "[DONE]":
            break
        try:
            chunk = json.loads(data)
        except ValueError as e:
            raise BadAnswer(f"a streamed chunk is not JSON ({e})") from None
        if not isinstance(chunk, dict):
            raise BadAnswer("a streamed chunk is not a JSON object")
        if chunk.get("error"):
            raise BadAnswer(f"the stream broke off: {error_message(chunk)}")
        choices = chunk.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            delta = choices[0].get("delta")
            content = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(content, str) and content:
                parts.append(content)
            finish = choices[0].get("finish_reason") or finish
        if isinstance(chunk.get("usage"), dict):
            usage = chunk["usage"]
    if finish is None:
        raise StreamInterrupted(f"the streamed answer ended without a finish reason after {len(parts)} pieces")
    return _completion("".join(parts), finish, usage, len(parts))


def _completion(text: str, finish: str | None, usage: Any, pieces: int = 0) -> Completion:
    """The counts of a usage block; without one, None prompt tokens (the client estimates them) and `pieces`."""
    if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
        return Completion(text, finish, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
    return Completion(text, finish, None, pieces)


def error_message(body: Any) -> str:
    """The human part of an error body: OpenAI's ``error.message``, FastAPI's ``detail``, or the text itself."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:500]
        if isinstance(inner, str):
            return inner[:500]
        if isinstance(inner, dict) and inner.get("detail"):  # FastAPI's validation errors
            return str(inner["detail"])[:500]
    if body is None:
        return ""
    return str(body)[:500]
