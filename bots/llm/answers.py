"""JSON answers: the schema sent to the server, the instruction in the prompt, the token budget of an answer, and
reading the first JSON object out of a model's text."""
from __future__ import annotations

import json
import re
import threading
from typing import Any, NamedTuple

import jsonschema

_DEBUG_PROMPT_CHARS = 300

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
    return response_format(form, None if schema is None else server_schema(schema), name)


def response_format(form: str, sent: dict | None, name: str) -> dict | None:
    """The request's response_format for a structured form; `sent`: the schema as the server gets it."""
    if form == "json_schema" and sent is not None:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": sent, "strict": False}}
    if form == "json_object_schema" and sent is not None:
        return {"type": "json_object", "schema": sent}
    if form in ("json_schema", "json_object_schema", "json_object"):
        return {"type": "json_object"}
    return None


class SchemaPlan(NamedTuple):
    """What the client derives from an act's schema, once per schema (the same schema comes with every act)."""
    validator: Any           # checked jsonschema validator of the answer
    budget: int | None       # answer_budget(schema)
    sent: dict               # server_schema(schema): what goes into response_format
    note: str                # the prompt's instruction quoting the schema (when no message mentions JSON)


_PLANS: dict[str, SchemaPlan] = {}
# The same schema object comes back with every act of a brain: found by identity first (the entry holds the object,
# so its id cannot be reused while cached), by its JSON text otherwise. A schema is not changed after its first use.
_BY_ID: dict[int, tuple[dict, SchemaPlan]] = {}
_PLANS_LOCK = threading.Lock()


def schema_plan(schema: dict) -> SchemaPlan:
    """The plan for `schema`, computed once (a bad schema raises jsonschema's SchemaError)."""
    hit = _BY_ID.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    key = json.dumps(schema, sort_keys=True)
    with _PLANS_LOCK:  # games starting together ask for the same schema at once: one of them computes it
        plan = _PLANS.get(key)
        if plan is None:
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            note = ("Reply with a single JSON object only, no other text, valid against this JSON Schema: "
                    + json.dumps(schema, separators=(",", ":")))
            plan = SchemaPlan(cls(schema), answer_budget(schema), server_schema(schema), note)
            if len(_PLANS) > 256:
                _PLANS.clear()
            _PLANS[key] = plan
        if len(_BY_ID) > 256:
            _BY_ID.clear()
        _BY_ID[id(schema)] = (schema, plan)
    return plan


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


def _with_json_instruction(messages: list[dict], note: str) -> list[dict]:
    """Make sure the conversation mentions JSON (OpenAI's JSON mode requires it) and carries the schema (`note`)."""
    if any("json" in _content_text(m.get("content")).lower() for m in messages):
        return list(messages)
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
