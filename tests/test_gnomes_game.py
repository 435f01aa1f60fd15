"""Rules of Gnomes at Night through a Match: turns, walls, rewards, rounds, the turn cap, metrics and privacy."""
from collections import deque

import pytest

from tasks.core import Action, Chat, ChatShown, Command, GameOver, Join, Match, Message, SeatInfo, View
from tasks.gnomes import maze
from tasks.gnomes.game import GnomesGame, SEATS, SIDE


def make(options=None, persons=()):
    game = GnomesGame(7, options)
    seats = {s: SeatInfo("person" if s in persons else "agent", s) for s in game.seats}
    match = Match(game, seats)
    effects = match.open(0.0)
    return match, effects


def move(match, seat, direction, t=1.0):
    return match.handle(Command(seat, "move", (direction,), t=t))


def views(effects, seat):
    return [e.data for e in effects if isinstance(e, View) and e.seat == seat]


def errors(effects, seat):
    return [e.text for e in effects if isinstance(e, Message) and e.to == seat and e.kind == "error"]


def optimal_moves(round_no, first):
    """The seat/direction sequence of one shortest joint path (BFS with full knowledge)."""
    goal = maze.cell(*maze.TREASURES[round_no - 1])
    start = (0, SIDE[first])
    prev = {start: None}
    frontier = deque([start])
    while frontier:
        c, p = frontier.popleft()
        for a in range(5):
            n = maze.MOVES[p][c * 5 + a]
            if n < 0 or (n, 1 - p) in prev:
                continue
            prev[(n, 1 - p)] = ((c, p), a)
            if n == goal:
                out, cur = [], (n, 1 - p)
                while prev[cur]:
                    (pc, pp), aa = prev[cur]
                    out.append((SEATS[pp], maze.ACTIONS[aa]))
                    cur = (pc, pp)
                return out[::-1]
            frontier.append((n, 1 - p))
    raise AssertionError("no path")


def test_seats_and_person_order():
    assert GnomesGame.seats == ("h", "e")
    assert GnomesGame.person_seat_order[0] == "h"
    assert SIDE == {"h": 0, "e": 1}


def test_first_mover_is_configurable_and_recorded():
    m, _ = make()
    assert m.start_record()["instance"]["first"] == "h"
    assert m.game.view("h")["turn"] == "h"
    m, _ = make({"first": "e"})
    assert m.start_record()["instance"]["first"] == "e"
    assert m.game.view("e")["your_turn"] and not m.game.view("h")["your_turn"]
    assert m.start_record()["instance"]["optimum"] == [6, 12, 6, 10, 10]
    m, _ = make({"first": 1})
    assert m.game.first == "e"
    with pytest.raises(ValueError):
        GnomesGame(1, {"first": "x"})


def test_alternation_and_out_of_turn_refused_without_state_change():
    m, _ = make()
    before = (m.game.token, m.game.cur["turns"], m.game.turns.current)
    eff = move(m, "e", "right")
    assert errors(eff, "e") and "not your turn" in errors(eff, "e")[0]
    assert (m.game.token, m.game.cur["turns"], m.game.turns.current) == before
    assert not views(eff, "h") and not views(eff, "e")
    move(m, "h", "right")
    assert m.game.token == (1, 0) and m.game.turns.current == "e"
    assert errors(move(m, "h", "down"), "h")
    move(m, "e", "down")
    assert m.game.token == (1, 1) and m.game.turns.current == "h"


def test_blocked_move_wastes_the_turn_and_costs_half_a_point():
    m, _ = make()
    move(m, "h", "right")            # (0,0) -> (1,0); side 0 has a wall right of (1,0)
    move(m, "e", "stay")
    eff = move(m, "h", "right")      # blocked on side 0
    assert m.game.token == (1, 0)
    cur = m.game.cur
    assert (cur["turns"], cur["blocked"], cur["blocked_by"]["h"], cur["stays"]) == (3, 1, 1, 1)
    assert cur["reward"] == pytest.approx(-0.3 - 0.5)
    assert m.game.turns.current == "e"
    assert any(isinstance(e, Message) and e.to == "h" and "wall" in e.text for e in eff)
    assert views(eff, "h")[-1]["last"] == {"seat": "h", "action": "right", "blocked": True, "turn": 3}


def test_wall_penalty_is_checked_before_the_move():
    # Moving into a cell whose next step is walled is not penalised (the peer code checked after the move).
    m, _ = make()
    move(m, "h", "right")            # lands on (1,0), which has a wall on its right on side 0
    assert m.game.cur["reward"] == pytest.approx(-0.1)
    assert m.game.cur["blocked"] == 0


def test_stays_count_as_turns():
    m, _ = make()
    move(m, "h", "stay")
    move(m, "e", "s")
    assert m.game.token == (0, 0)
    assert (m.game.cur["turns"], m.game.cur["stays"], m.game.cur["blocked"]) == (2, 2, 0)


def test_direction_spellings_and_page_actions():
    m, _ = make()
    move(m, "h", "R")
    move(m, "e", "→")
    assert m.game.token == (2, 0)
    m.handle(Action("h", {"command": "move", "args": ["down"]}))
    assert m.game.token == (2, 1)
    eff = move(m, "e", "sideways")
    assert errors(eff, "e") and "Usage" in errors(eff, "e")[0]
    assert errors(m.handle(Command("e", "move", ())), "e")


def test_round_ends_at_the_treasure_and_the_next_starts_at_the_start():
    m, _ = make()
    for seat, d in optimal_moves(1, "h"):
        eff = move(m, seat, d, t=2.0)
    rec = m.game.history[0]
    assert (rec["round"], rec["status"], rec["turns"], rec["optimum"]) == (1, "found", 5, 5)
    assert rec["reward"] == pytest.approx(20 - 0.5)
    assert m.game.round == 2 and m.game.token == (0, 0) and m.game.turns.current == "h"
    assert any(isinstance(e, Message) and e.to is None and "Round 1" in e.text for e in eff)
    v = views(eff, "e")[-1]
    assert v["round"] == 2 and v["treasure"] == [6, 2] and v["results"][0]["turns"] == 5


def test_turn_cap_ends_a_round_as_timeout():
    m, _ = make({"turn_cap": 4, "rounds": 2})
    for i in range(4):
        move(m, "he"[i % 2], "stay")
    assert m.game.history[0]["status"] == "timeout" and m.game.history[0]["turns"] == 4
    assert m.game.round == 2 and m.game.cur["turns"] == 0


def test_full_game_with_optimal_play_completes_with_metrics():
    m, _ = make({"first": "h"})
    t = 0.0
    chats = 0
    for r in range(1, 6):
        m.handle(Chat("h", "hello there", t=t))
        chats += 1
        for seat, d in optimal_moves(r, "h"):
            t += 1.5
            eff = move(m, seat, d, t=t)
    over = [e for e in eff if isinstance(e, GameOver)]
    assert over and over[0].status == "completed"
    res = m.results
    assert [r["turns"] for r in res["rounds"]] == [5, 11, 7, 9, 11]
    assert res["turns_total"] == res["optimum_total"] == 43 and res["turn_ratio"] == 1.0
    assert res["found"] == 5 and res["blocked_total"] == 0
    assert res["messages_h"] == 5 and res["messages_e"] == 0
    assert res["rounds"][0]["messages"] == {"h": 1, "e": 0} and res["rounds"][0]["chars"]["h"] == 11
    assert res["rounds"][0]["time"] == pytest.approx(7.5)
    assert res["reward_total"] == pytest.approx(100 - 4.3)
    assert res["turns_r3"] == 7
    eff = move(m, "h", "right", t=t + 1)
    assert errors(eff, "h")  # the room is closed


def test_rounds_option_shortens_the_game():
    m, _ = make({"rounds": 1})
    for seat, d in optimal_moves(1, "h"):
        eff = move(m, seat, d)
    assert any(isinstance(e, GameOver) for e in eff)
    assert m.results["rounds_played"] == 1
    with pytest.raises(ValueError):
        GnomesGame(1, {"rounds": 6})


def test_views_never_show_the_partners_walls_or_a_hidden_treasure():
    m, eff = make(persons=("h", "e"))
    eff += m.handle(Join("h")) + m.handle(Join("e"))
    t = 0.0
    for r in range(1, 6):
        for seat, d in optimal_moves(r, "h") + []:
            t += 1
            eff += move(m, seat, d, t=t)
    own = {s: {k: sorted(map(tuple, v)) for k, v in maze.WALLS[SIDE[s]].items()} for s in SEATS}
    seen_rounds = {s: set() for s in SEATS}
    for e in eff:
        if not isinstance(e, View) or not e.data.get("round"):
            continue
        s, v = e.seat, e.data
        assert {k: sorted(map(tuple, w)) for k, w in v["walls"].items()} == own[s]
        visible = maze.treasure_side(v["round"]) == SIDE[s] and not v["finished"]
        assert (v["treasure"] is not None) == visible and v["sees_treasure"] == visible
        if v["treasure"] is not None:
            assert tuple(v["treasure"]) == maze.TREASURES[v["round"] - 1]
        for res in v["results"]:
            assert "treasure" not in res and "blocked" not in res
        if v["last"] and v["last"]["seat"] != s:
            assert set(v["last"]) == {"seat", "turn"}  # the partner's direction and any wall hit stay hidden
        seen_rounds[s].add(v["round"])
    assert seen_rounds["h"] == seen_rounds["e"] == {1, 2, 3, 4, 5}
    # Messages addressed to one seat never mention a hidden treasure's position.
    for e in eff:
        if isinstance(e, Message) and e.to is not None:
            for r, tr in enumerate(maze.TREASURES, 1):
                if maze.treasure_side(r) != SIDE[e.to]:
                    assert str(list(tr)) not in e.text and str(tr) not in e.text


def test_chat_is_shown_and_counted():
    m, _ = make()
    eff = m.handle(Chat("e", "Can you move right?", t=0.5))
    assert any(isinstance(e, ChatShown) and e.seat == "e" for e in eff)
    assert m.game.cur["messages"]["e"] == 1
