"""Socket.IO side of the Slurk test double (namespace "/", default path).

Mirrors the Slurk 3 event handlers: authentication from the handshake request only,
ack-gated ``status: join``, the ``emit_message`` check order and ack strings, and
the quirks a bot framework must live with (bad credentials still connect, one sid per
user, membership kept across disconnects). See ``shared/reference/slurk-protocol.md`` §2.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs

import socketio

from .model import Room, State, User, event_timestamp

_BEARER = re.compile(r"bearer\s+", re.IGNORECASE)


def credentials_from_environ(environ: dict) -> tuple[str | None, str | None]:
    """Token and user id as Flask-Login's request loader reads them."""
    query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
    token = environ.get("HTTP_AUTHORIZATION") or (query.get("token") or [None])[0]
    user_id = (query.get("user") or [None])[0] or environ.get("HTTP_USER")
    if token is None or user_id is None:
        return None, None
    return _BEARER.sub("", token), user_id


class SocketHub:
    """Owns the AsyncServer and every room/user side effect that emits events."""

    dead = False  # set by SlurkDouble.crash(): a killed server runs no disconnect handler

    def __init__(self, state: State, cors_allowed_origins: Any = None):
        self.state = state
        self.sio = socketio.AsyncServer(
            async_mode="aiohttp",
            ping_interval=5,  # Slurk's settings
            ping_timeout=120,
            cors_allowed_origins=cors_allowed_origins,  # None = same origin only, like Slurk
            logger=False,
            engineio_logger=False,
        )
        # sid -> (token, user id) taken from the handshake; re-resolved on every event
        self._credentials: dict[str, tuple[str | None, str | None]] = {}
        self._register()

    # ------------------------------------------------------------------ helpers
    def current_user(self, sid: str) -> User | None:
        token, user_id = self._credentials.get(sid, (None, None))
        return self.state.user_by_credentials(token, user_id)

    @staticmethod
    def user_ref(user: User) -> dict:
        return {"id": user.id, "name": user.name}

    async def emit(self, event: str, data: Any, to: str | None = None, callback=None) -> None:
        await self.sio.emit(event, data, to=to, namespace="/", callback=callback)

    # ------------------------------------------------------------------ membership side effects
    async def join_room(self, user: User, room: Room) -> None:
        """``User.join_room``: membership, then (if online) socket join + acked joined_room + log."""
        state = self.state
        state.add_member(user, room)
        if user.session_id is None:
            return
        sid = user.session_id
        await self.sio.enter_room(sid, str(room.id), namespace="/")
        who = self.user_ref(user)
        room_id = room.id

        async def joined(*_ack_args):
            await self.emit(
                "status",
                {"type": "join", "user": who, "room": room_id, "timestamp": event_timestamp()},
                to=str(room_id),
            )

        await self.emit("joined_room", {"room": room.id, "user": user.id}, to=sid, callback=joined)
        state.add_log("join", user, room)

    async def leave_room(self, user: User, room: Room, event_only: bool = False) -> None:
        """``User.leave_room``: drop membership unless event_only; left_room/log if online; status always."""
        state = self.state
        if not event_only:
            state.remove_member(user, room)
        if user.session_id is not None:
            state.add_log("leave", user, room)
            await self.emit("left_room", {"room": room.id, "user": user.id}, to=user.session_id)
            await self.sio.leave_room(user.session_id, str(room.id), namespace="/")
        await self.emit(
            "status",
            {"type": "leave", "user": self.user_ref(user), "room": room.id, "timestamp": event_timestamp()},
            to=str(room.id),
        )

    async def room_ui_event(self, event: str, data: dict, target: str) -> None:
        await self.emit(event, data, to=target)

    # ------------------------------------------------------------------ handlers
    def _register(self) -> None:
        sio = self.sio
        sio.on("connect", self.on_connect)
        sio.on("disconnect", self.on_disconnect)
        for name in (
            "text",
            "message_command",
            "image",
            "room_created",
            "keypress",
            "typed_message",
            "mouse",
            "keystroke",
            "bounding_box",
        ):
            sio.on(name, getattr(self, f"on_{name}"))

    async def on_connect(self, sid: str, environ: dict, auth: Any = None) -> None:
        # Bad credentials are *accepted* (Slurk's login_required returns a redirect, not False).
        self._credentials[sid] = credentials_from_environ(environ)
        user = self.current_user(sid)
        if user is None:
            return None
        user.session_id = sid
        user.touch()
        for room in self.state.rooms_of(user):
            await self.join_room(user, room)
        self.state.add_log("connect", user)
        return None

    async def on_disconnect(self, sid: str, *_reason) -> None:
        if self.dead:
            return
        user = self.current_user(sid)
        self._credentials.pop(sid, None)
        if user is None:
            return
        # Slurk acts on the user's *current* session id, even if a newer connection replaced ours.
        for room in self.state.rooms_of(user):
            await self.leave_room(user, room, event_only=True)
        user.session_id = None
        user.touch()
        self.state.add_log("disconnect", user)

    async def _emit_message(self, user: User, event: str, payload: dict, data: dict):
        state = self.state
        if "room" not in payload:
            return False, 'missing argument: "room"'
        room = state.get("rooms", payload["room"])
        if room is None:
            return False, "Room not found"
        perms = state.permissions_of(user)
        broadcast = data["broadcast"] = payload.get("broadcast", False)
        receiver = None
        if broadcast:
            if not perms.broadcast:
                return False, "You are not allowed to broadcast"
            target, private = None, False
        elif "receiver_id" in payload:
            if not perms.send_privately:
                return False, "You are not allowed to send privately"
            receiver_id = payload["receiver_id"]
            receiver = state.get("users", receiver_id)
            if receiver is None:
                return False, f'User "{receiver_id}" does not exist'
            if not receiver.session_id:
                return False, f'User "{receiver_id}" is not logged in'
            if not state.is_member(receiver, room):
                return False, f'User "{receiver_id}" is not in this room'
            target, private = receiver.session_id, True
        else:
            if not state.is_member(user, room):
                return False, "Not in room"
            if state.layout_of(room).read_only or room.read_only:
                return False, f"Room {room.id} is read-only"
            target, private = str(room.id), False

        sender = self.user_ref(user)
        impersonate = payload.get("impersonate")
        if impersonate:
            for member in state.users_of(room):
                if member.id == impersonate:
                    sender = self.user_ref(member)

        message = {"user": sender, "room": room.id, "timestamp": event_timestamp(), "private": private, **data}
        await self.emit(event, message, to=target)
        state.add_log(event, user, room, receiver if private and not broadcast else None, dict(data))
        for member_room in state.rooms_of(user):
            await self.emit("stop_typing", {"user": sender, "room": member_room.id}, to=str(member_room.id))
        return True

    async def on_text(self, sid: str, payload: Any = None):
        user = self.current_user(sid)
        if user is None or not isinstance(payload, dict):
            return self.sio.not_handled  # Slurk crashes while acking: the callback never fires
        perms = self.state.permissions_of(user)
        html = payload.get("html", False)
        if not perms.send_html_message and (html or not perms.send_message):
            return False, "insufficient rights"
        if "message" not in payload:
            return False, 'missing argument: "message"'
        return await self._emit_message(user, "text_message", payload, {"message": payload["message"], "html": html})

    async def on_message_command(self, sid: str, payload: Any = None):
        user = self.current_user(sid)
        if user is None or not isinstance(payload, dict):
            return self.sio.not_handled
        if not self.state.permissions_of(user).send_command:
            return False, "insufficient rights"
        if "command" not in payload:
            return False, 'missing argument: "command"'
        return await self._emit_message(user, "command", payload, {"command": payload["command"]})

    async def on_image(self, sid: str, payload: Any = None):
        user = self.current_user(sid)
        if user is None or not isinstance(payload, dict):
            return self.sio.not_handled
        if not self.state.permissions_of(user).send_image:
            return False, "insufficient rights"
        if "url" not in payload:
            return False, 'missing argument: "url"'
        data = {"url": payload["url"], "width": payload.get("width"), "height": payload.get("height")}
        return await self._emit_message(user, "image_message", payload, data)

    async def on_room_created(self, sid: str, payload: Any = None):
        # No login and no permission check in Slurk.
        if not isinstance(payload, dict):
            return self.sio.not_handled
        state = self.state
        room = state.get("rooms", payload["room"]) if "room" in payload else None
        task = state.get("tasks", payload["task"]) if "task" in payload else None
        if room is None:
            return False, 'Room "None" does not exist'  # Slurk formats the (missing) row, not the id
        if "task" in payload and task is None:
            return False, 'Task "None" does not exist'
        await self.emit("new_room", {"room": room.id})
        if task is not None:
            users = [self.user_ref(u) for u in state.users_of(room)]
            await self.emit("new_task_room", {"room": room.id, "task": task.id, "users": users})
        return True

    async def on_keypress(self, sid: str, payload: Any = None):
        if not isinstance(payload, dict):
            return self.sio.not_handled
        typing = payload.get("typing")
        user = self.current_user(sid)
        if typing is None or user is None:
            return None
        event = "start_typing" if typing else "stop_typing"
        for room in self.state.rooms_of(user):
            await self.emit(event, {"user": self.user_ref(user), "room": room.id}, to=str(room.id))
        return None

    async def on_typed_message(self, sid: str, payload: Any = None):
        user = self.current_user(sid)
        if user is None:
            return None
        if not isinstance(payload, dict) or "text" not in payload:
            return self.sio.not_handled
        for room in self.state.rooms_of(user):
            await self.emit("typed_message", {"user": self.user_ref(user), "text": payload["text"]}, to=str(room.id))
        return None

    async def on_mouse(self, sid: str, payload: Any = None):
        user = self.current_user(sid)
        if user is None:
            return False, "invalid session id"
        if not isinstance(payload, dict):
            return self.sio.not_handled
        room = self.state.get("rooms", payload["room"]) if "room" in payload else None
        if room is None:
            return False, "Room not found"
        data = {
            "type": payload.get("type"),
            "coordinates": payload.get("coordinates"),
            "element_id": payload.get("element_id"),
        }
        message = {"user": self.user_ref(user), "room": room.id, "timestamp": event_timestamp(), **data}
        await self.emit("mouse", message, to=str(room.id))
        self.state.add_log("mouse", user, room, data=data)
        return None

    async def on_keystroke(self, sid: str, payload: Any = None):
        user = self.current_user(sid)
        if user is None:
            return False, "invalid session id"
        if not isinstance(payload, dict) or "room" not in payload or not isinstance(payload.get("data"), dict):
            return self.sio.not_handled
        room = self.state.get("rooms", payload["room"])
        if room is None:
            return False, "Room not found"
        data = dict(payload["data"], timestamp=event_timestamp())
        self.state.add_log("keystroke", user, room, data=data)
        return None

    async def on_bounding_box(self, sid: str, payload: Any = None):
        if not isinstance(payload, dict):
            return self.sio.not_handled
        if "room" not in payload:
            return False, 'missing argument: "room"'
        payload = dict(payload)
        room = self.state.get("rooms", payload.pop("room"))
        if room is None:
            return False, "Room not found"
        user = self.current_user(sid)
        if user is None or not self.state.is_member(user, room):
            return False, "User not in this room"
        if "type" not in payload:
            return False, "Missing type"
        if payload["type"] == "add" and "coordinates" not in payload:
            return False, "Missing coordinates"
        self.state.add_log("bounding_box", user, room, data=payload)
        for member in self.state.users_of(room):
            if member.session_id and self.state.permissions_of(member).receive_bounding_box:
                await self.emit(
                    "bounding_box", {"user": self.user_ref(user), "room": room.id, **payload}, to=member.session_id
                )
        return None
