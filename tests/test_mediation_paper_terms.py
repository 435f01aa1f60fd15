"""Mediation on the original's terms: each user's view, page and simulated user hold what the original's users saw
(calendar with importance, flights, each proposal's breakdown; never their price and arrival weights, which are
ours behind task option `show_weights`), and the paper's round-robin turn order (task option `turns`, set by preset
`paper`)."""
from __future__ import annotations

import json

import pytest

from tasks import get_task
from tasks.core import Chat, Command, View, resolve_preset
from tasks.core.evaluation import play_game
from tasks.mediation.game import USERS, MediationGame
from tests.test_mediation_game import _errors, _match

SPEC = get_task("mediation")
AGENTS = {"user1": "simuser", "user2": "simuser", "assistant": "mediator"}
WEIGHT_KEYS = ("price_pref", "arrival_pref", "reference_price")


def _reweighted(seed: int, price: int, arrival: int) -> MediationGame:
    game = MediationGame(seed, {})
    for u in game.inst["users"]:
        u["price_pref"] = price
    game.inst["arrival_pref"] = arrival
    return game


@pytest.mark.parametrize("seat", USERS)
def test_a_users_view_has_no_weights_unless_the_option_shows_them(seat):
    game = MediationGame(4, {})
    text = json.dumps(game.view(seat))
    assert not any(k in text for k in WEIGHT_KEYS) and "prefs" not in game.view(seat)
    shown = MediationGame(4, {"show_weights": "yes"}).view(seat)
    assert shown["prefs"] == game.prefs(seat)
    other = USERS[1 - USERS.index(seat)]
    assert json.dumps(game.prefs(other)) not in json.dumps(shown)  # never the other user's
    assert not any(k in json.dumps(MediationGame(4, {"show_weights": "yes"}).view("assistant")) for k in WEIGHT_KEYS)


def _opening(brain: str, game: MediationGame, seat: str) -> list[str]:
    b = SPEC.make_brain(brain, seat, 3, None, {})
    b.observe(View(seat, {**game.view(seat), "core": {"phase": "playing", "seat": seat}}))
    return [m.text for m in b.act()]


@pytest.mark.parametrize("brain", ["simuser", *sorted(n for n in SPEC.brains if n.startswith("person-"))])
def test_the_users_first_words_do_not_depend_on_the_hidden_weights(brain):
    for seed in range(5):
        said = _opening(brain, _reweighted(seed, 3, 2), "user1")
        assert said == _opening(brain, _reweighted(seed, 19, 9), "user1"), said
        assert not any("/20" in line or "matters" in line for line in said), said


def test_with_the_option_the_simulated_user_says_its_weights():
    game = MediationGame(2, {"show_weights": "yes"})
    said = " ".join(_opening("simuser", game, "user1"))
    assert f"{game.prefs('user1')['price_pref']}/20" in said or f"{game.prefs('user1')['price_pref']} out of 20" in said
    assert f"{game.prefs('user1')['arrival_pref']}/10" in said


def test_self_play_users_never_state_a_weight_and_still_agree():
    for seed in range(4):
        shown = []
        rec = play_game(SPEC, seed, AGENTS, {}, show=shown.append)
        said = [line for line in shown if line.startswith("User")]
        assert said and not any("/20" in line or "matters" in line for line in said), said
        assert rec.results["status"] == "completed" and rec.results["normalized_score"] > 0.8


# --- the paper's turn order (turns="round-robin") ---------------------------------------------------------------------
def test_round_robin_two_alternating_rooms_one_move_a_turn():
    m = _match(turns="round-robin")  # (a refused move restores the game: read m.game afresh)
    assert m.game.rr.now == "user1" and m.game.view("user1")["turn"]["mine"] and not m.game.view("user2")["turn"]["mine"]
    assert "User 1's turn" in _errors(m.handle(Chat("user2", "hi", t=1.0)))[0]  # refused: nothing changes
    assert m.game.rr.now == "user1" and m.game.counts["messages"]["user2"] == 0
    assert not _errors(m.handle(Chat("user1", "busy thu 9-11am", t=1.0))) and m.game.rr.now == "user2"
    assert not _errors(m.handle(Chat("user2", "busy fri morning", t=1.0))) and m.game.rr.now == "assistant"
    assert m.game.view("assistant")["turn"]["write_to"] == ["user1", "user2"]
    assert "one user at a time" in _errors(m.handle(Chat("assistant", "hello both", t=1.0)))[0]
    assert not _errors(m.handle(Chat("assistant", "which day?", to=("user1",), t=1.0)))
    assert m.game.rr.now == "user1"  # user 2's room waits for the assistant, user 1's is theirs again
    assert not _errors(m.handle(Chat("user1", "thursday", t=1.0))) and m.game.rr.now == "assistant"
    assert not _errors(m.handle(Command("assistant", "propose", ("1", "1"), t=1.0)))
    assert m.game.rr.now == "user1" and m.game.rr.rooms == {"user1": "user1", "user2": "user2"}
    assert "accept or reject" in _errors(m.handle(Chat("user1", "hmm", t=1.0)))[0]
    assert not _errors(m.handle(Command("user1", "accept", (), t=1.0))) and m.game.rr.now == "user2"
    assert not _errors(m.handle(Command("user2", "reject", (), t=1.0)))
    assert m.game.rr.now == "user1"  # the assistant holds no room: the users write first
    assert "User 1's turn" in _errors(m.handle(Command("assistant", "propose", ("2", "2"), t=1.0)))[0]


def test_free_turns_stay_the_default_and_the_paper_preset_sets_round_robin(tmp_path):
    assert _match().game.rr is None and "turn" not in _match().game.view("user1")
    for name in SPEC.presets["paper"].release_files:  # a fake release: the preset checks the files are there
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("our placeholder", encoding="utf-8")
    paper = {"preset": "paper", "paper_prompts": str(tmp_path)}
    options, _ = resolve_preset(SPEC, paper, {})
    assert options["turns"] == "round-robin" and "show_weights" not in options
    assert resolve_preset(SPEC, {**paper, "turns": "free"}, {})[0]["turns"] == "free"  # an explicit option wins


@pytest.mark.parametrize("users", ["simuser", "person-asker", "person-rejecter", "person-terse"])
def test_agents_play_round_robin_to_the_end_one_move_a_turn(users, tmp_path):
    """Every agent waits for its turn and makes one move in it: no move of theirs is refused."""
    for seed in range(3):
        log = tmp_path / f"{seed}.jsonl"
        rec = play_game(SPEC, seed, {"user1": users, "user2": users, "assistant": "mediator"},
                        {"turns": "round-robin"}, log_path=str(log))
        assert rec.results["status"] == "completed", log
        rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        inputs = [r["data"]["input"] for r in rows if r["event"] == "game_input"]
        refused = [r["data"] for r in rows if r["event"] == "move_rejected"]
        assert len(inputs) >= 3 and not refused, refused
