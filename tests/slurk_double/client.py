"""Small REST helper that works against the double and a real Slurk server alike."""

from __future__ import annotations

from typing import Any

import requests

ADMIN_TOKEN = "00000000-0000-0000-0000-000000000000"
TIMEOUT = 10

DEFAULT_LAYOUT = {
    "title": "Test Room",
    "subtitle": "slurk-double scenario",
    "html": [{"layout-type": "div", "id": "board", "layout-content": "board"}],
    "css": {"#board": {"color": "black"}},
    "show_users": True,
    "show_latency": False,
}


class SlurkRest:
    """REST convenience calls; every write uses the admin (api) token."""

    def __init__(self, url: str, admin_token: str = ADMIN_TOKEN, etag: bool = False):
        self.url = url.rstrip("/")
        self.admin_token = admin_token
        self.etag = etag

    # -- raw access
    def api_url(self, path: str) -> str:
        return f"{self.url}/slurk/api/{path.lstrip('/')}"

    def headers(self, token: str | None = None, **extra: str) -> dict:
        headers = {"Authorization": f"Bearer {token or self.admin_token}"}
        headers.update(extra)
        return headers

    def api(self, method: str, path: str, *, token: str | None = None, headers: dict | None = None, **kwargs: Any):
        """One admin-authenticated request (pass token= to act as another token)."""
        all_headers = self.headers(token)
        all_headers.update(headers or {})
        return requests.request(method, self.api_url(path), headers=all_headers, timeout=TIMEOUT, **kwargs)

    def expect_ok(self, response: requests.Response) -> Any:
        """The JSON of a successful response; AssertionError with the body otherwise."""
        if response.status_code >= 400:
            raise AssertionError(
                f"{response.request.method} {response.url} -> {response.status_code}: {response.text[:500]}"
            )
        return response.json() if response.content else None

    # -- helpers used by the scenario tests
    def provision_user(
        self, name: str, permissions: dict, room_id: int | None = None, task_id: int | None = None
    ) -> tuple[int, str]:
        """permissions row + token (one registration) + user; returns (user_id, token)."""
        perms = self.expect_ok(self.api("POST", "permissions", json=dict(permissions)))
        token = self.expect_ok(
            self.api(
                "POST",
                "tokens",
                json={"permissions_id": perms["id"], "room_id": room_id, "task_id": task_id, "registrations_left": 1},
            )
        )
        user = self.expect_ok(self.api("POST", "users", json={"name": name, "token_id": token["id"]}))
        return user["id"], token["id"]

    def create_layout(self, layout: dict | None = None) -> int:
        return self.expect_ok(self.api("POST", "layouts", json=layout or DEFAULT_LAYOUT))["id"]

    def create_room(self, layout: dict | None = None) -> int:
        """A new layout (``layout`` JSON, or a small default) and a room using it."""
        layout_id = self.create_layout(layout)
        return self.expect_ok(self.api("POST", "rooms", json={"layout_id": layout_id}))["id"]

    def create_task(self, name: str, num_users: int, layout_id: int) -> int:
        body = {"name": name, "num_users": num_users, "layout_id": layout_id}
        return self.expect_ok(self.api("POST", "tasks", json=body))["id"]

    def get_user(self, user_id: int) -> dict:
        return self.expect_ok(requests.get(self.api_url(f"users/{user_id}"), timeout=TIMEOUT))

    def logs(self, room_id: int) -> list[dict]:
        """All logs of a room, oldest first (sorted by id: sqlite timestamps have 1 s resolution), with the bot's
        batch rows replaced by the rows they hold (bots/slurk/logbatch.py), as the bot's readers see them."""
        from bots.slurk.logbatch import expand

        rows = self.expect_ok(self.api("GET", "logs", params={"room_id": room_id}))
        return expand(sorted(rows, key=lambda row: row["id"]))
