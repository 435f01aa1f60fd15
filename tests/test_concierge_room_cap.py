"""The concierge's rooms-per-minute cap (bots/concierge/room_cap.py) on its own, with a clock the test moves."""
import pytest

from bots.concierge.room_cap import WINDOW, RoomCap


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_a_launch_without_server_errors_is_not_capped():
    clock = Clock()
    cap = RoomCap(2, clock)
    for _ in range(10):
        cap.room_created()
    assert cap.wait() == 0.0 and not cap.in_force() and cap.spacing() == 0.0


def test_after_a_server_error_rooms_are_capped_until_a_calm_window_has_passed():
    clock = Clock()
    cap = RoomCap(2, clock)
    cap.room_created()                      # before the error: not counted
    cap.server_error()
    assert cap.in_force() and cap.wait() == 0.0
    cap.room_created()
    clock.now += 10
    cap.room_created()                      # two rooms since the error: the cap is reached
    assert cap.wait() == pytest.approx(WINDOW - 10) and cap.spacing() == WINDOW / 2
    clock.now += WINDOW - 10                # the first capped room is a minute old
    assert cap.wait() == 0.0
    clock.now += 10                         # a whole window without errors: the cap is lifted
    assert not cap.in_force() and cap.wait() == 0.0


def test_a_new_error_keeps_the_episode_and_its_count():
    clock = Clock()
    cap = RoomCap(1, clock)
    cap.server_error()
    cap.room_created()
    clock.now += 30
    cap.server_error()                      # same episode: the room made after the first error still counts
    assert cap.trouble == (1000.0, 1030.0) and cap.wait() == pytest.approx(WINDOW - 30)


def test_the_cap_needs_at_least_one_room_a_minute():
    with pytest.raises(ValueError, match="rooms_per_minute"):
        RoomCap(0, Clock())
