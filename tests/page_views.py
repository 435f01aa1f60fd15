"""What a person's task page shows, read from the socket events a test person recorded.

A task with a shared page part (TaskSpec.shared_element) sends each seat its own part and the room one shared part;
the page combines them (plugins/slurk-task.js), and so does this, with the same Python twin the tools use
(tasks/core/pages.py). Tasks without one: each state element update is the seat's whole view.
"""
from __future__ import annotations

import time
from typing import Callable, Optional

from tasks import available_tasks, get_task
from tasks.core.pages import PageReader


def spec_of_state(element: str):
    """The task whose page keeps its view in this element (or a stand-in with only that element: a test's toy)."""
    for name in available_tasks():
        spec = get_task(name)
        if spec.state_element == element:
            return spec

    class _Plain:
        state_element, shared_element, combine_page = element, "", None
    return _Plain()


def indexed_page_views(rec, spec) -> list[tuple[int, dict]]:
    """(index in rec.events, view) for every view the page showed, in order: one per update of its state (or
    shared) element once it has what it needs."""
    reader = PageReader(spec)
    out = []
    for i, (event, d) in enumerate(list(rec.events)):
        if event != "text_update" or d.get("id") not in (spec.state_element, spec.shared_element or None):
            continue
        try:
            v = reader.feed(d["id"], d.get("text"))
        except ValueError:
            continue
        if v is not None:
            out.append((i, v))
    return out


def page_views(rec, spec) -> list[dict]:
    return [v for _i, v in indexed_page_views(rec, spec)]


def wait_page_view(rec, spec, pred: Callable[[dict], bool] = lambda v: True, count: int = 1,
                   timeout: float = 5.0, playing: bool = True) -> dict:
    """The newest view matching `pred` once `count` have (only views of a game that plays, unless playing=False)."""
    deadline = time.monotonic() + timeout
    found: list = []
    while True:
        found = [v for v in page_views(rec, spec)
                 if (not playing or (v.get("core") or {}).get("phase") != "waiting") and pred(v)]
        if len(found) >= count:
            return found[-1]
        if time.monotonic() > deadline:
            raise AssertionError(f"{rec.name}: expected {count} page views matching, got {len(found)}; last: "
                                 f"{(page_views(rec, spec) or [None])[-1]!r}")
        time.sleep(0.02)


def last_page_view(rec, spec) -> Optional[dict]:
    views = page_views(rec, spec)
    return views[-1] if views else None
