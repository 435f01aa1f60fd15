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


# What a person who left a game before its end (and did not come back within the grace period) gets; the partner
# left behind always gets a code (status_txt "user_left"). Every leaver's confirmation_log says status_txt "left",
# when they left and this payment, so a payment sheet tells the leaver from the partner who stayed.
LEFT_POLICIES = {
    "no_code": "no completion code; the page says they left (default)",
    "partial": "a completion code recorded as a partial payment",
    "full": "a completion code recorded as a full payment, like the partner who stayed",
}
DEFAULT_LEFT_POLICY = "no_code"


@dataclass
class CompletionConfig:
    """How a code is shown. With a platform (Prolific), people also get a completion link. `left_policy`: what a
    person who left gets (LEFT_POLICIES)."""

    platform: Optional[str] = None
    url_template: str = "https://app.prolific.com/submissions/complete?cc={code}"
    left_policy: str = DEFAULT_LEFT_POLICY

    def __post_init__(self) -> None:
        if self.left_policy not in LEFT_POLICIES:
            raise ValueError(f"left_policy must be one of {', '.join(LEFT_POLICIES)}; got {self.left_policy!r}")

    @property
    def leaver_paid(self) -> bool:
        return self.left_policy != "no_code"

    def left_message(self, code: Optional[str]) -> str:
        """What a person who left reads when they come back (their code, if the policy gives one)."""
        head = "You left the game before it ended, and the game was closed for your partner."
        if code is None:
            return head + " No completion code is given for a game that was left."
        part = " It pays for the part you played." if self.left_policy == "partial" else ""
        return f"{head}{part} {self.message(code)}"

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
