"""A client for any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp), speaking its JSON over one
pool of keep-alive HTTP connections (:mod:`bots.llm.transport`; the ``openai`` package cost more CPU per request
than the games themselves once dozens were in flight).

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

Modules: ``config`` (LLMConfig), ``client`` (LLMClient), ``transport`` (HTTP), ``wire`` (the request and answer
JSON), ``answers`` (schemas, budgets, JSON extraction), ``gate`` (the per-endpoint limit), ``usage`` (Usage, errors).
"""
from __future__ import annotations
from .answers import _response_format, answer_budget, extract_json_object, server_schema
from .client import LLMClient
from .config import DEFAULT_BASE_URL, STRUCTURED_FORMS, LLMConfig
from .usage import LLMDeadlineError, LLMError, Usage

__all__ = ["LLMConfig", "LLMClient", "LLMError", "LLMDeadlineError", "Usage", "extract_json_object",
           "answer_budget", "DEFAULT_BASE_URL", "STRUCTURED_FORMS", "server_schema"]
