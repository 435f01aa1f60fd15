"""Pages in two parts (`Game.page_shared` / `page_private`): putting a seat's view back together, as the page does.

The page script (plugins/slurk-task.js, `watch(..., {shared, combine})`) does the same in the browser: the "core"
fields of both parts are merged (the seat's own win), the rest goes through the task's combine (default: the own
part's keys over the shared ones). This twin lets tests, benches and tools read what a person's page shows.
"""
from __future__ import annotations

from typing import Callable, Optional


def combine_parts(shared: dict, own: dict, combine: Optional[Callable[[dict, dict], dict]] = None) -> dict:
    """The seat's view from the shared part and its own part."""
    shared = shared or {}
    own = own or {}
    core = {**(shared.get("core") or {}), **(own.get("core") or {})}
    rest_shared = {k: v for k, v in shared.items() if k != "core"}
    rest_own = {k: v for k, v in own.items() if k != "core"}
    view = combine(rest_shared, rest_own) if combine is not None else {**rest_shared, **rest_own}
    view["core"] = core
    return view


class PageReader:
    """What one person's page shows, from the page updates it received (element id, text) in order: the newest
    text of the state element and of the shared element, combined as the page does. `view` is None until the page
    has what it needs (the shared part too, once the game plays)."""

    def __init__(self, spec):
        self.spec = spec
        self.own: Optional[dict] = None
        self.shared: Optional[dict] = None

    def feed(self, element: str, text: str) -> Optional[dict]:
        import json
        if element == self.spec.state_element:
            self.own = json.loads(text)
        elif self.spec.shared_element and element == self.spec.shared_element:
            self.shared = json.loads(text)
        else:
            return None
        return self.view

    @property
    def view(self) -> Optional[dict]:
        if self.own is None:
            return None
        if not self.spec.shared_element or not _split(self.own):
            return self.own
        if self.shared is None:
            return None
        return combine_parts(self.shared, self.own, self.spec.combine_page)


def _split(own: dict) -> bool:
    """Is this state element text an own part (the game plays, so a shared part exists), not a whole view? Whole
    views are sent while the game waits for people (no shared part yet): their core has a phase."""
    return "phase" not in (own.get("core") or {})
