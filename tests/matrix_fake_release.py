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

def _tree_rules(start: str) -> str:
    """The body of the release's tree-rule method: one line per path, from the move fragments."""
    return ('''        for action_sequence in sequences:
            s = "{start} "
            for i, action in enumerate(action_sequence):
                if i == 0:
                    s += f"{{name}} takes {{a}}, "
                else:
                    s += f"next {{name}} takes {{a}}, "
            s += f"THEN A={{partial_dict[0]}} B={{partial_dict[1]}}."
''').format(start=start)


_PLAYED = '''            previous_actions = [(a[:a.index('_')], a[a.index('_')+1:]) for a in previous_actions]
            previous_actions = '; '.join([f"{name} took {action}" for name, action in previous_actions])
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
''' + _tree_rules("WHEN") + '''
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
WF-TREE {self.name} vs {self.the_other_player}
{rule_descriptions}
"""

    def create_simultaneous_rule_description(self):
        if choice_1 == choice_2:
            r = f"- WF-SAME {choice_1}: {player_1_payoff}/{player_2_payoff}."
        elif choice_1 != choice_2:
            r = f"- WF-DIFF {choice_1} vs {choice_2}: {player_1_payoff}/{player_2_payoff}."

    def create_sequential_rule_description(self):
''' + _tree_rules("WF-WHEN") + '''
    def sequential_game_workflow(self):
        for i in range(len(thinking_chains)):
            ordinal_number = ordinal_converter.number_to_words(ordinal_converter.ordinal(i+1)).capitalize()
            thinking_chains[i] = f'{ordinal_number}: {thinking_chains[i][0]} takes {thinking_chains[i][1]} as {thinking_chains[i][2]}.' if thinking_chains[i][0] != self.name else f'{ordinal_number}: I take {thinking_chains[i][1]} as {thinking_chains[i][2]}.'

    def chain_conditioned_actions(self, player, chain, actions):
        chain = [[action.split('_')[0], action[action.index('_')+1:]] for action in chain]
        chain = [f"{name} took {action}." for name, action in chain]
        text_chain = ''
        for i, one in enumerate(chain):
            if i == 0:
                text_chain += 'START ' + one
            else:
                text_chain += ' NEXT ' + one
        if player == self.name:
            conditioned_action_prompt = f"""
### Decide Mine
AFTER {text_chain} I pick from {text_actions}
"""
        else:
            conditioned_action_prompt = f"""
### Decide Theirs
AFTER {text_chain} {self.the_other_player} picks from {text_actions}
"""

    def chain_conditioned_actions_with_decisions_made(self, player, chain, actions, decided_part):
        _text_chain = [[action.split('_')[0], action[action.index('_')+1:]] for action in chain]
        _text_chain = [f"{name} took {action}." for name, action in _text_chain]
        choice_result_text = ''
        for action in actions:
            choice_result_text += f'NOTE my {a}: ' if player == self.name else f'NOTE {player} {a}: '
            if tuple(chain+[action]) in decided_part:
                for decision_will_be_made in decisions_will_be_made:
                    choice_result_text += f"I then {decision_will_be_made[1]} ({decision_will_be_made[2]}).\\n" if decision_will_be_made[0] == self.name else f"{decision_will_be_made[0]} then {decision_will_be_made[1]} ({decision_will_be_made[2]}).\\n"
            else:
                choice_result_text += "END. "
        if player == self.name:
            conditioned_action_prompt = f"""
### Decide Mine Noted
AFTER {text_chain} I pick from {text_actions}
{choice_result_text}
"""
        else:
            conditioned_action_prompt = f"""
### Decide Theirs Noted
AFTER {text_chain} {self.the_other_player} picks from {text_actions}
{choice_result_text}
"""
        action_prompt = self.game_setting + '\\n' + conditioned_action_prompt
        action_prompt = action_prompt.replace('I ', 'you ').replace('my ', 'your ')

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

    def make_sequential_action(self, previous_actions):
        if not previous_actions:
            action_prompt = f"""
### Your Action
WF-PICK {action_names}
"""
        else:
            previous_actions = [(a[:a.index('_')], a[a.index('_'):]) for a in previous_actions]
            previous_actions = '; '.join([f"{name} took {action}" for name, action in previous_actions])
            action_prompt = f"""
WF-PLAYED {previous_actions}
### Your Action
WF-PICK {action_names}
"""
        if self.previous_message:
            previous_messages = "\\nWF-ACT-HISTORY:\\n" + '\\n'.join(self.previous_message)

    def sequential_negotiate(self, previous_actions):
        if not previous_actions:
            negotiate_prompt = f"""
### Negotiation
WF-TALK with {self.the_other_player}
"""
        else:
            previous_actions = [(a[:a.index('_')], a[a.index('_'):]) for a in previous_actions]
            previous_actions = '; '.join([f"{name} took {action}" for name, action in previous_actions])
            negotiate_prompt = f"""
WF-PLAYED {previous_actions}
### Negotiation
WF-TALK with {self.the_other_player}
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

''' + _lines("play", "round+1", "{}: ", "Simultaneous_Game") + _lines(
    "play_next", "round+1, action_number", "{} before {}:\\n", "Sequential_Game")


def fake_release(root, files=release.RELEASE_FILES) -> str:
    """A folder with the release's relative paths (those in `files`) and our placeholder text."""
    texts = {release.SYSTEM_FILE: "import argparse\nargs = argparse.Namespace(personality='x')\n" + SYSTEM_LINE,
             release.PROMPTS_FILE: SIMULTANEOUS, release.SEQUENTIAL_FILE: SEQUENTIAL, release.WORKFLOW_FILE: WORKFLOW}
    (root / "src").mkdir(parents=True, exist_ok=True)
    for rel in files:
        (root / rel).write_text(texts[rel])
    return str(root)
