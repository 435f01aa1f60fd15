"""The solver agent's own chat lines. Plain text (sent with html=False); the phrasing is kept readable by the rule-based
reader too, so two agents understand each other's questions and coin caps."""
from __future__ import annotations

from typing import Iterable, Sequence

from ..board import ROOM_NAMES


def hallways(keys: Iterable[str]) -> str:
    keys = list(keys)
    if len(keys) <= 1:
        return "".join(keys)
    return ", ".join(keys[:-1]) + " and " + keys[-1]


def path(p: Sequence[str]) -> str:
    return "-".join(p)


def room(r: str) -> str:
    return f"{r} ({ROOM_NAMES.get(r, r)})"


def opening_cap(threshold: int, cap: int) -> str:
    return (f"Hi! I have shared every hallway where I have {threshold} or more coins; each of my other hallways has "
            f"at most {cap} coins.")


def opening_all() -> str:
    return "Hi! I have shared all my coins."


def opening_hello() -> str:
    return "Hi! Let's find the tour with the most coins together."


def ask(keys: Sequence[str]) -> str:
    return f"What are your coins on {hallways(keys)}?"


def ask_all() -> str:
    return "Could you share all your coins (/share all)?"


def shared_answer(keys: Sequence[str]) -> str:
    return f"I shared my coins on {hallways(keys)}."


def propose(tour: Sequence[str], value: float, certain: bool) -> str:
    how = "That is the best tour" if certain else "By my estimate that is the best tour"
    return f"I propose {path(tour)}. {how}, with about {round(value)} coins together. Please /agree or /reject."


def counter(theirs: Sequence[str], mine: Sequence[str], their_value: float, my_value: float, certain: bool) -> str:
    sure = "" if certain else " by my estimate"
    return (f"I would rather take {path(mine)}: about {round(my_value)} coins together against "
            f"{round(their_value)} for {path(theirs)}{sure}.")


def wait_for_answers() -> str:
    return "Before I decide, I need a few of your coins."


def agree(p: Sequence[str], complete: bool) -> str:
    return f"Agreed: {path(p)}." + (" I have submitted it; please /submit too." if complete else "")


def submitted(tour: Sequence[str]) -> str:
    return f"I submitted {path(tour)}; please /submit it too."


def accept_their_submit(tour: Sequence[str]) -> str:
    return f"Your tour {path(tour)} is good: I submitted the same one."


def premature_submit(theirs: Sequence[str], mine: Sequence[str]) -> str:
    return (f"You submitted {path(theirs)} before we agreed. I think {path(mine)} earns more; please /agree to it "
            "and then /submit.")


def press_agree() -> str:
    return "Great! Please press Agree (/agree) so the game records it."


def after_no(mine: Sequence[str]) -> str:
    return f"Which tour would you prefer instead of {path(mine)}? You can /propose it."


def suggestion_ok(p: Sequence[str]) -> str:
    return f"Good idea: I proposed {path(p)}, please /agree."


def rejected_wait() -> str:
    return "You rejected my proposal. Which tour would you prefer? You can /propose it."


def please_submit_agreed(tour: Sequence[str]) -> str:
    return f"We agreed on {path(tour)}; please /submit that tour."
