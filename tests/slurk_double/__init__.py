"""A faithful in-process test double of the Slurk 3 chat server (REST API + Socket.IO)."""

from .client import ADMIN_TOKEN, SlurkRest
from .server import SlurkDouble

__all__ = ["ADMIN_TOKEN", "SlurkDouble", "SlurkRest"]
