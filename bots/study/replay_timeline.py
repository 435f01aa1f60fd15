"""The transcript of a rebuilt game: one `Entry` per line, in log order, from the recomputed effects of every input
and the rows only the log has (Slurk's chat and join rows, completion codes, agent notes).

Slurk rows that repeat a game input or a game-master message are shown once, from the replay. A chat line shown
only to some seats (a private message, or a line addressed in a relayed room) carries the seats that saw it, so
`timeline_for` can show what one seat saw.
"""
from __future__ import annotations

import dataclasses
import html
import json
import re
from typing import Callable, Optional

from tasks.core import (
    Abort, Action, Chat, ChatShown, Command, GameOver, Join, Leave, LogEvent, Message, TimerFired, View,
    parse_command_text,
)

from bots.slurk.senders import open_envelope

from .replay_model import Entry, GameReplay, as_logged
from .replay_reading import completion_code, row_data

SeatOf = Callable[[object], Optional[str]]
# A line a person sent that the bot refused as too large is still in Slurk's log, in full: the transcript shows its
# beginning and its size, so a flood of megabyte lines cannot make a transcript of hundreds of megabytes.
MAX_SHOWN_CHARS = 2000


def clip(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text):,} characters; cut]"

_TAG = re.compile(r"<[^>]*>")
# Events whose content the transcript shows otherwise (inputs, start and end, rejections as messages, codes).
_NOT_SHOWN_AS_EVENTS = ("game_input", "game_start", "game_end", "move_rejected", "confirmation_log")


def build_timeline(g: GameReplay, rows, batches: dict, by_seq: dict, seat_of: SeatOf, receiver_seat) -> list[Entry]:
    """The transcript of `g`. `batches`: seq -> the effects the replay produced for that input (None: at opening);
    `by_seq`: seq -> (line, input, input JSON). Sets `g.final_views`."""
    out: list[Entry] = []
    last_view: dict[str, dict] = {}
    shown = {seq: _chat_shown(inp, batches.get(seq)) for seq, (_, inp, _) in by_seq.items() if isinstance(inp, Chat)}
    chat_pool, cmd_pool, gm_pool = _repeated_rows(g, batches, by_seq, shown)
    seq_of_line = {ln: seq for seq, (ln, _, _) in by_seq.items()}

    def effects_entries(batch, line, step):
        views: dict[str, dict] = {}
        for e in batch:
            if isinstance(e, Message):
                kind = "rejection" if e.kind == "error" else "gm"
                out.append(Entry(kind, line, step, seat=e.to, who="game master", text=e.text,
                                 to=None if e.to is None else g.display(e.to), html=e.html,
                                 seen_by=None if e.to is None else (e.to,)))
            elif isinstance(e, View):
                views[e.seat] = e.data
            elif isinstance(e, LogEvent):
                if e.event == "error":
                    out.append(Entry("error", line, step, seat=e.data.get("seat"), text=str(e.data.get("error", "")),
                                     data=e.data.get("trace")))
                elif e.event not in _NOT_SHOWN_AS_EVENTS:
                    out.append(Entry("event", line, step, text=e.event, data=as_logged(e.data),
                                     to=None if e.to is None else g.display(e.to),
                                     seen_by=None if e.to is None else (e.to,)))
            elif isinstance(e, GameOver) and g.incomplete:
                out.append(Entry("end", line, step, text=e.status, data=as_logged(e.results), source="replay"))
        changed = []
        for seat in g.seat_order:
            if seat in views and views[seat] != last_view.get(seat):
                last_view[seat] = views[seat]
                changed.append((seat, g.display(seat), views[seat]))
        if changed:
            out.append(Entry("board", line, step, views=changed))

    for ln, r in rows:
        ev = r["event"]
        d = row_data(r)
        uid = r.get("user_id")
        if ev == "game_start":
            out.append(Entry("info", ln, text=f"game {g.index} starts: {g.task}, seed {g.seed}", source="log"))
            effects_entries(batches.get(None, []), ln, 0)
        elif ev == "game_input":
            seq = seq_of_line.get(ln)
            if seq is None or seq not in batches:
                inp = by_seq.get(d.get("seq"), (None, None, None))[1] if seq is not None else None
                out.append(Entry("input_lost", ln, seq, text=describe_input(g, inp) if inp else "(duplicate)",
                                 source="log"))
                continue
            out.append(input_entry(g, by_seq[seq][1], ln, seq, shown.get(seq)))
            effects_entries(batches[seq], ln, seq)
        elif ev == "game_end":
            out.append(Entry("end", ln, text=str(d.get("status")), data=d.get("results"), source="log"))
        elif ev == "confirmation_log":
            seat = receiver_seat(r)
            who = g.display(seat) if seat else f"user {r.get('receiver_id')}"
            extra = f", reward {d['reward']}" if "reward" in d else ""
            out.append(Entry("code", ln, seat=seat, who=who, to=who, source="log", seen_by=(seat,) if seat else (),
                             text=f"completion code {completion_code(d)} ({d.get('status_txt', '?')}{extra})"))
        elif ev == "agent_note":
            seat = d.get("seat")
            out.append(Entry("note", ln, seat=seat, who=g.display(seat) if seat in g.seats else str(seat),
                             text=str(d.get("kind", "note")), data=d, source="log"))
        elif ev == "seat_map":
            text = ", ".join(f"{g.display(s)} = user {u}" for s, u in d.items())
            out.append(Entry("info", ln, text=f"seats: {text}", source="log"))
        elif ev in ("join", "leave"):
            seat = seat_of(uid)
            who = g.display(seat) if seat else f"user {uid}"
            out.append(Entry(ev, ln, seat=seat, who=who, text=f"{who} {'joined' if ev == 'join' else 'left'} the room",
                             source="log"))
        elif ev == "text_message":
            entry = _text_message_entry(g, ln, r, seat_of, chat_pool, gm_pool)
            if entry is not None:
                out.append(entry)
        elif ev == "command":
            seat = seat_of(uid)
            cmd = open_envelope(d.get("command")).payload  # the page's envelope: the seat key stays out
            if seat is not None:
                key = (json.dumps(list(_command_key(cmd))) if isinstance(cmd, str)
                       else json.dumps(cmd, sort_keys=True))
                if _take(cmd_pool, (seat, key)):
                    continue
            who = g.display(seat) if seat else f"user {uid}"
            text = "/" + cmd if isinstance(cmd, str) else json.dumps(cmd, sort_keys=True)
            out.append(Entry("command", ln, seat=seat, who=who, text=clip(text), source="log",
                             to=None if r.get("receiver_id") is None else str(r.get("receiver_id"))))
        elif ev == "image_message":
            seat = seat_of(uid)
            out.append(Entry("chat", ln, seat=seat, who=g.display(seat) if seat else f"user {uid}",
                             text=f"[image] {d.get('url', '')}", source="log"))
    g.final_views = dict(last_view)
    return out


def timeline_for(entries: list[Entry], seat: str) -> list[Entry]:
    """What one seat saw: lines addressed to other seats are left out, and boards show only this seat's view."""
    out = []
    for e in entries:
        if not e.seen_by_seat(seat):
            continue
        if e.kind == "board":
            views = [v for v in e.views if v[0] == seat]
            if not views:
                continue
            e = dataclasses.replace(e, views=views)
        out.append(e)
    return out


def describe_input(g: GameReplay, inp) -> str:
    return input_entry(g, inp, None, None).text


def input_entry(g: GameReplay, inp, line, seq, shown: Optional[ChatShown] = None) -> Entry:
    """The transcript line of one input. `shown`: how the match showed a chat line (None: it was refused)."""
    seat = getattr(inp, "seat", None)
    who = g.display(seat) if seat else ""
    if isinstance(inp, Chat):
        entry = Entry("chat", line, seq, seat, who, inp.text)
        if shown is not None and shown.to is not None:  # an addressed line: its speaker and addressees saw it
            entry.to = ", ".join(g.display(s) for s in shown.to)
            entry.seen_by = (seat, *shown.to)
        elif shown is None and _relayed(g):  # a refused line in a relayed room reached nobody
            entry.seen_by = (seat,)
        return entry
    if isinstance(inp, Command):
        return Entry("command", line, seq, seat, who, ("/" + " ".join((inp.name, *inp.args))).rstrip())
    if isinstance(inp, Action):
        return Entry("action", line, seq, seat, who, json.dumps(inp.payload, sort_keys=True))
    if isinstance(inp, Join):
        return Entry("join", line, seq, seat, who, f"{who} joined the game")
    if isinstance(inp, Leave):
        return Entry("leave", line, seq, seat, who, f"{who} left the game")
    if isinstance(inp, TimerFired):
        return Entry("timer", line, seq, text=f"timer {inp.name} fired")
    if isinstance(inp, Abort):
        return Entry("abort", line, seq, text=f"game aborted ({inp.status})" + (f": {inp.reason}" if inp.reason else ""))
    return Entry("info", line, seq, text=repr(inp))


# ----------------------------------------------------------------------------------------------------------------
# Slurk rows that repeat what the replay shows


def _text_message_entry(g: GameReplay, ln: int, r: dict, seat_of: SeatOf, chat_pool: dict, gm_pool: dict):
    """A Slurk chat row as a transcript line, or None when it repeats a game input or a game-master message."""
    d = row_data(r)
    uid = r.get("user_id")
    seat = seat_of(uid)
    text = d.get("message", "")
    text = text if isinstance(text, str) else json.dumps(text)
    receiver = seat_of(r.get("receiver_id"))
    to = None if r.get("receiver_id") is None else (g.display(receiver) if receiver else f"user {r.get('receiver_id')}")
    if seat is not None and _take(chat_pool, (seat, text)):
        return None
    shown = html.unescape(text) if d.get("html") else text  # the bot escapes the plain lines it marks html
    if seat is None and (_take(gm_pool, (receiver, plain_text(text))) or _take_relayed(g, chat_pool, shown)):
        return None
    # A room member who holds no seat and posts is a bot (the task bot, or one that shares the room).
    who = g.display(seat) if seat else (f"bot (user {uid})" if uid is not None else "server")
    seen_by = None if to is None else tuple(s for s in (seat, receiver) if s is not None)
    return Entry("chat" if seat else "gm", ln, seat=seat, who=who, text=clip(text), to=to, seen_by=seen_by,
                 html=bool(d.get("html")) and seat is None, source="log")


def _chat_shown(inp: Chat, batch) -> Optional[ChatShown]:
    return next((e for e in batch or () if isinstance(e, ChatShown) and e.seat == inp.seat), None)


def _relayed(g: GameReplay) -> bool:
    mode = getattr(g.spec, "chat_mode", None)
    try:
        return (mode(g.options) if mode else getattr(g.spec, "chat", "open")) == "relay"
    except ValueError:
        return False


def _repeated_rows(g: GameReplay, batches: dict, by_seq: dict, shown: dict) -> tuple[dict, dict, dict]:
    """How often Slurk rows may repeat each chat line, command and game-master message: (chat, command, gm) pools."""
    chat_pool: dict[tuple, int] = {}
    cmd_pool: dict[tuple, int] = {}
    gm_pool: dict[tuple, int] = {}
    for seq, (_, inp, _) in by_seq.items():
        if isinstance(inp, Chat):
            _bump(chat_pool, (inp.seat, inp.text), _slurk_copies(g, inp, shown.get(seq)))
            if _relayed(g):  # a person's line reaches the bot as a page command
                page = {"chat": inp.text, **({} if inp.to is None else {"to": list(inp.to)})}
                _bump(cmd_pool, (inp.seat, json.dumps(page, sort_keys=True)))
        elif isinstance(inp, Command):
            _bump(cmd_pool, (inp.seat, json.dumps([inp.name, list(inp.args)])))
        elif isinstance(inp, Action):
            _bump(cmd_pool, (inp.seat, json.dumps(inp.payload, sort_keys=True)))
    for batch in batches.values():
        for e in batch:
            if isinstance(e, Message):
                _bump(gm_pool, (e.to, plain_text(e.text)))
    return chat_pool, cmd_pool, gm_pool


def _slurk_copies(g: GameReplay, inp: Chat, shown: Optional[ChatShown]) -> int:
    """How many Slurk rows show a chat line: one for the room, or for an addressed line one per person who saw it
    (the bot shows it to each of them privately)."""
    if shown is None or (shown.to is None and not _relayed(g)):
        return 1
    if shown.to is None:  # a relayed room shows a line to everyone as one private row per person
        return sum(1 for s in g.seats if g.is_person(s))
    seats = ([inp.seat] if g.is_person(inp.seat) else []) + list(shown.to)
    return sum(1 for s in seats if g.is_person(s))


def _command_key(text: str) -> tuple:
    name, args = parse_command_text(text)
    return name, list(args)


def _bump(pool: dict, key, n: int = 1) -> None:
    pool[key] = pool.get(key, 0) + n


def _take(pool: dict, key) -> bool:
    if pool.get(key, 0) > 0:
        pool[key] -= 1
        return True
    return False


def _take_relayed(g: GameReplay, pool: dict, text: str) -> bool:
    """A chat line the bot posted for a seat: an agent's line shown as "Name: text", or an impersonated message
    (Slurk logs the real sender, the bot)."""
    for (seat, said), n in pool.items():
        if n <= 0:
            continue
        name = (g.seats.get(seat) or {}).get("name") or seat
        if text in (said, f"{name}: {said}", f"{seat}: {said}"):
            pool[(seat, said)] -= 1
            return True
    return False


def plain_text(text) -> str:
    """Message text without tags and entities, whitespace collapsed (to match a logged row with a replayed one)."""
    return " ".join(html.unescape(_TAG.sub(" ", str(text))).split())
