"""One room's worker: a thread and a FIFO queue, so a room's events are handled strictly in order while different
rooms run concurrently (a slow brain in one room never delays another).

The worker maps Slurk events to match inputs and hands the match's effects to `Delivery`. Its collaborators know
nothing of it: `RoomPeople` (who sits where), `Delivery` and `PersonInputs` call it back only through the narrow
callables it gives them (game over, an update that bounced, an input to feed); the match's timers go to the room's
`RoomTimers`. It holds no game rule:
which seat a person takes is the configured seat plan (people take `person_seat_order` seats as they appear, the
other seats are brains), and everything else is decided by the `Match`.

A room is *attached* (a match is started in it) when it is one of the task's rooms: its layout is the task's layout
and it is not the waiting room. `new_task_room` only makes the bot look (anyone can send it, for any room); a member
room reported by `joined_room` is checked the same way. Only users whose token was made for the task take seats;
each seat gets a key that only its page receives. People's text and commands are taken by `intake.PersonInputs`.

With agent users configured, each agent seat of a new match is bound to one of them (the user configured for that
seat, else the first configured one not yet used in the room), made a member of the room, and named after it; the
binding is part of the stored seats and of the `seat_map` log, so restarts and replays keep it.
"""
from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from dataclasses import asdict
from typing import Any, Optional

from tasks.core.codes import CompletionConfig
from tasks.core.builder import build_match
from tasks.core.driver import MatchDriver
from tasks.core.match import Match, SeatInfo, TimerConfig
from tasks.core.protocol import GameOver, Input, Join, Leave, LogEvent
from tasks.core.wording import seat_label

from .delivery import Delivery, weakly
from .intake import PersonInputs
from .metrics import Turn
from .people import RoomPeople, SeatRules, bind_agent_users, ensure_agent_members
from .socket import user_id_of
from .rest import SlurkAPIError
from .resume import log_floor, lost_log_events, recall, save_memory
from .store import RoomRecord
from .timers import RoomTimers

log = logging.getLogger(__name__)

# Brain moves allowed in reaction to one input: a confused agent cannot flood a room (the driver logs an error).
MAX_BRAIN_MOVES = 100
FAILURE_TEXT = "Sorry, something went wrong on our side while handling that. Please try again."
# A finished room keeps what an absent person has not received yet for this long, then the bot leaves it.
KEEP_FOR_ABSENT_SECONDS = 30 * 60

class RoomWorker:
    def __init__(self, bot: Any, room_id: int):
        self.bot = bot  # the runtime.SlurkBot that owns this room (its REST client, store, pools and settings)
        self.room_id = int(room_id)
        self.queue: "queue.Queue[tuple]" = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name=f"room-{room_id}", daemon=True)
        self.state = "new"  # new -> attached -> closed | ignored | stopped
        self.match: Optional[Match] = None
        self.driver: Optional[MatchDriver] = None
        self.people = RoomPeople()  # who sits where, who is online (people.py)
        self.seat_rules = SeatRules(bot.rest, self.room_id, bot.task_id, bot.agent_user_ids | {bot.user_id})
        self.synced_gen = -1
        self.seat_map_logged = False
        self.timers = RoomTimers(bot.scheduler, self.room_id)
        # The delivery calls the worker back weakly: it must not keep a finished room alive (see Delivery).
        self.delivery = Delivery(bot, self.room_id, self.people, parts_of=weakly(self._page_parts),
                                 on_timer=self.timers.apply, on_game_over=weakly(self._game_over),
                                 on_bounce=weakly(self._bounced))
        # people's text and commands (intake.py)
        self.inputs = PersonInputs(bot, self.room_id, self.people, self.delivery, feed=weakly(self._feed),
                                   views=weakly(self._views), attached=weakly(self._attached))
        self.meta: dict = {}
        self.closed_at = 0.0
        self._ref: Optional[str] = None  # the ref of the person input being fed (stored with it)
        self._unsaveable: set[str] = set()  # agent seats whose memory could not be saved (warned once)

    def __repr__(self) -> str:
        return f"RoomWorker(room={self.room_id}, state={self.state})"

    # --- queue --------------------------------------------------------------------------------------------------
    def start(self) -> None:
        if not self.thread.is_alive() and self.thread.ident is None:
            self.thread.start()

    def put(self, kind: str, data: Any = None, t_recv: Optional[float] = None) -> None:
        self.queue.put((kind, data, time.perf_counter() if t_recv is None else t_recv))

    def _loop(self) -> None:
        while True:
            try:
                kind, data, t_recv = self.queue.get(timeout=None if self.state == "attached" else 1.0)
            except queue.Empty:
                kind = None
            if kind == "stop":
                return
            if kind is not None:
                try:
                    self._handle(kind, data, t_recv)
                except Exception:
                    log.exception("room %s: handling %s failed", self.room_id, kind)
                    self._answer_failure(kind, data)
                finally:
                    self.delivery.turn = None
                if self.state == "closed" and self.match is not None:
                    self._release()
            if self.done() and self.bot._retire(self):
                if self.state == "closed":
                    self._leave()
                return

    def done(self) -> bool:
        """Nothing left to do here: not a task room, or a finished game whose last words have all gone out."""
        if self.state == "ignored":
            return True
        if self.state != "closed":
            return False
        if self.delivery.has_pending() and time.monotonic() - self.closed_at > KEEP_FOR_ABSENT_SECONDS:
            # Someone who left never came back for their last messages: drop them (their code is in the records)
            # rather than stay in the room for good.
            log.info("room %s: dropping updates kept for absent people; leaving the finished room", self.room_id)
            self.delivery.pending.clear()
        return (not self.delivery.has_pending() and self.delivery.emitter.idle()
                and not self.bot.pages.pending(self.room_id))

    def _leave(self) -> None:
        """Leave a finished room. Slurk sends `stop_typing` to every room a sender is in, so a bot that stayed in
        all its old rooms would make each of its messages cost more and more."""
        try:
            self.bot.rest.leave_room(self.bot.user_id, self.room_id)
        except SlurkAPIError as exc:
            log.info("room %s: could not leave the finished room: %s", self.room_id, exc)

    def _answer_failure(self, kind: str, data: Any) -> None:
        """Tell the room (or the person who caused it) that something failed; never raise from here."""
        try:
            uid = user_id_of(data.get("user")) if isinstance(data, dict) else None
            seat = self.people.seat_of(uid) if uid is not None else None
            if seat is not None and uid in self.people.online:
                self.delivery.say(FAILURE_TEXT, receiver_id=uid)
            elif kind in ("text", "command", "timer", "status") and self.state == "attached":
                self.delivery.say(FAILURE_TEXT)
        except Exception:
            log.exception("room %s: could not report a failure", self.room_id)

    # --- seats --------------------------------------------------------------------------------------------------
    def _take_seat(self, uid: int, name: str) -> Optional[str]:
        seat = self.people.seat_of(uid)
        if seat is not None:
            return seat
        if not self.seat_rules.may_sit(uid):
            return None
        seat = self.people.sit(uid, name, self.bot.person_order)
        if seat is None:
            log.info("room %s: user %s joined but every seat is taken; they can watch", self.room_id, uid)
            return None
        self.match.seats[seat].name = self.people.seats[seat]["name"]
        self.bot.store.update_seats(self.room_id, self.people.seats)
        self._log_seat_map()
        return seat

    def _log_seat_map(self) -> None:
        if self.seat_map_logged or not self.people.everyone_seated():
            return
        self.seat_map_logged = True
        self.delivery.deliver([LogEvent("seat_map", self.people.seat_map())])

    # --- dispatch -----------------------------------------------------------------------------------------------
    def _handle(self, kind: str, data: Any, t_recv: float) -> None:
        if kind == "restore":
            self._restore(data)
        elif kind == "announce":
            self._announce(data or [])
        elif kind in ("joined", "sync"):  # a (re)joined room is attached; a room playing already is re-synced
            if kind == "joined" and self.state == "new":
                self._attach(announced=None)
            elif self.state == "attached":
                self._resync()
        elif kind == "keep":
            self.delivery.kept(*data)
        elif kind == "left":
            # Slurk sends left_room on our own disconnect too; membership (and the game) is kept either way.
            log.info("room %s: left_room received", self.room_id)
        elif self.state == "closed":
            self._closed_event(kind, data)
        elif self.state != "attached":
            return
        elif kind == "status":
            self._on_status(data, t_recv)
        elif kind == "text":
            self.inputs.on_text(data, t_recv)
        elif kind == "command":
            self.inputs.on_command(data, t_recv)
        elif kind == "timer":
            self._feed(data, None)
        elif kind == "thought":
            self._on_thought(data)
        elif kind == "thinking":
            self._show_thinking(starting=True)
        self._think()  # brains this event woke start thinking, off this thread

    def _feed(self, inp: Input, t_recv: Optional[float], ref: Optional[str] = None) -> None:
        self.bot.metrics.count_event()
        self.delivery.turn = None if t_recv is None else Turn(t_recv, self.bot.metrics)
        self.delivery.viewed = set()
        self._ref = ref
        for batch in self.driver.feed(inp, act=False):  # brains act later, off this thread (`_think`)
            self.delivery.deliver(batch)
            if self.state != "attached" or self.bot.stopping:
                break  # game over, or the bot is shutting down (every handled input is already stored)

    # --- attaching ----------------------------------------------------------------------------------------------
    def _announce(self, users: list) -> None:
        """`new_task_room` can be sent by anyone for any room (Slurk checks nothing): it is a hint to look, and the
        room is joined only if it is one of this task's rooms. Announced users are seated only if they may sit."""
        if self.state != "new":
            return
        status = self.bot.store.status(self.room_id)
        if status not in (None, "open"):  # one of our finished games (announced again, by anyone): never rejoined
            self.state = "ignored"
            return
        if status is None:
            try:
                ours = self._is_task_room()
            except SlurkAPIError as exc:
                log.warning("room %s: cannot check the announced room: %s", self.room_id, exc)
                ours = False
            if not ours:
                log.warning("room %s was announced for task %s but is not one of its rooms; ignored", self.room_id,
                            self.bot.task_id)
                self.state = "ignored"
                return
        try:
            self.bot.rest.join_room(self.bot.user_id, self.room_id)
        except SlurkAPIError as exc:
            log.error("room %s: could not join the announced task room: %s", self.room_id, exc)
            self.state = "ignored"
            return
        self._attach(announced=users)

    def _is_task_room(self) -> bool:
        if self.bot.config.slurk.waiting_room is not None and self.room_id == self.bot.config.slurk.waiting_room:
            return False
        layout = self.bot.task_layout_id()
        if layout is None:
            return False
        room = self.bot.rest.get_room(self.room_id)
        return room.get("layout_id") == layout

    def _attach(self, announced: Optional[list]) -> None:
        status = self.bot.store.status(self.room_id)
        if status is not None and status != "open":
            self.state = "ignored"  # a finished game; do not start another in the same room
            return
        if status == "open":
            rec = self.bot.store.get(self.room_id)
            if rec is not None and rec.task == self.bot.spec.name:
                self._restore(rec)
                self._resync()
                return
        if announced is None and not self._is_task_room():
            log.info("room %s is not a room of task %s; not playing there", self.room_id, self.bot.task_id)
            self.state = "ignored"
            return
        self._start_match(announced or [])

    def _new_match(self, seed: int, options: dict, seats: dict, meta: dict) -> None:
        infos = {s: SeatInfo(kind=i["kind"], name=i.get("name") or "", agent=i.get("brain") or "")
                 for s, i in seats.items()}
        timers = TimerConfig(**meta["timers"]) if "timers" in meta else self.bot.config.timers
        completion = CompletionConfig(**meta["completion"]) if "completion" in meta else self.bot.config.completion
        self.match, brains = build_match(self.bot.spec, seed, infos, options=options, instance=meta.get("instance"),
                                         llm=self.bot.llm_client, timers=timers, completion=completion)
        if "instance" not in meta:
            meta["instance"] = self.match.game.instance()  # stored with the room: a resume never regenerates it
        self.meta = meta
        self.driver = MatchDriver(self.match, brains, on_input=self._persist, max_steps=MAX_BRAIN_MOVES)
        self.people.seats = seats

    def _persist(self, inp: Input) -> None:
        ref, self._ref = self._ref, None  # only the person's input carries the ref, not the brains' answers
        self.bot.store.add_input(self.room_id, self.match.seq, inp, ref=ref)

    def _start_match(self, announced: list) -> None:
        bot = self.bot
        seed = secrets.randbelow(2 ** 31)
        seats = {}
        for seat in bot.spec.seats:
            if seat in bot.person_order:
                seats[seat] = {"kind": "person", "name": "", "user_id": None, "brain": None}
            else:
                seats[seat] = {"kind": "agent", "name": seat_label(bot.spec.game_class, seat), "user_id": None,
                               "brain": bot.brain_names[seat]}
        bind_agent_users(seats, bot.agent_users, bot.rest, self.room_id)
        meta = {"timers": asdict(bot.config.timers), "completion": asdict(bot.config.completion),
                "log_floor": log_floor(bot.rest, self.room_id)}
        # An instance no other open room plays (Slurk lets anyone read any room's public chat; instances.py).
        seed, options, meta["instance"] = bot.instances.claim(self.room_id, bot.spec, seed,
                                                              dict(bot.config.task_options))
        self._new_match(seed, options, seats, meta)
        opened_at = time.time()
        bot.store.open_room(RoomRecord(self.room_id, bot.spec.name, seed, options, seats, "open", opened_at,
                                       meta=meta))
        self.state = "attached"
        self.synced_gen = bot.gen
        log.info("room %s: game %s started (seed %s)", self.room_id, bot.spec.name, seed)
        for batch in self.driver.open(act=False):
            self.timers.note(batch, opened_at)
            self.delivery.deliver(batch)
        # People announced with the room take seats first, in the announced order.
        for user in announced:
            uid = user_id_of(user)
            if uid is not None and uid != bot.user_id:
                self._take_seat(uid, user.get("name", "") if isinstance(user, dict) else "")
        self._log_seat_map()
        for user in sorted(self.seat_rules.present(),
                           key=lambda u: (self.people.seat_of(user_id_of(u)) is None, user_id_of(u))):
            if self.state == "attached":
                self._appeared(user_id_of(user), user.get("name", ""), None)

    # --- what the delivery and the intake call back (weakly) ------------------------------------------------------
    def _views(self) -> list:
        return self.match.views()

    def _attached(self) -> bool:
        return self.state == "attached"

    def _page_parts(self, seat: str) -> Optional[tuple]:
        return None if self.match is None else self.match.page_parts(seat)

    def _bounced(self, seat: str, item: tuple, gen: int) -> None:
        """An update its person's page did not get (any thread): kept or sent again on this room's thread."""
        self.put("keep", (seat, item, gen))

    # --- restoring after a restart ------------------------------------------------------------------------------
    def _restore(self, rec: RoomRecord) -> None:
        if self.state != "new":
            return
        self._new_match(rec.seed, rec.options, rec.seats, rec.meta)
        if rec.status == "open":
            self.bot.instances.restore(self.room_id, self.meta.get("instance"))
        self.inputs.seen = self.bot.store.seen_refs(self.room_id)
        if self.people.give_keys():  # a record from before seat keys
            self.bot.store.update_seats(self.room_id, self.people.seats)
        if rec.status == "open":
            ensure_agent_members(self.people.seats, self.bot.rest, self.room_id)
        self.seat_map_logged = self.people.everyone_seated()
        memories = self.bot.store.brain_states(self.room_id)  # seat -> (seq, state) after the agent's last act
        replayed = self.driver.replay([], t0=rec.opened_at)
        self.timers.note(replayed, rec.opened_at)
        recall(self.driver, self.match, memories, self.room_id)
        for inp in rec.inputs:
            effects = self.driver.replay([inp])
            self.timers.note(effects, getattr(inp, "t", 0.0) or time.time())
            replayed += effects
            recall(self.driver, self.match, memories, self.room_id)
        missing = lost_log_events(self.bot.rest, self.room_id, rec.seed, replayed)
        if missing:  # a crash kept them from Slurk: posted now, so that Slurk's log alone still rebuilds the game
            log.info("room %s: posting %d log events lost before the restart", self.room_id, len(missing))
            self.delivery.deliver(missing)
        self.state = "attached"
        self.timers.rearm(self.match.pending_timers())
        log.info("room %s: resumed %s after %d inputs", self.room_id, rec.task, len(rec.inputs))
        if self.match.over:
            self.delivery.deliver([GameOver(self.match.status, self.match.results)])
            return
        # A brain may have been about to answer when the process died: `_handle` lets it think again (`_think`).

    def _resync(self) -> None:
        """After a (re)connect or restart: learn who is online, deliver kept updates, re-send every view."""
        if self.synced_gen == self.bot.gen:
            return
        self.synced_gen = self.bot.gen
        online = {user_id_of(u): u for u in self.seat_rules.present()}
        for seat in self.people.person_seats():
            uid = self.people.user_of(seat)
            present = seat in self.match.present
            if uid in online:
                self.people.came_online(uid)
                self.delivery.flush(seat)
                if not present:
                    self._feed(Join(seat, time.time()), None)  # came while we were away
            else:
                self.people.online.discard(uid)
                if present and uid is not None:
                    self._feed(Leave(seat, time.time()), None)  # left while we were away
        for uid, user in online.items():
            if self.people.seat_of(uid) is None and self.state == "attached":
                self._appeared(uid, user.get("name", ""), None)
        self.inputs.catch_up(self.meta.get("log_floor"))
        if self.state == "attached":
            self.delivery.deliver(self.match.views())

    # --- events -------------------------------------------------------------------------------------------------
    def _appeared(self, uid: Optional[int], name: str, t_recv: Optional[float]) -> None:
        if uid is None:
            return
        seat = self._take_seat(uid, name)
        self.people.came_online(uid)
        if seat is None:
            return
        self.delivery.flush(seat)
        self._feed(Join(seat, time.time()), t_recv)

    def _on_status(self, data: dict, t_recv: float) -> None:
        uid = user_id_of(data.get("user"))
        if self.bot.is_agent_user(uid):
            return  # an agent's own user coming or going is not a person joining or leaving
        kind = data.get("type")
        if kind == "join":
            self._appeared(uid, (data.get("user") or {}).get("name", ""), t_recv)
        elif kind == "leave":
            self.people.online.discard(uid)
            seat = self.people.seat_of(uid)
            if seat is not None:
                self._feed(Leave(seat, time.time()), t_recv)

    def _closed_event(self, kind: str, data: Any) -> None:
        """A finished room keeps delivering what a returning person missed (e.g. their completion code)."""
        if kind == "status" and isinstance(data, dict) and data.get("type") == "join":
            uid = user_id_of(data.get("user"))
            seat = self.people.seat_of(uid)
            if seat is not None:
                self.people.came_online(uid)
                self.delivery.flush(seat)

    # --- agents think off this thread (bots/slurk/thinking.py) ---------------------------------------------------
    def thinking_seats(self) -> list[str]:
        """Seats whose agent is thinking (handed to the thinking pool, moves not applied yet), in seat order."""
        if self.driver is None or self.match is None:
            return []
        busy = self.driver.thinking
        return [s for s in self.match.game.seats if s in busy]

    def _think(self) -> None:
        """Hand every woken brain that is not thinking already to the bot's thinking pool. Its act() runs there, and
        its moves come back through this room's queue (`_on_thought`), so people are answered meanwhile."""
        pool = getattr(self.bot, "thinking", None)
        if pool is None or self.driver is None or self.state != "attached" or self.bot.stopping:
            return
        while True:
            seat = self.driver.next_brain()
            if seat is None:
                break
            pool.submit(self, self.driver, seat)
        self._show_thinking()

    def _on_thought(self, data: tuple) -> None:
        """A brain is done thinking: it gets what it observed meanwhile, then its moves go through the match, in
        order with everything else. Moves that became invalid meanwhile are refused by the match. A result for
        another driver (from before a restore) is dropped; so is one after game over (`_handle` never gets here)."""
        driver, thought = data
        if driver is not self.driver:
            return
        self.delivery.turn = None
        batches = self.driver.apply_moves(thought)
        self.delivery.thinking = tuple(self.thinking_seats())  # views sent with the moves say it is done
        for batch in batches:
            self.delivery.deliver(batch)
            if self.state != "attached" or self.bot.stopping:
                break
        if thought.error is not None and self.state == "attached":
            self.delivery.say(FAILURE_TEXT)  # an agent that crashed: the room says so and keeps going
        save_memory(self.driver, self.match, self.bot.store, self.room_id, thought.seat, self._unsaveable)

    def _show_thinking(self, starting: bool = False) -> None:
        """Keep `core.thinking` of people's views true (`Delivery.show_thinking`)."""
        playing = self.state == "attached"
        self.delivery.show_thinking(tuple(self.thinking_seats()), self.match.views if playing else None, starting)

    # --- closing ------------------------------------------------------------------------------------------------
    def _release(self) -> None:
        """A finished room may wait a long time for an absent person (KEEP_FOR_ABSENT_SECONDS): it keeps only what
        it still has to deliver (seats, kept updates), not the game, the agents or the inputs seen."""
        self.match = self.driver = None
        self.inputs.seen = set()
        self.delivery.echoes.clear()
        self.meta = {}
        self.timers.forget()
        self.delivery.last_view = {}

    def _game_over(self, over: GameOver) -> None:
        self.state = "closed"
        self.closed_at = time.monotonic()
        self.timers.cancel_all()
        self.bot.store.close_room(self.room_id, over.status, over.results)
        self.bot.instances.release(self.room_id)
        if self.bot.logs is not None:
            self.bot.logs.hurry(self.room_id)  # the record of a finished game goes out now (operators download it)
        log.info("room %s: game over (%s)", self.room_id, over.status)
