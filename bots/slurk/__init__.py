"""Serving a task on a Slurk server: REST client, per-room runtime, persistence and the `serve` entry point.

Public names are re-exported lazily so that `import bots.slurk.rest` does not pull in socket.io.
"""
from __future__ import annotations

__all__ = ["SlurkREST", "SlurkAPIError", "SlurkBot", "SlurkAuthError", "RoomStore"]


def __getattr__(name):
    if name in ("SlurkREST", "SlurkAPIError"):
        from . import rest
        return getattr(rest, name)
    if name in ("SlurkBot", "SlurkAuthError"):
        from . import runtime
        return getattr(runtime, name)
    if name == "RoomStore":
        from .store import RoomStore
        return RoomStore
    raise AttributeError(name)
