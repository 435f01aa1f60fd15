"""The client: :class:`LLMClient` (chat, chat_json, retries, deadlines, structured forms, usage accounting)."""
from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import jsonschema

from .answers import (_estimate_tokens, _preview, _truncate, _validation_message, _with_json_instruction,
                      extract_json_object, response_format, schema_plan)
from .config import (DEFAULT_BASE_URL, DEFAULT_HOSTED_CONCURRENCY, DEFAULT_LOCAL_CONCURRENCY, PLACEHOLDER_KEY,
                     STRUCTURED_FORMS, LLMConfig)
from .gate import _gate_for
from .transport import HTTPTransport, StreamBroken, TransportError, TransportTimeout
from .usage import LLMDeadlineError, LLMError, Usage
from .wire import BadAnswer, StatusError, StreamInterrupted, encode, read_completion

log = logging.getLogger("bots.llm")

# No attempt starts with less time than this left before the deadline (it could not get an answer anyway).
_MIN_ATTEMPT_SECONDS = 0.05
# A temperature or max_tokens that sends none: the endpoint's default (sampling option temperature / max_tokens:
# "default"; e.g. a paper that called gpt-3.5-turbo without either).
API_DEFAULT = "default"
_RETRYABLE_STATUS = 429


class LLMClient:
    """Chat with one model; thread-safe (one pool of HTTP connections, lifetime usage behind a lock).

    ``transport``: what sends a request (default :class:`~bots.llm.transport.HTTPTransport` to the config's
    endpoint); a test may pass any object with ``post(payload: bytes, timeout: float) -> Reply`` and ``close()``."""

    def __init__(self, config: LLMConfig, transport: Any = None, *, sleep: Callable[[float], None] = time.sleep,
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
        self._owns_transport = transport is None
        if transport is None:
            if not config.api_key and not config.base_url:
                raise ValueError("no API key configured for the OpenAI endpoint")
            transport = HTTPTransport(config.base_url or DEFAULT_BASE_URL, config.api_key or PLACEHOLDER_KEY)
        self._transport = transport
        # Streamed answers can be abandoned (the connection closed) when their time is up: the server stops too.
        self._stream = bool(config.stream and getattr(transport, "streams", False))
        limit = config.concurrency
        if limit is None:
            limit = DEFAULT_LOCAL_CONCURRENCY if config.base_url else DEFAULT_HOSTED_CONCURRENCY
        self.concurrency = int(limit)
        self._gate = _gate_for((config.base_url or DEFAULT_BASE_URL).rstrip("/"), self.concurrency)

    def close(self) -> None:
        """Close the HTTP connections of the transport built here (an injected one is left to its owner)."""
        if self._owns_transport:
            self._transport.close()

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
             temperature: float | None = None, top_p: float | None = None, seed: int | None = None,
             stop: str | list[str] | None = None, deadline: float | None = None) -> str:
        """Send ``messages``; return the answer's text (free text: no response_format). Raises LLMError after the
        last retry, LLMDeadlineError when the deadline passes first. ``temperature`` (API_DEFAULT: none sent, the
        endpoint's default), ``top_p``, ``max_tokens``,
        ``seed`` and ``stop`` go on the wire for this call (None: the config's, or not sent); ``deadline``: seconds
        for this call, replacing the config's and any enclosing turn's (<= 0: none)."""
        sampling = dict(max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed, stop=stop)
        started = time.perf_counter()
        try:
            with self._call_deadline(deadline):
                return self._call(messages, usage=usage, **sampling)
        finally:
            self._count(usage, Usage(seconds=time.perf_counter() - started))

    def chat_json(self, messages: list[dict], schema: dict, *, usage: Usage | None = None,
                  max_tokens: int | None = None, temperature: float | None = None, name: str | None = None,
                  top_p: float | None = None, seed: int | None = None, stop: str | list[str] | None = None,
                  deadline: float | None = None) -> dict:
        """Ask for a JSON object valid against ``schema``; one repair round on a bad answer; else LLMError.

        The schema goes out as a structured-output request in the form the endpoint honours (see the module
        docstring) and validates the answer. ``max_tokens`` defaults to what the schema can need at most
        (:func:`answer_budget`), capped by the config's. When no message mentions JSON, an instruction quoting the
        schema is added to the system message (or to the last user message when there is no leading system
        message). The answer and the repair round share one deadline (``deadline`` as in :meth:`chat`). ``name``
        names the schema for ``json_schema`` requests (default: the schema's ``title``, else "answer").
        """
        name = name or str(schema.get("title") or "answer")
        sampling = dict(max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed, stop=stop)
        started = time.perf_counter()
        try:
            with self._call_deadline(deadline):
                return self._chat_json(messages, schema, usage=usage, name=name, **sampling)
        finally:
            self._count(usage, Usage(seconds=time.perf_counter() - started))

    @contextmanager
    def _call_deadline(self, seconds: float | None) -> Iterator[None]:
        """The deadline of one public call: the enclosing turn's (or the config's) when ``seconds`` is None, else
        ``seconds`` from now in their place (<= 0: none)."""
        if seconds is None:
            with self.turn():
                yield
            return
        outer = getattr(self._turns, "deadline", None)
        # the third element: this call's own deadline, which also bounds the wait for each byte (not llm.timeout)
        self._turns.deadline = (self.clock() + seconds, seconds, True) if seconds > 0 else None
        try:
            yield
        finally:
            self._turns.deadline = outer

    def _chat_json(self, messages: list[dict], schema: dict, *, usage: Usage | None, max_tokens: int | None,
                   name: str, **sampling: Any) -> dict:
        plan = schema_plan(schema)  # a bad schema is a programming error: SchemaError propagates
        messages = _with_json_instruction(messages, plan.note)
        if max_tokens is None:
            max_tokens = self.config.max_tokens if plan.budget is None else min(self.config.max_tokens, plan.budget)

        def ask(conversation: list[dict]) -> tuple[str, dict | None, str | None]:
            answer = self._call(conversation, usage=usage, max_tokens=max_tokens, schema=plan.sent, name=name,
                                **sampling)
            return (answer, *self._check(answer, plan.validator))

        answer, obj, problem = ask(messages)
        if problem is None:
            return obj
        self._count(usage, Usage(invalid=1, repairs=1))
        log.info("llm answer rejected (%s); asking for a repair", problem)
        _, obj, problem = ask(messages + [
            {"role": "assistant", "content": answer},
            {"role": "user", "content": f"Your answer is not valid: {problem}. "
                                        "Reply with the corrected JSON object only, no other text."},
        ])
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
        if isinstance(error, StatusError) and error.status_code == 429:
            try:
                delay = min(max(delay, float(error.headers.get("retry-after", 0))), cfg.backoff_cap)
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

    def _settle(self, form: str) -> None:
        with self._lock:
            if self._form is None:
                self._form = form
                log.info("llm structured answers for %s: %s", self.config.model,
                         "prompt-only JSON" if form == "off" else form)

    def _stop_streaming(self, why: str) -> None:
        with self._lock:
            if not self._stream:
                return
            self._stream = False
        log.warning("llm server %s breaks streamed answers off (%s): answers come in one piece from now on, and "
                    "one abandoned at its deadline is no longer cancelled (llama-cpp-python: start it with "
                    "--interrupt_requests False to keep streaming)", self.config.base_url, why)

    def _send(self, payload: bytes, timeout: float, left: float | None, stream: bool = False
              ) -> tuple[Any, float, float]:
        """One HTTP attempt through the endpoint's gate: (the Reply or the TransportError, seconds queued, seconds
        waiting for the answer)."""
        gate = self._gate
        queued = 0.0
        if gate is not None:
            t0 = time.monotonic()
            if not gate.acquire(left):
                raise _QueueTimeout(time.monotonic() - t0)
            queued = time.monotonic() - t0
            if left is not None:
                left = max(_MIN_ATTEMPT_SECONDS, left - queued)
                timeout = min(timeout, left)
        t1 = time.monotonic()
        try:
            if stream:  # `timeout` without a byte, and the answer in full before the deadline
                return self._transport.post(payload, timeout, stream=True, total=left), queued, time.monotonic() - t1
            return self._transport.post(payload, timeout), queued, time.monotonic() - t1
        except TransportError as e:
            return e, queued, time.monotonic() - t1
        finally:
            if gate is not None:
                gate.release()

    def _call(self, messages: list[dict], *, usage: Usage | None, max_tokens: int | None,
              temperature: float | None, schema: dict | None = None, name: str = "answer",
              want_json: bool | None = None, top_p: float | None = None, seed: int | None = None,
              stop: str | list[str] | None = None) -> str:
        """One chat request with its retries; `schema` is the schema as the server gets it (server_schema)."""
        cfg = self.config
        want_json = schema is not None if want_json is None else want_json
        request: dict[str, Any] = {
            "model": cfg.model,
            "messages": messages,
            "max_tokens": cfg.max_tokens if max_tokens is None else max_tokens,
            "temperature": cfg.temperature if temperature is None else temperature,
        }
        for key in ("temperature", "max_tokens"):  # API_DEFAULT: the endpoint's own default (a paper sent none)
            if request[key] == API_DEFAULT:
                del request[key]
        seed = cfg.seed if seed is None else seed
        for key, value in (("top_p", top_p), ("seed", seed), ("stop", stop)):
            if value is not None:
                request[key] = value
        if self._stream:
            request["stream"] = True
            request["stream_options"] = {"include_usage": True}  # the token counts in a last chunk
        form = (self._form or self._first_form) if want_json else "off"
        rf = response_format(form, schema, name) if want_json else None
        if rf is not None:
            request["response_format"] = rf
        payload = encode(request)
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
            status: int | None = None
            try:
                reply, q, w = self._send(payload, _attempt_timeout(cfg.timeout, deadline, left), left,
                                         stream=bool(request.get("stream")))
                queued, waited = queued + q, waited + w
                if isinstance(reply, StreamBroken):  # cut off mid-way: like a stream broken off, no answer
                    raise StreamInterrupted(str(reply))
                if isinstance(reply, TransportError):
                    raise reply
                answer = read_completion(reply)
                break
            except _QueueTimeout as e:
                queued += e.seconds
                attempt -= 1
                reason = reason or f"waited {e.seconds:.1f} s for a free request slot"
                self._count(usage, Usage(queue_seconds=queued, model_seconds=waited))
                raise self._deadline_error(usage, deadline[1], attempt, retries, reason, start) from None
            except StreamInterrupted as e:
                # The server breaks streams off: this endpoint gets its answers in one piece from now on, at once.
                self._stop_streaming(str(e))
                request.pop("stream", None)
                request.pop("stream_options", None)
                payload = encode(request)
                attempt -= 1
                continue
            except StatusError as e:
                status = e.status_code
                # While the form is being found out, an error about it means: the next form, at once (not a
                # retry). Once known, errors are errors.
                if want_json and self._form is None and form != "off" and e.rejects_format():
                    nxt = STRUCTURED_FORMS[STRUCTURED_FORMS.index(form) + 1]
                    log.info("llm server rejects response_format %s (HTTP %d); trying %s", form, status, nxt)
                    form = nxt
                    rf = response_format(form, schema, name)
                    if rf is None:
                        request.pop("response_format", None)
                    else:
                        request["response_format"] = rf
                    payload = encode(request)
                    attempt -= 1
                    continue
                retryable = status == _RETRYABLE_STATUS or status >= 500
                error: Exception = e
                reason = f"HTTP {status}: {e.message}"
            except TransportError as e:
                retryable, error = True, e
                reason = "timeout" if isinstance(e, TransportTimeout) else f"connection error: {e}"
            except BadAnswer as e:
                retryable, error = False, e
                reason = f"unreadable answer: {e}"
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
        text, finish = answer.text, answer.finish
        delta = Usage(calls=1, retries=retries, queue_seconds=queued, model_seconds=waited,
                      truncated=int(finish == "length"))
        if answer.prompt_tokens is not None:
            delta.prompt_tokens, delta.completion_tokens = answer.prompt_tokens, answer.completion_tokens
        else:
            delta.prompt_tokens = _estimate_tokens(messages)
            # a stream's pieces (servers of the llama.cpp family send one token a piece), else a quarter of the text
            delta.completion_tokens = answer.completion_tokens or (max(1, len(text) // 4) if text else 0)
            delta.estimated = 1
        self._count(usage, delta)
        log.info("llm call model=%s duration=%.2fs prompt_tokens=%d completion_tokens=%d%s retries=%d finish=%s",
                 cfg.model, duration, delta.prompt_tokens, delta.completion_tokens,
                 " (estimated)" if delta.estimated else "", retries, finish)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("llm answer: %s", _truncate(text))
        return text


def _attempt_timeout(timeout: float, deadline: tuple | None, left: float | None) -> float:
    """How long an attempt waits for its first byte (and, streamed, for each piece): a call's own deadline
    (`deadline=` of chat / chat_json: a paper's long chain-of-thought call on a slow server or a reasoning model) lets
    it wait what remains of that deadline; otherwise `llm.timeout`, capped by the turn's deadline."""
    if left is None:
        return timeout
    return left if len(deadline) > 2 else min(timeout, left)


class _QueueTimeout(Exception):
    """The deadline passed while waiting for a free request slot of the endpoint."""

    def __init__(self, seconds: float):
        super().__init__(f"waited {seconds:.2f} s for a request slot")
        self.seconds = seconds
