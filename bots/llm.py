"""One small wrapper over the ``openai`` package, for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp).

* :class:`LLMConfig` — what to call and how (``LLMConfig.from_env`` returns None when no model is configured:
  callers then fall back to their symbolic policies).
* :class:`LLMClient` — ``chat`` (text) and ``chat_json`` (a dict validated against a JSON schema, with one repair
  round), our own retries with exponential backoff, token accounting in :class:`Usage`.
* :func:`extract_json_object` — the first JSON object in a model's answer (fences, prose, ``<think>`` blocks).

The API key never appears in reprs, logs or :class:`LLMError` messages.
"""
from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, Mapping

import jsonschema
import openai

__all__ = ["LLMConfig", "LLMClient", "LLMError", "Usage", "extract_json_object", "DEFAULT_BASE_URL"]

log = logging.getLogger("bots.llm")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama, llama.cpp) accept any key
_DEBUG_PROMPT_CHARS = 300


# ----------------------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------------------
@dataclass(repr=False)
class LLMConfig:
    model: str
    base_url: str | None = None          # None: the OpenAI default endpoint
    api_key: str | None = None           # hidden from repr/str
    timeout: float = 30.0                # seconds, per HTTP attempt
    max_retries: int = 2                 # extra attempts after the first one
    backoff: float = 0.5                 # first delay between attempts (s); doubles each retry ...
    backoff_cap: float = 8.0             # ... up to this
    temperature: float = 0.2
    max_tokens: int = 800
    seed: int | None = None              # sent to the API when set
    json_mode: bool = True               # chat_json sends response_format={"type": "json_object"}

    # file-config key -> converter; the env variables are LLM_<KEY upper> (plus OPENAI_* aliases, see from_env)
    _CONVERTERS = {"model": str, "base_url": str, "api_key": str, "timeout": float, "max_retries": int,
                   "backoff": float, "backoff_cap": float, "temperature": float, "max_tokens": int, "seed": int,
                   "json_mode": "bool"}

    def __repr__(self) -> str:
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "api_key":
                parts.append(f"api_key={'***' if value else None}")
            else:
                parts.append(f"{f.name}={value!r}")
        return f"LLMConfig({', '.join(parts)})"

    __str__ = __repr__

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, file_config: Mapping[str, Any] | None = None,
                 ) -> "LLMConfig | None":
        """Build a config from a file config dict (the ``llm:`` section) overridden by environment variables.

        Env: ``LLM_MODEL``, ``LLM_BASE_URL`` (or ``OPENAI_BASE_URL``), ``LLM_API_KEY`` (or ``OPENAI_API_KEY``),
        ``LLM_TIMEOUT``, ``LLM_MAX_RETRIES``, ``LLM_TEMPERATURE`` (and ``LLM_BACKOFF``, ``LLM_MAX_TOKENS``,
        ``LLM_SEED``, ``LLM_JSON_MODE``). The file config uses the same keys, lowercase, without prefix.
        Empty values count as unset. Returns None when no model is configured. Raises ValueError for a value
        that does not parse, or for a model on the OpenAI default endpoint without any API key.
        """
        env = os.environ if env is None else env
        file_config = dict(file_config or {})
        unknown = set(file_config) - set(cls._CONVERTERS)
        if unknown:
            log.warning("ignoring unknown llm config keys: %s", ", ".join(sorted(unknown)))

        values: dict[str, Any] = {}
        for key, conv in cls._CONVERTERS.items():
            names = [f"LLM_{key.upper()}"]
            if key in ("base_url", "api_key"):
                names.append(f"OPENAI_{key.upper()}")
            raw, source = None, None
            for name in names:
                if env.get(name) not in (None, ""):
                    raw, source = env[name], name
                    break
            if raw is None and file_config.get(key) not in (None, ""):
                raw, source = file_config[key], f"llm.{key}"
            if raw is None:
                continue
            try:
                values[key] = _convert(raw, conv)
            except (TypeError, ValueError):
                shown = "***" if key == "api_key" else repr(raw)
                raise ValueError(f"invalid value for {source}: {shown}") from None

        if not values.get("model"):
            return None
        if not values.get("api_key"):
            if not values.get("base_url"):
                raise ValueError("an LLM model is configured for the OpenAI endpoint but no API key: "
                                 "set LLM_API_KEY (or OPENAI_API_KEY), or LLM_BASE_URL for a local server")
            values["api_key"] = PLACEHOLDER_KEY
        return cls(**values)


def _convert(raw: Any, conv: Any) -> Any:
    if conv == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError(raw)
    if conv is int and isinstance(raw, float) and not raw.is_integer():
        raise ValueError(raw)
    if conv is str:
        return str(raw).strip()
    return conv(raw.strip() if isinstance(raw, str) else raw)


# ----------------------------------------------------------------------------------------------------------
# errors and usage
# ----------------------------------------------------------------------------------------------------------
class LLMError(Exception):
    """A failed LLM call (after retries), or an answer that stayed invalid after the repair round.

    ``status_code`` is the HTTP status of the last failure (None for timeouts/connection errors/bad answers),
    ``attempts`` the number of HTTP attempts made. The message never contains the API key.
    """

    def __init__(self, message: str, *, status_code: int | None = None, attempts: int = 0):
        super().__init__(message)
        self.status_code = status_code
        self.attempts = attempts


@dataclass
class Usage:
    """Token and call counts. ``calls``: chat requests answered by the model (a chat_json repair round is a second
    call); ``failures``: LLMErrors raised to the caller; ``retries``: extra HTTP attempts; ``estimated``: calls whose
    token counts were estimated (len/4) because the response had no usage block."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failures: int = 0
    retries: int = 0
    estimated: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> "Usage":
        """Add ``other``'s counts into this one; returns self."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self

    def as_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["total_tokens"] = self.total_tokens
        return d


# ----------------------------------------------------------------------------------------------------------
# JSON extraction
# ----------------------------------------------------------------------------------------------------------
_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


def extract_json_object(text: str) -> dict:
    """Return the first JSON object in ``text``.

    Tolerates ```json fences, prose around the object and ``<think>...</think>`` reasoning blocks.
    Raises ValueError (with a short reason) when there is none.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the answer is empty; expected a JSON object")
    text = _THINK_RE.sub("", text)
    candidates = [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    first_error: str | None = None
    for chunk in candidates:
        stripped = chunk.strip()
        if stripped.startswith("{"):
            try:
                obj = json.loads(stripped)
                if isinstance(obj, dict):
                    return obj
            except ValueError as e:
                first_error = first_error or f"invalid JSON: {e}"
        for m in re.finditer(r"\{", chunk):
            try:
                obj, _ = decoder.raw_decode(chunk, m.start())
            except ValueError as e:
                first_error = first_error or f"invalid JSON: {e}"
                continue
            if isinstance(obj, dict):
                return obj
    raise ValueError(first_error or "no JSON object found in the answer")


def _validation_message(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{error.message} (at {'$/' + where if where else 'the top level'})"


# ----------------------------------------------------------------------------------------------------------
# client
# ----------------------------------------------------------------------------------------------------------
_RETRYABLE_STATUS = 429


class LLMClient:
    """Chat with one model; thread-safe (one ``openai.OpenAI`` client, lifetime usage behind a lock)."""

    def __init__(self, config: LLMConfig, client: Any = None, *, sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self.usage = Usage()
        self.sleep = sleep
        self._lock = threading.Lock()
        self._json_mode = config.json_mode
        self._owns_client = client is None
        if client is None:
            if not config.api_key and not config.base_url:
                raise ValueError("no API key configured for the OpenAI endpoint")
            client = openai.OpenAI(base_url=config.base_url or DEFAULT_BASE_URL,
                                   api_key=config.api_key or PLACEHOLDER_KEY,
                                   timeout=config.timeout, max_retries=0)
        self._client = client

    def close(self) -> None:
        """Close the HTTP connections of the client built here (an injected client is left to its owner)."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LLMClient(model={self.config.model!r}, base_url={self.config.base_url!r})"

    # -- public API --------------------------------------------------------------------------------------------
    def chat(self, messages: list[dict], *, usage: Usage | None = None, max_tokens: int | None = None,
             temperature: float | None = None) -> str:
        """Send ``messages``; return the answer's text. Raises LLMError after the last retry."""
        return self._call(messages, usage=usage, max_tokens=max_tokens, temperature=temperature)

    def chat_json(self, messages: list[dict], schema: dict, *, usage: Usage | None = None,
                  max_tokens: int | None = None, temperature: float | None = None) -> dict:
        """Ask for a JSON object valid against ``schema``; one repair round on a bad answer; else LLMError.

        When no message mentions JSON, an instruction quoting the schema is added to the system message (or to
        the last user message when there is no leading system message).
        """
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)  # a bad schema is a programming error: let SchemaError propagate
        validator = validator_cls(schema)
        messages = _with_json_instruction(messages, schema)

        answer = self._call(messages, usage=usage, max_tokens=max_tokens, temperature=temperature, want_json=True)
        obj, problem = self._check(answer, validator)
        if problem is None:
            return obj
        log.info("llm answer rejected (%s); asking for a repair", problem)
        repair = messages + [
            {"role": "assistant", "content": answer},
            {"role": "user", "content": f"Your answer is not valid: {problem}. "
                                        "Reply with the corrected JSON object only, no other text."},
        ]
        answer = self._call(repair, usage=usage, max_tokens=max_tokens, temperature=temperature, want_json=True)
        obj, problem = self._check(answer, validator)
        if problem is None:
            return obj
        self._count(usage, Usage(failures=1))
        log.warning("llm answer still invalid after the repair round: %s", problem)
        raise LLMError(self._scrub(f"invalid JSON answer after a repair round: {problem}"))

    # -- internals -----------------------------------------------------------------------------------------------
    @staticmethod
    def _check(answer: str, validator: Any) -> tuple[dict | None, str | None]:
        try:
            obj = extract_json_object(answer)
        except ValueError as e:
            return None, str(e)
        error = jsonschema.exceptions.best_match(validator.iter_errors(obj))
        if error is not None:
            return None, _validation_message(error)
        return obj, None

    def _scrub(self, text: str) -> str:
        key = self.config.api_key
        if key and key != PLACEHOLDER_KEY:
            text = text.replace(key, "***")
        return text

    def _count(self, usage: Usage | None, delta: Usage) -> None:
        with self._lock:
            self.usage.add(delta)
        if usage is not None and usage is not self.usage:
            usage.add(delta)

    def _delay(self, retry: int, error: Exception) -> float:
        cfg = self.config
        delay = min(cfg.backoff * (2 ** retry), cfg.backoff_cap)
        response = getattr(error, "response", None)
        if getattr(error, "status_code", None) == 429 and response is not None:
            try:
                delay = min(max(delay, float(response.headers.get("retry-after", 0))), cfg.backoff_cap)
            except (TypeError, ValueError):
                pass
        return delay

    def _call(self, messages: list[dict], *, usage: Usage | None, max_tokens: int | None,
              temperature: float | None, want_json: bool = False) -> str:
        cfg = self.config
        kwargs: dict[str, Any] = {
            "model": cfg.model,
            "messages": messages,
            "max_tokens": cfg.max_tokens if max_tokens is None else max_tokens,
            "temperature": cfg.temperature if temperature is None else temperature,
        }
        if cfg.seed is not None:
            kwargs["seed"] = cfg.seed
        if want_json and self._json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        if log.isEnabledFor(logging.DEBUG):
            log.debug("llm request model=%s messages=%s", cfg.model, _preview(messages))

        attempts = 1 + max(0, cfg.max_retries)
        attempt = retries = 0
        start = time.monotonic()
        while True:
            attempt += 1
            try:
                response = self._client.chat.completions.create(**kwargs)
                break
            except openai.APIStatusError as e:
                status = e.status_code
                if (status == 400 and "response_format" in kwargs
                        and "response_format" in str(e).lower()):
                    # server does not support JSON mode: drop it for this client, retry once (not a retry count)
                    log.info("llm server rejects response_format; continuing without JSON mode")
                    self._json_mode = False
                    del kwargs["response_format"]
                    attempt -= 1
                    continue
                retryable = status == _RETRYABLE_STATUS or status >= 500
                error: Exception = e
                reason = f"HTTP {status}: {_error_message(e)}"
            except openai.APIConnectionError as e:  # includes APITimeoutError
                status, retryable, error = None, True, e
                reason = "timeout" if isinstance(e, openai.APITimeoutError) else f"connection error: {e}"
            except openai.OpenAIError as e:
                status, retryable, error = None, False, e
                reason = f"{type(e).__name__}: {e}"
            if not retryable or attempt >= attempts:
                duration = time.monotonic() - start
                self._count(usage, Usage(failures=1, retries=retries))
                log.warning("llm call failed model=%s duration=%.2fs attempts=%d retries=%d error=%s",
                            cfg.model, duration, attempt, retries, self._scrub(reason))
                raise LLMError(self._scrub(f"LLM call to {cfg.model} failed after {attempt} attempt"
                                           f"{'s' if attempt > 1 else ''}: {reason}"),
                               status_code=status, attempts=attempt) from None
            delay = self._delay(retries, error)
            retries += 1
            log.debug("llm attempt %d/%d failed (%s); retrying in %.2fs", attempt, attempts,
                      self._scrub(reason), delay)
            if delay > 0:
                self.sleep(delay)

        duration = time.monotonic() - start
        text, finish = "", None
        choices = getattr(response, "choices", None) or []
        if choices:
            text = choices[0].message.content or ""
            finish = choices[0].finish_reason
        delta = Usage(calls=1, retries=retries)
        reported = getattr(response, "usage", None)
        if reported is not None and reported.prompt_tokens is not None:
            delta.prompt_tokens = int(reported.prompt_tokens or 0)
            delta.completion_tokens = int(reported.completion_tokens or 0)
        else:
            delta.prompt_tokens = _estimate_tokens(messages)
            delta.completion_tokens = max(1, len(text) // 4) if text else 0
            delta.estimated = 1
        self._count(usage, delta)
        log.info("llm call model=%s duration=%.2fs prompt_tokens=%d completion_tokens=%d%s retries=%d finish=%s",
                 cfg.model, duration, delta.prompt_tokens, delta.completion_tokens,
                 " (estimated)" if delta.estimated else "", retries, finish)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("llm answer: %s", _truncate(text))
        return text


def _with_json_instruction(messages: list[dict], schema: dict) -> list[dict]:
    """Make sure the conversation mentions JSON (OpenAI's JSON mode requires it) and carries the schema."""
    if any("json" in _content_text(m.get("content")).lower() for m in messages):
        return list(messages)
    note = ("Reply with a single JSON object only, no other text, valid against this JSON Schema: "
            + json.dumps(schema, separators=(",", ":")))
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system" and isinstance(out[0].get("content"), str):
        out[0]["content"] = out[0]["content"].rstrip() + "\n\n" + note
        return out
    for m in reversed(out):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            m["content"] = m["content"].rstrip() + "\n\n" + note
            return out
    out.append({"role": "user", "content": note})
    return out


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _estimate_tokens(messages: list[dict]) -> int:
    return max(1, sum(len(_content_text(m.get("content"))) for m in messages) // 4)


def _truncate(text: str, limit: int = _DEBUG_PROMPT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"...[+{len(text) - limit} chars]"


def _preview(messages: list[dict]) -> str:
    return json.dumps([{"role": m.get("role"), "content": _truncate(_content_text(m.get("content")))}
                       for m in messages], ensure_ascii=False)


def _error_message(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:500]
        if isinstance(inner, str):
            return inner[:500]
    return str(getattr(error, "message", None) or error)[:500]
