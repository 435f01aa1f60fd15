"""The paper's prompt structure for the four LLM agents (prompts="paper"; the default under the `paper` rules).

Per variant, as in the paper (facts: ../shared/reference/traveling-adventurers.md §4; the wording is ours):
    inputs   baseline          [World-state-own] [History] [Observation]
             grounding         [World-state-own] [World-state-user] [History] [Observation]
             state-tracking    [World-state-own] [World-state-user] [Visited] [Remaining] [Observation]
             problem-solving   [World-state-own] [World-state-user] [Remaining] [Visited] [IBP] [Observation]
    answer   baseline, grounding: Thought-DRAFT, optional Thought-MISSING, Action (solve allowed), Message
             state-tracking, problem-solving: one Thought, Action, Message
Baseline and Grounding get no agreed path (the paper's ablation): not as a flag, and not through the game's
announcements either (the lines that state it are left out of their [Observation]). Nobody gets the open proposal,
turns left or the submissions as extra lines: the game's other announcements reach them in [Observation].
The answer stays one JSON object checked against a schema (the fields above, actions as {"type", "args"}).

System prompt sections, in the paper's order: story and task; input spec; output spec with the action list and the
most important rules; an example setup and a worked example conversation (our own house and coins, not one of the
preset boards, so the test boards never equal the example); "---"; the actual rooms and the agent's own coins.
The grounding module (the paper's GSM) gets [Message] [OWS] [World] (+ [Loc] for state-tracking and
problem-solving) and answers its Thought and the new coins (NWS).
"""
from __future__ import annotations

import json
from typing import Optional, Sequence

from ..board import ROOM_NAMES

DRAFT_VARIANTS = ("baseline", "grounding")  # Thought-DRAFT / Thought-MISSING / solve
PAPER_ACTIONS = ("suggest", "agree-inner", "agree-outer", "reject", "visit", "ask", "inform", "end")
THOUGHT_CHARS = 400   # the paper's thoughts are free text of a few sentences
MISSING_CHARS = 200
MESSAGE_CHARS = 300
MAX_ACTIONS = 5

# The example house: six rooms, coins 1-10 summing to 82 per world (the paper's budget). Joint optimum 76, the
# single cycle L-B-K-E-A-C-L; light's own optimum (L-C-K-E-A-B-L) makes 74 together, ghost's 67.
EXAMPLE_ROOMS = ("L", "E", "B", "K", "C", "A")
EXAMPLE_COINS = {
    "light": {"L-E": 2, "L-B": 9, "L-K": 3, "L-C": 7, "L-A": 6, "E-B": 5, "E-K": 8, "E-C": 4, "E-A": 6, "B-K": 6,
              "B-C": 4, "B-A": 7, "K-C": 6, "K-A": 4, "C-A": 5},
    "ghost": {"L-E": 8, "L-B": 4, "L-K": 3, "L-C": 5, "L-A": 6, "E-B": 2, "E-K": 7, "E-C": 5, "E-A": 5, "B-K": 9,
              "B-C": 5, "B-A": 4, "K-C": 6, "K-A": 8, "C-A": 5},
}
TOUR = ["L", "B", "K", "E", "A", "C", "L"]
# One conversation, light first. Each step: who speaks, the agreed path before it (Visited), the speaker's IBP (own
# coins + the partner's coins known so far, unknown ones as 0; tests check it with the solver), the coins the message
# states, the answer, and the game's announcements that follow.
EXAMPLE_SCRIPT = [
    dict(seat="light", visited=["L"], ibp=["L", "B", "A", "E", "K", "C", "L"], states={"L-B": 9, "L-C": 7},
         draft="Only my coins are known: from L my best hallways are L-B (9) and L-C (7). A draft: L-B-A-E-K-C-L.",
         missing="My partner's coins on the hallways from L.",
         actions=[("suggest", ["L", "B"]), ("ask", ["L", "B", "L", "C"])],
         message="Hi! From the living room I have 9 coins to the bathroom (L-B) and 7 to the children's room (L-C). "
                 "What do you have from L? Shall we start with L to B?",
         game=["Light proposes to continue with L-B. Ghost: /agree or /reject?"]),
    dict(seat="ghost", visited=["L"], ibp=["L", "B", "K", "A", "E", "C", "L"], states={"L-B": 4, "L-E": 8, "L-C": 5,
                                                                                       "B-K": 9},
         draft="L-B is 9+4=13 together, L-C 7+5=12, L-E 8+?. L-B is best. From B my best is B-K (9). Draft: "
               "L-B-K-A-E-C-L.",
         missing="Partner's coins on B-K and B-A.",
         actions=[("agree-inner", ["L", "B"]), ("visit", ["B"]), ("suggest", ["B", "K"]),
                  ("inform", ["L", "B", "L", "E", "L", "C"])],
         message="L-B makes 13 together, agreed! I have 4 on L-B, 8 on L-E and 5 on L-C. From B I have 9 to the "
                 "kitchen (B-K). How many do you have on B-K and B-A?",
         game=["Ghost agrees. The agreed path is now L-B.",
               "Ghost proposes to continue with L-B-K. Light: /agree or /reject?"]),
    dict(seat="light", visited=["L", "B"], ibp=["L", "B", "K", "E", "A", "C", "L"], states={"B-K": 6, "B-A": 7,
                                                                                            "E-K": 8},
         draft="B-K is 6+9=15 together; B-A would need 8 or more of my partner's coins. From K my best is K-E (8). "
               "Draft: L-B-K-E-A-C-L.",
         missing="Partner's coins on K-E and K-A.",
         actions=[("agree-inner", ["B", "K"]), ("visit", ["K"]), ("suggest", ["K", "E"])],
         message="I have 6 on B-K, so 15 together: agreed. On B-A I have 7. From K I have 8 to the empty room (K-E). "
                 "What are yours on K-E and K-A?",
         game=["Light agrees. The agreed path is now L-B-K.",
               "Light proposes to continue with L-B-K-E. Ghost: /agree or /reject?"]),
    dict(seat="ghost", visited=["L", "B", "K"], ibp=["L", "B", "K", "E", "A", "C", "L"], states={"E-K": 7},
         draft="K-E is 8+7=15 together, agreed. Left: E, A, C. For me E-A-C-L makes 5+5+5=15 and E-C-A-L "
               "5+5+6=16. Draft: L-B-K-E-A-C-L or L-B-K-E-C-A-L.",
         missing="Partner's coins on E-A, A-C, E-C and A-L.",
         actions=[("agree-inner", ["K", "E"]), ("visit", ["E"]), ("ask", ["E", "A", "A", "C", "E", "C", "A", "L"])],
         message="I have 7 on K-E, 15 together: agreed. Three rooms are left. For me E-A-C-L gives 15 and E-C-A-L "
                 "16. What are your coins on E-A, A-C, E-C and A-L?",
         game=["Ghost agrees. The agreed path is now L-B-K-E."]),
    dict(seat="light", visited=["L", "B", "K", "E"], ibp=TOUR, states={"E-A": 6, "C-A": 5, "E-C": 4, "L-A": 6},
         draft="E-A-C-L: 6+5+7=18 for me plus 15 for my partner = 33; E-C-A-L: 4+5+6=15 plus 16 = 31. Full tour: "
               "L-B-K-E-A-C-L.",
         missing="",
         actions=[("solve", TOUR), ("suggest", TOUR)],
         message="Mine: E-A 6, A-C 5, E-C 4, A-L 6 (and L-C 7). E-A-C-L makes 33 together, E-C-A-L only 31. "
                 "Let's finish with L-B-K-E-A-C-L?",
         game=["Light proposes the tour L-B-K-E-A-C-L. Ghost: /agree or /reject?"]),
    dict(seat="ghost", visited=["L", "B", "K", "E"], ibp=TOUR, states={},
         draft="13+15+15+11+10+12 = 76 together for L-B-K-E-A-C-L; E-C-A-L would give 74. Full tour: "
               "L-B-K-E-A-C-L.",
         missing="",
         actions=[("agree-inner", TOUR), ("visit", ["A"]), ("visit", ["C"]), ("visit", ["L"]), ("end", TOUR)],
         message="Agreed: L-B-K-E-A-C-L, 76 coins together. I am submitting it.",
         game=["Ghost agrees. The agreed tour is L-B-K-E-A-C-L: both /submit it to finish.",
               "Ghost submitted a tour. Light: submit your own tour to finish (/submit), or keep talking."]),
    dict(seat="light", visited=TOUR, ibp=TOUR, states={},
         draft="The agreed tour L-B-K-E-A-C-L is complete.", missing="",
         actions=[("end", TOUR)], message="Great, I am submitting L-B-K-E-A-C-L too.", game=[]),
]


# Game announcements that state the agreed path (agreements, proposals that extend it, undo, the final call): the
# paper's Baseline and Grounding keep no agreed path, so in the paper style their [Observation] leaves these out.
AGREED_PATH_WORDS = ("agreed", "proposes", "path would be")


def states_agreed_path(observation: str) -> bool:
    """Is this observation one of the game's lines that states the agreed path? (A partner's words never are.)"""
    if observation.startswith("Partner:"):
        return False
    return any(w in observation.lower() for w in AGREED_PATH_WORDS)


def uses_draft(variant: str) -> bool:
    return variant in DRAFT_VARIANTS


def answer_schema(rooms: Sequence[str], variant: str) -> dict:
    """The paper-style answer: the variant's thought fields, up to MAX_ACTIONS actions with room-letter args, and a
    message; bounded throughout."""
    room = {"type": "string", "enum": list(rooms)}
    types = list(PAPER_ACTIONS) + (["solve"] if uses_draft(variant) else [])
    thoughts = ({"thought_draft": {"type": "string", "maxLength": THOUGHT_CHARS},
                 "thought_missing": {"type": "string", "maxLength": MISSING_CHARS}} if uses_draft(variant)
                else {"thought": {"type": "string", "maxLength": THOUGHT_CHARS}})
    return {
        "title": "turn",
        "type": "object",
        "properties": {
            **thoughts,
            "actions": {
                "type": "array", "maxItems": MAX_ACTIONS,
                "items": {"type": "object",
                          "properties": {"type": {"type": "string", "enum": types},
                                         "args": {"type": "array", "items": room,
                                                  "maxItems": max(2 * len(rooms), 8)}},
                          "required": ["type", "args"], "additionalProperties": False},
            },
            "message": {"type": "string", "maxLength": MESSAGE_CHARS},
        },
        "required": [*thoughts, "actions", "message"],
        "additionalProperties": False,
    }


def _pairs(d: dict) -> str:
    return json.dumps([[*k.split("-"), w] for k, w in d.items()])


def input_block(variant: str, own: dict, partner: dict, history: Sequence[str], visited: Sequence[str],
                remaining: Sequence[str], ibp: Optional[Sequence[str]], observation: str) -> str:
    """One turn's input, the variant's flags in the paper's order. Coins as [room, room, coins] triples."""
    lines = [f"[World-state-own]: {_pairs(own)}"]
    if variant != "baseline":
        lines.append(f"[World-state-user]: {_pairs(partner)}")
    if variant in DRAFT_VARIANTS:
        lines.append(f"[History]: {'; '.join(history) if history else '[]'}")
    elif variant == "state-tracking":
        lines += [f"[Visited]: {json.dumps(list(visited))}", f"[Remaining]: {json.dumps(list(remaining))}"]
    else:
        lines += [f"[Remaining]: {json.dumps(list(remaining))}", f"[Visited]: {json.dumps(list(visited))}",
                  f"[IBP]: {json.dumps(list(ibp or []))}"]
    lines.append(f"[Observation]: {observation}")
    return "\n".join(lines)


def action_text(kind: str, args) -> str:
    return f"{kind}({json.dumps(args)})"


def answer_json(variant: str, step: dict) -> str:
    thoughts = ({"thought_draft": step["draft"], "thought_missing": step["missing"]} if uses_draft(variant)
                else {"thought": (f"The IBP is {'-'.join(step['ibp'])}. " if variant == "problem-solving" else "")
                      + step["draft"]})
    actions = [{"type": k, "args": list(a)} for k, a in step["actions"] if k != "solve" or uses_draft(variant)]
    return json.dumps({**thoughts, "actions": actions, "message": step["message"]}, ensure_ascii=False)


def example_turns(variant: str, seat: str) -> list[tuple[str, str]]:
    """(input, answer) of `seat`'s turns in the example conversation, rendered for `variant`."""
    other = "ghost" if seat == "light" else "light"
    partner: dict = {}
    history: list[str] = []
    pending: list[str] = []   # what the seat observes before its next turn
    out = []
    for step in EXAMPLE_SCRIPT:
        if step["seat"] == other:
            partner.update(step["states"])
            pending += [f"Partner: {step['message']}"] + [f"Game: {g}" for g in step["game"]]
            continue
        visited = step["visited"]
        remaining = [r for r in EXAMPLE_ROOMS if r not in visited[1:]]
        obs = "\n".join(o for o in pending if not (uses_draft(variant) and states_agreed_path(o))) or "<START>"
        out.append((input_block(variant, EXAMPLE_COINS[seat], dict(partner), list(history), visited, remaining,
                                step["ibp"], obs), answer_json(variant, step)))
        history.append(", ".join(action_text(k, a) for k, a in step["actions"]
                                 if k != "solve" or uses_draft(variant)))
        pending = [f"Game: {g}" for g in step["game"]]
    return out


def _room_lines(rooms: Sequence[str]) -> str:
    return "\n".join(f"- {r}: {ROOM_NAMES.get(r, r)}" for r in rooms)


def _coin_lines(coins: dict, world: str) -> str:
    return "\n".join(f"- hallway between {k.split('-')[0]} and {k.split('-')[1]}: {w} {world} coins"
                     for k, w in coins.items())


def system_prompt(variant: str, view: dict) -> str:
    rooms = [r["id"] for r in view["rooms"]]
    start, world = view["start"], view["world"]
    other = "ghost" if world == "light" else "light"
    wmin, wmax = view.get("coin_range") or (1, 10)
    limit = view.get("turn_limit")
    draft = uses_draft(variant)
    inputs = ["[World-state-own]: your own coins, as [room, room, coins] triples"]
    if variant != "baseline":
        inputs.append("[World-state-user]: your partner's coins, as far as they have told you")
    if draft:
        inputs.append("[History]: your own actions in your earlier turns")
    elif variant == "state-tracking":
        inputs += ["[Visited]: the rooms you both agreed on so far, in order",
                   f"[Remaining]: the rooms still to visit ({start} stays until the tour is closed)"]
    else:
        inputs += [f"[Remaining]: the rooms still to visit ({start} stays until the tour is closed)",
                   "[Visited]: the rooms you both agreed on so far, in order",
                   "[IBP]: the intermediate best path: the best full tour starting with [Visited], computed from "
                   "your coins plus your partner's known coins (unknown ones count as 0)"]
    inputs.append("[Observation]: what your partner wrote and what the game announced since your last turn "
                  "(<START> when you speak first)")
    if draft:
        thoughts = ("\"thought_draft\" ([Thought-DRAFT]): draft the best full tour you can from what you know, as "
                    "a path of room letters; \"thought_missing\" ([Thought-MISSING], may be empty): which coins of "
                    "your partner you still need to be sure")
    else:
        thoughts = "\"thought\" ([Thought]): reason briefly about the next step"
    actions = [
        "suggest(x): propose a path x, two rooms for the next step (e.g. [\"B\", \"K\"]) or a whole tour; the game "
        "shows it to your partner as a proposal",
        "agree-inner(x): you agree to your partner's proposal x", "agree-outer(x): your partner agreed to x",
        "reject(x): you reject your partner's proposal x",
        "visit(x): room x is agreed as the next room (only when you and your partner both agreed to it, never "
        "for a room already visited)",
        "ask(x): ask your partner for their coins on the hallways x (two rooms per hallway)",
        "inform(x): you tell your partner your coins on the hallways x; write the numbers in your message, your "
        "partner sees nothing else",
    ]
    if draft:
        actions.append("solve(x): your Thought-DRAFT is a valid full tour x")
    actions.append(f"end(x): submit your final tour x (from {start} through every room back to {start}); each of "
                   "you submits your own tour and only the same tour counts, so end only with the agreed tour")
    rules = ["never agree-inner twice to the same x", "base inform on [World-state-own]"]
    if variant == "problem-solving":
        rules += ["always base ask and suggest on the best path in [IBP]; use [IBP] as your reference point"]
    if variant in ("state-tracking", "problem-solving"):
        rules += ["visit(x) only when your agreement and your partner's coincide, never for x in [Visited]"]
    fields = "\"thought_draft\", \"thought_missing\"" if draft else "\"thought\""
    example = "\n\n".join(f"Input:\n{u}\nOutput:\n{a}" for u, a in example_turns(variant, world))
    ex_rooms = _room_lines(EXAMPLE_ROOMS)
    turns = f" You have {limit} turns each." if limit else ""
    return (
        f"You are an adventurer in a haunted house with {len(rooms)} rooms. You are in the {world} world and your "
        f"partner is in the {other} world. Every two rooms are joined by a hallway, and every hallway holds "
        f"{wmin} to {wmax} coins in each world; you see only the coins of your world. Together you choose ONE round "
        f"trip that starts in {start}, visits each of the {len(rooms)} rooms exactly once and returns to {start}. "
        "You collect the coins of BOTH worlds on every hallway of the trip, so talk about your coins and find the "
        f"trip with the most coins together.{turns}\n\n"
        "Each turn you get:\n" + "\n".join(inputs) + "\n\n"
        f"You answer with one JSON object with the fields {fields}, \"actions\" and \"message\":\n"
        f"- {thoughts};\n"
        "- \"actions\" ([Action]): a list of {\"type\": ..., \"args\": [room letters]} from:\n  "
        + "\n  ".join(actions) + "\n"
        "  The most important rules: " + "; ".join(rules) + ".\n"
        "- \"message\" ([Message]): what you say to your partner; it is all your partner sees of your answer.\n"
        "Always answer in this format.\n\n"
        f"Here is an example setup. The house has 6 rooms:\n{ex_rooms}\nYour coins in the {world} world:\n"
        f"{_coin_lines(EXAMPLE_COINS[world], world)}\n\n"
        f"Here is an example conversation (your turns):\n{example}\n\n---\n"
        f"Are you ready? The house has {len(rooms)} rooms:\n{_room_lines(rooms)}\nYour coins in the {world} "
        f"world:\n{_coin_lines(view['my_coins'], world)}\nYou start in {start} ({ROOM_NAMES.get(start, start)}).")


def grounding_system(variant: str, view: dict) -> str:
    """The paper's GSM: read the speaker's new coins from one message ([Loc] only for state-tracking and
    problem-solving, as in the paper)."""
    rooms = [r["id"] for r in view["rooms"]]
    wmin, wmax = view.get("coin_range") or (1, 10)
    loc = variant in ("state-tracking", "problem-solving")
    inputs = ["[Message]: one message of a player", "[OWS]: that player's coins you already know"]
    if loc:
        inputs.append("[Loc]: the room where the agreed path ends (for 'from there')")
    inputs.append("[World]: the speaker's world, LIGHT or GHOST")
    ex = [("[Message]: I have 9 on L-B and 7 from the living room to the children's room.\n[OWS]: []",
           {"thought": "L-B is 9 and L-C is 7, both new.", "coins": [{"hallway": ["L", "B"], "coins": 9},
                                                                    {"hallway": ["L", "C"], "coins": 7}]}),
          ("[Message]: B-K makes 15 together, I have 6 there.\n[OWS]: [[\"L\", \"B\", 9]]",
           {"thought": "15 is the sum of both worlds; the speaker's own is 6.",
            "coins": [{"hallway": ["B", "K"], "coins": 6}]}),
          ("[Message]: Agreed, let's go on.\n[OWS]: [[\"L\", \"B\", 9], [\"B\", \"K\", 6]]",
           {"thought": "No coins.", "coins": []})]
    examples = "\n\n".join(f"Input:\n{u}\n[World]: LIGHT\nOutput:\n{json.dumps(a)}" for u, a in ex)
    return (
        "You are observing two players who plan a round trip through a house; you update what one player has "
        "told about the coins of their world.\nInput:\n" + "\n".join(inputs) + "\n"
        "Output: JSON {\"thought\": ..., \"coins\": [{\"hallway\": [room, room], \"coins\": n}]} with only NEW coins "
        f"of the speaker ({wmin}-{wmax}), never sums of both worlds; an empty list when nothing is new. Hallways "
        f"go both ways.\nExamples (the example house has rooms L, E, B, K, C, A):\n{examples}\n\n"
        f"In this task there are {len(rooms)} rooms:\n{_room_lines(rooms)}")


def grounding_input(message: str, known: dict, loc: Optional[str], world: str) -> str:
    lines = [f"[Message]: {message}", f"[OWS]: {_pairs(known)}"]
    if loc:
        lines.append(f"[Loc]: {loc}")
    lines.append(f"[World]: {world.upper()}")
    return "\n".join(lines)
