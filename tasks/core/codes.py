"""Completion codes that crowdworkers paste into the platform to get paid."""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Optional

# No 0/O/1/I, which people mistype when copying by hand.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
# Anyone in a room can show a chat line under the game master's name (Slurk's `impersonate`), but only the bot can
# write the task page: people are told that the page's code box is the one to trust.
WHERE_CODES_SHOW = ("Your code also stays in the code box of the task page; a code that appears only in the chat "
                    "is not from us.")


def new_code(length: int = 8) -> str:
    # Deliberately not seeded: a code that could be derived from a game's public seed could be forged.
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


@dataclass
class CompletionConfig:
    """How a code is shown. With a platform (Prolific), people also get a completion link."""

    platform: Optional[str] = None
    url_template: str = "https://app.prolific.com/submissions/complete?cc={code}"

    @property
    def is_html(self) -> bool:
        return self.platform is not None

    def link(self, code: str) -> Optional[str]:
        return self.url_template.format(code=code) if self.platform else None

    def message(self, code: str) -> str:
        link = self.link(code)
        if link:
            return (f"Your completion code is <b>{code}</b>. "
                    f'<a href="{link}" target="_blank" rel="noopener">Click here to return to {self.platform}</a>. '
                    f"{WHERE_CODES_SHOW}")
        return (f"Your completion code is {code}. Please copy it now; you need it to get paid. {WHERE_CODES_SHOW}")
