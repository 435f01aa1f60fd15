"""The solver agent's chat lines for talking with people (beside templates.py, which the LLM agents share).

Every line states only what is true when it is sent (the brain sends its shares and moves before the line that
refers to them) and stays readable by the rule-based reader, so two agents understand each other too.
"""
from __future__ import annotations

from typing import Sequence

from .templates import hallways, path


def coins(items: Sequence[tuple[str, int]]) -> str:
    """My coins stated in chat: "My coins: L-E 6, K-A 2." (the paper's rules have no /share)."""
    return "My coins: " + ", ".join(f"{k} {w}" for k, w in items) + "."


def answer(items: Sequence[tuple[str, int]], shared: bool) -> str:
    said = ", ".join(f"{k} {w}" for k, w in items)
    return f"I have {said}." + (" (shared on the board too)" if shared else "")


def all_shared() -> str:
    return "I have shared all my coins."


def opening(threshold: int, cap: int, shared: int, total: int, listed: bool = False) -> str:
    """The opening after sharing the hallways with `threshold` or more coins, true to what was shared."""
    if shared == total:
        return "Hi! I have shared all my coins."
    if shared == 0:
        return f"Hi! None of my hallways has {threshold} or more coins: each of my hallways has at most {cap} coins."
    return (f"Hi! I have shared every hallway where I have {threshold} or more coins; each of my other hallways has "
            f"at most {cap} coins.")


def opening_listed(items: Sequence[tuple[str, int]], threshold: int, cap: int, total: int) -> str:
    """The opening without /share: the coins are in the line itself."""
    if len(items) == total:
        return "Hi! " + coins(items)
    if not items:
        return f"Hi! None of my hallways has {threshold} or more coins: each of my hallways has at most {cap} coins."
    return (f"Hi! My hallways with {threshold} or more coins: " + ", ".join(f"{k} {w}" for k, w in items) +
            f". Each of my other hallways has at most {cap} coins.")


def my_choice(tour: Sequence[str], val: float) -> str:
    return f"Then I suggest {path(tour)}: about {round(val)} coins together, the best I can find. Is that ok?"


def alternative(rejected: Sequence[str], alt: Sequence[str], alt_val: float, best_val: float) -> str:
    return (f"OK, not {path(rejected)}. How about {path(alt)} instead? About {round(alt_val)} coins together "
            f"({path(rejected)} had about {round(best_val)}). If some of my numbers for your coins are off, tell me.")


def still_best(tour: Sequence[str], val: float, count: int) -> str:
    if count <= 1:
        return (f"I still think {path(tour)} is best: about {round(val)} coins together with what I know. Which "
                "tour would you prefer, or which of your coins should I know?")
    return f"Let's settle on {path(tour)} (about {round(val)} coins together)? Say yes, or tell me your tour."


def insist(theirs: Sequence[str], mine: Sequence[str], their_val: float, my_val: float, times: int) -> str:
    """My counter to a tour the partner keeps proposing: the reason in numbers, worded anew each time."""
    diff = round(my_val - their_val)
    if times <= 1:
        return (f"I would rather take {path(mine)}: about {round(my_val)} coins together against "
                f"{round(their_val)} for {path(theirs)}.")
    if times == 2:
        return (f"Sorry, I can't agree to {path(theirs)} yet: {path(mine)} earns about {round(my_val)} coins "
                f"together against {round(their_val)} (counting the coins you told me), {diff} more for both of us. "
                "Tell me if I have any of your coins wrong.")
    if times % 2:
        return (f"I still count {round(my_val)} coins for {path(mine)} and {round(their_val)} for {path(theirs)}. "
                f"Unless some of your coins differ from what you told me, {path(mine)} is better for both of us.")
    return (f"We keep going back and forth: {path(mine)} ({round(my_val)} coins together) or {path(theirs)} "
            f"({round(their_val)}). I stay with {path(mine)}, {diff} coins more; please agree when you're ready.")


def revised(old: Sequence[str], new: Sequence[str], old_val: float, new_val: float) -> str:
    return (f"Thanks! With your coins, {path(new)} is better: about {round(new_val)} coins together against "
            f"{round(old_val)} for {path(old)}.")


def yield_late(theirs: Sequence[str], mine: Sequence[str], diff: float) -> str:
    return (f"We are almost out of turns, so I agree to {path(theirs)}, although by my count {path(mine)} would "
            f"earn about {round(diff)} more coins.")


def clarify() -> str:
    return ("Sorry, I didn't quite get that. Is it about your coins (like \"L-K 5\") or a tour (like "
            "\"L K B A E C L\")?")


def yes_submitted(tour: Sequence[str]) -> str:
    return f"Great! I submitted {path(tour)}; please submit the same tour, or press Agree (/agree), to finish."


def keep_mine(tour: Sequence[str], val: float) -> str:
    return f"Then let's take {path(tour)} (about {round(val)} coins together): press Agree (/agree) or just say yes."


def waiting(tour: Sequence[str], val: float) -> str:
    return (f"My proposal {path(tour)} (about {round(val)} coins together) is open: say yes or press Agree "
            "(/agree), or tell me which tour you'd prefer.")


def waiting_short(tour: Sequence[str]) -> str:
    return f"Still {path(tour)} from me: yes or no?"


def ask(keys: Sequence[str]) -> str:
    return f"What are your coins on {hallways(keys)}?"


def no_answer(tour: Sequence[str], val: float) -> str:
    return f"No problem. With what I know, {path(tour)} looks best: about {round(val)} coins together."
