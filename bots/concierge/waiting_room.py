"""The waiting room: who waits for which task (queued by the task of their token, as the server reports it), their
waiting time and no-partner completion code, and the queue places told to people held back."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Optional

from bots.slurk.rest import SlurkAPIError
from bots.slurk.socket import user_id_of
from tasks.core.wording import plain_name

from .messages import about, greeting, no_partner_text, place_text

log = logging.getLogger("bots.concierge")

PLACE_INTERVAL = 10.0  # seconds: at most one queue-place message per person in this time, refreshed this often


@dataclass
class Waiting:
    user_id: int
    name: str
    task_id: int
    num_users: int
    layout_id: int
    timer: int  # generation of this person's timer



class WaitingRoom:
    """The queue side of Concierge (it uses the state Concierge.__init__ sets up, under its lock)."""

    def _handle_sweep(self) -> None:
        """After (re)connecting: pick up people who are waiting, forget those who left meanwhile."""
        try:
            online = {user_id_of(u): u for u in self.rest.get_room_users(self.waiting_room)}
        except SlurkAPIError as exc:
            self._retry(("sweep",), ("sweep",), f"cannot list the waiting room {self.waiting_room}: {exc}")
            return
        self._succeeded(("sweep",))
        online.pop(self.user_id, None)
        with self._lock:
            gone = [u for u in self.people if u not in online]
        for uid in gone:
            self._handle_leave(uid)
        for uid, user in online.items():
            if uid is not None:
                self._handle_join(uid, user.get("name") or f"user {uid}", sweep=True)

    def _handle_join(self, uid: int, name: str, sweep: bool = False, retry: bool = False) -> None:
        with self._lock:
            if uid in self.people:
                return  # (a join caused by our own re-add to the waiting room does not shorten a back-off)
            if retry and ("join", uid) not in self._tries:
                return  # they left while the retry was pending
            code = self.compensated.get(uid)
            placed = self.placed.get(uid)
        if code is not None:
            self._send(uid, no_partner_text(name, code, self.completion))  # they came back (e.g. reloaded): repeat the code
            return
        if placed is not None:
            return  # moved already; a stale join
        # The task of their token is read by the pool (a launch brings many arrivals at once); the answer comes
        # back to this thread as an `arrived` event, in which the queue is changed.
        with self._lock:
            if uid in self._looking:
                return
            self._looking.add(uid)
            self._lookups += 1

        def not_looked_up():
            self._looking.discard(uid)
            self._lookups -= 1

        self._submit(self._look_up, uid, name, undo=not_looked_up)

    def _look_up(self, uid: int, name: str) -> None:
        try:
            try:
                self._events.put(("arrived", uid, name, self._task_of(uid)))
            except SlurkAPIError as exc:
                self._events.put(("lookup_failed", uid, name, str(exc)))
        finally:
            with self._lock:
                self._lookups -= 1

    def _handle_lookup_failed(self, uid: int, name: str, why: str) -> None:
        with self._lock:
            if uid not in self._looking:
                return  # they left meanwhile
            self._looking.discard(uid)
        self._retry(("join", uid), ("join", uid, name, False, True), f"cannot read the task of user {uid}: {why}")

    def _handle_arrived(self, uid: int, name: str, task: Optional[dict]) -> None:
        with self._lock:
            if uid not in self._looking:
                return  # they left while their task was read
            self._looking.discard(uid)
        self._succeeded(("join", uid))
        if task is None:
            return  # a bot, or a token without a task: not ours to pair
        if self.task_id is not None and int(task["id"]) != self.task_id:
            self._count("not_ours")
            log.warning("user %s has a token of task %s; this concierge pairs people for task %s only: not paired",
                        uid, task["id"], self.task_id)
            return
        num = int(task.get("num_users") or 0)
        if num < 1:
            log.warning("task %s has num_users %s; user %s is not paired", task.get("id"), num, uid)
            return
        with self._lock:
            if uid in self.people:
                return
            w = Waiting(uid, name, int(task["id"]), num, int(task["layout_id"]), 0)
            self._enqueue(w)
        log.info("user %s (%r) waits for task %s (%d of %d)", uid, plain_name(name), w.task_id,
                 len(self.waiting(w.task_id)), num)
        self._submit(self._send, uid, greeting(name, num, self.waiting_timeout))
        self._group(w.task_id)

    def _enqueue(self, w: Waiting, front: bool = False) -> None:
        """Queue a person and arm their timer for what is left of their waiting time (from the first arrival)."""
        now = self.clock()
        with self._lock:
            self._timer_gen += 1
            w.timer = self._timer_gen
            first = self.first_seen.setdefault(w.user_id, now)
            self.people[w.user_id] = w
            q = self.queues.setdefault(w.task_id, [])
            if front:
                q.insert(0, w.user_id)
            else:
                q.append(w.user_id)
            left = max(0.0, self.waiting_timeout - (now - first))
        self.timers.set(("wait", w.user_id), left,
                        lambda u=w.user_id, g=w.timer: self._events.put(("timeout", u, g)))

    def _handle_leave(self, uid: int) -> None:
        with self._lock:
            self._looking.discard(uid)
            if uid in self._moving:
                return  # the leave our move causes; a move that fails puts them back (an offline person is
                #         dropped by the online check before their next room)
            self._tries.pop(("join", uid), None)
            ours = uid in self._put_back_users and uid in self.people
            self._put_back_users.discard(uid)
        self.timers.cancel(("join", uid))
        if ours and self._kept_after_failed_move(uid):
            return
        self._forget(uid)

    def _kept_after_failed_move(self, uid: int) -> bool:
        """The leave of a move that failed and was undone: they are back in the waiting room (or are to be put back
        by the probe before their next room), so they keep their place in the queue."""
        if uid in self.suspects:
            return True
        try:
            return any(int(r.get("id", -1)) == self.waiting_room for r in self.rest.get_user_rooms(uid))
        except (SlurkAPIError, TypeError, ValueError, AttributeError):
            return False

    def _forget(self, uid: int) -> bool:
        with self._lock:
            w = self.people.pop(uid, None)
            self.suspects.discard(uid)
            self._told.pop(uid, None)
            if w is None:
                return False
            q = self.queues.get(w.task_id, [])
            if uid in q:
                q.remove(uid)
        self.timers.cancel(("wait", uid))
        log.info("user %s left the waiting room; forgotten", uid)
        return True

    def _handle_timeout(self, uid: int, gen: int) -> None:
        with self._lock:
            w = self.people.get(uid)
            if w is None or w.timer != gen or uid not in self.queues.get(w.task_id, []):
                return
            self.queues[w.task_id].remove(uid)
            del self.people[uid]
            self.suspects.discard(uid)
            code = self.code_source()
            self.compensated[uid] = code
        log.info("user %s waited too long for task %s: no partner; code sent", uid, w.task_id)
        self._handle_code(uid, code)
        self._send(uid, no_partner_text(w.name, code, self.completion))

    def _handle_code(self, uid: int, code: str) -> None:
        """Log a no-partner completion code in Slurk (where `logs download` finds it), retried while Slurk fails."""
        try:
            self.rest.post_log("confirmation_log", self.waiting_room,
                               {"status_txt": "no_partner", "confirmation_token": code}, receiver_id=uid)
        except SlurkAPIError as exc:
            if not self._retry(("code", uid), ("code", uid, code),
                               f"could not log the completion code of user {uid}: {exc}"):
                log.error("the no-partner completion code of user %s is not in Slurk's logs: %s (pay it by hand)",
                          uid, code)
            return
        self._succeeded(("code", uid))

    # --- queue places: people held back (cap or back-off) are told their place and the expected wait ------------
    def _tell_places(self, task_id: int) -> None:
        """Each person who waits for a room although enough people are there (the cap after server errors, or a
        back-off) gets a private message with their place and an honest expected wait: the time until the next try,
        plus, while the cap is in force, a cap's share of a minute per group ahead. Sent when place or wait (rounded)
        changes, at most once per PLACE_INTERVAL per person; refreshed while they are held back."""
        now = self.clock()
        with self._lock:
            q = list(self.queues.get(task_id, []))
            held = task_id in self._group_waits
            until = self._retry_at.get(("retry", task_id), now)
            num = self.people[q[0]].num_users if q and q[0] in self.people else 0
        if not held or not q or num < 1:
            return
        spacing = self.cap.spacing()
        for i, uid in enumerate(q):
            group = i // num
            if (group + 1) * num > len(q):
                break  # an incomplete group waits for partners, as the greeting says
            wait = max(0.0, until - now) + group * spacing
            key = (i + 1, about(wait))
            with self._lock:
                last = self._told.get(uid)
                if last is not None and (last[0] == key or now - last[1] < PLACE_INTERVAL):
                    continue
                self._told[uid] = (key, now)
                name = self.people[uid].name if uid in self.people else ""
            self._count("place_messages")
            self._send(uid, place_text(name, i + 1, wait))
        self.timers.set(("places", task_id), PLACE_INTERVAL, lambda t=task_id: self._events.put(("places", t)))

    def _handle_places(self, task_id: int) -> None:
        self._tell_places(task_id)


    def _handle_announced(self, room: int, task: Any) -> None:
        with self._lock:
            ours = room in self.rooms or room in self.dead_rooms
        if ours:
            return
        self._count("ignored_announcements")
        if room == self.waiting_room:
            log.warning("someone announced the waiting room %s as a room of task %r (room_created is open to "
                        "everyone); ignored", room, task)
        else:
            log.info("room %s was announced for task %r, but this concierge did not create it; ignored", room, task)

    def _task_of(self, uid: int) -> Optional[dict]:
        """The task of the user's token as the server reports it; None for no task or no such user. Raises
        SlurkAPIError when the server cannot tell."""
        try:
            task = self.rest.get_user_task(uid)
        except SlurkAPIError as exc:
            if exc.status == 404:
                return None
            raise
        if not task or task.get("id") is None or task.get("layout_id") is None:
            return None
        return task

