"""A seat that floods the bot is slowed at the door (bots/slurk/intake.py `_over_rate`): a burst and a steady rate
an honest player never reaches pass untouched; beyond them inputs are dropped before any work, the sender is told
at most once per notice period, and one record counts what was dropped."""
from __future__ import annotations

import pytest

from bots.slurk import intake
from bots.slurk.intake import PersonInputs
from bots.slurk.people import RoomPeople


@pytest.fixture(autouse=True)
def default_rate(monkeypatch):
    monkeypatch.delenv("BOT_INPUT_RATE", raising=False)  # the suite raises it for its fast scripted people


def test_the_rate_can_be_set_and_a_bad_setting_keeps_the_default(monkeypatch):
    monkeypatch.setenv("BOT_INPUT_RATE", "2,10")
    assert intake.rate_settings() == (2.0, 10.0)
    for bad in ("x", "1", "-1,5", "3,0"):
        monkeypatch.setenv("BOT_INPUT_RATE", bad)
        assert intake.rate_settings() == (intake.RATE_PER_SECOND, float(intake.RATE_BURST))


class _Delivery:
    def __init__(self):
        self.logged, self.told = [], []

    def deliver(self, effects):
        self.logged += effects

    def to_seat(self, seat, item):
        self.told.append((seat, item[1]))


def _room():
    """A room's intake whose delivery records what it logs and tells (the rate check needs nothing else)."""
    return PersonInputs(None, 1, RoomPeople(), _Delivery(), feed=lambda inp, t, ref: None, views=lambda: [],
                        attached=lambda: True)


def test_a_burst_and_an_honest_pace_pass():
    room = _room()
    t = 0.0
    assert not any(room._over_rate("a", t) for _ in range(intake.RATE_BURST))
    for _ in range(200):  # one input a second for a long game
        t += 1.0
        assert not room._over_rate("a", t)
    assert room.delivery.logged == [] and room.delivery.told == []


def test_a_flood_is_dropped_told_once_per_period_and_counted():
    room = _room()
    t, dropped = 0.0, 0
    for i in range(1000):  # 100 inputs a second for 10 s
        t = i / 100
        dropped += room._over_rate("a", t)
    passed = 1000 - dropped
    assert passed <= intake.RATE_BURST + 10 * intake.RATE_PER_SECOND + 1
    notices = [m for seat, m in room.delivery.told if seat == "a"]
    assert 1 <= len(notices) <= 10 / intake.RATE_NOTICE_SECONDS + 1 and "slow down" in notices[0]
    records = [e.data for e in room.delivery.logged]
    assert all(r["reason"] == "rate" and r["seat"] == "a" for r in records)
    assert sum(r["dropped"] for r in records) <= dropped
    # the other seat of the room is not slowed by its partner's flood
    assert not room._over_rate("b", t)
