"""A typed client for Slurk's REST API v3 (`{url}/slurk/api`), with ETag handling that works with ETags on or off.

Conditional requests (PUT/PATCH/DELETE on an entity, DELETE of a room membership) need `If-Match` when the server
has ETags on. We GET the entity that the server checks right before the write and send its ETag (or `*` when the
server sends none), and retry once with a fresh ETag on 412. Every failure raises `SlurkAPIError(status, message)`
carrying the server's own message. The token lives only in the session's headers; it never appears in a repr, a
log line or an error.
"""
from __future__ import annotations

import logging
import os
import re
from typing import Any, Callable, Optional

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from . import logbatch

log = logging.getLogger(__name__)

_UNSET = object()
_ID = re.compile(r"/\d+")  # ids in a path, for counting requests by kind


class SlurkAPIError(Exception):
    """`status` 0: no answer (no connection, a timeout). `in_doubt`: the request may have reached the server although
    no answer came back (a read timeout, a connection dropped mid-request), so it may have taken effect."""

    def __init__(self, status: int, message: str, method: str = "", path: str = "", errors: Any = None,
                 in_doubt: bool = False):
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        self.errors = errors
        self.in_doubt = in_doubt
        where = f" ({method} {path})" if method else ""
        super().__init__(f"Slurk API error {status}{where}: {message}")


def _error_message(resp: requests.Response) -> tuple[str, Any]:
    try:
        body = resp.json()
    except ValueError:
        text = (resp.text or "").strip()
        return (text[:300] or resp.reason or "no message"), None
    if not isinstance(body, dict):
        return str(body)[:300], None
    errors = body.get("errors")
    details = []

    def walk(x, prefix=""):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{k}" if k not in ("json", "query") else prefix)
        elif isinstance(x, list):
            for v in x:
                walk(v, prefix)
        else:
            details.append(f"{prefix}: {x}" if prefix and str(prefix) not in str(x) else str(x))

    if errors is not None:
        walk(errors)
    msg = "; ".join(details) or body.get("message") or resp.reason or "no message"
    return str(msg), errors


def _never_sent(exc: requests.RequestException) -> bool:
    """True when the request certainly did not reach the server (no connection could be made)."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, (NewConnectionError, ConnectTimeoutError))


class SlurkREST:
    def __init__(self, base_url: str, token: str, etag: str = "auto", timeout: float = 10.0, pool_size: int = 64):
        base = base_url.rstrip("/")
        if base.endswith("/slurk/api"):
            base = base[: -len("/slurk/api")]
        self.url = base
        self.api = base + "/slurk/api"
        self.etag_mode = etag
        self.on_request: Optional[Callable[[str], None]] = None  # counts requests by kind (the speed bench)
        self.timeout = timeout
        self.session = requests.Session()
        # Proxies and CA bundle from the environment are resolved once here, not on every request (requests reads
        # the whole environment per call otherwise: a large share of the bot's CPU per input).
        self.session.proxies.update(requests.utils.get_environ_proxies(self.api))
        bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        if bundle:
            self.session.verify = bundle
        self.session.trust_env = False
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=pool_size)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.session.headers["Content-Type"] = "application/json"

    def __repr__(self) -> str:
        return f"SlurkREST({self.url!r}, token='***')"

    def close(self) -> None:
        self.session.close()

    # ------------------------------------------------------------------------------------------------------------
    def request(self, method: str, path: str, json: Any = _UNSET, params: Optional[dict] = None,
                headers: Optional[dict] = None, expect_json: bool = True) -> Any:
        resp = self._send(method, path, json, params, headers)
        return self._result(method, path, resp, expect_json)

    def _send(self, method, path, json=_UNSET, params=None, headers=None) -> requests.Response:
        kwargs: dict[str, Any] = {"timeout": self.timeout}
        if json is not _UNSET:
            kwargs["json"] = json
        if params:
            kwargs["params"] = {k: v for k, v in params.items() if v is not None}
        if headers:
            kwargs["headers"] = headers
        if self.on_request is not None:
            self.on_request(f"{method} {_ID.sub('/{}', path)}")
        try:
            resp = self.session.request(method, self.api + path, **kwargs)
        except requests.RequestException as exc:
            raise SlurkAPIError(0, f"cannot reach Slurk at {self.url}: {type(exc).__name__}", method, path,
                                in_doubt=not _never_sent(exc)) from None
        log.debug("%s %s -> %s", method, path, resp.status_code)
        return resp

    def _result(self, method, path, resp: requests.Response, expect_json=True) -> Any:
        if resp.status_code >= 400:
            msg, errors = _error_message(resp)
            raise SlurkAPIError(resp.status_code, msg, method, path, errors)
        if resp.status_code == 204 or not resp.content or not expect_json:
            return None
        try:
            return resp.json()
        except ValueError:
            return resp.text

    def etag_of(self, path: str) -> Optional[str]:
        """The current ETag of a resource, or None when the server has ETags off."""
        resp = self._send("GET", path)
        if resp.status_code >= 400:
            msg, errors = _error_message(resp)
            raise SlurkAPIError(resp.status_code, msg, "GET", path, errors)
        return resp.headers.get("ETag")

    def conditional(self, method: str, path: str, json: Any = _UNSET, etag_path: Optional[str] = None) -> Any:
        """A write that the server may guard with If-Match. `etag_path` is the resource whose ETag it checks."""
        etag_path = etag_path or path
        headers = None
        if self.etag_mode != "off":
            headers = {"If-Match": self.etag_of(etag_path) or "*"}
        resp = self._send(method, path, json, headers=headers)
        if resp.status_code in (412, 428):
            # stale ETag (someone changed it in between), or ETags turned on although we were told "off"
            log.info("%s %s answered %s; retrying with a fresh ETag", method, path, resp.status_code)
            resp = self._send(method, path, json, headers={"If-Match": self.etag_of(etag_path) or "*"})
        return self._result(method, path, resp)

    # --- users --------------------------------------------------------------------------------------------------
    def get_user(self, user_id: int) -> dict:
        return self.request("GET", f"/users/{int(user_id)}")

    def get_users(self, name: Optional[str] = None) -> list:
        return self.request("GET", "/users", params={"name": name})

    def create_user(self, name: str, token_id: str) -> dict:
        return self.request("POST", "/users", {"name": name, "token_id": token_id})

    def delete_user(self, user_id: int) -> None:
        return self.conditional("DELETE", f"/users/{int(user_id)}")

    def get_user_rooms(self, user_id: int) -> list:
        return self.request("GET", f"/users/{int(user_id)}/rooms")

    def get_user_task(self, user_id: int) -> Optional[dict]:
        """The task of the user's token, or None (Slurk answers `{}` when there is none)."""
        task = self.request("GET", f"/users/{int(user_id)}/task")
        return task or None

    def get_user_permissions(self, user_id: int) -> Optional[dict]:
        perms = self.request("GET", f"/users/{int(user_id)}/permissions")
        return perms or None

    def join_room(self, user_id: int, room_id: int) -> dict:
        return self.request("POST", f"/users/{int(user_id)}/rooms/{int(room_id)}")

    def leave_room(self, user_id: int, room_id: int) -> None:
        # The server checks the *user's* ETag, which changes on every connect/disconnect: GET it right before.
        return self.conditional("DELETE", f"/users/{int(user_id)}/rooms/{int(room_id)}",
                                etag_path=f"/users/{int(user_id)}")

    # --- rooms --------------------------------------------------------------------------------------------------
    def get_room(self, room_id: int) -> dict:
        return self.request("GET", f"/rooms/{int(room_id)}")

    def get_rooms(self, layout_id: Optional[int] = None) -> list:
        return self.request("GET", "/rooms", params={"layout_id": layout_id})

    def create_room(self, layout_id: int, read_only: bool = False) -> dict:
        return self.request("POST", "/rooms", {"layout_id": int(layout_id), "read_only": bool(read_only)})

    def update_room(self, room_id: int, **fields) -> dict:
        return self.conditional("PATCH", f"/rooms/{int(room_id)}", fields)

    def get_room_users(self, room_id: int) -> list:
        """Users of the room that are connected right now."""
        return self.request("GET", f"/rooms/{int(room_id)}/users")

    def get_room_user_logs(self, room_id: int, user_id: int) -> list:
        return self.request("GET", f"/rooms/{int(room_id)}/users/{int(user_id)}/logs")

    # room UI (no ETag: these endpoints do not check it)
    @staticmethod
    def _ui_body(body: dict, receiver_id: Optional[int]) -> dict:
        if receiver_id is not None:
            body["receiver_id"] = int(receiver_id)
        return body

    def set_text(self, room_id: int, element_id: str, text: str, receiver_id: Optional[int] = None) -> None:
        return self.request("PATCH", f"/rooms/{int(room_id)}/text/{element_id}",
                            self._ui_body({"text": str(text)}, receiver_id))

    def set_attribute(self, room_id: int, element_id: str, attribute: str, value: str,
                      receiver_id: Optional[int] = None) -> None:
        return self.request("PATCH", f"/rooms/{int(room_id)}/attribute/id/{element_id}",
                            self._ui_body({"attribute": attribute, "value": str(value)}, receiver_id))

    def remove_attribute(self, room_id: int, element_id: str, attribute: str,
                         receiver_id: Optional[int] = None) -> None:
        # Slurk requires `value` although it ignores it.
        return self.request("DELETE", f"/rooms/{int(room_id)}/attribute/id/{element_id}",
                            self._ui_body({"attribute": attribute, "value": ""}, receiver_id))

    def add_class(self, room_id: int, element_id: str, cls: str, receiver_id: Optional[int] = None) -> None:
        return self.request("POST", f"/rooms/{int(room_id)}/class/{element_id}",
                            self._ui_body({"class": cls}, receiver_id))

    def remove_class(self, room_id: int, element_id: str, cls: str, receiver_id: Optional[int] = None) -> None:
        return self.request("DELETE", f"/rooms/{int(room_id)}/class/{element_id}",
                            self._ui_body({"class": cls}, receiver_id))

    # --- layouts, tasks -----------------------------------------------------------------------------------------
    def create_layout(self, layout: dict) -> dict:
        return self.request("POST", "/layouts", layout)

    def get_layout(self, layout_id: int) -> dict:
        return self.request("GET", f"/layouts/{int(layout_id)}")

    def update_layout(self, layout_id: int, **fields) -> dict:
        return self.conditional("PATCH", f"/layouts/{int(layout_id)}", fields)

    def create_task(self, name: str, num_users: int, layout_id: int) -> dict:
        return self.request("POST", "/tasks", {"name": name, "num_users": int(num_users), "layout_id": int(layout_id)})

    def get_task(self, task_id: int) -> dict:
        return self.request("GET", f"/tasks/{int(task_id)}")

    # --- permissions, tokens ------------------------------------------------------------------------------------
    def create_permissions(self, **flags) -> dict:
        return self.request("POST", "/permissions", flags)

    def get_permissions(self, permissions_id: int) -> dict:
        return self.request("GET", f"/permissions/{int(permissions_id)}")

    def patch_permissions(self, permissions_id: int, **flags) -> dict:
        return self.conditional("PATCH", f"/permissions/{int(permissions_id)}", flags)

    def create_token(self, permissions_id: int, room_id: Optional[int] = None, task_id: Optional[int] = None,
                     registrations_left: int = 1) -> dict:
        return self.request("POST", "/tokens", {
            "permissions_id": int(permissions_id), "room_id": room_id, "task_id": task_id,
            "registrations_left": int(registrations_left)})

    def get_token(self, token_id: str) -> dict:
        return self.request("GET", f"/tokens/{token_id}")

    # --- logs ---------------------------------------------------------------------------------------------------
    def get_logs(self, room_id: Optional[int] = None, event: Optional[str] = None, user_id: Optional[int] = None,
                 receiver_id: Optional[int] = None, expand: bool = True) -> list:
        """Logs, sorted by id (ascending), which is the order they were written. With `expand` (the default) every
        batch row the bot posted (`logbatch.py`) is replaced by the rows it holds, and `event` filters those too
        (a second request fetches the batch rows, unless `event` is one of Slurk's own, which are never batched);
        `expand=False` gives the rows exactly as Slurk has them."""
        params = {"room_id": room_id, "event": event, "user_id": user_id, "receiver_id": receiver_id}
        logs = list(self.request("GET", "/logs", params=params) or [])
        if expand and event is not None and logbatch.batchable(event):
            batches = self.request("GET", "/logs", params=dict(params, event=logbatch.BATCH_EVENT)) or []
            logs += [x for x in logbatch.expand(batches) if x.get("event") == event]
        logs.sort(key=lambda x: x.get("id", 0))  # stable: a batch's rows keep their order
        return logbatch.expand(logs) if expand else logs

    def post_log(self, event: str, room_id: Optional[int] = None, data: Optional[dict] = None,
                 receiver_id: Optional[int] = None, user_id: Optional[int] = None) -> dict:
        body: dict[str, Any] = {"event": event, "data": data or {}}
        if room_id is not None:
            body["room_id"] = int(room_id)
        if receiver_id is not None:
            body["receiver_id"] = int(receiver_id)
        if user_id is not None:
            body["user_id"] = int(user_id)
        return self.request("POST", "/logs", body)
