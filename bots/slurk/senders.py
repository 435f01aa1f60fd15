"""Who really sent a person's input: seat keys, Slurk's log, and the envelope the task page puts around commands.

Slurk lets any member of a room send `text` or `message_command` with `impersonate: <another member>`; the event
then names the impersonated user, while Slurk's log row keeps the real sender (slurk-protocol.md §2.3.6). So the
event's `user` is a claim. Two ways to check it:

- **Seat key** (fast, no request): each seat gets a random key, sent only to that seat's page inside its private
  view (`core.key`). The page wraps every command in an envelope `{"key": K, "n": <nonce>, ...}`; a typed command
  is `{"key": K, "n": .., "typed": "agree"}`. A matching key proves the sender; the nonce makes each envelope count
  once and names it in the `seen` table, so a restart finds what was missed.
- **Slurk's log** (`SenderCheck`): for a line without a valid key (typed chat, a client that is not the page), the
  oldest log row of that event in the room with the same payload that no earlier input used names the real sender.
  Slurk writes the row right after emitting the event, so a row not there yet is waited for, briefly.
"""
from __future__ import annotations

import hmac
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .rest import SlurkAPIError

log = logging.getLogger(__name__)

ENVELOPE_KEYS = ("key", "n", "typed")
MAX_NONCE_CHARS = 40

# Slurk's log event names for the two socket events people send.
LOG_EVENT = {"command": "command", "text": "text_message"}


def new_seat_key() -> str:
    return secrets.token_urlsafe(18)


@dataclass
class Envelope:
    """A command as the page sends it: the payload (str for a typed command, dict for a page action), the key and
    nonce it carried (None when it carried none)."""
    payload: Any
    key: Optional[str] = None
    nonce: Optional[str] = None


def open_envelope(command: Any) -> Envelope:
    if not isinstance(command, dict) or "key" not in command:
        return Envelope(command)
    key, nonce = command.get("key"), command.get("n")
    key = key if isinstance(key, str) else None
    nonce = str(nonce)[:MAX_NONCE_CHARS] if isinstance(nonce, (str, int)) and not isinstance(nonce, bool) else None
    if "typed" in command:
        payload = command.get("typed")
    else:
        payload = {k: v for k, v in command.items() if k not in ENVELOPE_KEYS}
    return Envelope(payload, key, nonce)


def key_matches(given: Optional[str], expected: Optional[str]) -> bool:
    return bool(given) and bool(expected) and hmac.compare_digest(str(given), str(expected))


def log_payload(kind: str, row: dict) -> Any:
    data = row.get("data") or {}
    return data.get("command") if kind == "command" else data.get("message")


@dataclass
class Verdict:
    """`sender`: the user Slurk recorded (None if no row was found in time); `log_id`: that row."""
    sender: Optional[int]
    log_id: Optional[int]

    def confirms(self, claimed: Optional[int]) -> bool:
        return self.sender is not None and self.sender == claimed


class SenderCheck:
    """Matches a room's incoming events to Slurk's log rows. One per room; used from the room's worker only."""

    def __init__(self, rest, room_id: int, bot_user: int, used: Optional[set] = None,
                 sleep: Callable[[float], None] = time.sleep, wait: float = 3.0):
        self.rest = rest
        self.room_id = int(room_id)
        self.bot_user = int(bot_user)
        self.used: set = used if used is not None else set()  # log row ids already matched to an event
        self.sleep = sleep
        self.wait = wait

    def verify(self, kind: str, claimed: Optional[int], payload: Any) -> Verdict:
        """Find the row of this event: among the claimed user's rows first (a short list), then among everybody's
        (a forged event's row is there, under its real sender). Only when no row exists yet is it waited for."""
        event = LOG_EVENT[kind]
        delay, deadline = 0.03, time.monotonic() + self.wait
        while True:
            row = self._oldest(event, payload, claimed) or self._oldest(event, payload, None)
            if row is not None:
                return self._use(row)
            if time.monotonic() >= deadline:
                return Verdict(None, None)
            self.sleep(delay)
            delay = min(delay * 2, 0.5)

    def _use(self, row: dict) -> Verdict:
        self.used.add(int(row["id"]))
        sender = row.get("user_id")
        return Verdict(None if sender is None else int(sender), int(row["id"]))

    def _oldest(self, event: str, payload: Any, user: Optional[int]) -> Optional[dict]:
        try:
            rows = self.rest.get_logs(room_id=self.room_id, event=event, user_id=user)
        except SlurkAPIError as exc:
            log.warning("room %s: cannot read Slurk's log to check a sender: %s", self.room_id, exc)
            return None
        kind = "command" if event == "command" else "text"
        for row in rows:
            if row.get("id") is None or int(row["id"]) in self.used:
                continue
            if row.get("receiver_id") not in (None, self.bot_user):
                continue
            if log_payload(kind, row) == payload:
                return row
        return None
