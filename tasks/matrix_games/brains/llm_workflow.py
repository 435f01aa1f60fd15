"""`llm-workflow`: the paper's LLM workflow (§4.4). Before the first talk or move of a game the model builds its
thinking chains: simultaneous games ask, for each of my actions, what the partner will do, and for each of the
partner's actions, what I would do; sequential games walk backwards from the deepest decision nodes, each prompt
noting what was decided below. A summariser turns the chains into one strategy, which is prepended to every
negotiation and action prompt of the `llm` baseline. Every answer is `<s>choice</s>` with bounded retries; a step
the model never answers usably is filled by the exact solver and marked as a fallback (tables say
`llm-workflow+fallback`).

Brain option `subtree_notes` says what a tree prompt tells the model about each move's subtree: "payoffs" (ours:
the rewards the decided subtree ends in) or "choices" (the paper's workflow: only the choices already derived
below, with their reasons; the model derives the rewards from the rules itself).

Under `wording: paper` the release workflow's own prompts, chain sentences and strategy text are sent
(paper_workflow.py), asked in its order; in trees its LLM backward induction (`_paper_tree_chains`)."""
from __future__ import annotations

from .. import solvers
from ..parse import parse_action
from ..paper_wording import release_tree, subtree, terminal_paths
from ..paper_workflow import WorkflowWording
from .llm_brain import LLMBrain

ANSWER = "Answer with your reason in <r> and </r> and your choice in <s> and </s>."
SUBTREE_NOTES = ("payoffs", "choices")


class LLMWorkflowBrain(LLMBrain):
    name = "llm-workflow"
    wording_class = WorkflowWording  # `wording: paper`: the release workflow's prompts (simultaneous games only)

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.strategies: dict[str, str] = {}  # game name -> the derived strategy text
        self.notes_kind = str(self.options.get("subtree_notes") or "payoffs")
        if self.notes_kind not in SUBTREE_NOTES:
            raise ValueError(f"subtree_notes must be one of {', '.join(SUBTREE_NOTES)}, got {self.notes_kind!r}")

    def _chain_ask(self, question: str, labels: list[str], paper=None) -> tuple[str | None, str]:
        """(the choice, its reason) or (None, "") when the model never answered usably; `paper(view)` is the
        release's prompt for the same question under the paper wording."""
        answer = self._ask(question + "\n" + ANSWER, "chain:" + "|".join(labels), paper=paper)
        return (None, "") if answer is None else (parse_action(answer, labels), self.last_reason)

    @staticmethod
    def _because(reason: str) -> str:
        return f" because {reason.rstrip('.')}" if reason else ""

    def _matrix_chains(self) -> list[str]:
        v, p, w = self.view, self.bimatrix(), self.paper
        other, mine, theirs = v["partner_name"], v["my_actions"], v["their_actions"]

        def replies(given_mine: bool):
            """For each of my options the partner's best reply (given_mine), or for each of theirs mine."""
            options, answers = (mine, theirs) if given_mine else (theirs, mine)
            best = solvers.best_responses(p, 1 if given_mine else 0)
            for i, a in enumerate(options):
                if given_mine:
                    question = f"### Their Reply to Your Option\nSay you pick {a}. {other} has {len(theirs)} " \
                               f"options: {', '.join(theirs)}. Which one would {other} pick to get the most points, " \
                               "and why?"
                else:
                    question = f"### Your Reply to Their Option\nSay {other} picks {a}. You have {len(mine)} " \
                               f"options: {', '.join(mine)}. Which one would you pick to get the most points, and why?"
                paper = w and (lambda view, a=a: w.their_reply(view, a) if given_mine else w.my_reply(view, a))
                got, why = self._chain_ask(question, answers, paper)
                got = got or answers[best[i][0]]
                if w:
                    yield w.chain(v, given_mine, a, got, why)
                else:
                    who, then = ("I choose", f"{other} will") if given_mine else (f"{other} chooses", "I will")
                    yield f"If {who} {a}, then {then} choose {got}{self._because(why)}."
        order = (True, False) if not w or w.own_first(v) else (False, True)
        return [chain for given_mine in order for chain in replies(given_mine)]

    def _tree_chains(self) -> list[str]:
        other = self.view["partner_name"]
        exact, _, _ = self.spe()
        chains: list[str] = []

        def solve(node, path):
            """(the leaf the derived choices lead to, those choices from this node down: (actor, label, reason))"""
            if solvers.is_leaf(node):
                return node, []
            below = {label: solve(child, path + (label,)) for label, child in node["moves"].items()}
            labels = list(node["moves"])
            prev = "".join(f" {'First' if k == 0 else 'Then'}, {'I' if self._mover_at(path[:k]) == 0 else other} "
                           f"chose {lab}." for k, lab in enumerate(path)) or " Nothing has been played yet."
            who = "you" if node["player"] == 0 else other
            notes = " ".join(self._subtree_note(who, lab, leaf, derived) for lab, (leaf, derived) in below.items())
            got, why = self._chain_ask(f"### A Decision Along the Way\nThe moves so far:{prev} Now {who} "
                                       f"decide{'' if who == 'you' else 's'} among: {', '.join(labels)}. {notes} "
                                       f"Which one gets {'you' if who == 'you' else 'them'} the most points?",
                                       labels)
            got = got or exact[path]
            actor = "I" if who == "you" else other
            chains.append(f"After {', '.join(path) or 'the start'}, {actor} will choose {got}{self._because(why)}.")
            leaf, derived = below[got]
            return leaf, [(actor, got, why)] + derived

        solve(self.tree(), ())
        return chains

    def _paper_tree_chains(self, w) -> list[str]:
        """The release's LLM backward induction (sequential_game_workflow) on the release's form of the tree: ask
        the decisions at the end of the longest paths, notes on what was decided below once there is any, collapse
        each decided node into the leaf it leads to, up to the root; the root's decisions are the chains. Departures:
        the release took the decisions of one depth in a set's order (varying with the hash seed), here first seen
        first; it collapsed a node by replacing its JSON text (which would also hit an identical subtree), here the
        node itself; a decision the model never answers takes the exact solver's choice (a fallback)."""
        v, (exact, _, _) = self.view, self.spe()
        tree = release_tree(v)
        paths = terminal_paths(tree)
        decided: dict[tuple, list] = {}  # the moves leading to a decision -> (name, choice, reason) down the path
        while not isinstance(tree, list):
            longest = len(paths[-1])
            for chain in dict.fromkeys(tuple(p[:-1]) for p in paths if len(p) == longest):
                choices = list(subtree(tree, chain))
                player = choices[0].split("_")[0]
                labels = [c.replace(player + "_", "") for c in choices]
                below = [k for k in decided if repr(k)[1:-1].startswith(repr(list(chain))[1:-1])]  # as the release
                got, why = self._chain_ask("", labels, lambda view: w.decision(view, player, chain, choices,
                                                                               decided if below else None))
                got = got or exact[tuple(k[k.index("_") + 1:] for k in chain)]
                decided[chain] = [(player, got, why)] + decided.get(chain + (f"{player}_{got}",), [])
                for k in below:
                    decided.pop(k)
                leaf = subtree(tree, chain + (f"{player}_{got}",))
                if chain:
                    subtree(tree, chain[:-1])[chain[-1]] = leaf
                else:
                    tree = leaf
                paths = sorted([p for p in paths if p[:-1] != list(chain)] + [list(chain)], key=len)
        return [w.thought(v, n, made) for n, made in enumerate(next(iter(decided.values())), 1)]

    def _subtree_note(self, who: str, label: str, leaf, derived) -> str:
        """What the prompt says follows `label`: the rewards (ours) or only the choices derived below (paper)."""
        if self.notes_kind == "payoffs":
            return f"Notice that after {label} the game ends with {leaf[0]} for you and {leaf[1]} for " \
                   f"{self.view['partner_name']}."
        if not derived:
            return f"Notice that if {who} choose{'' if who == 'you' else 's'} {label}, the game ends with the " \
                   "rewards the rules give."
        then = ", then ".join(f"{'you' if actor == 'I' else actor} will choose {lab}{self._because(why)}"
                              for actor, lab, why in derived)
        return f"Notice that if {who} choose{'' if who == 'you' else 's'} {label}, {then}."

    def _mover_at(self, path) -> int:
        return solvers.subtree(self.tree(), tuple(path))["player"]

    def preamble(self) -> str:
        name, w = self.view["game"]["name"], self.paper
        if name not in self.strategies:
            self.strategies[name] = ""  # while the chains are built, prompts carry no strategy yet
            if self.view["game"]["kind"] == "matrix":
                chains = self._matrix_chains()
            else:
                chains = self._paper_tree_chains(w) if w else self._tree_chains()
            summary = self._ask("### Summing Up the Chains\n" + "\n".join(chains) + "\nThese chains say what you "
                                "would pick after each option of the other player, and what you expect them to pick "
                                "after each option of yours. Turn them into one plan with no 'if' in it: a single "
                                "option, or odds over the options. Write the plan between <s> and </s>.", "summary",
                                paper=w and (lambda view: w.summary(view, chains)))
            self.strategies[name] = (w.strategy(self.view, summary or " ".join(chains), chains) if w else
                                     "### Your Plan\n" + (summary or " ".join(chains)) + "\n### The Chains\n" +
                                     "\n".join(chains) + "\nWhen you talk, keep the plan in mind; when you move, "
                                     "follow it.\n")
        return self.strategies[name]
