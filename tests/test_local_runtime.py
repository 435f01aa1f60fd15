"""The local runtime: embedded default game, many seeded games, a person at the terminal, JSON-lines logs."""
import dataclasses
import json

from bots import local
from tasks.core import evaluation
from tasks.core.evaluation import read_rows
from tasks.core import Match, MatchDriver, SeatInfo, input_from_json
from tests.toygame import SPEC, PickNumber, ToyBrain


def test_selfplay_game_writes_a_replayable_log(tmp_path):
    path = tmp_path / "g.jsonl"
    rec = evaluation.play_game(SPEC, 4, {"a": "toy", "b": "toy"}, log_path=str(path))
    rows = [r for _, r in read_rows(str(path))]
    assert [r["id"] for r in rows] == list(range(1, len(rows) + 1))
    assert rows[0]["event"] == "game_start" and rows[0]["data"]["seed"] == 4
    assert rows[-1]["event"] == "game_end" and rows[-1]["data"]["status"] == rec.results["status"]
    # Rebuild the game from the log alone.
    start = rows[0]["data"]
    inputs = [input_from_json(r["data"]["input"]) for r in rows if r["event"] == "game_input"]
    m = Match(PickNumber(start["seed"], start["options"]), {s: SeatInfo(**i) for s, i in start["seats"].items()})
    MatchDriver(m).replay(inputs)
    assert m.status == rec.results["status"] and m.game.agreed == rec.results["agreed"]


def test_same_seed_same_game():
    a = evaluation.play_game(SPEC, 11, {"a": "toy", "b": "toy"})
    b = evaluation.play_game(SPEC, 11, {"a": "toy", "b": "toy"})
    drop = lambda r: {k: v for k, v in r.items() if k != "duration"}  # noqa: E731
    assert drop(a.results) == drop(b.results)


def test_person_at_the_terminal_sees_only_their_seat():
    lines, shown = iter(["hello <b>there</b>", "/propose 5", "/nonsense", ""]), []

    def ask(prompt):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError

    class Quiet(ToyBrain):
        def act(self):
            return []

    spec = dataclasses.replace(SPEC, brains={**SPEC.brains, "quiet": Quiet})
    rec = evaluation.play_game(spec, 2, {"a": "toy", "b": "quiet"}, person_seats=("a",), show=shown.append, ask=ask)
    text = "\n".join(shown)
    assert "a proposes 5" in text
    assert "Unknown command /nonsense" in text
    assert "(game abandoned)" in text and rec.results.get("status") is None


def test_many_games_table_and_csv(tmp_path, capsys):
    records = evaluation.play_many(SPEC, 5, 100, {"a": "toy", "b": "toy"}, {}, None, str(tmp_path), progress=False)
    assert [r.seed for r in records] == [100, 101, 102, 103, 104]
    summary = evaluation.summary_table(SPEC, records)
    per_game, summary_path = evaluation.write_csvs(SPEC, records, summary, {"a": "toy", "b": "toy"}, str(tmp_path))
    lines = open(per_game).read().splitlines()
    assert lines[0].split(",")[:4] == ["index", "seed", "agents", "status"] and len(lines) == 6
    assert len(list((tmp_path / "logs").glob("game-*.jsonl"))) == 5
    assert open(summary_path).read().startswith("agents,games")


def test_option_parsing():
    args = local.parse_args(["travel", "--rooms", "8", "--boards", "generated", "--option", "turn_limit=20",
                                            "--option", "name=x"])
    assert local.parse_options(args) == {"rooms": 8, "boards": "generated", "turn_limit": 20, "name": "x"}
    assert local.resolve_agents(SPEC, "toy") == {"a": "toy", "b": "toy"}
    assert json.dumps(evaluation.format_table(["a", "b"], [[1, None]])).count("-") >= 2


def test_three_seat_relayed_game_locally_shows_who_saw_what():
    """The relayed test game: each user's line reaches only the assistant; the assistant addresses one user; the
    transcript says who saw each line, and a person's terminal shows only what their seat saw."""
    from tests.threeseat import SPEC as MEETING

    agents = {"user1": "user", "user2": "user", "assistant": "assistant"}
    lines: list[str] = []
    rec = evaluation.play_game(MEETING, 3, agents, show=lines.append)
    assert rec.results["status"] == "completed"
    assert any(ln.startswith("User1 -> Assistant: I am free") for ln in lines)
    assert any(ln.startswith("Assistant -> User2: user2, when") for ln in lines)
    seen: list[str] = []
    answers = iter(["I am free in slots 1 2 3 4 5 6 7 8 9", "@user1 psst", "/accept"])
    rec = evaluation.play_game(MEETING, 3, agents, person_seats=("user2",), show=seen.append,
                          ask=lambda _prompt: next(answers))
    assert rec.results["status"] == "completed"
    assert not any("User1" in ln and "->" in ln for ln in seen)  # user1's lines went to the assistant only
    assert any("Assistant -> User2" in ln for ln in seen)
    assert any("only write to the assistant" in ln for ln in seen)  # "@user1 ..." was refused, shown to nobody
