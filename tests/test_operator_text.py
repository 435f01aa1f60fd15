"""Operator rough edges (issue 18) in people-facing text: the travel welcome says who may start truthfully, people
read gnomes seats as "Side 0 / Side 1" (the ids h / e stay), and /quit or /exit at the terminal leave cleanly."""
from __future__ import annotations

from tasks.core.evaluation import play_game, seat_names
from tasks import get_task
from tasks.core import Match, SeatInfo
from tasks.core.protocol import Command, Join, Message


def opened(task: str, seed: int = 1) -> tuple[Match, list]:
    game = get_task(task).game_class(seed, {})
    m = Match(game, {s: SeatInfo("person", s) for s in game.seats})
    effects = m.open(0.0)
    for s in game.seats:
        effects += m.handle(Join(s, t=0.1))
    return m, effects


def test_travel_welcome_is_true_about_who_moves_first():
    m, effects = opened("travel")
    welcome = " ".join(e.text for e in effects if isinstance(e, Message) and e.to is None)
    assert "Welcome" in welcome and "Light moves first" not in welcome
    assert "Either of you may start" in welcome
    # and it is true: the ghost's first move is taken
    room = m.game.board.rooms[1]
    out = m.handle(Command("ghost", "propose", (room,), t=1.0))
    assert not any(isinstance(e, Message) and e.to == "ghost" and e.kind == "error" for e in out), out
    assert m.game.view("light")["pending"] is not None


def test_gnomes_seats_read_side_0_and_side_1_with_ids_kept():
    spec = get_task("gnomes")
    assert spec.seats == ("h", "e")
    assert seat_names(spec) == {"h": "Side 0", "e": "Side 1"}
    assert seat_names(get_task("travel")) == {"light": "Light", "ghost": "Ghost"}


def test_quit_and_exit_leave_the_terminal_game_cleanly():
    for word in ("/quit", "/exit", " /QUIT "):
        prompts, lines = [], []
        answers = iter(["hello", word, "never read"])

        def ask(prompt):
            prompts.append(prompt)
            return next(answers)

        rec = play_game(get_task("gnomes"), 1, {"e": "aismcts"}, person_seats=("h",), show=lines.append, ask=ask)
        assert prompts == ["Side 0> ", "Side 0> "], prompts          # asked twice, never a third time
        text = "\n".join(lines)
        assert "/quit to leave" in text and "you left the game" in text
        assert "nknown command" not in text
        assert rec.results.get("status") != "completed"
