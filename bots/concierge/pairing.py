"""Pairing: as soon as a task has enough people waiting (still online, and movable), a group is taken from the front
of the queue and placed in a new room by the pool; a group that cannot be placed keeps its place and is retried."""
from __future__ import annotations

import logging

from bots.slurk.rest import SlurkAPIError

from .room_moves import user_missing
from .waiting_room import Waiting

log = logging.getLogger("bots.concierge")


class Pairing:
    """The grouping side of Concierge (it uses the state Concierge.__init__ sets up, under its lock)."""

    def _handle_retry(self, task_id: int) -> None:
        with self._lock:
            self._group_waits.discard(task_id)
        self._group(task_id)

    # --- grouping -----------------------------------------------------------------------------------------------
    def _group(self, task_id: int) -> None:
        try:
            self._group_now(task_id)
        finally:
            self._tell_places(task_id)

    def _group_now(self, task_id: int) -> None:
        with self._lock:
            if task_id in self._group_waits:
                return  # a retry is scheduled: arrivals do not bypass the back-off
        while True:
            with self._lock:
                q = self.queues.get(task_id, [])
                if not q:
                    return
                if self._inflight and self.cap.in_force():
                    return  # after a server error, one group at a time (the next when this one is done)
                num = self.people[q[0]].num_users
                if len(q) < num:
                    return
                group = q[:num]
                del q[:num]
                members = [self.people[u] for u in group]
                self._moving.update(group)
                self._inflight += 1

            def not_placed(group=group):
                self._moving.difference_update(group)
                self._inflight -= 1

            if not self._submit(self._place_async, task_id, members, undo=not_placed):
                self._put_back(task_id, members)
                return

    def _place_async(self, task_id: int, members: list[Waiting]) -> None:
        group = [w.user_id for w in members]
        try:
            self._place(task_id, members)
        except Exception:  # a bug or an odd answer: the group keeps its place and is retried later
            log.exception("placing users %s of task %s failed", group, task_id)
            self._put_back(task_id, members)
            self._retry_group(task_id, f"placing users {group} failed")
        finally:
            with self._lock:
                self._moving.difference_update(group)
                self._inflight -= 1
            self._events.put(("regroup", task_id))  # whoever is (back) in the queue, and their places

    def _handle_regroup(self, task_id: int) -> None:
        self._group(task_id)

    def _place(self, task_id: int, members: list[Waiting]) -> bool:
        """Try to give `members` (taken from the queue) a room. True: look at the queue again at once (somebody
        left it, or the room is made); False: stop (they are back in the queue and a retry is scheduled)."""
        group = [w.user_id for w in members]
        online, offline, failed = self._still_here(members)
        if failed:
            self._server_trouble()
            self._put_back(task_id, members)
            self._retry_group(task_id, f"cannot check whether users {group} are still online")
            return False
        if offline:
            for w in offline:
                self._forget(w.user_id)
                log.info("user %s is no longer online; forgotten", w.user_id)
            self._put_back(task_id, online)
            return True
        gone, ok = self._probe(members)
        if gone:
            for w in gone:
                self._forget(w.user_id)
            self._put_back(task_id, [w for w in members if w not in gone])
            return True
        if not ok:
            self._put_back(task_id, members)
            self._retry_group(task_id, f"users {group} cannot be moved yet; no room is made for them")
            return False
        wait = self.cap.wait()
        if wait > 0:
            self._put_back(task_id, members)
            self._count("deferred")
            log.warning("%d rooms were created in the last minute (the cap); users %s wait %.1f s more",
                        self.cap.per_minute, group, wait)
            self._wait_group(task_id, wait)
            return False
        if not self._open_room(members):
            self._put_back(task_id, members)
            self._retry_group(task_id, f"no room for users {group} of task {task_id}")
            return False
        self._succeeded(("retry", task_id))
        return True

    def _put_back(self, task_id: int, members: list[Waiting]) -> None:
        """Back to the front of the queue, in their order (those who are still waiting)."""
        with self._lock:
            back = [w.user_id for w in members if w.user_id in self.people]
            q = self.queues.setdefault(task_id, [])
            q[0:0] = [u for u in back if u not in q]

    def _wait_group(self, task_id: int, seconds: float) -> None:
        with self._lock:
            self._group_waits.add(task_id)
            self._retry_at[("retry", task_id)] = self.clock() + seconds
        self.timers.set(("retry", task_id), seconds, lambda t=task_id: self._events.put(("retry", t)))

    def _retry_group(self, task_id: int, why: str) -> None:
        with self._lock:
            self._group_waits.add(task_id)
        if not self._retry(("retry", task_id), ("retry", task_id), why):
            with self._lock:
                self._group_waits.discard(task_id)  # the next arrival or reconnection tries again

    def _still_here(self, members: list[Waiting]) -> tuple[list[Waiting], list[Waiting], bool]:
        """(online, offline, failed): failed when the server could not tell."""
        online, offline = [], []
        for w in members:
            try:
                here = self.rest.get_user(w.user_id).get("session_id") is not None
            except SlurkAPIError as exc:
                if exc.status != 404:
                    log.error("cannot read user %s: %s", w.user_id, exc)
                    return online, offline, True
                here = False
            (online if here else offline).append(w)
        return online, offline, False

    def _probe(self, members: list[Waiting]) -> tuple[list[Waiting], bool]:
        """People whose last move failed with a server error are added to the waiting room again (they are in it
        already; Slurk only re-sends them its page) before a room is made for them: a user Slurk cannot move (e.g. a
        session it lost in a restart) fails here instead of in a new room. Returns (gone, all passed)."""
        gone: list[Waiting] = []
        for w in members:
            if w.user_id not in self.suspects:
                continue
            try:
                self.rest.join_room(w.user_id, self.waiting_room)
            except SlurkAPIError as exc:
                if user_missing(exc):
                    gone.append(w)
                    continue
                log.warning("user %s still cannot be moved: %s", w.user_id, exc)
                return gone, False
            with self._lock:
                self.suspects.discard(w.user_id)
        return gone, True

