"""Executing a match's effects as Slurk calls, for one room (turnaround metrics: `metrics.py`).

Message -> socket `text` (with `receiver_id` when private), ChatShown of an agent seat -> `text` prefixed with the
seat's name, or, when the seat is bound to an agent user, `text` with `impersonate: <agent user>` (shown as that
user, no prefix), View -> `PATCH /rooms/{r}/text/{state_element}` (JSON, per seat; for a page in two parts the seat's
own part when it changed, and the shared part to `shared_element`, once for the room), SetText -> `PATCH .../text/...`,
LogEvent -> `POST /logs`, addressed to the bot's own user unless it is a seat's (e.g. its completion code): Slurk
lets every member fetch the room's log rows that have no receiver, so the record (game_start with the instance,
every game_input) must have one. Chat in a relayed room (`Game.chat == "relay"`): people's lines reach the bot
privately and each accepted line is shown, as its speaker, only to the people it is addressed to (and the speaker).
Logs and per-user page updates go out through shared thread pools that keep each room's order (`shipping.py`), so a
slow server does not hold up the room's next event, nor one room another; chat messages through the room's
`Emitter` (`emitter.py`). Anything addressed to one person who is not online (no Slurk user yet, a 422 from the UI
endpoints, or "not logged in" from the socket) is kept, in order, and delivered after that person's `status: join`;
of several kept views only the newest is sent.
"""
from __future__ import annotations

import collections
import html as _html
import json
import logging
import weakref
from typing import Callable, Optional

from tasks.core.protocol import (
    CancelTimer, ChatShown, Effect, GameOver, LogEvent, Message, SetText, SetTimer, View,
)

from .emitter import Emitter, Outgoing
from .metrics import Turn, mark, mark_done
from .pageparts import PageParts
from .people import RoomPeople
from .rest import SlurkAPIError

log = logging.getLogger(__name__)

CLOSED_PLACEHOLDER = "This game has ended. Thank you for taking part!"
PAGE_HOLD = 0.1  # seconds an input's page updates wait at most for its reply to be shown (Delivery.deliver)


def as_html(text: str, is_html: bool) -> str:
    """Every line the bot shows goes out with `html: true`, plain text escaped: Slurk refuses `html` from anyone
    without `send_html_message`, which participants never get, so the flag marks a line as the bot's own (or relayed
    by it). The task page shows a line in the game master's name only with that mark (plugins/slurk-task.js)."""
    return str(text) if is_html else _html.escape(str(text), quote=False)


def weakly(method: Callable) -> Callable:
    """`method`, called while its object lives (a no-op after), without keeping that object alive."""
    ref = weakref.WeakMethod(method)

    def call(*args):
        bound = ref()
        return None if bound is None else bound(*args)
    return call


class Delivery:
    """Owned by its room's worker; it reads the room's people (`people.py`) and calls back into the room only
    through the narrow callables it is given, which must not keep the room alive (`weakly`): with strong links a
    finished room would form a cycle that only the garbage collector frees, and finished rooms piled up between its
    full runs (fragmenting the heap: the soak bench's memory grew with the games played). The emitter's and the
    page parts' links to it are weak or none for the same reason.

    - `parts_of(seat)`: the match's (shared part, own part) of a seat's page, or None;
    - `on_timer(effect)`: a SetTimer or CancelTimer of the match; `on_game_over(effect)`: the game ended;
    - `on_bounce(seat, item, gen)`: an update came back undelivered (its person is offline), from any thread: the
      room hands it to `kept()` on its own thread."""

    def __init__(self, bot, room: int, people: RoomPeople, *, parts_of: Callable[[str], Optional[tuple]],
                 on_timer: Callable[[Effect], None], on_game_over: Callable[[GameOver], None],
                 on_bounce: Callable[[str, tuple, int], None]):
        self.bot = bot
        self.room = room
        self.people = people
        self.on_timer, self.on_game_over, self.bounced = on_timer, on_game_over, on_bounce
        self.pending: dict[str, list[tuple]] = {}  # seat -> kept items, in order
        self.turn: Optional[Turn] = None  # the input being handled
        self.view_seq: dict[str, int] = {}  # seat -> number of the newest view sent or kept
        self.viewed: set[str] = set()  # seats whose view went out while handling the current input
        self.last_view: dict[str, tuple] = {}  # seat -> (user, visit, JSON) of the newest view sent
        # (user, text) of lines the bot showed in a person's name (relayed rooms): Slurk sends each back as theirs
        self.echoes: "collections.Counter[tuple[int, str]]" = collections.Counter()
        self.emitter = Emitter(self.bot, self.room, weakly(self._refused), weakly(self._release_pages))
        # Seats whose agent is thinking now (kept up to date by the room: `show_thinking`), and what each
        # person's last view said about it: views carry `core.thinking` (absent when nobody thinks).
        self.thinking: tuple[str, ...] = ()
        self.shown_thinking: dict[str, tuple[str, ...]] = {}
        # pages in two parts (pageparts.py), when the task has them
        self.parts = (PageParts(people, parts_of, bot.user_id, bot.chat)
                      if bot.spec.shared_element and bot.spec.state_element else None)
        self._split: Optional[dict] = None  # this batch's parts: {"shared": {...}, "own": {seat: {...}}}

    # --- effects ------------------------------------------------------------------------------------------------
    def deliver(self, effects: list[Effect]) -> None:
        if self.bot.pages is not None and any(self._is_reply(e) for e in effects):
            # The reply a person waits for goes first: this input's page updates wait until Slurk acknowledged a
            # message of the room (it has been shown), or PAGE_HOLD at most, so they do not compete with it for a
            # busy Slurk worker. Log events wait anyway (LogShipper's ship delay).
            self.bot.pages.hold(self.room, PAGE_HOLD)
        try:
            self._split = None if self.parts is None else self.parts.split(effects, self.thinking)
        except Exception:
            log.exception("room %s: could not split the page views; sent whole", self.room)
            self._split = None
        for e in effects:
            try:
                self._one(e)
            except SlurkAPIError as exc:
                log.warning("room %s: could not deliver %s: %s", self.room, type(e).__name__, exc)
            except Exception:
                log.exception("room %s: could not deliver %s", self.room, type(e).__name__)
        if self._split is not None:
            split, self._split = self._split, None
            try:
                self._send_shared(split["shared"])
            except Exception:
                log.exception("room %s: could not deliver the shared page part", self.room)

    def _send_shared(self, shared: dict) -> None:
        together, each = self.parts.shared_addressees(shared, self.pending)
        if together:
            self.bot.pages.submit(self, None, None, ("shared", shared), self.turn)
        for seat in each:
            self.to_seat(seat, ("shared", shared))

    def _is_reply(self, e: Effect) -> bool:
        """Does this effect go out as a chat message now?"""
        w = self.people
        if isinstance(e, Message):
            return e.to is None or w.is_person(e.to)
        if isinstance(e, ChatShown):
            return not w.is_person(e.seat) or self.bot.chat == "relay"
        return False

    def _release_pages(self) -> None:
        if self.bot.pages is not None:
            self.bot.pages.release(self.room)

    def _one(self, e: Effect) -> None:
        w = self.people
        if isinstance(e, LogEvent):
            data = dict(e.data)
            # The record is the bot's: no participant's credentials can fetch it (admins download everything).
            receiver = self.bot.user_id
            if e.to is not None:
                data.setdefault("receiver_seat", e.to)
                if w.is_person(e.to) and w.user_of(e.to) is not None:
                    receiver = w.user_of(e.to)
            self.bot.logs.post(self.room, e.event, data, receiver, self.turn)
        elif isinstance(e, Message):
            if e.to is None:
                self.say(e.text, e.html)
            elif w.is_person(e.to):
                self.to_seat(e.to, ("msg", e.text, bool(e.html)))
        elif isinstance(e, ChatShown):
            self._chat(e)
        elif isinstance(e, View):
            split = self._split
            if split is not None and e.seat in split["own"]:
                self.shown_thinking[e.seat] = self.thinking
                self.viewed.add(e.seat)
                uid = w.user_of(e.seat)
                data = split["own"][e.seat]
                sig = (uid, w.join_gen.get(uid, 0), json.dumps(data, sort_keys=True))
                if self.last_view.get(e.seat) == sig and not self.pending.get(e.seat):
                    return
                self.last_view[e.seat] = sig
                self.to_seat(e.seat, ("view", data))
            elif w.is_person(e.seat) and self.bot.spec.state_element:
                data = dict(e.data)
                # The page sends its commands privately to the bot, so it needs the bot's user id.
                # `key`: this seat's secret, which its page puts on every command (only its own page receives it);
                # `ack`: the newest of its commands handled, so the page never claims a move went through before.
                data["core"] = {**data.get("core", {}), "bot": self.bot.user_id, "chat": self.bot.chat,
                                **w.page_core(e.seat)}
                if self.thinking:
                    data["core"]["thinking"] = list(self.thinking)
                self.shown_thinking[e.seat] = self.thinking
                self.viewed.add(e.seat)
                # Nothing sent twice: a view equal to the last one this person's page got (in this visit, nothing
                # kept for them) is not sent again, e.g. the partner's view after a refused move.
                uid = w.user_of(e.seat)
                sig = (uid, w.join_gen.get(uid, 0), json.dumps(data, sort_keys=True))
                if self.last_view.get(e.seat) == sig and not self.pending.get(e.seat):
                    return
                self.last_view[e.seat] = sig
                self.to_seat(e.seat, ("view", data))
        elif isinstance(e, SetText):
            if e.to is None:
                mark(self.turn)
                self.bot.rest.set_text(self.room, e.element, e.text)
                mark_done(self.turn)
            elif w.is_person(e.to):
                self.to_seat(e.to, ("text", e.element, e.text))
        elif isinstance(e, (SetTimer, CancelTimer)):
            self.on_timer(e)
        elif isinstance(e, GameOver):
            for seat in w.person_seats():
                self.to_seat(seat, ("attr", "text", "readonly", "true"))
                self.to_seat(seat, ("attr", "text", "placeholder", CLOSED_PLACEHOLDER))
            self.on_game_over(e)

    def _chat(self, e: ChatShown) -> None:
        """Show an accepted chat line to those who may see it, as its speaker where Slurk allows that."""
        w = self.people
        speaker = w.user_of(e.seat)
        relayed = self.bot.chat == "relay"
        if w.is_person(e.seat) and not relayed:
            return  # an open room: Slurk has shown the person's line to everyone already
        if speaker is None:  # an agent seat without its own Slurk user speaks through the bot, named
            text, impersonate = f"{w.display_name(e.seat)}: {e.text}", None
        else:
            text, impersonate = e.text, speaker
        if e.to is None and not relayed:
            if impersonate is not None:  # Slurk hands this line back to the bot as the speaker's: not theirs again
                self.echoes[(int(impersonate), as_html(text, False))] += 1
            self.say(text, False, impersonate=impersonate)
            return
        # Relayed rooms: every line goes to each addressee privately (to everyone: each person of the room), so no
        # line of a relayed room is a public Slurk row, which any participant of any room could read.
        audience = [s for s in w.person_seats()] if e.to is None else list(e.to)
        for seat in ([e.seat] if w.is_person(e.seat) and e.seat not in audience else []) + audience:
            if w.is_person(seat):
                self.to_seat(seat, ("msg", text, False, impersonate))

    def show_thinking(self, now: tuple[str, ...], views: Optional[Callable[[], list]], starting: bool = False) -> None:
        """Keep `core.thinking` of people's views true (`now`: the seats whose agent is thinking). Every view sent
        carries them; besides, a person's view is re-sent (`views()`: every seat's view; None: the game is not
        playing, nothing is re-sent) when it shows a seat as thinking that is done, and (`starting`: the thinking
        pool said that an act is taking long) when it does not show all seats thinking now. Nothing is sent when
        nothing changed, and a quick agent is never shown thinking at all."""
        self.thinking = now
        if views is None:
            return
        shown = self.shown_thinking
        stale = {s for s in self.people.person_seats()
                 if (set(shown.get(s, ())) != set(now) if starting else set(shown.get(s, ())) - set(now))}
        if stale:
            self.deliver([v for v in views() if v.seat in stale])

    def say(self, text: str, html: bool = False, receiver_id: Optional[int] = None,
            impersonate: Optional[int] = None) -> None:
        """A chat message to the room (or privately), in order, without waiting for Slurk's acknowledgement.
        `impersonate`: shown as that user (a member of the room) instead of the bot."""
        payload = {"room": self.room, "message": as_html(text, html), "html": True}
        if receiver_id is not None:
            payload["receiver_id"] = int(receiver_id)
        if impersonate is not None:
            payload["impersonate"] = int(impersonate)
        self.emitter.send(payload, self.turn)

    def _refused(self, out: Outgoing, reason: str) -> None:
        """Slurk refused a message (called from the socket thread): keep it if its receiver is just offline."""
        if out.seat is not None and out.item is not None and "not logged in" in reason:
            self.bounced(out.seat, out.item, out.gen)
        else:
            log.warning("room %s: Slurk refused a message: %s", self.room, reason)

    # --- per-seat delivery with keeping -------------------------------------------------------------------------
    def to_seat(self, seat: str, item: tuple) -> None:
        if item[0] in ("view", "shared"):  # numbered, so a bounced view that a newer one superseded is dropped
            key = _seq_key(seat, item[0])
            self.view_seq[key] = self.view_seq.get(key, 0) + 1
            item = (item[0], item[1], self.view_seq[key])
        uid = self.people.user_of(seat)
        if uid is None or uid not in self.people.online or self.pending.get(seat):
            self._keep(seat, item)
            return
        self._send(seat, uid, item)

    def kept(self, seat: str, item: tuple, gen: int) -> None:
        """An update bounced because its receiver was offline when it arrived (a 422, or "not logged in"). Runs in
        the room's worker thread. Keep it until they are back, unless a newer view superseded it, or they have
        come back (joined again) since it was sent: then it goes out again now."""
        if item[0] in ("view", "shared") and item[2] != self.view_seq.get(_seq_key(seat, item[0])):
            return
        uid = self.people.user_of(seat)
        if uid in self.people.online and self.people.join_gen.get(uid, 0) != gen:
            self._send(seat, uid, item)
            return
        self.people.online.discard(uid)
        self._keep(seat, item)

    def _keep(self, seat: str, item: tuple) -> None:
        items = self.pending.setdefault(seat, [])
        if item[0] in ("view", "shared"):
            items[:] = [i for i in items if i[0] != item[0]]
        items.append(item)

    def has_pending(self) -> bool:
        return any(self.pending.values())

    def flush(self, seat: str) -> None:
        """Deliver what was kept for a seat whose person is online now (their page is ready)."""
        uid = self.people.user_of(seat)
        items = self.pending.pop(seat, [])
        if uid is None:
            if items:
                self.pending[seat] = items
            return
        for item in items:
            self._send(seat, uid, item)

    def _send(self, seat: str, uid: int, item: tuple) -> None:
        """Send one per-user item. If its receiver turns out to be offline, it comes back through `kept()`."""
        gen = self.people.join_gen.get(uid, 0)
        if item[0] == "msg":
            payload = {"room": self.room, "message": as_html(item[1], item[2]), "html": True, "receiver_id": int(uid)}
            if len(item) > 3 and item[3] is not None:
                payload["impersonate"] = int(item[3])
            self.emitter.send(payload, self.turn, seat, item, gen)
        else:
            self.bot.pages.submit(self, seat, uid, item, self.turn, gen)


def _seq_key(seat: str, kind: str):
    return seat if kind == "view" else (seat, kind)
