"""What the concierge writes to people waiting: a greeting, their queue place, and the no-partner note with their
completion code. Names people chose at login are made inert (chat is rendered as markdown and HTML)."""
from __future__ import annotations

import html
from typing import Any

from tasks.core.codes import CompletionConfig
from tasks.core.wording import plain_name


def shown_name(name: Any) -> str:
    """A person's login name as the concierge writes it into an html message: inert markdown, escaped html."""
    return html.escape(plain_name(name), quote=False)


def about(seconds: float) -> str:
    """A wait in words, rounded up (to 10 s under a minute, else to whole minutes): never shorter than it is."""
    if seconds < 10:
        return "a few seconds"
    if seconds < 60:
        return f"about {int(-(-seconds // 10) * 10)} seconds"
    minutes = int(-(-seconds // 60))
    return f"about {minutes} minute" + ("s" if minutes != 1 else "")


def greeting(name: str, num: int, waiting_timeout: float) -> str:
    minutes = max(1, round(waiting_timeout / 60))
    partner = "a partner" if num == 2 else ("your game" if num == 1 else "your partners")
    return (f"Hello <b>{shown_name(name)}</b>, welcome! Please wait here while we prepare {partner}; you will "
            f"be moved to your game room automatically. If nothing happens within {minutes} minute"
            f"{'s' if minutes != 1 else ''}, you will get a completion code here, so that you are paid for "
            "your time. Please keep this page open.")

def no_partner_text(name: str, code: str, completion: CompletionConfig) -> str:
    return (f"Sorry, {shown_name(name)}: no partner arrived in time, so the game cannot start. Thank you very "
            f"much for waiting! {completion.message(code)}")


def place_text(name: str, place: int, wait: float) -> str:
    return (f"{shown_name(name) or 'Hello'}, you are number <b>{place}</b> in the queue for a game room; "
            f"expected wait: <b>{about(wait)}</b>. Many people arrived at once, so rooms are opened a little "
            "more slowly for a moment. Please keep this page open: you will be moved automatically.")

