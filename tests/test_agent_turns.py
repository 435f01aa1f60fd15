"""Agent turns off the room's thread: the driver's split API (next_brain / think / apply_moves), the thinking pool,
and the Slurk runtime keeping a room responsive while its agent thinks (views carry `core.thinking`).

Runtime scenarios use the toy game on the Slurk double with a brain that blocks in act() until the test lets it go
(waits are bounded polls for events, never assertions about durations).
"""
from __future__ import annotations

import threading
import time

from tasks.core import (
    Brain, Chat, ChatShown, Command, Join, LogEvent, Match, MatchDriver, Message, SeatInfo, TaskSpec, View,
)
from tasks.core.driver import MAX_REJECTED_WAKEUPS, Thought
from tasks.core.match import TimerConfig
from bots.slurk.thinking import ThinkingPool
from tests.test_slurk_runtime import (
    STATE, WAIT, Person, Table, _poll, _server, finish, logs_of, make_bot, provision_bot, wait_logs,
)
from tests.toygame import PickNumber, ToyBrain


# ----------------------------------------------------------------------------------------------------------------
# the driver's split API


class Recording(ToyBrain):
    """A ToyBrain that records when it observes and acts, and fails the test if both overlap."""

    name = "recording"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.log: list[str] = []
        self.acting = False

    def observe(self, effect):
        assert not self.acting, "observe() while act() runs"
        self.log.append(f"observe {type(effect).__name__}")
        super().observe(effect)

    def act(self):
        self.acting = True
        try:
            self.log.append("act")
            return super().act()
        finally:
            self.acting = False


def person_vs_brain(brain=None, seed=5, **kw):
    m = Match(PickNumber(seed), {"a": SeatInfo("person", "Ann"), "b": SeatInfo()}, **kw)
    recorded = []
    brain = brain or Recording("b")
    d = MatchDriver(m, {"b": brain}, clock=lambda: 0.0, on_input=recorded.append)
    return m, d, brain, recorded


def drain(batches) -> list:
    return [e for batch in batches for e in batch]


def test_feed_without_acting_then_next_brain_marks_it_thinking():
    m, d, brain, _ = person_vs_brain()
    drain(d.open(act=False))
    drain(d.feed(Join("a"), act=False))
    assert m.phase == "playing" and "act" not in brain.log
    assert d.next_brain() == "b" and d.thinking == {"b"}
    assert d.next_brain() is None, "a thinking brain is not handed out twice"
    thought = d.think("b")
    assert thought.seat == "b" and [mv.name for mv in thought.moves] == ["propose"]
    assert m.game.proposals.pending is None, "think() touches the brain only, never the match"
    effects = drain(d.apply_moves(thought))
    assert d.thinking == frozenset() and m.game.proposals.pending.value == m.game.favourite["b"]
    assert any(isinstance(e, View) and e.seat == "a" for e in effects)


def test_observations_while_thinking_are_given_afterwards_and_wake_it_again():
    m, d, brain, recorded = person_vs_brain()
    drain(d.open(act=False))
    drain(d.feed(Join("a"), act=False))
    seat = d.next_brain()
    seen_before = len(brain.log)
    drain(d.feed(Chat("a", "hello?"), act=False))  # while b thinks
    drain(d.feed(Command("a", "help"), act=False))
    assert len(brain.log) == seen_before, "nothing reaches a thinking brain"
    assert d.next_brain() is None
    thought = d.think(seat)
    drain(d.apply_moves(thought))
    heard = [e.text for e in brain.heard if isinstance(e, ChatShown)]
    assert "hello?" in heard, "what it missed while thinking is given to it when it is done"
    assert brain.log[seen_before] == "act", "observed only once its act() was over"
    assert brain.log.index("observe ChatShown", seen_before) > seen_before
    assert d.next_brain() == "b", "and it may act again on what it missed"
    # the record holds the person's inputs and the brain's move in the order the match handled them
    assert [type(x).__name__ for x in recorded[-3:]] == ["Chat", "Command", "Command"]
    assert recorded[-1].seat == "b" and recorded[-1].name == "propose"


def test_moves_refused_when_applied_answer_the_brain_and_wake_it_a_bounded_number_of_times():
    class Stubborn(Brain):
        def act(self):
            self.calls = getattr(self, "calls", 0) + 1
            return [self.command("propose", "99")]

    brain = Stubborn("b")
    m, d, _, _ = person_vs_brain(brain)
    drain(d.open(act=False))
    drain(d.feed(Join("a"), act=False))
    refusals = []
    for i in range(10):
        seat = d.next_brain()
        if seat is None:
            break
        thought = d.think(seat)
        if i == 0:
            drain(d.feed(Command("a", "help"), act=False))  # the room goes on while it thinks
        effects = drain(d.apply_moves(thought))
        refusals += [e for e in effects if isinstance(e, Message) and e.to == "b" and e.kind == "error"]
    assert refusals and m.game.proposals.pending is None
    assert brain.calls <= 2 + MAX_REJECTED_WAKEUPS


def test_a_stale_or_foreign_result_changes_nothing():
    m, d, brain, recorded = person_vs_brain()
    drain(d.open(act=False))
    drain(d.feed(Join("a"), act=False))
    n = len(recorded)
    assert drain(d.apply_moves(Thought("b", [Command("b", "propose", ("1",))]))) == []
    assert len(recorded) == n and m.game.proposals.pending is None


def test_an_act_that_failed_is_logged_and_the_seat_is_free_again():
    m, d, brain, recorded = person_vs_brain()
    drain(d.open(act=False))
    drain(d.feed(Join("a"), act=False))
    seat = d.next_brain()
    effects = drain(d.apply_moves(Thought(seat, error="RuntimeError: boom")))
    notes = [e.data for e in effects if isinstance(e, LogEvent) and e.event == "agent_note"]
    assert notes == [{"seat": "b", "kind": "error", "error": "RuntimeError: boom"}]
    assert d.thinking == frozenset()


def test_split_api_used_in_place_gives_exactly_what_the_synchronous_driver_gives():
    def scripted(driver, split: bool) -> list:
        out = []
        inputs = [Join("a"), Chat("a", "hi"), Command("a", "propose", ("5",)), Command("a", "reject"),
                  Command("a", "propose", ("6",)), Command("a", "agree"), Command("a", "submit")]
        out += drain(driver.open(act=not split))
        for inp in inputs:
            out += drain(driver.feed(inp, act=not split))
            while split:
                seat = driver.next_brain()
                if seat is None:
                    break
                out += drain(driver.apply_moves(driver.think(seat)))
        return out

    for seed in range(6):
        m1, d1, _, rec1 = person_vs_brain(ToyBrain("b"), seed=seed, code_source=lambda: "CODE")
        m2, d2, _, rec2 = person_vs_brain(ToyBrain("b"), seed=seed, code_source=lambda: "CODE")
        assert scripted(d1, False) == scripted(d2, True)
        assert rec1 == rec2 and m1.status == m2.status


def test_brain_moves_are_limited_per_outside_input_in_the_split_api_too():
    class Chatty(Brain):
        def observe(self, effect):
            pass

        def act(self):
            return [self.say(f"line {i}") for i in range(3)]

    m = Match(PickNumber(1), {"a": SeatInfo("person"), "b": SeatInfo()})
    d = MatchDriver(m, {"b": Chatty("b")}, max_steps=4)
    drain(d.open(act=False))
    drain(d.feed(Join("a"), act=False))
    d._woken["b"] = True  # as if something new had arrived for it, again and again
    out = []
    for _ in range(5):
        seat = d.next_brain()
        if seat is None:
            break
        out += drain(d.apply_moves(d.think(seat)))
        d._woken["b"] = True
    errors = [e for e in out if isinstance(e, LogEvent) and e.event == "error"]
    assert len(errors) == 1 and d.next_brain() is None
    drain(d.feed(Chat("a", "go on"), act=False))  # an outside input gives a new allowance
    assert d.next_brain() == "b"


# ----------------------------------------------------------------------------------------------------------------
# the thinking pool


class _Bot:
    stopping = False


class _Worker:
    def __init__(self, room_id):
        self.room_id = room_id
        self.state = "attached"
        self.bot = _Bot()
        self.events = []
        self.got = threading.Condition()

    def put(self, kind, data=None, t_recv=None):
        with self.got:
            self.events.append((kind, data))
            self.got.notify_all()

    def wait(self, kind, timeout=WAIT):
        with self.got:
            assert self.got.wait_for(lambda: any(k == kind for k, _ in self.events), timeout), f"no {kind}"
            return [d for k, d in self.events if k == kind]


class _Driver:
    def __init__(self, gate=None, error=None):
        self.gate, self.error = gate, error

    def think(self, seat):
        if self.gate is not None:
            assert self.gate.wait(WAIT)
        if self.error:
            raise RuntimeError(self.error)
        return Thought(seat, [Chat(seat, "done")])


def test_pool_runs_acts_concurrently_reports_slow_ones_and_errors():
    pool = ThinkingPool(threads=4, show_after=0.2)
    try:
        gate = threading.Event()
        slow, quick, broken = _Worker(1), _Worker(2), _Worker(3)
        slow_driver = _Driver(gate)
        pool.submit(slow, slow_driver, "b")
        pool.submit(quick, _Driver(), "b")
        pool.submit(broken, _Driver(error="boom"), "b")
        (driver, thought), = quick.wait("thought")  # not held up by the stuck one
        assert driver is not slow_driver and thought.moves[0].text == "done"
        (_d, failed), = broken.wait("thought")
        assert failed.error == "RuntimeError: boom" and failed.moves == []
        assert slow.wait("thinking") == [None]  # still thinking after show_after: the room is told once
        gate.set()
        slow.wait("thought")
        time.sleep(0.3)
        assert [k for k, _ in quick.events] == ["thought"], "a quick act is never announced as thinking"
        assert pool.busy() == 0
    finally:
        pool.stop()


def test_pool_is_bounded_and_skips_rooms_that_closed():
    pool = ThinkingPool(threads=1, show_after=5)
    try:
        gate = threading.Event()
        first, second, closed = _Worker(1), _Worker(2), _Worker(3)
        pool.submit(first, _Driver(gate), "b")
        closed.state = "closed"
        pool.submit(closed, _Driver(), "b")
        pool.submit(second, _Driver(), "b")
        time.sleep(0.2)
        assert second.events == [] and pool.busy() == 3  # one thread: the others wait their turn
        gate.set()
        second.wait("thought")
        assert closed.events == []  # the game there ended meanwhile: no act, no result
    finally:
        pool.stop()


# ----------------------------------------------------------------------------------------------------------------
# the Slurk runtime: the room keeps answering while its agent thinks


class Latch:
    """Blocks every act() of a HeldBrain while armed, until released."""

    def __init__(self):
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def arm(self):
        self.entered.clear()
        self.release.clear()
        self.armed = True

    def hold(self):
        if self.armed:
            self.entered.set()
            assert self.release.wait(WAIT)
            self.armed = False


LATCH = Latch()


class HeldBrain(ToyBrain):
    """A ToyBrain whose act() can be held (as if waiting for a slow model); records what it heard."""

    name = "held"
    instances: list = []

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        HeldBrain.instances.append(self)

    def act(self):
        LATCH.hold()
        return super().act()


HELD_SPEC = TaskSpec(name="toy", title="Pick a number", game_class=PickNumber, brains={"held": HeldBrain},
                     default_brains=("held", "held"), state_element=STATE)


def _thinking(v) -> list:
    return v["core"].get("thinking", [])


def test_room_answers_help_and_chat_while_the_agent_thinks_and_shows_it(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1)
    room = table.room()
    bot = make_bot(srv, table, tmp_path, spec=HELD_SPEC)
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        v = alice.wait_view(lambda v: v["pending"] is not None)  # the brain proposed
        assert _thinking(v) == []
        LATCH.arm()
        assert alice.command("reject") is True  # the brain is woken and thinks ... and thinks
        assert LATCH.entered.wait(WAIT)
        alice.wait_view(lambda v: _thinking(v) == ["b"])  # the page shows the partner thinking
        assert alice.command("help") is True
        alice.wait_message("Commands:\n", private=True)  # answered while the agent still thinks
        assert alice.say("are you there?") is True
        assert alice.command("poke") is True
        alice.wait_view(lambda v: v["turn"] == "b" and _thinking(v) == ["b"])
        assert bot.room(room).match.game.proposals.pending is None  # the agent has not moved yet
        brain = bot.room(room).driver.brains["b"]
        assert not any(getattr(e, "text", None) == "are you there?" for e in brain.heard)
        LATCH.release.set()
        alice.wait_view(lambda v: v["pending"] is not None and v["turn"] == "b" and _thinking(v) == [])
        _poll(lambda: any(getattr(e, "text", None) == "are you there?" for e in brain.heard))
        # the views went out when thinking started and stopped, not more: the last one says nobody thinks
        flags = [_thinking(x) for x in alice.views() if x["core"]["phase"] == "playing"]
        assert flags.count(["b"]) >= 1 and flags[-1] == []
        # the brain's moves are stored like any input, after what the person did meanwhile
        def kinds():
            inputs = sorted((x["data"] for x in logs_of(srv, room, "game_input")), key=lambda d: d["seq"])
            return [(i["input"].get("seat"), i["input"].get("name") or i["input"]["type"]) for i in inputs]
        _poll(lambda: kinds().count(("b", "propose")) >= 2)
        k = kinds()
        answer = k.index(("b", "propose"), k.index(("a", "reject")))
        assert k.index(("a", "help")) < answer and k.index(("a", "poke")) < answer
    finally:
        LATCH.release.set()
        finish(bot)


def test_a_late_result_after_game_over_is_dropped(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    timers = TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=0.3)
    bot = make_bot(srv, table, tmp_path, spec=HELD_SPEC, timers=timers)
    bot.start()
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)
        LATCH.arm()
        alice.command("reject")
        assert LATCH.entered.wait(WAIT)
        alice.disconnect()  # she leaves and does not come back: the game ends while the agent thinks
        wait_logs(srv, room, "game_end")
        n = len(logs_of(srv, room, "game_input"))
        LATCH.release.set()
        time.sleep(0.5)
        assert len(logs_of(srv, room, "game_input")) == n, "nothing the agent decided after the end is stored"
        assert bot.store.status(room) == "partner_left"
    finally:
        LATCH.release.set()
        finish(bot)


def test_an_act_in_flight_at_a_restart_is_redone(slurk_double, tmp_path):
    srv = _server(slurk_double)
    table = Table(srv, num_users=1)
    room = table.room()
    credentials = provision_bot(srv)
    bot = make_bot(srv, table, tmp_path, spec=HELD_SPEC, credentials=credentials)
    bot.start()
    bot2 = None
    try:
        alice = Person(srv, "Alice", room, table.task).connect()
        alice.announce(room, table.task)
        alice.wait_view(lambda v: v["pending"] is not None)
        LATCH.arm()
        alice.command("reject")
        assert LATCH.entered.wait(WAIT)
        bot.stop()  # killed while its agent thinks: the reject is stored, the agent's answer is not
        LATCH.release.set()
        bot2 = make_bot(srv, table, tmp_path, spec=HELD_SPEC, credentials=credentials)
        bot2.start()
        alice.wait_view(lambda v: v["pending"] is not None and v["left"] == 5)  # the new agent answered

        def proposals():
            return [x for x in logs_of(srv, room, "game_input") if x["data"]["input"].get("name") == "propose"]
        _poll(lambda: len(proposals()) >= 2)
        time.sleep(0.3)
        assert len(proposals()) == 2  # the opening proposal and the redone answer, once each
    finally:
        LATCH.release.set()
        finish(*(b for b in (bot, bot2) if b is not None))
