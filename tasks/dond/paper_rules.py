"""The paper's protocol for Deal or No Deal (task option `protocol: paper`; reference game-theory-negotiation.md §7),
as pure functions the game applies. In the paper's game a turn is one free-text message; a round is Alice's message
then Bob's; proposals are what each side's model call extracted from its own message (here the seat's `/propose`,
recorded in its own list). The negotiation stops after Bob's message when
- halting: rule "both" (the code's rule for GPT and o1 models): both messages of the round start with "halt
  negotiation", or both end with it; rule "either" (its rule for Claude models): either starts with it, or both
  end with it, and Alice's message alone ends the round when it is exactly that;
- the last two proposals of each side coincide pairwise (in one frame), for every model;
- or after the last round.
Then each side presents the deal it believes was made (`/present`, what it gets). A deal is made when the two
claims fit: for every item the two counts add up to at most what there is (leftovers allowed); no deal otherwise.
"""
from __future__ import annotations

from typing import Optional, Sequence

HALT = "halt negotiation"
HALT_RULES = ("both", "either")
PROTOCOLS = ("ours", "paper")


def halted(alice: str, bob: str, rule: str) -> bool:
    """Whether a round whose messages were `alice` and `bob` halts the negotiation under `rule`."""
    a, b = (alice or "").strip(), (bob or "").strip()
    both_end = a.endswith(HALT) and b.endswith(HALT)
    if rule == "either":
        return a.startswith(HALT) or b.startswith(HALT) or both_end
    return (a.startswith(HALT) and b.startswith(HALT)) or both_end


def alice_halts_alone(alice: str, rule: str) -> bool:
    return rule == "either" and (alice or "").strip() == HALT


def proposals_settled(alice: Sequence[Sequence[int]], bob_as_alice: Sequence[Sequence[int]]) -> bool:
    """The last two proposals of each side coincide pairwise (both lists in Alice's frame)."""
    if len(alice) < 2 or len(bob_as_alice) < 2:
        return False
    return [tuple(x) for x in alice[-2:]] == [tuple(x) for x in bob_as_alice[-2:]]


def claims_fit(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int]) -> bool:
    return all(a + b <= c for a, b, c in zip(alice, bob, counts))


def stop_reason(alice_line: str, bob_line: str, rule: str, alice_props, bob_props_as_alice, round_no: int,
                max_rounds: int) -> Optional[str]:
    """Why the negotiation stops after this round ("halted", "proposals settled", "rounds"), or None."""
    if halted(alice_line, bob_line, rule):
        return "halted"
    if proposals_settled(alice_props, bob_props_as_alice):
        return "proposals settled"
    if round_no >= max_rounds:
        return "rounds"
    return None
