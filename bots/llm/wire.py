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


class Completion(NamedTuple):
    text: str
    finish: str | None
    prompt_tokens: int | None  # None: the answer had no usage block
    completion_tokens: int


def encode(request: dict) -> bytes:
    return json.dumps(request, separators=(",", ":")).encode()


def read_completion(reply: Reply) -> Completion:
    """The answer's text, finish reason and token counts; StatusError for an error status, BadAnswer for a body
    that is not a chat completion."""
    if not 200 <= reply.status < 300:
        raise StatusError(reply)
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
    usage = data.get("usage")
    if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
        return Completion(text, finish, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
    return Completion(text, finish, None, 0)


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
