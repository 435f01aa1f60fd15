"""One small wrapper over the ``openai`` package, for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp).

* :class:`LLMConfig` — what to call and how (``LLMConfig.from_env`` returns None when no model is configured:
  callers then fall back to their symbolic policies).
* :class:`LLMClient` — ``chat`` (text) and ``chat_json`` (a dict validated against a JSON schema, with one repair
  round), our own retries with exponential backoff, token and time accounting in :class:`Usage`.
* Structured answers: ``chat_json`` sends its schema as a structured-output request. The client finds once (on the
  first JSON call) which form the endpoint honours — ``json_schema`` (OpenAI, vLLM, llama-server), then
  ``json_object`` with ``schema`` (llama-cpp-python's server), then plain ``json_object``, then none — and
  remembers it (:attr:`LLMClient.structured_form`). Prompt-only JSON with one repair round stays the last resort;
  the schema always validates the answer too. ``LLMConfig.structured`` pins a form or turns it off.
* ``max_tokens`` is sized per act: a JSON answer gets what its schema can need at most (:func:`answer_budget`,
  bounded strings and arrays), capped by ``LLMConfig.max_tokens``.
* At most ``LLMConfig.concurrency`` requests per endpoint are in flight (default 1 for a local server): further
  calls queue first come, first served, and the wait counts against their deadline.
* One overall deadline (``LLMConfig.deadline``, default 20 s) bounds each ``chat`` / ``chat_json`` call across its
  retries (and a chat_json's repair round): every attempt's timeout is capped by the time left, no retry starts
  after the deadline, and the error is an :class:`LLMDeadlineError`. ``with client.turn():`` makes every call of the
  block (on this thread) share one deadline, e.g. all calls of one agent turn.
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
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Callable, Iterator, Mapping

import jsonschema
import openai

__all__ = ["LLMConfig", "LLMClient", "LLMError", "LLMDeadlineError", "Usage", "extract_json_object",
           "answer_budget", "DEFAULT_BASE_URL", "STRUCTURED_FORMS"]

log = logging.getLogger("bots.llm")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama, llama.cpp) accept any key
_DEBUG_PROMPT_CHARS = 300
# No attempt starts with less time than this left before the deadline (it could not get an answer anyway).
_MIN_ATTEMPT_SECONDS = 0.05
# Structured-output forms, most specific first ("off": prompt-only JSON). "auto" tries them in this order.
STRUCTURED_FORMS = ("json_schema", "json_object_schema", "json_object", "off")
_STRUCTURED_SETTINGS = ("auto",) + STRUCTURED_FORMS
# Concurrent requests per endpoint when `concurrency` is not set: a local server (any base_url) serves one at a
# time well; the hosted OpenAI endpoint takes many.
DEFAULT_LOCAL_CONCURRENCY = 1
DEFAULT_HOSTED_CONCURRENCY = 8


# ----------------------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------------------
@dataclass(repr=False)
class LLMConfig:
    model: str
    base_url: str | None = None          # None: the OpenAI default endpoint
    api_key: str | None = None           # hidden from repr/str
    timeout: float = 30.0                # seconds, per HTTP attempt (capped by the time left before the deadline)
    deadline: float = 20.0               # seconds for one call (or one `turn()`) across all retries; <= 0: none
    max_retries: int = 2                 # extra attempts after the first one
    backoff: float = 0.5                 # first delay between attempts (s); doubles each retry ...
    backoff_cap: float = 8.0             # ... up to this
    temperature: float = 0.2
    max_tokens: int = 800                # upper bound; a JSON act asks for no more than its schema can need
    seed: int | None = None              # sent to the API when set
    json_mode: bool = True               # False: chat_json sends no response_format at all (= structured "off")
    structured: str = "auto"             # auto | json_schema | json_object_schema | json_object | off
    concurrency: int | None = None       # requests in flight per endpoint; None: 1 local, 8 OpenAI; 0: no limit
    price_prompt: float | None = None     # price per million prompt tokens (only for `--dry-run` estimates)
    price_completion: float | None = None  # price per million completion tokens

    # file-config key -> converter; the env variables are LLM_<KEY upper> (plus OPENAI_* aliases, see from_env)
    _CONVERTERS = {"model": str, "base_url": str, "api_key": str, "timeout": float, "deadline": float,
                   "max_retries": int, "backoff": float, "backoff_cap": float, "temperature": float,
                   "max_tokens": int, "seed": int, "json_mode": "bool", "structured": "structured",
                   "concurrency": int, "price_prompt": float, "price_completion": float}

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
        ``LLM_TIMEOUT``, ``LLM_DEADLINE``, ``LLM_MAX_RETRIES``, ``LLM_TEMPERATURE`` (and ``LLM_BACKOFF``,
        ``LLM_MAX_TOKENS``, ``LLM_SEED``, ``LLM_JSON_MODE``, ``LLM_STRUCTURED``, ``LLM_CONCURRENCY``). The file
        config uses the same keys, lowercase, without prefix.
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
    if conv == "structured":
        text = str(raw).strip().lower().replace("-", "_")
        text = {"none": "off", "false": "off", "0": "off", "no": "off", "on": "auto", "true": "auto"}.get(text, text)
        if text not in _STRUCTURED_SETTINGS:
            raise ValueError(raw)
        return text
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
# A response_format the server does not take comes back as one of these (OpenAI/vLLM 400, FastAPI servers 422,
# llama-cpp-python 500 with its validation error), with a message about the format.
_FORM_REJECT_STATUS = (400, 415, 422, 500, 501)
_FORM_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar", "structured", "guided")


# Servers compile a schema into a grammar (llama.cpp); a length bound becomes one nested rule per character, and a
# large one (a 3,000-character message) makes a grammar the server cannot parse -- llama-cpp-python then crashed.
# Bounds above these go only into the client's own validation of the answer, not to the server.
SERVER_MAX_LENGTH = 1000
SERVER_MAX_ITEMS = 50


def server_schema(schema):
    """`schema` without the length bounds too large for a server-side grammar (the answer is still validated
    against the full schema)."""
    if isinstance(schema, dict):
        out = {}
        for k, v in schema.items():
            if (k in ("maxLength", "minLength") and isinstance(v, int) and v > SERVER_MAX_LENGTH) or \
                    (k in ("maxItems", "minItems") and isinstance(v, int) and v > SERVER_MAX_ITEMS):
                continue
            out[k] = server_schema(v)
        return out
    if isinstance(schema, list):
        return [server_schema(v) for v in schema]
    return schema


def _response_format(form: str, schema: dict | None, name: str) -> dict | None:
    if schema is not None:
        schema = server_schema(schema)
    if form == "json_schema" and schema is not None:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    if form == "json_object_schema" and schema is not None:
        return {"type": "json_object", "schema": schema}
    if form in ("json_schema", "json_object_schema", "json_object"):
        return {"type": "json_object"}
    return None


class _Gate:
    """At most `limit` holders at once; waiters are served first come, first served."""

    def __init__(self, limit: int):
        self.limit = max(1, int(limit))
        self._cond = threading.Condition()
        self._queue: deque = deque()
        self._busy = 0

    def acquire(self, timeout: float | None) -> bool:
        me = object()
        with self._cond:
            self._queue.append(me)
            end = None if timeout is None else time.monotonic() + timeout
            while self._queue[0] is not me or self._busy >= self.limit:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    self._queue.remove(me)
                    self._cond.notify_all()
                    return False
                self._cond.wait(left)
            self._queue.popleft()
            self._busy += 1
            self._cond.notify_all()  # the next in line may go too when the limit allows it
            return True

    def release(self) -> None:
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._queue)


_GATES: dict[tuple, _Gate] = {}
_GATES_LOCK = threading.Lock()


def _gate_for(endpoint: str, limit: int) -> _Gate | None:
    """The gate shared by every client of this process that calls `endpoint` with this limit (None: no limit)."""
    if limit <= 0:
        return None
    with _GATES_LOCK:
        return _GATES.setdefault((endpoint, int(limit)), _Gate(limit))


class LLMClient:
    """Chat with one model; thread-safe (one ``openai.OpenAI`` client, lifetime usage behind a lock)."""

    def __init__(self, config: LLMConfig, client: Any = None, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic):
        self.config = config
        self.usage = Usage()
        self.sleep = sleep
        self.clock = clock
        self._lock = threading.Lock()
        self._turns = threading.local()  # .deadline: (clock value, seconds) of the innermost turn() on this thread
        setting = config.structured if config.json_mode else "off"
        self._first_form = STRUCTURED_FORMS[0] if setting == "auto" else setting
        self._form: str | None = "off" if setting == "off" else None  # the form found to be honoured
        self._owns_client = client is None
        if client is None:
            if not config.api_key and not config.base_url:
                raise ValueError("no API key configured for the OpenAI endpoint")
            client = openai.OpenAI(base_url=config.base_url or DEFAULT_BASE_URL,
                                   api_key=config.api_key or PLACEHOLDER_KEY,
                                   timeout=config.timeout, max_retries=0)
        self._client = client
        limit = config.concurrency
        if limit is None:
            limit = DEFAULT_LOCAL_CONCURRENCY if config.base_url else DEFAULT_HOSTED_CONCURRENCY
        self.concurrency = int(limit)
        self._gate = _gate_for((config.base_url or DEFAULT_BASE_URL).rstrip("/"), self.concurrency)

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

    @property
    def structured_form(self) -> str | None:
        """The structured-output form this endpoint honours ("json_schema", "json_object_schema", "json_object" or
        "off"), None until the first JSON call found it."""
        return self._form

    # -- public API --------------------------------------------------------------------------------------------
    @contextmanager
    def turn(self, seconds: float | None = None) -> Iterator[None]:
        """Every call this thread makes on this client inside the block shares one deadline: ``seconds`` from now
        (default ``config.deadline``; <= 0: none of its own). Nested turns keep the earlier deadline. Use it around
        one agent turn, so several calls (e.g. reading the partner's message, then choosing a move) together
        take no longer than the deadline."""
        seconds = self.config.deadline if seconds is None else seconds
        outer = getattr(self._turns, "deadline", None)
        current = outer
        if seconds and seconds > 0:
            mine = (self.clock() + seconds, seconds)
            current = mine if outer is None or mine[0] < outer[0] else outer
        self._turns.deadline = current
        try:
            yield
        finally:
            self._turns.deadline = outer

    def chat(self, messages: list[dict], *, usage: Usage | None = None, max_tokens: int | None = None,
             temperature: float | None = None) -> str:
        """Send ``messages``; return the answer's text (free text: no response_format). Raises LLMError after the
        last retry, LLMDeadlineError when the deadline passes first."""
        started = time.perf_counter()
        try:
            with self.turn():
                return self._call(messages, usage=usage, max_tokens=max_tokens, temperature=temperature)
        finally:
            self._count(usage, Usage(seconds=time.perf_counter() - started))

    def chat_json(self, messages: list[dict], schema: dict, *, usage: Usage | None = None,
                  max_tokens: int | None = None, temperature: float | None = None, name: str | None = None) -> dict:
        """Ask for a JSON object valid against ``schema``; one repair round on a bad answer; else LLMError.

        The schema goes out as a structured-output request in the form the endpoint honours (see the module
        docstring) and validates the answer. ``max_tokens`` defaults to what the schema can need at most
        (:func:`answer_budget`), capped by the config's. When no message mentions JSON, an instruction quoting the
        schema is added to the system message (or to the last user message when there is no leading system
        message). The answer and the repair round share one deadline. ``name`` names the schema for
        ``json_schema`` requests (default: the schema's ``title``, else "answer").
        """
        name = name or str(schema.get("title") or "answer")
        started = time.perf_counter()
        try:
            with self.turn():
                return self._chat_json(messages, schema, usage=usage, max_tokens=max_tokens,
                                       temperature=temperature, name=name)
        finally:
            self._count(usage, Usage(seconds=time.perf_counter() - started))

    def _chat_json(self, messages: list[dict], schema: dict, *, usage: Usage | None, max_tokens: int | None,
                   temperature: float | None, name: str) -> dict:
        validator = _validator(schema)  # a bad schema is a programming error: SchemaError propagates
        messages = _with_json_instruction(messages, schema)
        if max_tokens is None:
            budget = answer_budget(schema)
            max_tokens = self.config.max_tokens if budget is None else min(self.config.max_tokens, budget)

        answer = self._call(messages, usage=usage, max_tokens=max_tokens, temperature=temperature, schema=schema,
                            name=name)
        obj, problem = self._check(answer, validator)
        if problem is None:
            return obj
        self._count(usage, Usage(invalid=1, repairs=1))
        log.info("llm answer rejected (%s); asking for a repair", problem)
        repair = messages + [
            {"role": "assistant", "content": answer},
            {"role": "user", "content": f"Your answer is not valid: {problem}. "
                                        "Reply with the corrected JSON object only, no other text."},
        ]
        answer = self._call(repair, usage=usage, max_tokens=max_tokens, temperature=temperature, schema=schema,
                            name=name)
        obj, problem = self._check(answer, validator)
        if problem is None:
            return obj
        self._count(usage, Usage(failures=1, invalid=1))
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

    def _deadline_error(self, usage: Usage | None, seconds: float, attempt: int, retries: int, reason: str,
                        start: float) -> LLMDeadlineError:
        cfg = self.config
        self._count(usage, Usage(failures=1, retries=retries))
        log.warning("llm call gave up at the deadline model=%s deadline=%gs duration=%.2fs attempts=%d "
                    "retries=%d last_error=%s", cfg.model, seconds, time.monotonic() - start, attempt, retries,
                    self._scrub(reason))
        if attempt == 0:
            text = f"LLM call to {cfg.model} not made: its {seconds:g} s deadline had passed"
            if reason:
                text += f" ({reason})"
        else:
            text = (f"LLM call to {cfg.model} gave up: its {seconds:g} s deadline passed after {attempt} attempt"
                    f"{'' if attempt == 1 else 's'} (last: {reason})")
        return LLMDeadlineError(self._scrub(text), attempts=attempt)

    def _form_rejected(self, error: openai.APIStatusError, form: str) -> bool:
        """Whether this error says the endpoint does not take the request's response_format (while the form is
        still being found out: once known, errors are errors)."""
        if self._form is not None or form == "off" or error.status_code not in _FORM_REJECT_STATUS:
            return False
        body = getattr(error, "body", None)
        try:
            body_text = json.dumps(body) if body is not None else ""
        except (TypeError, ValueError):
            body_text = str(body)
        text = f"{error} {_error_message(error)} {body_text}".lower()
        return any(w in text for w in _FORM_WORDS)

    def _settle(self, form: str) -> None:
        with self._lock:
            if self._form is None:
                self._form = form
                log.info("llm structured answers for %s: %s", self.config.model,
                         "prompt-only JSON" if form == "off" else form)

    def _send(self, kwargs: dict, timeout: float, left: float | None) -> tuple[Any, float, float]:
        """One HTTP attempt through the endpoint's gate: (response, seconds queued, seconds waiting for it)."""
        gate = self._gate
        queued = 0.0
        if gate is not None:
            t0 = time.monotonic()
            if not gate.acquire(left):
                raise _QueueTimeout(time.monotonic() - t0)
            queued = time.monotonic() - t0
            if left is not None:
                timeout = min(timeout, max(_MIN_ATTEMPT_SECONDS, left - queued))
        t1 = time.monotonic()
        try:
            return self._client.chat.completions.create(**kwargs, timeout=timeout), queued, time.monotonic() - t1
        except Exception as e:
            e._llm_times = (queued, time.monotonic() - t1)  # type: ignore[attr-defined]
            raise
        finally:
            if gate is not None:
                gate.release()

    def _call(self, messages: list[dict], *, usage: Usage | None, max_tokens: int | None,
              temperature: float | None, schema: dict | None = None, name: str = "answer",
              want_json: bool | None = None) -> str:
        cfg = self.config
        want_json = schema is not None if want_json is None else want_json
        kwargs: dict[str, Any] = {
            "model": cfg.model,
            "messages": messages,
            "max_tokens": cfg.max_tokens if max_tokens is None else max_tokens,
            "temperature": cfg.temperature if temperature is None else temperature,
        }
        if cfg.seed is not None:
            kwargs["seed"] = cfg.seed
        form = (self._form or self._first_form) if want_json else "off"
        rf = _response_format(form, schema, name) if want_json else None
        if rf is not None:
            kwargs["response_format"] = rf
        if log.isEnabledFor(logging.DEBUG):
            log.debug("llm request model=%s messages=%s", cfg.model, _preview(messages))

        attempts = 1 + max(0, cfg.max_retries)
        attempt = retries = 0
        queued = waited = 0.0
        start = time.monotonic()
        deadline = getattr(self._turns, "deadline", None)  # (clock value, seconds) or None
        reason = ""
        while True:
            left = None if deadline is None else deadline[0] - self.clock()
            if left is not None and left <= _MIN_ATTEMPT_SECONDS:
                self._count(usage, Usage(queue_seconds=queued, model_seconds=waited))
                raise self._deadline_error(usage, deadline[1], attempt, retries, reason, start)
            attempt += 1
            try:
                response, q, w = self._send(kwargs, cfg.timeout if left is None else min(cfg.timeout, left), left)
                queued, waited = queued + q, waited + w
                break
            except _QueueTimeout as e:
                queued += e.seconds
                attempt -= 1
                reason = reason or f"waited {e.seconds:.1f} s for a free request slot"
                self._count(usage, Usage(queue_seconds=queued, model_seconds=waited))
                raise self._deadline_error(usage, deadline[1], attempt, retries, reason, start) from None
            except openai.APIStatusError as e:
                q, w = getattr(e, "_llm_times", (0.0, 0.0))
                queued, waited = queued + q, waited + w
                status = e.status_code
                if want_json and self._form_rejected(e, form):
                    # This endpoint does not take this form: the next one, at once (not a retry).
                    nxt = STRUCTURED_FORMS[STRUCTURED_FORMS.index(form) + 1]
                    log.info("llm server rejects response_format %s (HTTP %d); trying %s", form, status, nxt)
                    form = nxt
                    rf = _response_format(form, schema, name)
                    if rf is None:
                        kwargs.pop("response_format", None)
                    else:
                        kwargs["response_format"] = rf
                    attempt -= 1
                    continue
                retryable = status == _RETRYABLE_STATUS or status >= 500
                error: Exception = e
                reason = f"HTTP {status}: {_error_message(e)}"
            except openai.APIConnectionError as e:  # includes APITimeoutError
                q, w = getattr(e, "_llm_times", (0.0, 0.0))
                queued, waited = queued + q, waited + w
                status, retryable, error = None, True, e
                reason = "timeout" if isinstance(e, openai.APITimeoutError) else f"connection error: {e}"
            except openai.OpenAIError as e:
                q, w = getattr(e, "_llm_times", (0.0, 0.0))
                queued, waited = queued + q, waited + w
                status, retryable, error = None, False, e
                reason = f"{type(e).__name__}: {e}"
            left = None if deadline is None else deadline[0] - self.clock()
            out_of_time = left is not None and left <= _MIN_ATTEMPT_SECONDS
            if retryable and out_of_time:  # this attempt was cut short by the deadline, or used the last of it
                self._count(usage, Usage(queue_seconds=queued, model_seconds=waited))
                raise self._deadline_error(usage, deadline[1], attempt, retries, reason, start)
            if not retryable or attempt >= attempts:
                duration = time.monotonic() - start
                self._count(usage, Usage(failures=1, retries=retries, queue_seconds=queued, model_seconds=waited))
                log.warning("llm call failed model=%s duration=%.2fs attempts=%d retries=%d error=%s",
                            cfg.model, duration, attempt, retries, self._scrub(reason))
                raise LLMError(self._scrub(f"LLM call to {cfg.model} failed after {attempt} attempt"
                                           f"{'s' if attempt > 1 else ''}: {reason}"),
                               status_code=status, attempts=attempt) from None
            delay = self._delay(retries, error)
            if left is not None and left - delay <= _MIN_ATTEMPT_SECONDS:  # no retry starts after the deadline
                self._count(usage, Usage(queue_seconds=queued, model_seconds=waited))
                raise self._deadline_error(usage, deadline[1], attempt, retries, reason, start)
            retries += 1
            log.debug("llm attempt %d/%d failed (%s); retrying in %.2fs", attempt, attempts,
                      self._scrub(reason), delay)
            if delay > 0:
                self.sleep(delay)

        if want_json:
            self._settle(form)
        duration = time.monotonic() - start
        text, finish = "", None
        choices = getattr(response, "choices", None) or []
        if choices:
            text = choices[0].message.content or ""
            finish = choices[0].finish_reason
        delta = Usage(calls=1, retries=retries, queue_seconds=queued, model_seconds=waited,
                      truncated=int(finish == "length"))
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


class _QueueTimeout(Exception):
    """The deadline passed while waiting for a free request slot of the endpoint."""

    def __init__(self, seconds: float):
        super().__init__(f"waited {seconds:.2f} s for a request slot")
        self.seconds = seconds


_VALIDATORS: dict[str, Any] = {}


def _validator(schema: dict) -> Any:
    """A checked validator for `schema` (cached by its JSON text: an act's schema is built once and reused)."""
    key = json.dumps(schema, sort_keys=True)
    v = _VALIDATORS.get(key)
    if v is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        v = cls(schema)
        if len(_VALIDATORS) > 256:
            _VALIDATORS.clear()
        _VALIDATORS[key] = v
    return v


def answer_budget(schema: dict, chars_per_token: float = 2.0, slack: int = 24) -> int | None:
    """The most tokens an answer valid against `schema` can need (None when it is unbounded: a string without
    maxLength, an array without maxItems, an object open to more properties). Characters are counted for the
    compact JSON text and turned into tokens at `chars_per_token` (conservative: English runs at ~4), plus `slack`
    for whitespace."""
    chars = _max_chars(schema)
    if chars is None:
        return None
    return int(chars / chars_per_token + 0.999) + slack


def _max_chars(s: Any) -> int | None:
    if not isinstance(s, dict):
        return None
    if "const" in s:
        return len(json.dumps(s["const"]))
    if "enum" in s:
        return max((len(json.dumps(v)) for v in s["enum"]), default=0)
    for key in ("anyOf", "oneOf"):
        if key in s:
            sizes = [_max_chars({**{k: v for k, v in s.items() if k != key}, **sub}) for sub in s[key]]
            return None if any(x is None for x in sizes) else max(sizes, default=0)
    t = s.get("type")
    if isinstance(t, list):
        sizes = [_max_chars({**s, "type": x}) for x in t]
        return None if any(x is None for x in sizes) else max(sizes, default=0)
    if t == "string":
        n = s.get("maxLength")
        return None if n is None else int(n) + 2
    if t == "integer":
        lo, hi = s.get("minimum"), s.get("maximum")
        return max(len(str(lo)), len(str(hi))) if lo is not None and hi is not None else 12
    if t == "number":
        return 24
    if t == "boolean":
        return 5
    if t == "null":
        return 4
    if t == "array":
        n = s.get("maxItems")
        item = _max_chars(s.get("items", {})) if s.get("items") is not None else None
        if n is None or (item is None and n > 0):
            return None
        return 2 + int(n) * ((item or 0) + 1)
    if t == "object" or "properties" in s:
        if s.get("additionalProperties", True) is not False:
            return None
        total = 2
        for k, sub in (s.get("properties") or {}).items():
            size = _max_chars(sub)
            if size is None:
                return None
            total += len(json.dumps(k)) + 2 + size
        return total
    return None


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
        if isinstance(inner, dict) and inner.get("detail"):  # FastAPI's validation errors
            return str(inner["detail"])[:500]
    return str(getattr(error, "message", None) or error)[:500]
