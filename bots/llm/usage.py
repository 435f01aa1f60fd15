"""The client's errors and its token, call and time counts."""
from __future__ import annotations

from dataclasses import dataclass, fields


class LLMError(Exception):
    """A failed LLM call (after retries), or an answer that stayed invalid after the repair round.

    ``status_code`` is the HTTP status of the last failure (None for timeouts/connection errors/bad answers),
    ``attempts`` the number of HTTP attempts made. The message never contains the API key.
    """

    def __init__(self, message: str, *, status_code: int | None = None, attempts: int = 0):
        super().__init__(message)
        self.status_code = status_code
        self.attempts = attempts


class LLMDeadlineError(LLMError):
    """The overall deadline (``LLMConfig.deadline``, or the enclosing ``turn()``'s) passed before an answer came."""


@dataclass
class Usage:
    """Token, call and time counts. ``calls``: chat requests answered by the model (a chat_json repair round is a
    second call); ``failures``: LLMErrors raised to the caller; ``retries``: extra HTTP attempts; ``estimated``: calls
    whose token counts were estimated (len/4) because the response had no usage block; ``invalid``: JSON answers
    that failed parsing or validation (a repaired one counts too); ``repairs``: repair rounds asked for;
    ``truncated``: answers cut off at ``max_tokens`` (finish_reason "length"). Times in seconds: ``seconds`` the
    whole of the client's calls (queueing, HTTP, parsing, validation), ``model_seconds`` waiting for HTTP answers,
    ``queue_seconds`` waiting for a free request slot of the endpoint (``LLMConfig.concurrency``)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failures: int = 0
    retries: int = 0
    estimated: int = 0
    invalid: int = 0
    repairs: int = 0
    truncated: int = 0
    seconds: float = 0.0
    model_seconds: float = 0.0
    queue_seconds: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> "Usage":
        """Add ``other``'s counts into this one (any object with some of these attributes); returns self."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + (getattr(other, f.name, 0) or 0))
        return self

    def as_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["total_tokens"] = self.total_tokens
        return d
