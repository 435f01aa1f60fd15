"""Every prompt the release's no-workflow agent sends (`llm` under brain option `wording: paper`), built from the
release's own strings at run time (`--paper-prompts PATH`, tasks/core/release_text.py), never bundled.

What is read, by where the release's code puts it (reference game-theory-negotiation.md §3):
- simultaneous games, src/simultaneous_game_agent.py: `Agent.game_setting` (the game introduction and rules), the
  two rule sentences of `create_rule_description` (one when both pick the same choice, one when they differ), the
  action prompt and negotiation prompt with their history headings (`make_action`, `negotiate`), and the history
  lines of `Game.play` (the first speaker's and the replier's, for Alice first and for Bob first);
- sequential games, src/sequential_game_agent.py: the same pieces, the rule line's fragments ("If ", the first and
  the later moves, the rewards), the prompts with and without the moves played so far, and `Game.play_next`'s lines
  with the move's ordinal.
What is ours is the code around the strings: the composition order (game setting + history + action + the
anti-negotiation prompt, as `make_action` joins them) and the values (names, labels, rewards, messages) of our game.
Quirks kept, because they change what is sent: a simultaneous game lists the seat's own choices for the partner too
(the release's agents only ran games where both have the same choices), the rule sentences of a row end in a blank
entry ('\n' joined by '\n'), and sequential action names keep the leading underscore of the release's "Alice_choice_1"
keys ("_choice_1").
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

from tasks.core.release_text import ReleaseFile, Template

from . import release

SIMULTANEOUS = release.PROMPTS_FILE
SEQUENTIAL = release.SEQUENTIAL_FILE
WHO_FIRST = "self.args.who_first == 'Alice'"  # the release's test for "Alice speaks first"
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


@dataclass(frozen=True)
class AgentPrompts:
    """One release file's agent prompts (simultaneous or sequential)."""
    setting: Template
    rules: tuple           # simultaneous: (same choice, different choices); sequential: (start, first, then, rewards)
    action: tuple          # (no moves played yet, after moves) — the same template twice for simultaneous games
    negotiate: tuple       # likewise
    played: tuple          # sequential: (separator, item, keep "_") of the moves played so far; () if simultaneous
    action_history: Template
    negotiate_history: Template
    lines: dict            # first speaker's name -> (its line, the replier's line), '...'.format(round, ordinal)


def history_lines(f: ReleaseFile, game: ast.AST) -> dict:
    """The history lines the release's game loop `game` appends, for Alice first and for Bob first."""
    out = {}
    for first, body in (("Alice", True), ("Bob", False)):
        found = f.format_strings(f.branch(game, WHO_FIRST, body), "previous_message.append")
        if len(found) != 2:
            raise f.error("expected the first speaker's and the replier's lines in the game loop")
        out[first] = tuple(found)
    return out


def simultaneous_prompts(f: ReleaseFile, setting: ast.AST, rules: ast.AST, act: ast.AST, neg: ast.AST,
                         game: ast.AST) -> AgentPrompts:
    """A simultaneous agent's prompts from the scopes that hold them (the agent's and the workflow's are alike)."""
    return AgentPrompts(
        setting=f.string(setting, "self.game_setting"),
        rules=(f.string(f.branch(rules, "choice_1 == choice_2"), "r"),
               f.string(f.branch(rules, "choice_1 != choice_2"), "r")),
        action=(f.string(act, "action_prompt"),) * 2, negotiate=(f.string(neg, "negotiate_prompt"),) * 2, played=(),
        action_history=f.string(act, "previous_messages"), negotiate_history=f.string(neg, "previous_messages"),
        lines=history_lines(f, game))


@lru_cache(maxsize=8)
def simultaneous(root: str) -> AgentPrompts:
    f = ReleaseFile(release.require(root, "The simultaneous agent's prompts"), SIMULTANEOUS, release.RELEASE)
    fn = f.function
    return simultaneous_prompts(f, fn("Agent.__init__"), fn("Agent.create_rule_description"), fn("Agent.make_action"),
                                fn("Agent.negotiate"), fn("Game.play"))


def moves_played(f: ReleaseFile, scope: ast.AST) -> tuple:
    """(separator, item, keeps the underscore) of the moves played so far: the agent cuts "Alice_choice_1" after
    its first underscore, the workflow at it ("_choice_1")."""
    sep, item = f.joined(scope, "previous_actions")
    split = next((v for v in f.assigned(scope, "previous_actions")
                  if isinstance(v, ast.ListComp) and isinstance(v.elt, ast.Tuple)), None)
    if split is None:
        raise f.error("no (name, action) pairs assigned to previous_actions")
    return sep, item, "+" not in ast.unparse(split.elt.elts[1])


def sequential_prompts(f: ReleaseFile, setting: ast.AST, rules: ast.AST, act: ast.AST, neg: ast.AST,
                       game: ast.AST) -> AgentPrompts:
    """A sequential agent's prompts from the scopes that hold them (the agent's and the workflow's are alike)."""
    fresh = "not previous_actions"
    return AgentPrompts(
        setting=f.string(setting, "self.game_setting"),
        rules=(f.string(rules, "s"), f.string(f.branch(rules, "i == 0"), "s"),
               f.string(f.branch(rules, "i == 0", False), "s"), f.strings(rules, "s")[-1]),
        action=(f.string(f.branch(act, fresh), "action_prompt"),
                f.string(f.branch(act, fresh, False), "action_prompt")),
        negotiate=(f.string(f.branch(neg, fresh), "negotiate_prompt"),
                   f.string(f.branch(neg, fresh, False), "negotiate_prompt")),
        played=moves_played(f, f.branch(act, fresh, False)),
        action_history=f.string(act, "previous_messages"), negotiate_history=f.string(neg, "previous_messages"),
        lines=history_lines(f, game))


@lru_cache(maxsize=8)
def sequential(root: str) -> AgentPrompts:
    f = ReleaseFile(release.require(root, "The sequential agent's prompts"), SEQUENTIAL, release.RELEASE)
    fn = f.function
    return sequential_prompts(f, fn("Agent.__init__"), fn("Agent.create_rule_description"), fn("Agent.make_action"),
                              fn("Agent.negotiate"), fn("Game.play_next"))


def release_tree(v: dict):
    """The view's tree in the release's form: moves keyed "Alice_choice_1", leaves [Alice's reward, Bob's]."""
    names = {"me": v["me_name"], "partner": v["partner_name"]}

    def convert(node):
        if "mover" not in node:
            return [node["me"], node["them"]] if v["me"] == "alice" else [node["them"], node["me"]]
        return {f"{names[node['mover']]}_{label}": convert(child) for label, child in node["moves"].items()}
    return convert(v["tree"])


def terminal_paths(tree) -> list[list[str]]:
    """Every path to a leaf, shorter paths first (the release enumerates them level by level)."""
    out = []

    def walk(node, path):
        if isinstance(node, list):
            out.append(path)
            return
        for key, child in node.items():
            walk(child, path + [key])
    walk(tree, [])
    return sorted(out, key=len)


def subtree(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def ordinal(n: int) -> str:
    """The words inflect gives the release ("first", "second", ...); trees are never ten moves deep."""
    return ORDINALS[n - 1] if 1 <= n <= len(ORDINALS) else f"{n}th"


class PaperWording:
    """The release agent's prompts for one seat's view: `negotiate(view)` and `action(view, probe)`."""

    def __init__(self, root):
        self.root = release.require(root, "The paper wording")
        simultaneous(self.root), sequential(self.root)  # stops now, naming what is missing, not mid-game

    def _prompts(self, v: dict) -> AgentPrompts:
        return simultaneous(self.root) if v["game"]["kind"] == "matrix" else sequential(self.root)

    def _seat(self, v: dict) -> SimpleNamespace:
        mine = v["my_actions"] if v["game"]["kind"] == "matrix" else []
        return SimpleNamespace(name=v["me_name"], the_other_player=v["partner_name"], action_names=", ".join(mine),
                               max_negotiation_round=v["negotiation"]["rounds"])

    # --- the game setting ---------------------------------------------------------------------------------------
    def setting(self, v: dict) -> str:
        p, me = self._prompts(v), self._seat(v)
        rules = self._matrix_rules(p, v, me) if v["game"]["kind"] == "matrix" else self._tree_rules(p, v)
        return p.setting.render({"self": me, "action_number": len(v.get("my_actions") or ()),
                                 "rule_descriptions": rules})

    @staticmethod
    def _matrix_rules(p: AgentPrompts, v: dict, me) -> str:
        sentences = []
        for i, choice_1 in enumerate(v["my_actions"]):
            for j, choice_2 in enumerate(v["their_actions"]):
                cell = v["matrix"][i][j]
                same, differ = p.rules
                sentences.append((same if choice_1 == choice_2 else differ).render(
                    {"self": me, "choice_1": choice_1, "choice_2": choice_2, "player_1_payoff": cell["me"],
                     "player_2_payoff": cell["them"]}))
            sentences.append("\n")  # the release's blank entry after each of the seat's choices
        return "\n".join(sentences)

    @staticmethod
    def _tree_rules(p: AgentPrompts, v: dict) -> str:
        """One line per terminal path, shorter paths first, as the release enumerates them level by level."""
        start, first, then, rewards = p.rules
        tree, lines = release_tree(v), []
        for path in terminal_paths(tree):
            s = start.render({})
            for i, key in enumerate(path):
                s += (first if i == 0 else then).render({"name": key[:key.index("_")], "a": key[key.index("_") + 1:]})
            lines.append(s + rewards.render({"partial_dict": subtree(tree, path)}))
        return "\n".join(lines)

    # --- history and moves --------------------------------------------------------------------------------------
    def history(self, v: dict) -> list[str]:
        """This trial's messages as the release logs them: the first speaker's line or the replier's, with the
        round (and in trees the ordinal of the move the talk came before)."""
        p = self._prompts(v)
        neg = v["negotiation"]
        first_is_me = neg.get("first", "me") == "me"
        first_name = v["me_name"] if first_is_me else v["partner_name"]
        said, replied = p.lines[first_name]
        out, rounds = [], {}
        for m in neg["messages"]:
            step = m.get("step", 0)
            opened = (m["who"] == "me") == first_is_me
            rounds[step] = rounds.get(step, 0) + opened
            out.append((said if opened else replied).format(max(1, rounds[step]), ordinal(step + 1)) + m["text"])
        return out

    def _played(self, p: AgentPrompts, v: dict) -> str:
        if not v.get("path"):
            return ""
        sep, item, underscore = p.played
        node, out = v["tree"], []
        for label in v["path"]:
            out.append(item.render({"name": v["me_name"] if node["mover"] == "me" else v["partner_name"],
                                    "action": "_" * underscore + label}))
            node = node["moves"][label]
        return sep.join(out)

    # --- the two prompts ----------------------------------------------------------------------------------------
    def negotiate(self, v: dict, strategy: str = "") -> str:
        """The negotiation prompt; `strategy` is the workflow's derived strategy, put after the game setting."""
        p = self._prompts(v)
        played = self._played(p, v)
        prompt = p.negotiate[bool(played)].render({"self": self._seat(v), "previous_actions": played})
        lines = self.history(v)
        if lines:
            prompt += p.negotiate_history.render({}) + "\n".join(lines)
        return self.setting(v) + ("\n" + strategy + "\n" if strategy else "") + prompt

    def action(self, v: dict, probe: str, strategy: str = "") -> str:
        """The action prompt; `probe` is the anti-negotiation text (the release's, '' for none), added after a talk;
        `strategy` as in `negotiate`."""
        p, me = self._prompts(v), self._seat(v)
        played = self._played(p, v)
        if v["game"]["kind"] == "matrix":
            names = me.action_names
        else:  # the release cuts "Alice_choice_1" at its first underscore and keeps it: "_choice_1"
            names = ", ".join("_" + m for m in v["moves"])
        prompt = p.action[bool(played)].render({"self": me, "action_names": names, "previous_actions": played})
        lines = self.history(v)
        if lines:
            prompt = p.action_history.render({}) + "\n".join(lines) + "\n" + prompt + "\n\n" + probe
        return self.setting(v) + "\n" + (strategy + "\n" if strategy else "") + prompt
