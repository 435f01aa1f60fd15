"""The games as data: the paper's ten (and the reference's probe variants) in `games/*.yaml`, or any YAML file with
a payoff matrix of any size or a game tree of any depth.

Matrix file:  name, title, kind: matrix, actions: [[Alice's actions], [Bob's actions]],
              payoffs: rows = Alice's actions, columns = Bob's, cells [u_Alice, u_Bob].
Tree file:    name, title, kind: tree, tree: {player: alice|bob, moves: {label: node or [u_Alice, u_Bob]}}.
Checked on load: a malformed file raises `GameFileError` saying what is wrong.

Also built here: `golden-balls-N`, the Golden Balls game with jackpot N (the paper's sweep, `GOLDEN_BALLS_JACKPOTS`),
and `neutral(game)`, the same game with every action named choice_1..k and no title that names it (the paper's
prompts never tell the model which famous game it plays).
"""
from __future__ import annotations

import os
import re
from numbers import Number

import yaml

GAMES_DIR = os.path.join(os.path.dirname(__file__), "games")
PLAYERS = ("alice", "bob")
# The paper's testbed, in the order of its tables.
TESTBED = ("prisoners-dilemma", "stag-hunt", "battle-of-sexes", "wait-go", "duopoly",
           "escalation", "monopoly", "hot-cold", "draco", "trigame")
MAX_ACTIONS = 12  # per player and node: the page and the chat stay readable
# Golden Balls jackpots of the paper's probe (original release, src/human_verification.py): 20 games each.
GOLDEN_BALLS_JACKPOTS = (250, 500, 1000, 1500, 2000, 2500, 5000, 10000, 15000, 20000, 25000, 50000, 100150)
_GOLDEN = re.compile(r"golden-balls-([0-9]{1,9})")


class GameFileError(ValueError):
    pass


def available() -> list[str]:
    return sorted(f[:-5] for f in os.listdir(GAMES_DIR) if f.endswith(".yaml"))


def load(name: str = "prisoners-dilemma", path: str | None = None) -> dict:
    """A checked game definition: by catalogue name, or from a YAML file."""
    if path:
        if not os.path.exists(path):
            raise GameFileError(f"no game file at {path!r}")
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    elif _GOLDEN.fullmatch(name or ""):
        return golden_balls(int(_GOLDEN.fullmatch(name).group(1)))
    else:
        if name not in available():
            raise GameFileError(f"unknown game {name!r}; available: {', '.join(available())}, golden-balls-N "
                                "(jackpot N)")
        with open(os.path.join(GAMES_DIR, name + ".yaml"), encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    return check(data)


def _payoff(value, where: str) -> list:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, Number) and not isinstance(v, bool) for v in value)):
        raise GameFileError(f"{where}: a payoff must be two numbers [u_Alice, u_Bob], got {value!r}")
    return [v for v in value]


def _labels(actions, who: str) -> list[str]:
    if not isinstance(actions, list) or not 1 <= len(actions) <= MAX_ACTIONS:
        raise GameFileError(f"{who} needs 1 to {MAX_ACTIONS} actions")
    labels = [str(a).strip() for a in actions]
    if any(not a for a in labels) or len({a.lower() for a in labels}) != len(labels):
        raise GameFileError(f"{who}'s actions must be distinct and non-empty: {labels}")
    return labels


def _node(node, where: str):
    if isinstance(node, (list, tuple)):
        return _payoff(node, where)
    if not isinstance(node, dict) or "moves" not in node or "player" not in node:
        raise GameFileError(f"{where}: a node needs 'player' and 'moves' (or is a leaf [u_Alice, u_Bob])")
    player = node["player"]
    player = PLAYERS[player] if player in (0, 1) else str(player).lower()
    if player not in PLAYERS:
        raise GameFileError(f"{where}: player must be alice or bob, got {node['player']!r}")
    moves = node["moves"]
    if not isinstance(moves, dict) or not moves:
        raise GameFileError(f"{where}: moves must be a non-empty mapping label -> node")
    _labels(list(moves), f"the node at {where}")
    return {"player": player, "moves": {str(k).strip(): _node(v, f"{where}/{k}") for k, v in moves.items()}}


def check(data) -> dict:
    if not isinstance(data, dict):
        raise GameFileError("a game file is a mapping (name, title, kind, ...)")
    kind = data.get("kind", "tree" if "tree" in data else "matrix")
    out = {"name": str(data.get("name") or "custom"), "title": str(data.get("title") or data.get("name") or "Game"),
           "kind": kind, "description": str(data.get("description") or ""), "note": str(data.get("note") or "")}
    if kind == "matrix":
        acts = data.get("actions")
        if not isinstance(acts, list) or len(acts) != 2:
            raise GameFileError("actions must be [[Alice's actions], [Bob's actions]]")
        rows, cols = _labels(acts[0], "Alice"), _labels(acts[1], "Bob")
        pay = data.get("payoffs")
        if not isinstance(pay, list) or len(pay) != len(rows) or any(
                not isinstance(r, list) or len(r) != len(cols) for r in pay):
            raise GameFileError(f"payoffs must be {len(rows)} rows of {len(cols)} cells")
        out.update(actions=[rows, cols],
                   payoffs=[[_payoff(c, f"payoffs[{i}][{j}]") for j, c in enumerate(r)] for i, r in enumerate(pay)])
    elif kind == "tree":
        tree = _node(data.get("tree"), "tree")
        if isinstance(tree, list):
            raise GameFileError("the tree's root must be a decision node")
        out["tree"] = tree
    else:
        raise GameFileError(f"kind must be matrix or tree, got {kind!r}")
    return out


def golden_balls(jackpot: int) -> dict:
    """The Golden Balls split-or-steal game as the original release builds it: (J/2, J/2) (0, J) / (J, 0) (0, 0)."""
    if jackpot < 2:
        raise GameFileError("a Golden Balls jackpot is at least 2")
    half = jackpot // 2 if jackpot % 2 == 0 else jackpot / 2
    return check({"name": f"golden-balls-{jackpot}", "title": f"Golden Balls (jackpot {jackpot})", "kind": "matrix",
                  "actions": [["Split", "Steal"], ["Split", "Steal"]],
                  "payoffs": [[[half, half], [0, jackpot]], [[jackpot, 0], [0, 0]]],
                  "note": "Original release, src/human_verification.py: split = choice_1, steal = choice_2."})


def neutral(game: dict, number: int = 1) -> dict:
    """The game with actions named choice_1..k (per player; per node in a tree) and a title that names no game."""
    out = dict(game, title=f"Game {number}", description="")
    names = lambda labels: [f"choice_{i + 1}" for i in range(len(labels))]  # noqa: E731

    def node(n):
        if isinstance(n, list):
            return list(n)
        return {"player": n["player"], "moves": {new: node(child) for new, child in
                                                 zip(names(n["moves"]), n["moves"].values())}}
    if game["kind"] == "matrix":
        out["actions"] = [names(game["actions"][0]), names(game["actions"][1])]
    else:
        out["tree"] = node(game["tree"])
    return out
