"""People's inputs as a room receives them: size limits, who really sent it, the page's envelope and its
acknowledgement, and catching up with what Slurk accepted while the bot could not hear (`PersonInputs`, one per
room, owned by the room's worker).

Every person input is checked before anything is stored: its size first, then its sender (a seat key on the page's
envelope, else Slurk's log, see `senders.py`). Each one is stored with a reference to the Slurk event it came from
(`n:<nonce>` or `log:<id>`), also when it was refused, so that `catch_up` handles exactly what was missed, once.
"""
from __future__ import annotations

import json
import logging
import os
import time
from typing import TYPE_CHECKING, Any, Callable, Optional

from tasks.core import match as match_limits
from tasks.core.protocol import Action, Chat, Command, Input, LogEvent, parse_command_text

from .people import RoomPeople
from .rest import SlurkAPIError
from .senders import Envelope, SenderCheck, key_matches, log_payload, open_envelope
from .socket import user_id_of

if TYPE_CHECKING:  # pragma: no cover
    from .delivery import Delivery

log = logging.getLogger(__name__)

RELAY_ONLY_TEXT = ("That message was not delivered: in this game messages go through the task page's chat box. "
                   "Please send it again from there.")
# Sizes are checked before anything is stored: a longer line is refused with a message and logged as a short marker.
# The same limits as the match's own (which would refuse them later, after storing); a command may carry the page's
# envelope (key and nonce) on top.
MAX_CHAT_CHARS = match_limits.MAX_CHAT_CHARS
MAX_COMMAND_CHARS = match_limits.MAX_ACTION_BYTES + 200
TOO_LONG_TEXT = ("That was too large ({size:,} characters; the limit is {limit:,}), so it was not sent. "
                 "Please shorten it.")
FORGED_TEXT = "That was sent in someone else's name, so it was ignored."
# A person's inputs per second, with a burst: an honest player types and clicks far slower, and a seat that floods the
# bot (a custom client) must not slow every other room. Inputs over the rate are dropped before any work, the sender
# is told (at most once per RATE_NOTICE_SECONDS) and one `input_refused` record per notice counts them.
# BOT_INPUT_RATE="per_second,burst" changes them (the test suite's scripted people act far faster than people).
RATE_PER_SECOND = 5.0
RATE_BURST = 40
RATE_NOTICE_SECONDS = 5.0


def rate_settings() -> tuple[float, float]:
    """(inputs per second, burst) from BOT_INPUT_RATE, else the defaults; a bad value keeps the defaults."""
    raw = os.environ.get("BOT_INPUT_RATE", "")
    try:
        per_second, burst = (float(x) for x in raw.split(","))
        if per_second > 0 and burst >= 1:
            return per_second, burst
    except ValueError:
        pass
    return RATE_PER_SECOND, float(RATE_BURST)
TOO_FAST_TEXT = "You are sending faster than the game can take ({count} not handled). Please slow down."
CAUGHT_UP_TEXT = ("The game master lost its connection for a moment. What you sent meanwhile has now been handled "
                  "({count}).")


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _relayed_chat(seat: str, command: dict):
    """A page's relayed chat line `{"chat": text, "to": [seat, ...]?}` as a Chat input, or a complaint (str)."""
    text, to = command.get("chat"), command.get("to")
    if not isinstance(text, str) or not text.strip():
        return "That message was empty or not text, so it was not sent."
    if to is not None and (not isinstance(to, list) or not all(isinstance(s, str) for s in to) or len(to) > 16):
        return "That message had an unreadable list of addressees, so it was not sent."
    return Chat(seat, text, time.time(), to=None if to is None else tuple(to))


class PersonInputs:
    """One room's intake of people's text and commands (see the module's docstring). It calls its room back only
    through the callables it is given, which must not keep the room alive (`delivery.weakly`):
    - `feed(input, t_recv, ref)`: hand an accepted input to the match (`ref`: the Slurk event it came from);
    - `views()`: every seat's view now; `attached()`: the room's game is playing."""

    def __init__(self, bot, room_id: int, people: RoomPeople, delivery: "Delivery", *,
                 feed: Callable[[Input, Optional[float], Optional[str]], None], views: Callable[[], list],
                 attached: Callable[[], bool]):
        self.bot = bot
        self.room_id = room_id
        self.people = people
        self.delivery = delivery
        self.feed, self.views, self.attached = feed, views, attached
        self.seen: set[str] = set()  # refs (`n:<nonce>`, `log:<id>`) of person events already dealt with
        self._senders: Optional[SenderCheck] = None
        self._rate: dict[str, tuple] = {}  # seat -> (tokens, last, dropped, told): `_over_rate`'s bucket

    def _feed(self, inp: Input, t_recv: Optional[float], ref: Optional[str]) -> None:
        if ref is not None:
            self.seen.add(ref)
        self.feed(inp, t_recv, ref)

    def on_text(self, data: dict, t_recv: float) -> None:
        uid = user_id_of(data.get("user"))
        if self.people.seat_of(uid) is None or data.get("private") or data.get("broadcast"):
            return
        if self._over_rate(self.people.seat_of(uid)):
            return
        message = data.get("message")
        if not isinstance(message, str):
            message = "" if message is None else str(message)
        if self.delivery.echoes.get((uid, message)):  # the bot's own showing of an accepted line in this person's name
            self.delivery.echoes[(uid, message)] -= 1
            return
        if self.bot.chat == "relay":
            # Relayed rooms take chat through the page (privately to the bot); a public line skipped the rules.
            self.delivery.to_seat(self.people.seat_of(uid), ("msg", RELAY_ONLY_TEXT, False))
            return
        if self._too_long("chat", message, MAX_CHAT_CHARS, self.people.seat_of(uid)):
            return
        # Typed chat carries no seat key: Slurk's log says who sent it.
        seat, ref = self._verified("text", uid, data.get("message"))
        if seat is not None:
            self._feed(Chat(seat, message, time.time()), t_recv, ref)

    def on_command(self, data: dict, t_recv: float) -> None:
        uid = user_id_of(data.get("user"))
        claimed = self.people.seat_of(uid)
        if claimed is None or data.get("broadcast"):
            return
        if self._over_rate(claimed):
            return
        raw = data.get("command")
        size = len(raw) if isinstance(raw, str) else len(_json_text(raw))
        if self._too_long("command", raw, MAX_COMMAND_CHARS, claimed, size=size):
            return
        env = open_envelope(raw)
        if env.key is not None and env.nonce and key_matches(env.key, self.people.key_of(claimed)):
            seat, ref = claimed, f"n:{env.nonce}"
            if ref in self.seen:
                return  # the same envelope again (a replay, or already handled after a reconnect)
        else:
            seat, ref = self._verified("command", uid, raw)
            if seat is None:
                return
        self._handle_envelope(seat, env, ref, t_recv)

    def _handle_envelope(self, seat: str, env: Envelope, ref: Optional[str], t_recv: Optional[float]) -> None:
        command = env.payload
        if isinstance(command, str):
            name, args = parse_command_text(command)
            inp: Input = Command(seat, name, args, time.time())
        elif isinstance(command, dict) and "chat" in command and self.bot.chat == "relay":
            text = command.get("chat")
            if isinstance(text, str) and self._too_long("chat", text, MAX_CHAT_CHARS, seat):
                self._set_aside(ref)  # a relayed line over the limit is never passed on, nor stored
                self._acknowledge(seat, env)
                return
            chat = _relayed_chat(seat, command)
            if isinstance(chat, str):
                self._set_aside(ref)
                self.delivery.to_seat(seat, ("msg", chat, False))
                self._acknowledge(seat, env)
                return
            inp = chat
        else:
            inp = Action(seat, command, time.time())
        if env.nonce is not None:
            self.people.acks[seat] = env.nonce  # the views this input produces carry the acknowledgement
        self._feed(inp, t_recv, ref)
        self._acknowledge(seat, env)

    def _acknowledge(self, seat: str, env: Envelope) -> None:
        """The page shows a move as sent only once its view carries the move's nonce (`core.ack`): an input that
        changed nothing on this seat's page (refused, or a chat line) still gets its view re-sent with the ack."""
        if env.nonce is None or not self.attached() or not self.people.is_person(seat):
            return
        self.people.acks[seat] = env.nonce
        if seat not in self.delivery.viewed:
            self.delivery.deliver([v for v in self.views() if v.seat == seat])

    def _over_rate(self, seat: str, now: Optional[float] = None) -> bool:
        """True when `seat` sent more than RATE_BURST inputs beyond RATE_PER_SECOND (a token bucket per seat)."""
        now = time.monotonic() if now is None else now
        per_second, burst = rate_settings()
        buckets = self._rate
        tokens, last, dropped, told = buckets.get(seat, (burst, now, 0, 0.0))
        tokens = min(burst, tokens + (now - last) * per_second)
        if tokens >= 1.0:
            buckets[seat] = (tokens - 1.0, now, dropped, told)
            return False
        dropped += 1
        if now - told >= RATE_NOTICE_SECONDS:
            self.delivery.deliver([LogEvent("input_refused", {"reason": "rate", "seat": seat, "dropped": dropped})])
            self.delivery.to_seat(seat, ("msg", TOO_FAST_TEXT.format(count=dropped), False))
            told, dropped = now, 0
        buckets[seat] = (tokens, now, dropped, told)
        return True

    # --- who sent it, and how big it is -------------------------------------------------------------------------
    def _checker(self) -> SenderCheck:
        if self._senders is None:
            used = {int(r[4:]) for r in self.seen if r.startswith("log:")}
            self._senders = SenderCheck(self.bot.rest, self.room_id, self.bot.user_id, used=used)
        return self._senders

    def _verified(self, kind: str, uid: Optional[int], raw: Any) -> tuple[Optional[str], Optional[str]]:
        """(seat, ref) when Slurk's log confirms that `uid` sent this; otherwise the real sender is told (when
        known), the attempt is logged, and (None, None) comes back."""
        verdict = self._checker().verify(kind, uid, raw)
        ref = None if verdict.log_id is None else f"log:{verdict.log_id}"
        if verdict.confirms(uid):
            return self.people.seat_of(uid), ref
        self._set_aside(ref)
        claimed = self.people.seat_of(uid)
        real = self.people.seat_of(verdict.sender) if verdict.sender is not None else None
        log.warning("room %s: a %s in the name of user %s (seat %s) came from user %s; ignored", self.room_id,
                    kind, uid, claimed, verdict.sender)
        self.delivery.deliver([LogEvent("input_refused", {
            "reason": "impersonation" if verdict.sender is not None else "sender_unknown", "kind": kind,
            "claimed_seat": claimed, "sender_seat": real, "sender_user": verdict.sender, "log_id": verdict.log_id})])
        if real is not None:
            self.delivery.to_seat(real, ("msg", FORGED_TEXT, False))
        return None, None

    def _too_long(self, kind: str, value: Any, limit: int, seat: Optional[str], size: Optional[int] = None) -> bool:
        size = len(value) if size is None else size
        if size <= limit:
            return False
        self.delivery.deliver([LogEvent("input_refused", {"reason": "too_long", "kind": kind, "seat": seat,
                                                          "chars": size, "limit": limit})])
        if seat is not None:
            self.delivery.to_seat(seat, ("msg", TOO_LONG_TEXT.format(size=size, limit=limit), False))
        return True

    def _set_aside(self, ref: Optional[str]) -> None:
        """An event dealt with without an input: remembered, so a catch-up does not handle it again."""
        if ref is not None and ref not in self.seen:
            self.seen.add(ref)
            self.bot.store.add_seen(self.room_id, ref)

    # --- what Slurk accepted while we were away -----------------------------------------------------------------
    def catch_up(self, floor: Optional[int]) -> None:
        """After a restart or a lost connection: handle, in order, the people's commands and chat lines that Slurk
        accepted and logged while the bot could not hear them (`floor`: the room's newest log row before the game).
        The log's `user_id` is the real sender; what was handled before is known by its ref (`seen`)."""
        if floor is None or not self.attached():
            return
        try:
            rows = [*self.bot.rest.get_logs(room_id=self.room_id, event="command"),
                    *([] if self.bot.chat == "relay" else
                      self.bot.rest.get_logs(room_id=self.room_id, event="text_message"))]
        except SlurkAPIError as exc:
            log.warning("room %s: cannot read Slurk's log to catch up: %s", self.room_id, exc)
            return
        checker = self._checker()
        counts: dict[str, int] = {}
        for row in sorted(rows, key=lambda r: int(r.get("id") or 0)):
            if not self.attached():
                break
            log_id = int(row.get("id") or 0)
            seat = self.people.seat_of(row.get("user_id"))
            if (log_id <= floor or seat is None or log_id in checker.used or f"log:{log_id}" in self.seen
                    or row.get("receiver_id") not in (None, self.bot.user_id)):
                continue
            kind = "command" if row.get("event") == "command" else "text"
            raw = log_payload(kind, row)
            checker.used.add(log_id)
            if kind == "text":
                if row.get("receiver_id") is not None or not isinstance(raw, str) or len(raw) > MAX_CHAT_CHARS:
                    continue
                self._feed(Chat(seat, raw, time.time()), None, f"log:{log_id}")
            else:
                env = open_envelope(raw)
                if len(raw if isinstance(raw, str) else _json_text(raw)) > MAX_COMMAND_CHARS:
                    continue
                if env.nonce is not None:
                    if f"n:{env.nonce}" in self.seen:
                        continue
                    ref = f"n:{env.nonce}"
                else:
                    ref = f"log:{log_id}"
                self._handle_envelope(seat, env, ref, None)
            counts[seat] = counts.get(seat, 0) + 1
        for seat, n in counts.items():
            log.info("room %s: caught up with %d input(s) of seat %s sent while the bot was away", self.room_id, n,
                     seat)
            self.delivery.to_seat(seat, ("msg", CAUGHT_UP_TEXT.format(
                count="1 message or move" if n == 1 else f"{n} messages or moves"), False))
