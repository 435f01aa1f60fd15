"""When a request to Slurk is worth trying again, and how long to wait before the next attempt."""
from __future__ import annotations

import random

from .rest import SlurkAPIError

BASE_DELAY = 0.25  # seconds before the first retry; doubles per failed attempt
MAX_DELAY = 15.0  # the back-off's cap


def is_transient(exc: SlurkAPIError) -> bool:
    """No answer, a timeout (408), too many requests (429) or a server error (5xx): worth trying again."""
    return exc.status == 0 or exc.status in (408, 429) or exc.status >= 500


def backoff(attempts: int, base: float = BASE_DELAY, cap: float = MAX_DELAY) -> float:
    """The wait before attempt `attempts + 1`: base * 2^(attempts-1), capped, with jitter (50-100 %)."""
    return min(cap, base * 2 ** max(0, attempts - 1)) * random.uniform(0.5, 1.0)
