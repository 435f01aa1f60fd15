"""A minimal echo bot, the yardstick of the speed bench: what slurk-bots' echo bot does, nothing more.

It joins each room Slurk announces for its task (`new_task_room` -> `POST /users/{me}/rooms/{room}`) and answers
every chat message of someone else with one `text` carrying the same words. No state, no logs, no page updates:
the cheapest reply a Slurk bot can give, so the bench compares our bots with the floor.

    SLURK_URL=... SLURK_TOKEN=... SLURK_USER_ID=... TASK_ID=... python -m bench.echo_bot

The token comes from the environment (never argv). Stops on SIGTERM.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

import requests
import socketio


def run(url: str, token: str, user_id: int, task_id: int, stop: threading.Event) -> None:
    sio = socketio.Client(reconnection=True)
    http = requests.Session()
    http.headers["Authorization"] = f"Bearer {token}"

    @sio.on("new_task_room")
    def _room(data):
        if int(data.get("task") or -1) == task_id:
            http.post(f"{url}/slurk/api/users/{user_id}/rooms/{int(data['room'])}", timeout=10)

    @sio.on("text_message")
    def _text(data):
        user = data.get("user") or {}
        if int(user.get("id", -1)) == user_id or data.get("private_message"):
            return
        sio.emit("text", {"room": data["room"], "message": data["message"]})

    sio.connect(url, headers={"Authorization": f"Bearer {token}", "user": str(user_id)}, namespaces=["/"],
                wait_timeout=20)
    print("echo bot connected", flush=True)
    stop.wait()
    sio.disconnect()


def main() -> int:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    env = os.environ
    run(env["SLURK_URL"].rstrip("/"), env["SLURK_TOKEN"], int(env["SLURK_USER_ID"]), int(env["TASK_ID"]), stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
