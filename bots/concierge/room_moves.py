"""Moving a group into a new room, all or nobody: out of the waiting room, into the room, then the announcement to the
task bot; a room that cannot be filled is given up (people put back on the waiting-room page, the room read-only)."""
from __future__ import annotations

import logging

from bots.slurk.rest import SlurkAPIError

from .waiting_room import Waiting

log = logging.getLogger("bots.concierge")


class RoomMoves:
    """The moving side of Concierge (it uses the state Concierge.__init__ sets up, under its lock)."""

    def _open_room(self, members: list[Waiting]) -> bool:
        """Create a room and move everyone into it; all or nobody (a room that cannot be filled is given up)."""
        task_id, layout_id = members[0].task_id, members[0].layout_id
        try:
            room = int(self.rest.create_room(layout_id)["id"])
        except (SlurkAPIError, KeyError, TypeError, ValueError) as exc:
            log.error("could not create a room for task %s (users %s): %s", task_id, [w.user_id for w in members],
                      exc)
            self._server_trouble()
            return False
        self.cap.room_created()
        self._count("rooms_created")
        touched: list[Waiting] = []  # people the server may have put into the room (a failed add can still add)
        for w in members:
            # Out of the waiting room first, then into the new room (as slurk-bots' concierge does): Slurk's page
            # makes the chat read-only on ANY `left_room`, so the waiting room's must reach the page before the
            # task room's `joined_room` (plugins/slurk-task.js also recovers when they cross).
            try:
                self.rest.leave_room(w.user_id, self.waiting_room)
            except SlurkAPIError as exc:
                # Still in the waiting room: joining now would leave them in both rooms; nobody else moved yet
                # is affected beyond the room given up.
                log.error("room %s: could not take user %s out of the waiting room: %s; the room is given up", room,
                          w.user_id, exc)
                self._move_failed(w, exc)
                self._give_up_room(room, task_id, touched)
                return False
            touched.append(w)
            with self._lock:
                self._put_back_users.add(w.user_id)  # the leave event this causes must not forget them yet
            try:
                self.rest.join_room(w.user_id, room)
            except SlurkAPIError as exc:
                log.error("room %s: could not add user %s: %s; the room is given up", room, w.user_id, exc)
                self._move_failed(w, exc)
                self._give_up_room(room, task_id, touched)  # puts everyone moved so far back in the waiting room
                return False
        for w in members:
            self.timers.cancel(("wait", w.user_id))
            with self._lock:
                self.people.pop(w.user_id, None)
                self.suspects.discard(w.user_id)
                self._put_back_users.discard(w.user_id)
                self._told.pop(w.user_id, None)
                self.placed[w.user_id] = room
        with self._lock:
            self.rooms[room] = {"task": task_id, "users": [w.user_id for w in members]}
        self._handle_announce(room, task_id)
        if self.agent_users and (self.task_id is None or self.task_id == task_id):
            for seat, agent in self.agent_users.items():
                try:
                    self.rest.join_room(agent, room)
                except SlurkAPIError as exc:
                    log.error("room %s: could not add the agent user %s (seat %s): %s", room, agent, seat, exc)
        log.info("room %s created for task %s with users %s", room, task_id, [w.user_id for w in members])
        return True

    def _move_failed(self, w: Waiting, exc: SlurkAPIError) -> None:
        if user_missing(exc):
            self._forget(w.user_id)
            return
        self._server_trouble()
        if exc.status == 0 or exc.status >= 500:
            with self._lock:
                self.suspects.add(w.user_id)

    def _handle_announce(self, room: int, task_id: int) -> None:
        ack = self._call("room_created", {"room": room, "task": task_id})
        if ack and ack[0] is True:
            self._succeeded(("announce", room))
            return
        if ack is None:  # not connected, or no answer: the task bot may not know the room yet
            self._retry(("announce", room), ("announce", room, task_id),
                        f"room {room}: room_created was not acknowledged")
            return
        log.error("room %s: room_created was refused (%s); the task bot may not join", room, ack)

    def _give_up_room(self, room: int, task_id: int, touched: list[Waiting]) -> None:
        """A room that could not be filled: take out whoever the server may have added, put them back on the
        waiting-room page, make the room read-only, and never use it again."""
        self._count("rooms_given_up")
        with self._lock:
            self.dead_rooms[room] = {"task": task_id, "left_in": {w.user_id for w in touched}, "read_only": False}
        self._handle_cleanup(room)
        for w in touched:
            # Their page may show the new room (and, after `left_room`, "Disconnected!"): `joined_room` of the
            # waiting room brings the waiting-room page back. It is also a probe of whether Slurk can move them.
            if w.user_id in self.people:
                try:
                    self.rest.join_room(w.user_id, self.waiting_room)
                except SlurkAPIError as exc:
                    if not user_missing(exc):
                        with self._lock:
                            self.suspects.add(w.user_id)
                else:
                    with self._lock:
                        self.suspects.discard(w.user_id)

    def _handle_cleanup(self, room: int) -> None:
        with self._lock:
            dead = self.dead_rooms.get(room)
            left_in = sorted(dead["left_in"]) if dead else []
        if dead is None:
            return
        for uid in left_in:
            try:
                self.rest.leave_room(uid, room)
            except SlurkAPIError as exc:
                if not user_missing(exc):
                    continue
            with self._lock:
                dead["left_in"].discard(uid)
        if not dead["read_only"]:
            try:
                self.rest.update_room(room, read_only=True)
                dead["read_only"] = True
            except SlurkAPIError as exc:
                log.warning("room %s: could not make it read-only: %s", room, exc)
        if dead["left_in"] or not dead["read_only"]:
            self._retry(("cleanup", room), ("cleanup", room),
                        f"room {room} (given up) is not cleaned up yet (still in it: {sorted(dead['left_in'])})")
        else:
            self._succeeded(("cleanup", room))


def user_missing(exc: SlurkAPIError) -> bool:
    """A 404 about the user (not about the room)."""
    return exc.status == 404 and "user" in str(exc.errors or exc.message).lower()

