"""After a restart the agent goes on where it was: its memory (beliefs, what it said, asked and proposed) is saved
after each of its acts in the bot's state database and loaded when the replay of the room's inputs reaches that
point. A travel room on Slurk (the double, ETags off and on, and a real Slurk when configured): the solver agent
greets and shares, the bot is killed, a new bot process takes over from the same state database, and the agent's
next message answers the person instead of greeting again."""
from __future__ import annotations

import pickle

from bots.slurk.runtime import SlurkBot
from tasks import get_task
from tasks.core import SeatInfo, build_match
from tests.test_privacy import Participant
from tests.test_slurk_runtime import WAIT, Table, _poll, bot_config, finish, provision_bot

TRAVEL = get_task("travel")
GREETING = "Hi!"


def canonical(obj, depth=0):
    """A comparable form of a brain's memory: containers by content, sets sorted, objects by their attributes."""
    if depth > 12:
        return repr(obj)
    if isinstance(obj, dict):
        return {repr(k): canonical(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [canonical(v, depth + 1) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(repr(canonical(v, depth + 1)) for v in obj)
    if hasattr(obj, "getstate") and callable(obj.getstate):  # random.Random
        return repr(obj.getstate())
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return {"__class__": type(obj).__name__, **canonical(vars(obj), depth + 1)}
    return repr(obj)


def test_the_agent_resumes_its_memory_after_a_restart(slurk_server, tmp_path):
    srv = slurk_server
    table = Table(srv, num_users=1, name=TRAVEL.name)
    room = table.room()
    credentials = provision_bot(srv)

    def make():
        cfg = bot_config(srv, *credentials, table.task, str(tmp_path / "state.sqlite3"), person_seats=1,
                         agents={"ghost": "solver"}, task_options={"boards": "preset"})
        return SlurkBot(cfg, TRAVEL)

    bot, bot2 = make(), None
    bot.start()
    try:
        ann = Participant(srv, "Ann", room, table.task, TRAVEL.state_element)
        ann.rec.call("room_created", {"room": room, "task": table.task}, timeout=WAIT)
        ann.view()
        assert ann.say("hello") is True  # light moves first; the agent answers
        _poll(lambda: any(GREETING in m for m in _said(ann)))
        worker = bot.room(room)
        _poll(lambda: not worker.driver.thinking and worker.bot.thinking.busy() == 0)
        brain = worker.driver.brains["ghost"]
        before = canonical(pickle.loads(brain.snapshot()))
        saved = bot.store.brain_states(room)["ghost"]
        assert saved[0] <= worker.match.seq
        bot.stop()  # killed between two moves: the room stays open in the store

        bot2 = make()
        bot2.start()
        _poll(lambda: bot2.room(room) is not None and bot2.room(room).state == "attached")
        restored = bot2.room(room).driver.brains["ghost"]
        assert canonical(pickle.loads(restored.snapshot())) == before  # the same memory, not a fresh agent's
        greetings = sum(GREETING in m for m in _said(ann))
        n = len(_said(ann))
        assert ann.say("hey, what do you suggest we do?") is True
        _poll(lambda: len(_said(ann)) > n)
        after = _said(ann)[n:]
        assert sum(GREETING in m for m in _said(ann)) == greetings, after  # it does not start over
    finally:
        finish(*(b for b in (bot, bot2) if b is not None))


def _said(ann: Participant) -> list[str]:
    """Chat lines shown to Ann that the agent wrote (the game's own messages name the seat or the game)."""
    return [str(d.get("message")) for e, d in ann.rec.events
            if e == "text_message" and d.get("user", {}).get("id") != ann.id and not d.get("private")
            and not str(d.get("message")).startswith(("Welcome", "You are", "Ghost shares", "Light "))]


def test_every_default_brain_can_save_and_load_its_memory():
    """Each registered task's default agents, mid-game: the snapshot loads into a fresh brain of the same seat and
    gives back the same memory (a brain that cannot be saved would resume from its observations only)."""
    from tasks import available_tasks
    from tasks.core import MatchDriver, TimerConfig
    timers = TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None)
    for name in available_tasks():
        spec = get_task(name)
        seats = {s: SeatInfo("agent", s, spec.default_brains[i]) for i, s in enumerate(spec.seats)}
        match, brains = build_match(spec, 5, seats, options={}, timers=timers)
        driver = MatchDriver(match, brains, max_steps=60)
        for _ in driver.open():
            pass
        for seat, brain in brains.items():
            blob = brain.snapshot()
            _, fresh = build_match(spec, 5, seats, options={}, timers=timers)
            fresh[seat].restore(blob)
            assert canonical(pickle.loads(fresh[seat].snapshot())) == canonical(pickle.loads(blob)), (name, seat)
