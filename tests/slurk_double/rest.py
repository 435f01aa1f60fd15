"""REST API v3 of the Slurk test double (``/slurk/api/...``), on aiohttp.

Every request goes through :meth:`RestApi.run`, which applies Slurk's checks in the
order its decorators apply them: If-Match present (428) -> path entities (404) ->
entity ETag (412) -> query/body validation (415/400/422) -> api token (401) -> action.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Awaitable, Callable

from aiohttp import web

from . import model
from .model import (
    PATH_PARAMS,
    SCHEMAS,
    TABLE_NAMES,
    UI_SCHEMAS,
    InUse,
    State,
    ValidationFailed,
    compute_etag,
    dump,
)
from .sockets import SocketHub, credentials_from_environ

PREFIX = "/slurk/api"
ID = r"{id:\d+}"
UUID = r"{id:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}}"

MESSAGES = {
    304: "",
    400: "The browser (or proxy) sent a request that this server could not understand.",
    401: (
        "The server could not verify that you are authorized to access the URL requested. You either supplied "
        "the wrong credentials (e.g. a bad password), or your browser doesn't understand how to supply the "
        "credentials required."
    ),
    404: (
        "The requested URL was not found on the server. If you entered the URL manually please check your "
        "spelling and try again."
    ),
    405: "The method is not allowed for the requested URL.",
    412: "The precondition on the request for the URL failed positive evaluation.",
    415: "The server does not support the media type transmitted in the request.",
    422: "The request was well-formed but was unable to be followed due to semantic errors.",
    428: 'This request is required to be conditional; try using "If-Match".',
    500: "The server encountered an internal error and was unable to complete your request.",
}
STATUS_NAMES = {code: HTTPStatus(code).phrase for code in MESSAGES}
STATUS_NAMES[422] = "Unprocessable Entity"

NEEDS_IF_MATCH = ("PUT", "PATCH", "DELETE")
SETS_ETAG = ("GET", "HEAD", "POST", "PUT", "PATCH")


class ApiError(Exception):
    def __init__(self, code: int, errors: dict | None = None):
        super().__init__(code)
        self.code = code
        self.errors = errors

    def response(self) -> web.Response:
        payload: dict[str, Any] = {"code": self.code, "message": MESSAGES[self.code], "status": STATUS_NAMES[self.code]}
        if self.errors:
            payload["errors"] = self.errors
        return json_response(payload, self.code)


def json_response(payload: Any, status: int) -> web.Response:
    body = json.dumps(payload, sort_keys=True).encode("utf-8")
    return web.Response(body=body, status=status, content_type="application/json")


def parse_etags(header: str | None) -> tuple[bool, set[str]]:
    """(star, strong tags) of an If-Match / If-None-Match header, like werkzeug."""
    if not header:
        return False, set()
    header = header.strip()
    if header == "*":
        return True, set()
    tags = set()
    for match in re.finditer(r'\s*(W/)?(?:"([^"]*)"|([^,\s]+))\s*(?:,|$)', header):
        weak, quoted, bare = match.groups()
        if not weak:
            tags.add(quoted if quoted is not None else bare)
    return False, tags


@dataclass
class Ctx:
    """Everything an endpoint action receives."""

    request: web.Request
    entities: dict
    body: dict | None
    query: dict | None


class RestApi:
    def __init__(self, state: State, hub: SocketHub, etag: bool):
        self.state = state
        self.hub = hub
        self.etag = etag

    # ------------------------------------------------------------------ pipeline
    def is_api_token(self, request: web.Request) -> bool:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer":
            return False
        row = self.state.get("tokens", token.strip())
        return bool(row) and self.state.tables["permissions"][row.permissions_id].api

    async def run(
        self,
        request: web.Request,
        action: Callable[[Ctx], Awaitable[tuple[int, Any]]],
        *,
        entities: tuple = (),  # (collection, check_etag)
        body: dict | None = None,
        creation: bool = True,
        query: dict | None = None,
        auth: bool = True,
        etag_route: bool = True,
    ) -> web.Response:
        try:
            return await self._run(request, action, entities, body, creation, query, auth, etag_route)
        except ApiError as exc:
            return exc.response()

    async def _run(self, request, action, entities, body, creation, query, auth, etag_route):
        etag_on = self.etag and etag_route
        method = request.method
        if_match = parse_etags(request.headers.get("If-Match"))
        if etag_on and method in NEEDS_IF_MATCH and not (if_match[0] or if_match[1]):
            raise ApiError(428)

        found = {}
        for (collection, check_etag), raw_id in zip(entities, self._path_ids(request)):
            row = self.state.get(collection, raw_id)
            if row is None:
                key = PATH_PARAMS[collection]
                shown = raw_id.lower() if collection == "tokens" else raw_id
                raise ApiError(404, {"query": {key: f"{TABLE_NAMES[collection]} `{shown}` does not exist"}})
            if etag_on and check_etag and method in NEEDS_IF_MATCH:
                star, tags = if_match
                if not star and compute_etag(dump(collection, row)) not in tags:
                    raise ApiError(412)
            found[collection] = row

        filters = None
        if query is not None:
            try:
                filters = model.load_filters(query, request.query, self.state)
            except ValidationFailed as exc:
                raise ApiError(422, {exc.location: exc.errors}) from None

        loaded = None
        if body is not None:
            raw = await request.read()
            if raw and request.headers.get("Content-Type") != "application/json":
                raise ApiError(415)
            data: Any = {}
            if raw:
                try:
                    data = json.loads(raw)
                except ValueError:
                    raise ApiError(400, {"json": ["Invalid JSON body."]}) from None
            try:
                loaded = model.load_body(body, data, self.state, creation=creation)
            except ValidationFailed as exc:
                raise ApiError(422, {exc.location: exc.errors}) from None

        if auth and not self.is_api_token(request):
            raise ApiError(401)

        status, payload = await action(Ctx(request, found, loaded, filters))
        if status == 204:
            return web.Response(status=204, content_type="application/json")
        response = json_response(payload, status)
        if etag_on and method in SETS_ETAG:
            tag = compute_etag(payload)
            if method in ("GET", "HEAD"):
                star, tags = parse_etags(request.headers.get("If-None-Match"))
                if star or tag in tags:
                    return web.Response(status=304)
            response.headers["ETag"] = f'"{tag}"'
        return response

    @staticmethod
    def _path_ids(request: web.Request) -> list[str]:
        info = request.match_info
        return [info[k] for k in ("id", "id2") if k in info]

    # ------------------------------------------------------------------ routes
    def add_routes(self, app: web.Application) -> None:
        r = app.router
        for collection in SCHEMAS:
            base = f"{PREFIX}/{collection}"
            item = f"{base}/{UUID if collection == 'tokens' else ID}"
            r.add_get(base, self._list(collection), allow_head=False)
            r.add_post(base, self._create(collection))
            r.add_get(item, self._get(collection), allow_head=False)
            r.add_put(item, self._replace(collection))
            r.add_patch(item, self._patch(collection))
            r.add_delete(item, self._delete(collection))

        r.add_get(f"{PREFIX}/users/{ID}/task", self.user_task, allow_head=False)
        r.add_get(f"{PREFIX}/users/{ID}/permissions", self.user_permissions, allow_head=False)
        r.add_get(f"{PREFIX}/users/{ID}/rooms", self.user_rooms, allow_head=False)
        r.add_post(f"{PREFIX}/users/{ID}/rooms/{{id2:\\d+}}", self.add_user_room)
        r.add_delete(f"{PREFIX}/users/{ID}/rooms/{{id2:\\d+}}", self.remove_user_room)
        r.add_get(f"{PREFIX}/rooms/{ID}/users", self.room_users, allow_head=False)
        r.add_get(f"{PREFIX}/rooms/{ID}/users/{{id2:\\d+}}/logs", self.room_user_logs, allow_head=False)

        ui = f"{PREFIX}/rooms/{ID}"
        r.add_patch(ui + "/attribute/id/{target}", self._ui("attribute", "attribute_update", "set_attribute", "id"))
        r.add_delete(ui + "/attribute/id/{target}", self._ui("attribute", "remove_attribute", "delete_attribute", "id"))
        r.add_patch(ui + "/attribute/class/{target}", self._ui("attribute", "attribute_update", "set_attribute", "cls"))
        r.add_patch(
            ui + "/attribute/element/{target}", self._ui("attribute", "attribute_update", "set_attribute", "element")
        )
        r.add_patch(ui + "/text/{target}", self._ui("text", "text_update", "set_text", "id"))
        r.add_post(ui + "/class/{target}", self._ui("class", "class_add", "class_add", "id"))
        r.add_delete(ui + "/class/{target}", self._ui("class", "class_remove", "class_remove", "id"))

    # ------------------------------------------------------------------ generic CRUD
    def _list(self, collection: str):
        async def action(ctx: Ctx):
            return 200, [dump(collection, row) for row in self.state.listing(collection, ctx.query)]

        auth = collection in ("tokens", "logs")

        async def handler(request):
            return await self.run(request, action, query=SCHEMAS[collection], auth=auth)

        return handler

    def _create(self, collection: str):
        async def action(ctx: Ctx):
            values = dict(ctx.body)
            if collection == "users":
                self._consume_registration(values["token_id"])
            if collection == "layouts":
                values = await self._compile_layout(values, ctx.request)
            row = self.state.insert(collection, values)
            if collection == "users":
                token = self.state.token_of(row)
                if token.room_id is not None:
                    self.state.add_member(row, self.state.tables["rooms"][token.room_id])
            return 201, dump(collection, row)

        async def handler(request):
            return await self.run(request, action, body=SCHEMAS[collection])

        return handler

    def _get(self, collection: str):
        async def action(ctx: Ctx):
            return 200, dump(collection, ctx.entities[collection])

        async def handler(request):
            return await self.run(request, action, entities=((collection, True),), auth=collection == "logs")

        return handler

    def _replace(self, collection: str):
        return self._update(collection, creation=True)

    def _patch(self, collection: str):
        return self._update(collection, creation=False)

    def _update(self, collection: str, creation: bool):
        async def action(ctx: Ctx):
            row = ctx.entities[collection]
            values = dict(ctx.body)
            if collection == "users" and values.get("token_id") is not None:
                self._consume_registration(values["token_id"])
            if collection == "layouts":
                values = await self._compile_layout(values, ctx.request, row=row)
            self.state.update(collection, row, values)
            return 200, dump(collection, row)

        async def handler(request):
            return await self.run(
                request, action, entities=((collection, True),), body=SCHEMAS[collection], creation=creation
            )

        return handler

    def _delete(self, collection: str):
        async def action(ctx: Ctx):
            try:
                self.state.delete(collection, ctx.entities[collection])
            except InUse as exc:
                raise ApiError(422, {"query": str(exc)}) from None
            return 204, None

        async def handler(request):
            return await self.run(request, action, entities=((collection, True),))

        return handler

    def _consume_registration(self, token_id: str) -> None:
        token = self.state.get("tokens", token_id)
        if token.registrations_left == 0:
            raise ApiError(422, {"json": {"token_id": "No registrations left for given token"}})
        if token.registrations_left > 0:
            token.registrations_left -= 1
            token.touch()

    async def _compile_layout(self, values: dict, request: web.Request, row=None) -> dict:
        """Turn the layout JSON into the stored/compiled columns (PATCH recompiles only what it gets)."""
        out = {k: v for k, v in values.items() if k not in ("html_obj", "css_obj", "scripts")}
        if "html_obj" in values:
            out["html"] = model.compile_html(values["html_obj"])
        if "css_obj" in values:
            out["css"] = model.compile_css(values["css_obj"])
        if "scripts" in values:
            loop = asyncio.get_running_loop()
            # URL sources are fetched like Slurk does; off-loop so the double can serve its own URLs.
            out["script"] = await loop.run_in_executor(None, model.compile_script, values["scripts"])
        raw = await request.read()
        try:
            source = json.loads(raw) if raw else {}
        except ValueError:
            source = {}
        out["source"] = {**(row.source if row is not None and request.method == "PATCH" else {}), **source}
        return out

    # ------------------------------------------------------------------ user / room relations
    async def user_task(self, request):
        async def action(ctx: Ctx):
            token = self.state.token_of(ctx.entities["users"])
            task = self.state.get("tasks", token.task_id)
            return 200, dump("tasks", task) if task is not None else {}

        return await self.run(request, action, entities=(("users", True),), auth=False)

    async def user_permissions(self, request):
        async def action(ctx: Ctx):
            token = self.state.token_of(ctx.entities["users"])
            if token.registrations_left == 0:
                return 200, dump("permissions", self.state.tables["permissions"][token.permissions_id])
            return 200, {}

        return await self.run(request, action, entities=(("users", True),), auth=False)

    async def user_rooms(self, request):
        async def action(ctx: Ctx):
            return 200, [dump("rooms", room) for room in self.state.rooms_of(ctx.entities["users"])]

        return await self.run(request, action, entities=(("users", True),), auth=False)

    async def room_users(self, request):
        async def action(ctx: Ctx):
            users = self.state.users_of(ctx.entities["rooms"])
            return 200, [dump("users", u) for u in users if u.session_id is not None]

        return await self.run(request, action, entities=(("rooms", True),), auth=False)

    async def add_user_room(self, request):
        async def action(ctx: Ctx):
            user = ctx.entities["users"]
            await self.hub.join_room(user, ctx.entities["rooms"])
            return 201, dump("users", user)

        return await self.run(request, action, entities=(("users", True), ("rooms", True)))

    async def remove_user_room(self, request):
        async def action(ctx: Ctx):
            await self.hub.leave_room(ctx.entities["users"], ctx.entities["rooms"])
            return 204, None

        # Only the *user's* ETag is checked (the room lookup uses check_etag=False).
        return await self.run(request, action, entities=(("users", True), ("rooms", False)))

    async def room_user_logs(self, request):
        async def action(ctx: Ctx):
            room, user = ctx.entities["rooms"], ctx.entities["users"]
            if not self.is_api_token(request):
                environ = {
                    "HTTP_AUTHORIZATION": request.headers.get("Authorization"),
                    "HTTP_USER": request.headers.get("user"),
                    "QUERY_STRING": request.query_string,
                }
                environ = {k: v for k, v in environ.items() if v is not None}
                current = self.state.user_by_credentials(*credentials_from_environ(environ))
                if current is not user:
                    raise ApiError(401)
            logs = [
                row
                for row in self.state.tables["logs"].values()
                if row.room_id == room.id and (row.receiver_id is None or user.id in (row.user_id, row.receiver_id))
            ]
            logs.sort(key=lambda row: (row.date_created, row.id))
            return 200, [dump("logs", row) for row in logs]

        # The room/user path entities are looked up in this order: room, then user.
        return await self.run(request, action, entities=(("rooms", True), ("users", True)), auth=False)

    # ------------------------------------------------------------------ room UI endpoints
    def _ui(self, schema: str, event: str, log_event: str, key: str):
        async def action(ctx: Ctx):
            room = ctx.entities["rooms"]
            data = dict(ctx.body)
            receiver_id = data.pop("receiver_id", None)
            data[key] = ctx.request.match_info["target"]
            receiver = None
            target = str(room.id)
            if receiver_id is not None:
                receiver = self.state.get("users", receiver_id)
                if receiver.session_id is None:
                    raise ApiError(422)  # Slurk drops the detail: message only
                target = receiver.session_id
            self.state.add_log(log_event, room=room, receiver=receiver, data=data)
            await self.hub.room_ui_event(event, data, target)
            return 204, None

        async def handler(request):
            return await self.run(
                request, action, entities=(("rooms", False),), body=UI_SCHEMAS[schema], etag_route=False
            )

        return handler


@web.middleware
async def json_errors(request: web.Request, handler):
    """Router 404/405 answers in Slurk's JSON error envelope (the socket.io path is left alone)."""
    try:
        return await handler(request)
    except web.HTTPNotFound:
        if request.path.startswith("/socket.io"):
            raise
        return ApiError(404).response()
    except web.HTTPMethodNotAllowed:
        return ApiError(405).response()
