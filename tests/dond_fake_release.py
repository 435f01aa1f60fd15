"""A fake of Wenyueh/game_theory for the Deal-or-No-Deal `paper` preset's tests: src/deal_no_deal/'s files with the
release's code structure (the same functions, assignment targets, branches and f-string expressions the preset
reads: the raw agent's prompts, and the workflow's blocks, reflection pieces and update question) and our own
placeholder words. The import of a missing module proves the preset never imports it."""
from __future__ import annotations

import textwrap
from pathlib import Path

from tests.test_dond_paper_sample import line

GAME_PY = textwrap.dedent(r'''
    import module_that_does_not_exist

    class Agent:
        def game_setting(self):
            if self.args.special_prompting:
                self.game_description = f"""FAKE-SPECIAL {self.name}"""
            else:
                self.game_description = f"""FAKE-GAME {self.example_count[0]} books, {self.example_count[1]} hats, {self.example_count[2]} balls; I am {self.name}, the other is {self.the_other_player}.
    {translate_values(self.example_count, self.agent_values)} FAKE-MAX {compute_score(self.agent_values, self.example_count)}
    """

        def present_deal(self):
            present_deal_prompt = f"""FAKE-PRESENT answer <deal>book=x hat=y ball=z</deal>"""
            return present_deal_prompt

        def initial_negotiation_message(self, extra_prompt=None):
            negotiate_prompt = f"""FAKE-NEGOTIATE with {self.the_other_player} in {self.max_negotiation_round} rounds"""
            previous_messages = "FAKE-HISTORY:\n" + '\n'.join(self.previous_message)

        def summarize_deal_basedon_message(self, negotiation_message):
            proposal_summarizer_prompt = f"""FAKE-SUMMARIZE for {self.the_other_player}"""
            negotiation_message = f"""FAKE-MESSAGE [{negotiation_message}]"""

        def whether_new_deal_proposed(self, negotiation_message):
            whether_new_deal_proposed_prompt = f"""FAKE-HAS-DEAL [{negotiation_message}] to {self.the_other_player}"""

        def summarize_previous_negotiation(self):
            if self.check_agreement(self.my_previous_proposals[-1]):
                history = f"""LAST-AGREED {self.name}={self.my_previous_proposals[-1][0]}{self.my_previous_proposals[-1][1]}{self.my_previous_proposals[-1][2]}"""
            else:
                history = f"""LAST-REJECTED {self.name}={self.my_previous_proposals[-1][0]}{self.my_previous_proposals[-1][1]}{self.my_previous_proposals[-1][2]} {self.the_other_player}={self.example_count[0] - self.the_other_player_previous_proposals[-1][0]}{self.example_count[1] - self.the_other_player_previous_proposals[-1][1]}{self.example_count[2] - self.the_other_player_previous_proposals[-1][2]}"""
            return history

        def update_negotiation_message(self, negotiation_message, workflow_aided_reflection):
            update_or_not_prompt = f"""
    FAKE-UPDATE [{negotiation_message}] after [{self.previous_message[-1]}] REFLECTION:{workflow_aided_reflection}
    """
            if self.previous_message:
                previous_messages = "\nUPDATE-HISTORY:\n" + '\n'.join(self.previous_message)

        def negotiate_with_feedback(self):
            if probability_due_to_envy > 0 and probability_due_to_greedy > 0:
                workflow_aided_initial_thinking = f"""
    THINK-BOTH [{self.summarize_previous_negotiation()}] envy {probability_due_to_envy} greed {probability_due_to_greedy} by {self.the_other_player}
    """
            elif probability_due_to_envy > 0:
                workflow_aided_initial_thinking = f"""
    THINK-ENVY [{self.summarize_previous_negotiation()}]
    """
            elif probability_due_to_greedy > 0:
                workflow_aided_initial_thinking = f"""
    THINK-GREED [{self.summarize_previous_negotiation()}]
    """
            while update_or_not:
                workflow_aided_reflection = ''
                if probability_due_to_envy > 0 and probability_due_to_greedy > 0:
                    workflow_aided_reflection += f"""UNFAIR? mine {compute_score(self.agent_values, proposed_deal)} theirs {other_player_expectation_if_envy}|{other_player_expectation_if_greedy}"""
                elif probability_due_to_envy > 0:
                    workflow_aided_initial_thinking = f"""DROPPED-ENVY {other_player_expectation_if_envy}"""
                elif probability_due_to_greedy > 0:
                    workflow_aided_initial_thinking = f"""DROPPED-GREED {other_player_expectation_if_greedy}"""
                if my_envy_freeness:
                    workflow_aided_reflection += "\n" + f"""NO-ENVY of {self.the_other_player}"""
                else:
                    workflow_aided_reflection += "\n" + f"""ENVY of {self.the_other_player}"""
                if probability_due_to_envy > 0:
                    workflow_aided_reflection += "\n" + f"""E1 {round(1-other_player_envy_free_probability_possibility_1,2)}"""
                if probability_due_to_greedy > 0:
                    workflow_aided_reflection += "\n" + f"""E2 {round(1-other_player_envy_free_probability_possibility_2,2)}"""
                if other_envy_free_choices:
                    workflow_aided_reflection += f"\nFAIR for {self.the_other_player}:"
                    for id, (other_possibility, the_other_player_accept_probability) in enumerate(other_envy_free_choices):
                        if rejected_times == 0:
                            workflow_aided_reflection += f"\nF{id+1} {other_possibility[0]}{other_possibility[1]}{other_possibility[2]}/{self.example_count[0]-other_possibility[0]}{self.example_count[1]-other_possibility[1]}{self.example_count[2]-other_possibility[2]} r{compute_score(self.agent_values, other_possibility)} a{the_other_player_accept_probability}"
                            if the_other_player_accept_probability > 0.6:
                                workflow_aided_reflection += " HIGH"
                        else:
                            workflow_aided_reflection += f"\nF{id+1} {other_possibility[0]}{other_possibility[1]}{other_possibility[2]} a{the_other_player_accept_probability} REJECTED {rejected_times}"
                workflow_aided_reflection += "\nGAIN"
                if other_possibilities_to_maximize_value:
                    workflow_aided_reflection += f" for {self.the_other_player}:"
                    for id, (other_possibility, the_other_player_accept_probability) in enumerate(other_possibilities_to_maximize_value):
                        if rejected_times == 0:
                            workflow_aided_reflection += f"\nG{id+1} {other_possibility[0]}{other_possibility[1]}{other_possibility[2]} r{compute_score(self.agent_values, other_possibility)} a{the_other_player_accept_probability}"
                            if the_other_player_accept_probability <= 0.4:
                                workflow_aided_reflection += " LOW"
                            elif the_other_player_accept_probability >= 0.6:
                                workflow_aided_reflection += " HIGH"
                            else:
                                workflow_aided_reflection += " MID"
                        else:
                            workflow_aided_reflection += f"\nG{id+1} {other_possibility[0]}{other_possibility[1]}{other_possibility[2]} REJECTED {rejected_times}"
                else:
                    workflow_aided_reflection += '\n' + "NO-GAIN"

    class DealNoDeal:
        def negotiation(self, total_negotiation_round):
            self.alice.previous_message.append('A-LINE {}: '.format(1) + alice_message)
            self.bob.previous_message.append('B-LINE {}: '.format(1) + bob_message)

    parser.add_argument('--system_prompt', type=str, default="FAKE-SYSTEM")
    parser.add_argument('--max_negotiation_round', type=int, default=20)
''')
METRICS_PY = textwrap.dedent(r'''
    def translate_values(example_count, values):
        text = f"FAKE-VALUES {example_count[0]}x{values[0]} {example_count[1]}x{values[1]} {example_count[2]}x{values[2]}."
        return text
''')
COUNTS, ALICE, BOB = (2, 3, 2), (1, 2, 1), (3, 0, 2)


def fake_release(root: Path) -> Path:
    """The fake checkout at `root` (its game_theory folder), with a one-instance sample of COUNTS, ALICE, BOB."""
    folder = root / "src" / "deal_no_deal"
    folder.mkdir(parents=True)
    (folder / "deal_no_deal.py").write_text(GAME_PY, encoding="utf-8")
    (folder / "deal_no_deal_metrics.py").write_text(METRICS_PY, encoding="utf-8")
    (folder / "sampled_50_deal_no_deal.txt").write_text(line(COUNTS, ALICE, BOB, "hello there") + "\n",
                                                        encoding="utf-8")
    return root
