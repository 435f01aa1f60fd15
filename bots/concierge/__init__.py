"""The concierge: the waiting-room bot that pairs people into task rooms (`./run_bot.sh concierge`, command.py).

What it does (slurk-protocol.md §2.5 and §4):
  * every person who arrives in its waiting room (`status: join`) is greeted privately and queued by the task of
    their token, as the server reports it (`GET /users/{id}/task` -> task id, num_users, layout id); users without a
    task (bots), and people of a task it was not configured for, are not paired;
  * when a task has `num_users` people waiting (checked to be still online): `POST /rooms {layout_id}`, then every
    person is taken out of the waiting room (`DELETE /users/{u}/rooms/{waiting}`, with the user's fresh ETag) and
    then added (`POST /users/{u}/rooms/{new}`), in that order, as slurk-bots' concierge does (Slurk's page turns the
    chat read-only on any `left_room`, so it must come before the new room's `joined_room`); when all are in, the
    room is announced with `room_created {room, task}`, so the task bot joins via `new_task_room`; agent users are
    added afterwards. A move that fails half-way puts everyone moved so far back into the waiting room;
  * a person still waiting after `waiting_timeout` seconds (counted from their first arrival, so a page reload does
    not restart the clock) gets a completion code: logged as `confirmation_log {status_txt: no_partner,
    confirmation_token}` for them, and sent privately with a polite note (and the Prolific link when configured);
  * people who leave the waiting room are forgotten (their place in the queue and their timer).

What it does not trust: `room_created` can be emitted by anyone in Slurk (no login or permission check), so a
`new_task_room` it did not cause is only logged, never acted on; it serves only its own waiting room and the task it
was configured for, and it reads people's tasks from the server. Names people chose at login are shown through
`plain_name` (chat is rendered as markdown and HTML).

When Slurk fails (it is down, restarting, or answers errors):
  * every failed step is retried after an exponential back-off (RETRY_BASE doubling up to RETRY_CAP seconds, with a
    seeded jitter), at most `retry_limit` times in a row; a group that cannot be placed keeps its place in the queue
    and never loops without waiting (the people's waiting timeout ends it at the latest);
  * for a minute after a server error it creates at most `rooms_per_minute` rooms (counted from that error) and one
    group at a time; a launch whose rooms are created without errors is not capped (groups are placed by MOVERS
    threads at once). People held back by the cap or a back-off are told their place in the queue and the expected
    wait privately, when it changes and at most every PLACE_INTERVAL seconds;
  * its socket reconnects with python-socketio's back-off (0.5 s doubling to RECONNECT_DELAY_MAX), at most
    RECONNECT_LIMIT times; then it stops with an error (exit code 1), so that a supervisor or the researcher notices;
  * a room it created but could not fill is given up: everyone the server may have put into it is taken out again
    and put back on the waiting-room page, and the room is made read-only (Slurk has no room state beyond that) and
    never used again (`dead_rooms`); a person whose move failed with a server error is first re-added to the waiting
    room as a probe before another room is made for them (a session Slurk lost in a restart fails the probe, not a
    new room).

Socket events are received in order and handled one at a time by a worker thread (timers feed the same queue), so
"""
from .bot import Concierge
from .command import build_concierge, main
from .messages import shown_name
from .retries import Backoff
from .socket_events import ConciergeAuthError
from .timers import ManualTimers, ThreadTimers

__all__ = ["Backoff", "Concierge", "ConciergeAuthError", "ManualTimers", "ThreadTimers", "build_concierge", "main",
           "shown_name"]
