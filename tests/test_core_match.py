"""The match core, its shared mechanisms, timers and the driver, tested with the toy game."""
import json

import pytest

from tasks.core import (
    Abort, Action, Brain, CancelTimer, Chat, ChatShown, Command, CompletionConfig, GameOver, Join, Leave, LogEvent,
    Match, MatchDriver, Message, ProposalCycle, RuleError, SeatInfo, SetTimer, SubmitGate, TimerConfig, TimerFired,
    TurnBudget, TurnOrder, View, esc, input_from_json, input_to_json, parse_command_text,
)
from tests.toygame import PickNumber, ToyBrain


def people(**timers):
    game = PickNumber(7)
    m = Match(game, {"a": SeatInfo("person", "Ann"), "b": SeatInfo("person", "Bob")},
              timers=TimerConfig(**timers) if timers else None, code_source=iter(f"CODE{i}" for i in range(99)).__next__)
    return m


def started(**timers):
    m = people(**timers)
    m.open(0)
    m.handle(Join("a", t=1))
    m.handle(Join("b", t=2))
    assert m.phase == "playing"
    return m


def msgs(effects, to="any"):
    return [e for e in effects if isinstance(e, Message) and (to == "any" or e.to == to)]


def logs(effects, event):
    return [e for e in effects if isinstance(e, LogEvent) and e.event == event]


# --- mechanisms -------------------------------------------------------------------------------------------------

def test_proposal_cycle_two_seats():
    pc = ProposalCycle(["a", "b"])
    p, replaced = pc.propose("a", 3)
    assert replaced is None and pc.pending is p
    with pytest.raises(RuleError, match="own proposal"):
        pc.agree("a")
    assert pc.agree("b") is p and pc.pending is None
    with pytest.raises(RuleError, match="no open proposal"):
        pc.reject("b")
    pc.propose("a", 4)
    _, replaced = pc.propose("b", 5)  # counter-proposal replaces
    assert replaced.value == 4 and pc.pending.by == "b"
    with pytest.raises(RuleError):
        pc.withdraw("a")
    assert pc.withdraw("b").value == 5


def test_proposal_cycle_three_seats_needs_all_others():
    pc = ProposalCycle(["a", "b", "c"], proposers=["a", "b"])
    with pytest.raises(RuleError, match="cannot make proposals"):
        pc.propose("c", 1)
    pc.propose("a", 1)
    assert pc.agree("b") is None
    with pytest.raises(RuleError, match="already agreed"):
        pc.agree("b")
    assert pc.agree("c").value == 1


def test_submit_gate_canonical_equality():
    gate = SubmitGate(["a", "b"], canon=lambda t: min(tuple(t), tuple(reversed(t))))
    assert gate.submit("a", ["L", "K", "B", "L"]) == "waiting"
    assert gate.submit("b", ["L", "B", "K", "L"]) == "complete"
    gate.reset()
    gate.submit("a", [1, 2])
    assert gate.submit("b", [1, 3]) == "mismatch"
    assert gate.withdraw("b") and gate.waiting_for() == ["b"]


def test_turn_order_and_budget():
    order = TurnOrder(["a", "b"], first="b")
    with pytest.raises(RuleError, match="not your turn"):
        order.check("a")
    assert order.advance() == "a"
    budget = TurnBudget(["a", "b"], 1)
    budget.spend("a")
    with pytest.raises(RuleError, match="all 1"):
        budget.spend("a")
    assert not budget.exhausted()
    budget.spend("b")
    assert budget.exhausted() and budget.left("a") == 0


def test_input_json_roundtrip_and_command_parsing():
    for inp in [Join("a", 1.5), Chat("a", "<b>hi</b>", 2, turn=False), Command("b", "propose", ("L", "K"), 3),
                Action("a", {"command": "agree"}, 4), TimerFired("core:join", 3, 5), Abort("stalled", "x", 6)]:
        assert input_from_json(json.loads(json.dumps(input_to_json(inp)))) == inp
    assert parse_command_text("/Propose L  K") == ("propose", ("L", "K"))
    with pytest.raises(ValueError):
        input_from_json({"type": "Nope"})
    with pytest.raises(ValueError):
        input_from_json({"type": "Join", "seat": "a", "evil": 1})


# --- match lifecycle --------------------------------------------------------------------------------------------

def test_waits_for_people_then_starts_and_logs_instance():
    m = people()
    opened = m.open(0)
    start = logs(opened, "game_start")[0].data
    assert start["seed"] == 7 and start["instance"]["favourite"] == m.game.favourite
    assert any(isinstance(e, SetTimer) and e.name == "core:join" for e in opened)
    eff = m.handle(Command("a", "propose", ("3",), t=1))
    assert m.phase == "waiting" and msgs(eff, "a")[0].kind == "error"
    m.handle(Join("a", t=1))
    eff = m.handle(Join("b", t=2))
    assert m.phase == "playing"
    assert any(isinstance(e, CancelTimer) and e.name == "core:join" for e in eff)
    views = {e.seat: e.data for e in eff if isinstance(e, View)}
    assert views["a"]["favourite"] == m.game.favourite["a"] and views["b"]["favourite"] == m.game.favourite["b"]


def test_every_input_is_logged_with_sequence():
    m = started()
    eff = m.handle(Chat("a", "hello", t=3))
    rec = logs(eff, "game_input")[0].data
    assert rec["seq"] == 3 and rec["input"] == {"type": "Chat", "seat": "a", "text": "hello", "t": 3, "turn": True}
    assert ChatShown("a", "hello") in eff


def test_rejected_move_changes_nothing_and_tells_only_the_sender():
    m = started()
    before = json.dumps(m.game.view("a"), sort_keys=True)
    for bad in [Command("a", "propose", ("12",)), Command("a", "fly"), Command("a", "agree"),
                Command("b", "poke"), Command("a", "submit")]:
        eff = m.handle(bad)
        private = msgs(eff, bad.seat)
        assert private and private[0].kind == "error", bad
        assert not msgs(eff, None), f"{bad} leaked a public message"
        assert json.dumps(m.game.view("a"), sort_keys=True) == before
    assert "Unknown command /fly" in msgs(m.handle(Command("a", "fly")), "a")[0].text


def test_bad_payloads_are_refused():
    m = started()
    for payload, why in [([1, 2], "JSON object"), ({"x": "y" * 5000}, "too large"), ({"command": 5}, "not understood"),
                         ({"command": "propose", "args": [{"a": 1}]}, "not understood")]:
        eff = m.handle(Action("a", payload))
        assert why in msgs(eff, "a")[0].text
    eff = m.handle(Action("a", {"command": "propose", "args": [4]}))
    assert m.game.proposals.pending.value == 4 and not msgs(eff, "a")


def test_help_lists_commands():
    m = started()
    text = msgs(m.handle(Command("b", "help")), "b")[0].text
    assert "/propose N" in text and "/agree" in text and "/help" in text


def test_a_persons_input_that_breaks_the_rules_is_refused_and_never_closes_the_room():
    m = started()
    before = json.dumps([v.data for v in m.views()], sort_keys=True)
    for _ in range(10):
        eff = m.handle(Command("a", "crash"))
        assert m.game.agreed is None, "a failing rule must be rolled back"
        assert not logs(eff, "error") and m.phase == "playing"
        [refused] = logs(eff, "input_refused")
        assert refused.data["seat"] == "a" and refused.data["error"] == "ZeroDivisionError" and refused.data["trace"]
        assert [x.to for x in msgs(eff)] == ["a"] and "nothing changed" in msgs(eff)[0].text
    assert json.dumps([v.data for v in m.views()], sort_keys=True) == before
    m.handle(Command("a", "propose", ("5",)))
    assert m.game.proposals.pending.value == 5, "the room still plays"


def test_a_fault_of_the_bots_own_agents_closes_the_room_after_repeats():
    m = Match(PickNumber(7), {"a": SeatInfo("person", "Ann"), "b": SeatInfo("agent", "Bot")},
              code_source=iter(f"CODE{i}" for i in range(99)).__next__)
    m.open(0)
    m.handle(Join("a", t=1))
    eff = m.handle(Command("b", "crash"))
    assert m.game.agreed is None, "a failing rule must be rolled back"
    assert logs(eff, "error")[0].data["source"] == "agent" and "ZeroDivisionError" in logs(eff, "error")[0].data["error"]
    m.handle(Command("b", "propose", ("5",)))  # a good move resets the error streak
    for _ in range(2):
        m.handle(Command("b", "crash"))
        m.handle(Command("a", "crash"))  # a person's refusals neither count nor reset the streak
    assert m.phase == "playing"
    eff = m.handle(Command("b", "crash"))
    assert m.status == "error" and "on our side" in msgs(eff, None)[0].text
    codes = logs(eff, "confirmation_log")
    assert {c.to for c in codes} == {"a"} and all(c.data["status_txt"] == "error" for c in codes)


def test_completed_game_pays_each_person_privately():
    m = started()
    m.completion = CompletionConfig(platform="Prolific")
    m.handle(Command("a", "propose", ("5",)))
    m.handle(Command("b", "agree"))
    m.handle(Command("a", "submit"))
    eff = m.handle(Command("b", "submit", t=9))
    assert m.status == "completed" and isinstance(eff[-1], GameOver)
    conf = logs(eff, "confirmation_log")
    assert [(c.to, c.data["status_txt"], c.data["confirmation_token"]) for c in conf] == [
        ("a", "success", "CODE0"), ("b", "success", "CODE1")]
    link = msgs(eff, "a")[0]
    assert link.html and "cc=CODE0" in link.text and "CODE1" not in link.text
    assert logs(eff, "game_end")[0].data["results"]["duration"] == 7
    assert msgs(m.handle(Chat("a", "bye")), "a")[0].text.startswith("This game has ended")


def test_escape_helper():
    assert esc('<img src=x onerror="alert(1)">') == "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"


# --- timers -------------------------------------------------------------------------------------------------------

def armed(effects, name):
    return [e for e in effects if isinstance(e, SetTimer) and e.name == name][-1]


def test_join_timeout_gives_compensation_codes():
    m = people(join_timeout=60)
    t = armed(m.open(0), "core:join")
    m.handle(Join("a", t=1))
    eff = m.handle(TimerFired("core:join", t.token, t=60))
    assert m.status == "no_partner"
    assert {c.to: c.data["status_txt"] for c in logs(eff, "confirmation_log")} == {"a": "no_partner", "b": "no_partner"}


def test_inactivity_warns_then_closes_and_activity_resets():
    m = people(inactivity=300, inactivity_warning=60)
    m.open(0)
    m.handle(Join("a"))
    eff = m.handle(Join("b"))
    warn = armed(eff, "core:inactivity_warning")
    assert warn.seconds == 240
    first_deadline = armed(eff, "core:inactivity")
    eff = m.handle(Chat("a", "still here", t=100))
    second_deadline = armed(eff, "core:inactivity")
    stale = m.handle(TimerFired("core:inactivity", first_deadline.token))
    assert [type(e) for e in stale] == [LogEvent] and m.phase == "playing", "a superseded timer must be ignored"
    w2 = armed(eff, "core:inactivity_warning")
    eff = m.handle(TimerFired("core:inactivity_warning", w2.token))
    assert "Are you still there" in msgs(eff, None)[0].text
    m.handle(TimerFired("core:inactivity", second_deadline.token, t=400))
    assert m.status == "timeout"


def test_partner_left_grace_and_return():
    m = started(partner_left_grace=120)
    eff = m.handle(Leave("b", t=10))
    grace = armed(eff, "core:left:b")
    note = armed(eff, "core:leftnote:b")
    assert not msgs(eff, None), "a reconnect within a few seconds is not announced"
    eff = m.handle(TimerFired("core:leftnote:b", note.token, t=15))
    assert "left the room. Waiting up to 115 seconds more" in msgs(eff, None)[0].text
    eff = m.handle(Join("b", t=20))
    assert any(isinstance(e, CancelTimer) and e.name == "core:left:b" for e in eff)
    assert any(isinstance(e, View) and e.seat == "b" for e in eff), "a returning page gets its state again"
    assert [x.text for x in msgs(eff, None)] == ["B is back."]
    m.handle(TimerFired("core:left:b", grace.token))
    assert m.phase == "playing"
    eff = m.handle(Leave("b", t=30))
    grace = armed(eff, "core:left:b")
    eff = m.handle(Join("b", t=32))  # a blip: said nothing when leaving, says nothing when back
    assert not msgs(eff, None) and any(isinstance(e, CancelTimer) and e.name == "core:leftnote:b" for e in eff)
    grace = armed(m.handle(Leave("b", t=40)), "core:left:b")
    eff = m.handle(TimerFired("core:left:b", grace.token, t=150))
    assert m.status == "partner_left"
    # the record tells the leaver from the partner left behind (left_policy no_code: the leaver gets no code)
    records = {c.to: c.data for c in logs(eff, "confirmation_log")}
    assert records["a"]["status_txt"] == "user_left" and records["a"]["partner_left"] == {"b": 40}
    assert records["b"] == {"status_txt": "left", "left_at": 40, "payment": "none"}
    assert "b" not in m.codes and m.codes["a"]


def test_agents_only_match_has_no_timers_and_no_codes():
    m = Match(PickNumber(1), {"a": SeatInfo(), "b": SeatInfo()})
    eff = m.open(0)
    assert m.phase == "playing" and not [e for e in eff if isinstance(e, SetTimer)]
    eff = m.handle(Abort("stalled", "quiet"))
    assert m.status == "stalled" and not logs(eff, "confirmation_log")


# --- driver -------------------------------------------------------------------------------------------------------

def selfplay(seed):
    m = Match(PickNumber(seed), {"a": SeatInfo(), "b": SeatInfo()})
    recorded = []
    d = MatchDriver(m, {"a": ToyBrain("a"), "b": ToyBrain("b")}, clock=lambda: 0.0, on_input=recorded.append)
    effects = [e for batch in d.open() for e in batch]
    return m, recorded, effects


def test_selfplay_runs_to_an_end_and_replay_rebuilds_it():
    ends = set()
    for seed in range(20):
        m, recorded, _ = selfplay(seed)
        assert m.over
        ends.add(m.status)
        again = Match(PickNumber(seed), {"a": SeatInfo(), "b": SeatInfo()})
        MatchDriver(again, {"a": ToyBrain("a"), "b": ToyBrain("b")}).replay(recorded)
        assert again.status == m.status and again.game.agreed == m.game.agreed
        assert again.game.budget.used == m.game.budget.used
    assert ends == {"completed", "timeout"}


def test_brain_sees_only_its_seat():
    m, _, effects = selfplay(3)
    brain = ToyBrain("a")
    for e in effects:
        if isinstance(e, View) and e.seat == "a":
            brain.observe(e)
    assert brain.view["favourite"] == m.game.favourite["a"]
    for e in effects:
        if isinstance(e, View):
            assert set(e.data) >= {"favourite", "core"} and e.data["core"]["seat"] == e.seat


class Stubborn(Brain):
    def act(self):
        self.calls = getattr(self, "calls", 0) + 1
        return [self.command("propose", "99")]


def test_a_brain_that_keeps_failing_cannot_spin_the_room():
    m = Match(PickNumber(2), {"a": SeatInfo(), "b": SeatInfo()})
    stubborn = Stubborn("a")
    d = MatchDriver(m, {"a": stubborn, "b": Brain("b")})
    list(d.open())
    assert stubborn.calls <= 4 and not m.over


class Restless(Brain):
    """Proposes a new number whenever its page changes, so its own moves keep waking it: it would never stop."""

    def observe(self, effect):
        pass

    def act(self):
        self.calls = getattr(self, "calls", 0) + 1
        return [self.say("what about this?"), self.command("propose", str(self.calls % 9 + 1))]


def test_own_chat_does_not_wake_and_a_restless_brain_is_paused():
    m = Match(PickNumber(2, {"turn_limit": None}), {"a": SeatInfo(), "b": SeatInfo()})
    restless = Restless("a")
    d = MatchDriver(m, {"a": restless})  # seat b is driven by the test
    effects = [e for batch in d.open() for e in batch]
    notes = [e for e in effects if isinstance(e, LogEvent) and e.event == "agent_note"]
    assert restless.calls == 20 and notes and notes[0].data["kind"] == "paused"
    # Someone else acting lets it move again.
    list(d.feed(Chat("b", "hi")))
    assert restless.calls == 40, "after a reply it may act again, up to the same limit"


def test_replay_then_resume_lets_a_brain_answer_what_it_had_not_answered():
    m = Match(PickNumber(5), {"a": SeatInfo("person"), "b": SeatInfo()})
    m2 = Match(PickNumber(5), {"a": SeatInfo("person"), "b": SeatInfo()})
    recorded = []
    live = MatchDriver(m, {"b": ToyBrain("b")}, clock=lambda: 0.0, on_input=recorded.append)
    list(live.open())
    list(live.feed(Join("a")))
    # The process "dies" right after the person's proposal is stored, before the brain answered.
    m.handle(Command("a", "propose", (str(m.game.favourite["b"]),)))
    recorded.append(Command("a", "propose", (str(m.game.favourite["b"]),)))
    restored = MatchDriver(m2, {"b": ToyBrain("b")})
    restored.replay(recorded)
    assert m2.game.proposals.pending is not None
    list(restored.resume())
    assert m2.game.agreed == m.game.favourite["b"], "the restored brain must answer the pending proposal"
