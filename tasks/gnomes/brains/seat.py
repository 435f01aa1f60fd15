"""What every Gnomes at Night brain shares: following its seat's view (rounds, turns, the partner's moves), the
chat inbox, and learning the partner's walls (Omega) from rejections and wall lines.

Every brain sees only its seat's view and the chat; models are built from the walls the view shows.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Brain, ChatShown, View

from . import language as lang
from . import paper_language as paper
from ..maze import ACTIONS, DOWN, INBOUND, SIZE, STAY, UP, move_table, xy
from ..maze import cell as cell_of
from .planner import Model

FLAG_ACTION = {name: a for a, name in enumerate(ACTIONS)}


def _line(c: int, action: int) -> list[tuple[int, int]]:
    """(index, cell) along the row of c for up/down moves, or along its column for left/right moves."""
    x, y = xy(c)
    if action in (UP, DOWN):
        return [(i, cell_of(i, y)) for i in range(SIZE)]
    return [(i, cell_of(x, i)) for i in range(SIZE)]


class GnomeBrain(Brain):
    """What the brains share: following the view (rounds, turns, the partner's moves) and the chat inbox."""

    communicate = True

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.view: dict = {}
        self.model: Optional[Model] = None
        self.round = 0
        self.cell = 0
        self.inbox: list[tuple[str, int, int]] = []   # (text, token cell when it arrived, round)
        self.replies: list[str] = []
        self.acted: Optional[tuple[int, int]] = None  # (round, turns) of our last move
        self.asked_round = 0
        self._prev: Optional[tuple[int, int, Optional[str], int]] = None
        self.explain_walls = bool(self.options.get("explain_walls", True))
        # the paper's own language prompts (preset paper): a checkout of its release
        self.release: Optional[str] = self.options.get("paper_prompts") or None
        # our last move (0-4): the paper's inquiry prompt names the move the agent takes (ours answers first)
        self.last_action = STAY

    # --- observation ---------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View):
            self._on_view(effect.data)
        elif isinstance(effect, ChatShown) and effect.seat != self.seat and self.communicate:
            self.inbox.append((effect.text, self.cell, self.round))

    def _on_view(self, data: dict) -> None:
        self.view = data
        if not data.get("round"):
            return
        if self.model is None:
            walls = data["walls"]
            self.model = Model(move_table(walls["right"], walls["below"]))
        r, c = data["round"], cell_of(*data["token"])
        prev = self._prev
        if r != self.round:
            self.round = r
            self.cell = c
            self.new_round(data)
        elif prev is not None and data["turns"] == prev[3] + 1 and prev[2] == data["partner"]:
            # The partner's turn: the direction shows when the token moved; a stay and a blocked move look alike.
            a = STAY if c == prev[1] else next((a for a in range(1, 5) if INBOUND[prev[1] * 5 + a] == c), None)
            if a is not None:
                self.partner_moved(prev[1], a)
        self.cell = c
        self.visited(c)
        self._prev = (r, c, data.get("turn"), data["turns"])

    def new_round(self, data: dict) -> None:
        pass

    def partner_moved(self, frm: int, action: int) -> None:
        """`action` is STAY when the token did not move (a stay or a blocked move)."""
        if action != STAY:
            self.model.saw_partner_move(frm, action)

    def visited(self, c: int) -> None:
        pass

    # --- helpers -------------------------------------------------------------------------------------------------
    def my_turn(self) -> bool:
        v = self.view
        if v.get("core", {}).get("phase") != "playing" or v.get("finished") or not v.get("your_turn"):
            return False
        return self.acted != (v["round"], v["turns"])

    def treasure(self) -> Optional[int]:
        t = self.view.get("treasure")
        return cell_of(*t) if t else None

    def read_message(self, text: str, context: str = "") -> lang.Reading:
        """Rules always (for a Reject's direction, wall lines and treasure hints); the LLM decides the flag when
        one is configured."""
        reading = lang.read(text)
        if self.llm is not None and text.strip():
            act = None
            try:
                with self.llm_act("flag") as act:
                    if self.release:  # the paper's prompt and its reading of the answer's last line
                        answer = self.llm.chat(paper.flag_messages(self.release, text), usage=act,
                                               **self.sampling("flag"))
                        flag = paper.read_flag(answer, self.rng) or lang.NONE
                    else:
                        flag = lang.llm_flag(self.llm, text, context, usage=act, **self.sampling("flag"))
                reading.flag, reading.flags = flag, [flag]
            except Exception as exc:  # any LLM failure: the rules already gave an answer
                self.llm_fallback(act, exc, what="flag")  # strict_llm: the act failed, the game ends invalid
        return reading

    def move(self, action: int):
        self.acted = (self.view["round"], self.view["turns"])
        self.last_action = action
        return self.command("move", ACTIONS[action])

    def explain_wall(self, c: int, action: int) -> list[str]:
        """The Reject template, plus where in this row/column we can make the move: walls come in lines, and
        this spares the partner from trying the cells one by one."""
        out = [lang.wall_reject(action)]
        if self.explain_walls:
            out.append(lang.wall_line(action, [i for i, cc in _line(c, action)
                                               if self.model.my_moves[cc * 5 + action] >= 0]))
        return out

    def learn_rejection(self, reading: lang.Reading, at: int, pending: Optional[tuple[int, int]]) -> None:
        """Omega: the move a Reject names at the cell where it was said, else our last suggestion."""
        key = (at, reading.reject_direction) if reading.reject_direction is not None else pending
        if key is not None and self.model.add_rejection(*key):
            self.note("omega", cell=list(xy(key[0])), action=ACTIONS[key[1]])

    def learn_line(self, at: int, line: tuple[int, tuple[int, ...]]) -> None:
        """The partner said where in the token's row/column it can make a move: open there, walled elsewhere."""
        action, opens = line
        for i, cc in _line(at, action):
            if INBOUND[cc * 5 + action] < 0:
                continue
            if i in opens:
                self.model.saw_partner_move(cc, action)
            else:
                self.model.add_rejection(cc, action)
