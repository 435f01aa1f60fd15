"""In-memory state of the Slurk test double: entities, validation, serialisation.

Everything here runs on the double's own event loop thread, so no locking is needed.
The behaviour mirrors the Slurk REST API v3 as described in
``shared/reference/slurk-protocol.md`` (and re-checked against a live server).
"""

from __future__ import annotations

import hashlib
import json
import urllib.request
import uuid as uuid_mod
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

MAX_INT = 2**63 - 1


# --------------------------------------------------------------------------- time


def db_timestamp() -> str:
    """`date_created`/`date_modified` as sqlite stores them: UTC, second resolution."""
    return datetime.utcnow().replace(microsecond=0).isoformat()


def event_timestamp() -> str:
    """Socket event timestamps: ``str(datetime.utcnow())`` = ``YYYY-MM-DD HH:MM:SS.ffffff``."""
    now = datetime.utcnow()
    if now.microsecond == 0:  # str() would drop the fraction; keep the format fixed
        now = now.replace(microsecond=1)
    return str(now)


def compute_etag(data: Any) -> str:
    """sha1 of the response JSON with sorted keys (flask-smorest's algorithm), unquoted."""
    return hashlib.sha1(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- errors


class ValidationFailed(Exception):
    """Body/query validation failed: becomes a 422 with ``errors[location]``."""

    def __init__(self, errors: dict, location: str = "json"):
        super().__init__(errors)
        self.errors = errors
        self.location = location


class Invalid(Exception):
    """A single field error message (list-wrapped like marshmallow does)."""

    def __init__(self, message: Any):
        super().__init__(message)
        self.message = message


# --------------------------------------------------------------------------- fields

_MISSING = object()


@dataclass
class Field:
    kind: str  # int, str, bool, uuid, dict, list, list_of_dict, dict_of_dict, scripts, nested
    required: bool = False
    default: Any = _MISSING  # value when absent (Creation schema only)
    allow_none: bool | None = None
    ref: str | None = None  # collection the value must exist in
    minimum: int | None = None
    maximum: int | None = None
    one_of: tuple | None = None
    nested: dict | None = None  # for kind == "nested"
    filterable: bool = True
    data_key: str | None = None  # name in the JSON when it differs

    def none_ok(self) -> bool:
        if self.allow_none is not None:
            return self.allow_none
        return self.default is None


_TRUTHY = {"t", "T", "true", "True", "TRUE", "on", "On", "ON", "y", "Y", "yes", "Yes", "YES", "1", 1}
_FALSY = {"f", "F", "false", "False", "FALSE", "off", "Off", "OFF", "n", "N", "no", "No", "NO", "0", 0}


def _convert(f: Field, value: Any, state: "State") -> Any:
    if value is None:
        if f.none_ok():
            return None
        raise Invalid("Field may not be null.")
    kind = f.kind
    if kind == "int":
        if isinstance(value, bool):
            raise Invalid("Not a valid integer.")
        try:
            if isinstance(value, float):
                if not value.is_integer():
                    raise ValueError
                number = int(value)
            else:
                number = int(value)
        except (TypeError, ValueError):
            raise Invalid("Not a valid integer.") from None
        if f.minimum is not None and (number < f.minimum or number > f.maximum):
            raise Invalid(f"Must be greater than or equal to {f.minimum} and less than or equal to {f.maximum}.")
        if f.ref is not None and state.get(f.ref, number) is None:
            raise Invalid(f"{TABLE_NAMES[f.ref]} `{number}` does not exist")
        return number
    if kind == "str":
        if not isinstance(value, str):
            raise Invalid("Not a valid string.")
        if f.one_of is not None and value not in f.one_of:
            raise Invalid("Must be one of: " + ", ".join(f.one_of) + ".")
        if f.ref is not None and state.get(f.ref, value) is None:
            raise Invalid(f"{TABLE_NAMES[f.ref]} `{value}` does not exist")
        return value
    if kind == "bool":
        try:
            if value in _TRUTHY:
                return True
            if value in _FALSY:
                return False
        except TypeError:  # unhashable
            pass
        raise Invalid("Not a valid boolean.")
    if kind == "uuid":
        try:
            text = str(uuid_mod.UUID(value)) if isinstance(value, str) else None
        except ValueError:
            text = None
        if text is None:
            raise Invalid("Not a valid UUID.")
        if f.ref is not None and state.get(f.ref, text) is None:
            raise Invalid(f"Token `{text}` does not exist")
        return text
    if kind == "list":
        if not isinstance(value, list):
            raise Invalid("Not a valid list.")
        return value
    if kind == "dict":
        if not isinstance(value, dict):
            raise Invalid("Not a valid mapping type.")
        return value
    if kind == "list_of_dict":
        if not isinstance(value, list):
            raise Invalid("Not a valid list.")
        bad = {str(i): ["Not a valid mapping type."] for i, item in enumerate(value) if not isinstance(item, dict)}
        if bad:
            raise Invalid(bad)
        return value
    if kind == "dict_of_dict":
        if not isinstance(value, dict):
            raise Invalid("Not a valid mapping type.")
        bad = {k: {"value": ["Not a valid mapping type."]} for k, v in value.items() if not isinstance(v, dict)}
        if bad:
            raise Invalid(bad)
        return value
    if kind == "scripts":
        if not isinstance(value, dict):
            raise Invalid({"_schema": ["Invalid input type."]})
        errors: dict = {}
        result = {}
        for trigger in SCRIPT_TRIGGERS:
            source = value.get(trigger)
            if source is not None and not (
                isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))
            ):
                errors[trigger] = ["Field should be str or list of strings"]
            result[trigger] = source
        for key in value:
            if key not in SCRIPT_TRIGGERS:
                errors[key] = ["Unknown field."]
        if errors:
            raise Invalid(errors)
        return result
    if kind == "nested":
        if not isinstance(value, dict):
            raise Invalid({"_schema": ["Invalid input type."]})
        loaded, errors = _load_fields(f.nested, value, state, creation=True)
        if errors:
            raise Invalid(errors)
        return loaded
    raise AssertionError(kind)


def _load_fields(fields: dict, data: dict, state: "State", *, creation: bool) -> tuple[dict, dict]:
    result: dict = {}
    errors: dict = {}
    by_key = {(f.data_key or name): (name, f) for name, f in fields.items()}
    for key in data:
        if key not in by_key:
            errors[key] = ["Unknown field."]
    for key, (name, f) in by_key.items():
        if key in data:
            try:
                result[name] = _convert(f, data[key], state)
            except Invalid as exc:
                errors[key] = exc.message if isinstance(exc.message, dict) else [exc.message]
        elif creation:
            if f.required:
                errors[key] = ["Missing data for required field."]
            elif f.default is not _MISSING:
                default = f.default() if callable(f.default) else f.default
                result[name] = default
    return result, errors


def load_body(fields: dict, data: Any, state: "State", *, creation: bool) -> dict:
    """Validate a JSON body like marshmallow with ``unknown = RAISE``."""
    if not isinstance(data, dict):
        raise ValidationFailed({"_schema": ["Invalid input type."]})
    result, errors = _load_fields(fields, data, state, creation=creation)
    if errors:
        raise ValidationFailed(errors)
    return result


def load_filters(fields: dict, query, state: "State") -> dict:
    """Query-string filters: only int/str/bool/uuid load fields; unknown params are ignored."""
    result: dict = {}
    errors: dict = {}
    for name, f in fields.items():
        key = f.data_key or name
        if not f.filterable or f.kind not in ("int", "str", "bool", "uuid") or key not in query:
            continue
        raw = query.get(key)
        probe = Field(f.kind, ref=f.ref, allow_none=True)
        try:
            result[name] = _convert(probe, raw, state)
        except Invalid as exc:
            errors[key] = [exc.message]
    if errors:
        raise ValidationFailed(errors, location="query")
    return result


# --------------------------------------------------------------------------- schemas

SCRIPT_TRIGGERS = (
    "incoming-text",
    "incoming-image",
    "submit-message",
    "print-history",
    "typing-users",
    "document-ready",
    "plain",
)

TOKEN_OPENVIDU_FIELDS = {
    "start_with_audio": Field("bool"),
    "start_with_video": Field("bool"),
    "video_resolution": Field("str"),
    "video_framerate": Field("int"),
    "video_min_recv_bandwidth": Field("int"),
    "video_max_recv_bandwidth": Field("int"),
    "video_min_send_bandwidth": Field("int"),
    "video_max_send_bandwidth": Field("int"),
    "video_publisher_location": Field("str", allow_none=True),
    "video_subscribers_location": Field("str", allow_none=True),
    "allowed_filters": Field("list"),
}

LAYOUT_OPENVIDU_DEFAULTS = {
    "start_with_audio": True,
    "start_with_video": True,
    "video_resolution": "640x480",
    "video_framerate": 30,
    "video_min_recv_bandwidth": 300,
    "video_max_recv_bandwidth": 1000,
    "video_min_send_bandwidth": 300,
    "video_max_send_bandwidth": 1000,
    "video_publisher_location": "header",
    "video_subscribers_location": "sidebar",
    "allowed_filters": [],
}
LAYOUT_OPENVIDU_FIELDS = {
    name: Field(f.kind, default=LAYOUT_OPENVIDU_DEFAULTS[name], allow_none=f.allow_none)
    for name, f in TOKEN_OPENVIDU_FIELDS.items()
}


PERMISSION_FLAGS = (
    "api",
    "send_message",
    "send_html_message",
    "send_image",
    "send_command",
    "send_privately",
    "receive_bounding_box",
    "broadcast",
)

SCHEMAS: dict[str, dict[str, Field]] = {
    "permissions": {
        **{flag: Field("bool", default=False) for flag in PERMISSION_FLAGS},
        "openvidu_role": Field("str", default=None, one_of=("SUBSCRIBER", "PUBLISHER", "MODERATOR")),
    },
    "tokens": {
        "permissions_id": Field("int", required=True, ref="permissions"),
        "registrations_left": Field("int", default=1, minimum=-1, maximum=MAX_INT),
        "room_id": Field("int", default=None, ref="rooms"),
        "task_id": Field("int", default=None, ref="tasks"),
        "openvidu_settings": Field("nested", default=dict, nested=TOKEN_OPENVIDU_FIELDS, filterable=False),
    },
    "users": {
        "name": Field("str", required=True),
        "token_id": Field("uuid", required=True, ref="tokens"),
    },
    "layouts": {
        "title": Field("str", required=True),
        "subtitle": Field("str", default=None),
        "html_obj": Field("list_of_dict", default=list, data_key="html"),
        "css_obj": Field("dict_of_dict", default=dict, data_key="css"),
        "scripts": Field("scripts", default=dict),
        "show_users": Field("bool", default=True),
        "show_latency": Field("bool", default=True),
        "read_only": Field("bool", default=False),
        "openvidu_settings": Field(
            "nested", default=lambda: dict(LAYOUT_OPENVIDU_DEFAULTS), nested=LAYOUT_OPENVIDU_FIELDS, filterable=False
        ),
    },
    "rooms": {
        "layout_id": Field("int", required=True, ref="layouts"),
        "read_only": Field("bool", default=False),
        "openvidu_session_id": Field("str", ref="sessions", allow_none=True),
    },
    "tasks": {
        "name": Field("str", required=True),
        "num_users": Field("int", required=True, minimum=0, maximum=MAX_INT),
        "layout_id": Field("int", required=True, ref="layouts"),
    },
    "logs": {
        "event": Field("str", required=True),
        "user_id": Field("int", default=None, ref="users"),
        "room_id": Field("int", default=None, ref="rooms"),
        "receiver_id": Field("int", default=None, ref="users"),
        "data": Field("dict", default=dict),
    },
}

# Room UI bodies are plain marshmallow schemas (unknown fields also raise).
UI_SCHEMAS: dict[str, dict[str, Field]] = {
    "attribute": {
        "attribute": Field("str", required=True),
        "value": Field("str", required=True),
        "receiver_id": Field("int", default=None, ref="users"),
    },
    "text": {
        "text": Field("str", required=True),
        "receiver_id": Field("int", default=None, ref="users"),
    },
    "class": {
        "class": Field("str", required=True),
        "receiver_id": Field("int", default=None, ref="users"),
    },
}

TABLE_NAMES = {
    "permissions": "Permissions",
    "tokens": "Token",
    "users": "User",
    "layouts": "Layout",
    "rooms": "Room",
    "tasks": "Task",
    "logs": "Log",
    "sessions": "Session",
}

PATH_PARAMS = {
    "permissions": "permissions_id",
    "tokens": "token_id",
    "users": "user_id",
    "layouts": "layout_id",
    "rooms": "room_id",
    "tasks": "task_id",
    "logs": "log_id",
}


# --------------------------------------------------------------------------- layout compiler


def _render_attributes(attributes) -> str:
    return "".join(f" {name}='{value}'" for name, value in attributes if value)


def _render_nodes(node, indent: int = 0) -> str:
    if not node:
        return ""
    if isinstance(node, str):
        return " " * indent + node + "\n"
    out = ""
    for entry in node:
        if isinstance(entry, str):
            out += entry
            continue
        if not isinstance(entry, dict):
            continue
        tag = entry.get("layout-type")
        if not tag:
            continue
        if tag == "br":
            out += " " * indent + "<br>\n"
            continue
        attrs = [(k, v) for k, v in entry.items() if k not in ("layout-type", "layout-content")]
        content = entry.get("layout-content")
        text = " " * indent + f"<{tag}{_render_attributes(attrs)}"
        if content:
            text += ">\n" + _render_nodes(content, indent + 4) + " " * indent + f"</{tag}"
        elif tag == "img":
            text += " /"
        else:
            text += f"></{tag}"
        out += text + ">\n"
    return out


def compile_html(html_obj: list) -> str:
    return _render_nodes(html_obj)


def compile_css(css_obj: dict) -> str:
    out = ""
    for selector, declarations in css_obj.items():
        out += f"{selector} {{\n"
        for prop, value in declarations.items():
            out += f"    {prop}: {value};\n"
        out += "}\n\n"
    return out


_TRIGGER_WRAPPERS: dict[str, Callable[[str], str]] = {
    "incoming-text": lambda c: "incoming_text = function(data) {\n" + c + "\n}\n",
    "incoming-image": lambda c: "incoming_image = function(data) {\n" + c + "\n}\n",
    "submit-message": lambda c: "keypress = function(current_room, current_user, current_timestamp, text) {" + c + "}",
    "print-history": lambda c: "print_history = function(element) {\n" + c + "\n}\n",
    "typing-users": lambda c: "update_typing = function(users) {\n" + c + "\n}\n",
    "document-ready": lambda c: "$(document).ready(function(){" + c + "});",
    "plain": lambda c: c,
}


def fetch_script_source(source: str) -> str:
    """Resolve one script source like the real server does.

    URLs (``data:text/javascript;base64,...``, ``http(s)://``, ``file:``) are read with urllib and
    embedded. Slurk also looks for a built-in plugin file of that name; the double ships no plugin
    files, so a bare plugin name contributes only a marker comment.
    """
    if source.startswith("data:") or "://" in source:
        try:
            with urllib.request.urlopen(source, timeout=5) as response:
                return response.read().decode("utf-8") + "\n\n"
        except Exception:  # the real server ignores failures too
            return ""
    return f"/* slurk-double: built-in plugin {source!r} */\n\n"


def compile_script(scripts: dict, fetch: Callable[[str], str] = fetch_script_source) -> str | None:
    if not scripts:
        return None
    out = ""
    for trigger in SCRIPT_TRIGGERS:
        if trigger not in scripts:
            continue
        sources = scripts[trigger]
        if isinstance(sources, str):
            sources = [sources]
        content = "".join(fetch(s) for s in (sources or []))
        if content.count("{") != content.count("}"):
            compiled = ""
        else:
            compiled = _TRIGGER_WRAPPERS[trigger](content)
        out += compiled + "\n\n\n"
    return out or None


# --------------------------------------------------------------------------- entities


@dataclass
class Entity:
    id: Any
    date_created: str = field(default_factory=db_timestamp)
    date_modified: str | None = None

    def touch(self) -> None:
        self.date_modified = db_timestamp()


@dataclass
class Permissions(Entity):
    api: bool = False
    send_message: bool = False
    send_html_message: bool = False
    send_image: bool = False
    send_command: bool = False
    send_privately: bool = False
    receive_bounding_box: bool = False
    broadcast: bool = False
    openvidu_role: str | None = None


@dataclass
class Token(Entity):
    permissions_id: int = 0
    registrations_left: int = 1
    room_id: int | None = None
    task_id: int | None = None
    openvidu_settings: dict = field(default_factory=dict)


@dataclass
class User(Entity):
    name: str = ""
    token_id: str = ""
    session_id: str | None = None


@dataclass
class Layout(Entity):
    title: str = ""
    subtitle: str | None = None
    html: str | None = ""
    css: str | None = ""
    script: str | None = None
    show_users: bool = True
    show_latency: bool = True
    read_only: bool = False
    openvidu_settings: dict = field(default_factory=dict)
    source: dict = field(default_factory=dict)  # the JSON it was created from (double only)


@dataclass
class Room(Entity):
    layout_id: int = 0
    read_only: bool = False
    openvidu_session_id: str | None = None


@dataclass
class Task(Entity):
    name: str = ""
    num_users: int = 0
    layout_id: int = 0


@dataclass
class Log(Entity):
    event: str = ""
    user_id: int | None = None
    room_id: int | None = None
    receiver_id: int | None = None
    data: Any = field(default_factory=dict)


ENTITY_CLASSES = {
    "permissions": Permissions,
    "tokens": Token,
    "users": User,
    "layouts": Layout,
    "rooms": Room,
    "tasks": Task,
    "logs": Log,
}

DUMP_FIELDS = {
    "permissions": ("id", "date_created", "date_modified", *PERMISSION_FLAGS, "openvidu_role"),
    "tokens": (
        "id",
        "date_created",
        "date_modified",
        "permissions_id",
        "registrations_left",
        "room_id",
        "task_id",
        "openvidu_settings",
    ),
    "users": ("id", "date_created", "date_modified", "name", "session_id"),
    "layouts": (
        "id",
        "date_created",
        "date_modified",
        "title",
        "subtitle",
        "html",
        "css",
        "script",
        "show_users",
        "show_latency",
        "read_only",
        "openvidu_settings",
    ),
    "rooms": ("id", "date_created", "date_modified", "layout_id", "read_only", "openvidu_session_id"),
    "tasks": ("id", "date_created", "date_modified", "name", "num_users", "layout_id"),
    "logs": ("id", "date_created", "date_modified", "event", "user_id", "room_id", "receiver_id", "data"),
}


def dump(collection: str, entity: Entity | None) -> dict:
    if entity is None:
        return {}
    return {name: getattr(entity, name) for name in DUMP_FIELDS[collection]}


# --------------------------------------------------------------------------- state


class InUse(Exception):
    pass


class State:
    """All rows of the double. Memberships are (user_id, room_id) pairs in insertion order."""

    def __init__(self, admin_token: str):
        self.tables: dict[str, dict[Any, Entity]] = {name: {} for name in ENTITY_CLASSES}
        self.tables["sessions"] = {}
        self._next_id = {name: 1 for name in ENTITY_CLASSES}
        self.memberships: list[tuple[int, int]] = []
        admin_perms = self.insert("permissions", {"api": True})
        self.insert(
            "tokens",
            {"permissions_id": admin_perms.id, "registrations_left": -1, "openvidu_settings": {}},
            id=admin_token,
        )

    # -- generic rows
    def get(self, collection: str, key: Any) -> Entity | None:
        table = self.tables[collection]
        if collection == "tokens":
            return table.get(str(key)) if key is not None else None
        try:
            return table.get(int(key)) if key is not None and not isinstance(key, bool) else None
        except (TypeError, ValueError):
            return None

    def insert(self, collection: str, values: dict, id: Any = None) -> Entity:
        cls = ENTITY_CLASSES[collection]
        if id is None:
            if collection == "tokens":
                id = str(uuid_mod.uuid4())
            else:
                id = self._next_id[collection]
                self._next_id[collection] += 1
        allowed = set(DUMP_FIELDS[collection]) | {"token_id", "source"}
        entity = cls(id=id, **{k: v for k, v in values.items() if k in allowed})
        self.tables[collection][id] = entity
        return entity

    def update(self, collection: str, entity: Entity, values: dict) -> Entity:
        for name, value in values.items():
            setattr(entity, name, value)
        entity.touch()
        return entity

    def listing(self, collection: str, filters: dict) -> list[Entity]:
        rows = [r for r in self.tables[collection].values() if all(getattr(r, k) == v for k, v in filters.items())]
        # date_created DESC; within a second the newest row first
        rows.sort(key=lambda r: (r.date_created, self._order_key(collection, r)), reverse=True)
        return rows

    def _order_key(self, collection: str, row: Entity):
        if collection == "tokens":
            return list(self.tables["tokens"]).index(row.id)
        return row.id

    def delete(self, collection: str, entity: Entity) -> None:
        if self._referenced(collection, entity):
            raise InUse(f"{TABLE_NAMES[collection]} `{entity.id}` is still in use")
        del self.tables[collection][entity.id]
        if collection == "users":
            self.memberships = [m for m in self.memberships if m[0] != entity.id]
            self.tables["logs"] = {
                k: v for k, v in self.tables["logs"].items() if entity.id not in (v.user_id, v.receiver_id)
            }
        if collection == "rooms":
            self.memberships = [m for m in self.memberships if m[1] != entity.id]
            self.tables["logs"] = {k: v for k, v in self.tables["logs"].items() if v.room_id != entity.id}

    def _referenced(self, collection: str, entity: Entity) -> bool:
        tokens = self.tables["tokens"].values()
        if collection == "permissions":
            return any(t.permissions_id == entity.id for t in tokens)
        if collection == "tokens":
            return any(u.token_id == entity.id for u in self.tables["users"].values())
        if collection == "layouts":
            return any(r.layout_id == entity.id for r in self.tables["rooms"].values()) or any(
                t.layout_id == entity.id for t in self.tables["tasks"].values()
            )
        if collection == "rooms":
            return any(t.room_id == entity.id for t in tokens)
        if collection == "tasks":
            return any(t.task_id == entity.id for t in tokens)
        return False

    # -- relations
    def token_of(self, user: User) -> Token:
        return self.tables["tokens"][user.token_id]

    def permissions_of(self, user: User) -> Permissions:
        return self.tables["permissions"][self.token_of(user).permissions_id]

    def rooms_of(self, user: User) -> list[Room]:
        ids = sorted(r for u, r in self.memberships if u == user.id)
        return [self.tables["rooms"][r] for r in ids]

    def users_of(self, room: Room) -> list[User]:
        return [self.tables["users"][u] for u, r in self.memberships if r == room.id]

    def is_member(self, user: User, room: Room) -> bool:
        return (user.id, room.id) in self.memberships

    def add_member(self, user: User, room: Room) -> None:
        if not self.is_member(user, room):
            self.memberships.append((user.id, room.id))

    def remove_member(self, user: User, room: Room) -> None:
        if self.is_member(user, room):
            self.memberships.remove((user.id, room.id))

    def layout_of(self, room: Room) -> Layout:
        return self.tables["layouts"][room.layout_id]

    def user_by_credentials(self, token: str | None, user_id: str | None) -> User | None:
        if token is None or user_id is None:
            return None
        user = self.get("users", user_id)
        if user is None or user.token_id != token.strip():
            return None
        return user

    def user_by_session(self, sid: str) -> User | None:
        for user in self.tables["users"].values():
            if user.session_id == sid:
                return user
        return None

    def add_log(
        self,
        event: str,
        user: User | None = None,
        room: Room | None = None,
        receiver: User | None = None,
        data: Any = None,
    ) -> Log:
        return self.insert(
            "logs",
            {
                "event": event,
                "user_id": user.id if user else None,
                "room_id": room.id if room else None,
                "receiver_id": receiver.id if receiver else None,
                "data": data or {},
            },
        )
