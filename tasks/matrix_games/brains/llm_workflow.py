"""`llm-workflow`: the paper's LLM workflow (§4.4). Before the first talk or move of a game the model builds its
thinking chains: simultaneous games ask, for each of my actions, what the partner will do, and for each of the
partner's actions, what I would do; sequential games walk backwards from the deepest decision nodes, each prompt
noting what was decided below. A summariser turns the chains into one strategy, which is prepended to every
negotiation and action prompt of the `llm` baseline. Every answer is `<s>choice</s>` with bounded retries; a step
the model never answers usably is filled by the exact solver and marked as a fallback (tables say
`llm-workflow+fallback`)."""
from __future__ import annotations

from .. import solvers
from ..parse import parse_action
from .llm_brain import LLMBrain

ANSWER = "Answer with your reason in <r> and </r> and your choice in <s> and </s>."


class LLMWorkflowBrain(LLMBrain):
    name = "llm-workflow"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.strategies: dict[str, str] = {}  # game name -> the derived strategy text

    def _chain_ask(self, question: str, labels: list[str]) -> str | None:
        answer = self._ask(question + "\n" + ANSWER, "chain:" + "|".join(labels))
        return None if answer is None else parse_action(answer, labels)

    def _matrix_chains(self) -> list[str]:
        v, p = self.view, self.bimatrix()
        other, mine, theirs = v["partner_name"], v["my_actions"], v["their_actions"]
        chains = []
        for i, a in enumerate(mine):
            got = self._chain_ask(f"### The Other Player's Action Given Your Action\nSuppose you have chosen to take "
                                  f"the action: {a}. There are {len(theirs)} possible actions that {other} can take: "
                                  f"{', '.join(theirs)}. What action do you think {other} will take to maximize "
                                  "their reward and why?", theirs)
            got = got or theirs[solvers.best_responses(p, 1)[i][0]]
            chains.append(f"If I choose {a}, then {other} will choose {got}.")
        for j, b in enumerate(theirs):
            got = self._chain_ask(f"### Your Potential Action Given the Other Player's Action\nSuppose {other} has "
                                  f"chosen to take the action: {b}. There are {len(mine)} possible actions that you "
                                  f"can take: {', '.join(mine)}. What action would you then take to maximize your "
                                  "reward and why?", mine)
            got = got or mine[solvers.best_responses(p, 0)[j][0]]
            chains.append(f"If {other} chooses {b}, then I will choose {got}.")
        return chains

    def _tree_chains(self) -> list[str]:
        other = self.view["partner_name"]
        exact, _, _ = self.spe()
        chains: list[str] = []

        def solve(node, path):
            if solvers.is_leaf(node):
                return node
            below = {label: solve(child, path + (label,)) for label, child in node["moves"].items()}
            labels = list(node["moves"])
            prev = "".join(f" {'First' if k == 0 else 'Then'}, {'I' if self._mover_at(path[:k]) == 0 else other} "
                           f"chose {lab}." for k, lab in enumerate(path)) or " Nothing has been played yet."
            notes = " ".join(f"Notice that after {lab} the game ends with {u[0]} for you and {u[1]} for {other}."
                             for lab, u in below.items())
            who = "you" if node["player"] == 0 else other
            got = self._chain_ask(f"### Potential Action Given Previous Actions\nSuppose the previous actions are:"
                                  f"{prev} Now {who} must choose among: {', '.join(labels)}. {notes} What action "
                                  f"will {who} take to maximize {'your' if who == 'you' else 'their'} reward?", labels)
            got = got or exact[path]
            actor = "I" if who == "you" else other
            chains.append(f"After {', '.join(path) or 'the start'}, {actor} will choose {got}.")
            return below[got]

        solve(self.tree(), ())
        return chains

    def _mover_at(self, path) -> int:
        return solvers.subtree(self.tree(), tuple(path))["player"]

    def preamble(self) -> str:
        name = self.view["game"]["name"]
        if name not in self.strategies:
            self.strategies[name] = ""  # while the chains are built, prompts carry no strategy yet
            chains = self._matrix_chains() if self.view["game"]["kind"] == "matrix" else self._tree_chains()
            summary = self._ask("### Summary of Thinking Chains\n" + "\n".join(chains) + "\nCarefully analyze these "
                                "thinking chains: (1) your decisions conditioned on the other player's actions (2) "
                                "guesses of the other's decisions conditioned on your actions. Summarize them into "
                                "a strategy without any conditional knowledge; it can be one specific action or a "
                                "probability distribution over actions. Put the strategy in <s> and </s>.", "summary")
            self.strategies[name] = ("### Strategy You Have Derived\n" + (summary or " ".join(chains)) +
                                     "\n### Thinking Chains\n" + "\n".join(chains) + "\nIf you need to negotiate: "
                                     "keep this strategy in mind. If you need to make decisions: follow this "
                                     "strategy.\n")
        return self.strategies[name]
