"""What to call and how: :class:`LLMConfig` (file config overridden by the environment)."""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, fields
from typing import Any, Mapping

log = logging.getLogger("bots.llm")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama, llama.cpp) accept any key
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
    timeout: float = 30.0                # seconds, per HTTP attempt (streamed: without a byte); capped by the deadline;
                                         # a call's own deadline (chat(deadline=...)) replaces it
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
    stream: bool = True                  # stream answers, so one abandoned at its deadline stops the server's work

    # file-config key -> converter; the env variables are LLM_<KEY upper> (plus OPENAI_* aliases, see from_env)
    _CONVERTERS = {"model": str, "base_url": str, "api_key": str, "timeout": float, "deadline": float,
                   "max_retries": int, "backoff": float, "backoff_cap": float, "temperature": float,
                   "max_tokens": int, "seed": int, "json_mode": "bool", "structured": "structured",
                   "concurrency": int, "price_prompt": float, "price_completion": float,
                   "stream": "bool"}

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
        ``LLM_MAX_TOKENS``, ``LLM_SEED``, ``LLM_JSON_MODE``, ``LLM_STRUCTURED``, ``LLM_CONCURRENCY``, ``LLM_STREAM``). The file
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
