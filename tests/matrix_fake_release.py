"""A fake of Wenyueh/game_theory for the matrix-games `paper` preset's tests: the release's relative paths and code
structure (the same assignment targets, branches and f-string expressions the preset reads), with our own
placeholder text in place of the paper's wording."""
from __future__ import annotations

from tasks.matrix_games import release

SYSTEM_LINE = "args.system_prompt = f'PLACEHOLDER system: be {args.personality} here.'\n"
PROBES = {k: f"PLACEHOLDER probe {k} about {{}}.\\n" for k in range(1, 7)}


def _probes() -> str:
    body = ", ".join(f'{k}: "{v}"' for k, v in PROBES.items())
    return f"        self.prompt_for_negotiate = {{0: '', {body}}}\n"


def _lines(game_fn: str, args: str, tail: str, game_class: str = "Game") -> str:
    def line(tag):
        return f"            self.alice.previous_message.append('{tag} {tail}'.format({args})+message)\n"
    return (f"class {game_class}:\n    def {game_fn}(self):\n"
            "        if self.args.who_first == 'Alice':\n" + line("A-FIRST") + line("B-REPLY")
            + "        else:\n" + line("B-FIRST") + line("A-REPLY"))


SIMULTANEOUS = '''class Agent:
    def __init__(self, args, name):
        self.game_setting = f"""
SETTING {self.name} vs {self.the_other_player}: {action_number} options {self.action_names}
RULES
{rule_descriptions}
"""
''' + _probes() + '''
    def create_rule_description(self):
        for choice_1 in self.actions:
            for choice_2 in self.actions:
                if choice_1 == choice_2:
                    r = f"- SAME {choice_1} with {self.the_other_player}: {player_1_payoff}/{player_2_payoff}."
                elif choice_1 != choice_2:
                    r = f"- DIFF {choice_1} vs {self.the_other_player} {choice_2}: {player_1_payoff}/{player_2_payoff}."

    def make_action(self):
        action_prompt = f"""
### Your Action
ACT among {self.action_names}
"""
        if self.previous_message:
            previous_messages = "\\nACT-HISTORY:\\n" + '\\n'.join(self.previous_message)

    def negotiate(self):
        negotiate_prompt = f"""
### Negotiation
TALK with {self.the_other_player}, {self.max_negotiation_round} rounds
"""
        if self.previous_message:
            previous_messages = "\\nTALK-HISTORY:\\n" + '\\n'.join(self.previous_message)

''' + _lines("play", "round+1", "{}: ")

_PLAYED = '''            previous_actions = '; '.join([f"{name} took {action}" for name, action in previous_actions])
'''
SEQUENTIAL = '''class Agent:
    def __init__(self, args, name):
        self.game_setting = f"""
TREE {self.name} vs {self.the_other_player}
RULES
{rule_descriptions}
"""
''' + _probes() + '''
    def create_rule_description(self):
        for action_sequence in sequences:
            s = "WHEN "
            for i, action in enumerate(action_sequence):
                if i == 0:
                    s += f"{name} takes {a}, "
                else:
                    s += f"next {name} takes {a}, "
            s += f"THEN A={partial_dict[0]} B={partial_dict[1]}."

    def make_action(self, previous_actions):
        if not previous_actions:
            action_prompt = f"""
### Your Action
PICK {action_names}
"""
        else:
''' + _PLAYED + '''            action_prompt = f"""
PLAYED {previous_actions}
### Your Action
PICK {action_names}
"""
        if self.previous_message:
            previous_messages = "\\nACT-HISTORY:\\n" + '\\n'.join(self.previous_message)

    def negotiate(self, previous_actions):
        if not previous_actions:
            negotiate_prompt = f"""
### Negotiation
TALK with {self.the_other_player}, {self.max_negotiation_round} rounds
"""
        else:
''' + _PLAYED + '''            negotiate_prompt = f"""
PLAYED {previous_actions}
### Negotiation
TALK with {self.the_other_player}, {self.max_negotiation_round} rounds
"""
        if self.previous_message:
            previous_messages = "\\nTALK-HISTORY:\\n" + '\\n'.join(self.previous_message)

''' + _lines("play_next", "round+1, action_number", "{} before {}:\\n")


WORKFLOW = '''class Agent:
    def set_game(self):
        if self.args.game_type == 'simultaneous':
            self.game_setting = f"""
WF-SETTING {self.name} vs {self.the_other_player}: {action_number} options {self.action_names}
{rule_descriptions}
"""
        elif self.args.game_type == 'sequential':
            self.game_setting = f"""
WF-TREE {self.name}
"""

    def create_simultaneous_rule_description(self):
        if choice_1 == choice_2:
            r = f"- WF-SAME {choice_1}: {player_1_payoff}/{player_2_payoff}."
        elif choice_1 != choice_2:
            r = f"- WF-DIFF {choice_1} vs {choice_2}: {player_1_payoff}/{player_2_payoff}."

    def perspective_wise_reasoning_template(self, player, condition, action, reason):
        if player != self.name:
            template = f"""
AFTER {self.the_other_player} {condition}: I {action} as {reason}.
"""
        else:
            template = f"""
AFTER my {condition}: {self.the_other_player} {action} as {reason}.
"""
        return template

    def other_conditioned_action(self, your_action):
        conditional_action_prompt = f"""
### Their Reply
I took {your_action}; {self.the_other_player} picks from {self.action_names}
"""

    def your_conditioned_action(self, other_action):
        conditional_action_prompt = f"""
### My Reply
{self.the_other_player} took {other_action}; I pick from {self.action_names}
"""

    def make_simultaneous_action(self):
        action_prompt = f"""
### Your Action
WF-ACT among {self.action_names}
"""
        if self.previous_message:
            previous_messages = "\\nWF-ACT-HISTORY:\\n" + '\\n'.join(self.previous_message)

    def simultaneous_negotiate(self):
        negotiate_prompt = f"""
### Negotiation
WF-TALK with {self.the_other_player}, {self.max_negotiation_round} rounds
"""
        if self.previous_message:
            previous_messages = "\\nWF-TALK-HISTORY:\\n" + '\\n'.join(self.previous_message)

    def summarizer(self, thinking_chains):
        def beautify_strategy(strategy):
            return f"""
### Plan
PLAN {strategy}
"""
        summary_prompt = f"""
### Summary
SUM {thoughts}
"""

''' + _lines("play", "round+1", "{}: ", "Simultaneous_Game")


def fake_release(root, files=release.RELEASE_FILES) -> str:
    """A folder with the release's relative paths (those in `files`) and our placeholder text."""
    texts = {release.SYSTEM_FILE: "import argparse\nargs = argparse.Namespace(personality='x')\n" + SYSTEM_LINE,
             release.PROMPTS_FILE: SIMULTANEOUS, release.SEQUENTIAL_FILE: SEQUENTIAL, release.WORKFLOW_FILE: WORKFLOW}
    (root / "src").mkdir(parents=True, exist_ok=True)
    for rel in files:
        (root / rel).write_text(texts[rel])
    return str(root)
