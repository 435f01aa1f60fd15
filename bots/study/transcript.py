"""Self-contained HTML transcripts of replayed games.

Everything people typed is escaped. Game-master HTML (html=True messages written by the task) passes through a small
allow-list sanitiser, so a tampered log cannot put scripts into a researcher's browser. Boards are drawn by
`tasks.<task>.render.render_view(view) -> str` when the task has one, else shown as JSON.
"""
from __future__ import annotations

import html
import json
from html.parser import HTMLParser
from typing import Callable, Optional

from tasks import get_task

from .provision import write_private
from .replay_model import Entry, GameReplay
from .replay_timeline import timeline_for

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#222}
h1{font-size:20px;margin:0 0 8px} h2{font-size:16px;margin:20px 0 6px}
table.meta{border-collapse:collapse;margin:8px 0} table.meta td,table.meta th{border:1px solid #ddd;padding:3px 8px;
text-align:left;vertical-align:top} table.meta th{background:#f5f5f5;font-weight:600}
.check{padding:8px 12px;border-radius:6px;margin:8px 0} .check.ok{background:#e8f6ea;border:1px solid #9bd3a3}
.check.bad{background:#fdecea;border:1px solid #f1a9a0} .check.warn{background:#fff7e0;border:1px solid #f0d48a}
ol.log{list-style:none;padding:0;margin:0} ol.log>li{display:flex;gap:8px;padding:3px 6px;border-bottom:1px solid #f0f0f0}
.step{color:#999;font:11px monospace;min-width:70px;flex:none;padding-top:2px}
.body{flex:1;white-space:pre-wrap;word-break:break-word} .who{font-weight:600}
li.gm .body{color:#234} li.gm .who{color:#2a5db0}
li.rejection .body{color:#a31515} li.error .body{color:#a31515;font-weight:600}
li.event .body,li.note .body{color:#555} li.join .body,li.leave .body,li.timer .body,li.info .body{color:#888;font-style:italic}
li.abort .body,li.end .body{font-weight:600} li.input_lost .body{color:#999;text-decoration:line-through}
li.code .body{color:#0b6b2e}
.private{display:inline-block;margin-left:6px;padding:0 6px;border-radius:8px;background:#fff0c2;color:#7a5b00;
font-size:11px;white-space:nowrap}
.src{display:inline-block;margin-left:6px;padding:0 5px;border-radius:8px;background:#eef;color:#446;font-size:11px}
code{background:#f4f4f4;padding:0 3px;border-radius:3px}
details.boards{margin:2px 0} details.boards>summary{cursor:pointer;color:#2a5db0}
.boardrow{display:flex;flex-wrap:wrap;gap:12px;margin:6px 0}
figure{margin:0;border:1px solid #e3e3e3;border-radius:6px;padding:6px;background:#fcfcfc}
figcaption{font-size:12px;color:#666;margin-bottom:4px}
pre.view{font-size:11px;max-height:320px;overflow:auto;margin:0;white-space:pre}
"""

_ALLOWED_TAGS = {"b", "i", "em", "strong", "u", "br", "p", "ul", "ol", "li", "code", "pre", "span", "div", "small",
                 "table", "thead", "tbody", "tr", "td", "th", "h3", "h4", "hr", "sup", "sub", "a"}
_VOID = {"br", "hr"}


class _Sanitiser(HTMLParser):
    """Keeps allow-listed tags without attributes (links keep an http(s) href); escapes everything else."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in _ALLOWED_TAGS:
            return
        if tag == "a":
            href = dict(attrs).get("href") or ""
            if href.startswith(("http://", "https://")):
                self.out.append(f'<a href="{html.escape(href, quote=True)}" rel="noopener noreferrer" target="_blank">')
            else:
                self.out.append("<a>")
        else:
            self.out.append(f"<{tag}>")
        if tag not in _VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag in _VOID:
            self.out.append(f"<{tag}>")

    def handle_endtag(self, tag):
        if tag in self.open:
            while self.open:
                t = self.open.pop()
                self.out.append(f"</{t}>")
                if t == tag:
                    break

    def handle_data(self, data):
        self.out.append(html.escape(data))  # text of dropped tags (script, style, img...) shows as inert text

    def result(self) -> str:
        return "".join(self.out) + "".join(f"</{t}>" for t in reversed(self.open))


def sanitise(markup: str) -> str:
    p = _Sanitiser()
    p.feed(str(markup))
    p.close()
    return p.result()


# ----------------------------------------------------------------------------------------------------------------
# Boards


def load_renderer(task: str) -> Optional[Callable[[dict], str]]:
    """The renderer the task declares (`TaskSpec.renderer`), or None when it has none or it cannot be loaded."""
    try:
        fn = get_task(task).load_renderer()
    except Exception:
        return None
    return fn if callable(fn) else None


def view_json(view: dict) -> str:
    return f'<pre class="view">{html.escape(json.dumps(view, indent=2, sort_keys=True, default=str))}</pre>'


def render_board(renderer, view: dict) -> str:
    if renderer is None:
        return view_json(view)
    try:
        return renderer(view)
    except Exception as exc:
        return (f'<div class="private">renderer failed: {html.escape(type(exc).__name__)}: {html.escape(str(exc))}</div>'
                + view_json(view))


def _boards(renderer, views, open_: bool = False, summary: str = "") -> str:
    figs = "".join(
        f"<figure><figcaption>{html.escape(name)}'s view</figcaption>{render_board(renderer, v)}</figure>"
        for _, name, v in views)
    return (f'<details class="boards"{" open" if open_ else ""}><summary>{html.escape(summary)}</summary>'
            f'<div class="boardrow">{figs}</div></details>')


# ----------------------------------------------------------------------------------------------------------------
# Entries


def _private(to: Optional[str]) -> str:
    if to is None:
        return ""
    return f'<span class="private" title="private message">private: only {html.escape(to)} saw this</span>'


def _src(e: Entry) -> str:
    return '<span class="src" title="only in the log, not recomputed">log</span>' if e.source == "log" else ""


def _json_inline(data) -> str:
    return f"<code>{html.escape(json.dumps(data, sort_keys=True, default=str))}</code>"


def entry_html(e: Entry, renderer) -> str:
    esc = html.escape
    step = f"#{e.step}" if e.step else ""
    where = f"l.{e.line}" if e.line else ""
    k = e.kind
    if k == "chat":  # a line to some seats only names them: "Alice → Assistant"
        to = "" if e.to is None else f" \u2192 {esc(e.to)}"
        body = f'<span class="who">{esc(e.who)}{to}</span>: {esc(e.text)}{_private(e.to)}{_src(e)}'
    elif k == "command":
        body = f'<span class="who">{esc(e.who)}</span> <code>{esc(e.text)}</code>{_private(e.to)}{_src(e)}'
    elif k == "action":
        body = f'<span class="who">{esc(e.who)}</span> page action <code>{esc(e.text)}</code>'
    elif k in ("gm", "rejection"):
        text = sanitise(e.text) if e.html else esc(e.text)
        label = "rejected" if k == "rejection" else esc(e.who or "game master")
        body = f'<span class="who">{label}</span>{_private(e.to)}{_src(e)}: {text}'
    elif k == "event":
        body = f'event <b>{esc(e.text)}</b> {_json_inline(e.data)}{_private(e.to)}'
    elif k == "board":
        names = ", ".join(name for _, name, _ in e.views)
        body = _boards(renderer, e.views, summary=f"board after step {e.step or 0}: {names}")
    elif k == "error":
        trace = f"<details><summary>trace</summary><pre>{esc(str(e.data or ''))}</pre></details>" if e.data else ""
        body = f"error in the rules (rolled back): {esc(e.text)}{trace}"
    elif k == "note":
        body = (f'agent note ({esc(e.who)}): {esc(e.text)} '
                f"<details><summary>details</summary>{_json_inline(e.data)}</details>")
    elif k == "code":
        body = f'<span class="who">{esc(e.who)}</span>: {esc(e.text)}{_private(e.to)}'
    elif k == "end":
        label = "game over (recomputed; not in the log)" if e.source == "replay" else "game over"
        pretty = esc(json.dumps(e.data, indent=2, sort_keys=True, default=str))
        body = f"{label}: {esc(e.text)}<details><summary>results</summary><pre>{pretty}</pre></details>"
    elif k == "input_lost":
        body = f"not replayed (inputs before it are missing): {esc(e.text)}"
    else:  # join, leave, timer, abort, info
        body = esc(e.text) + _src(e)
    return f'<li class="{esc(k)}"><span class="step">{esc(step)} {esc(where)}</span><div class="body">{body}</div></li>'


# ----------------------------------------------------------------------------------------------------------------
# Page


def _row(k: str, v: str) -> str:
    return f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>"


def transcript_html(g: GameReplay, seat: Optional[str] = None) -> str:
    """The transcript page of a game; with `seat`, only what that seat saw (its lines, boards and final view)."""
    esc = html.escape
    renderer = load_renderer(g.task)
    seats = "<br>".join(
        f"{esc(g.display(s))}: {esc(str((g.seats.get(s) or {}).get('kind', '?')))}"
        + (f", agent {esc(str(g.agents.get(s)))}" if g.agents.get(s) not in (None, "person", "agent", "?") else "")
        + (f", Slurk user {esc(str(g.seat_map[s]))}" if s in g.seat_map else "")
        for s in g.seat_order)
    meta = [
        _row("log", f"{esc(g.file)} (game {g.index}, line {g.line})"),
        _row("room", esc(str(g.room))),
        _row("task", f"{esc(g.task)}, seed {esc(str(g.seed))}"),
        _row("options", _json_inline(g.options)),
        _row("seats", seats),
        _row("status", esc(g.status)),
        _row("turns / inputs", f"{g.turns} / {g.inputs}"),
        _row("duration", esc("" if g.duration is None else f"{g.duration} s")),
        _row("completion codes", esc(", ".join(f"{g.display(s)}: {c}" for s, c in g.codes.items()) or "none")),
        _row("bonus", esc(", ".join(f"{g.display(s)}: {v}" for s, v in g.bonus.items()) or "none")),
    ]
    if g.results:
        meta.append(_row("results", "<br>".join(f"{esc(str(k))}: {esc(json.dumps(v, sort_keys=True, default=str))}"
                                                for k, v in g.results.items())))
    check = g.check
    cls = "ok" if check == "ok" else ("warn" if check.startswith("incomplete") else "bad")
    items = [esc(m) for m in g.mismatches] + [esc(n) for n in g.notes]
    if g.replay_error:
        items.insert(0, f"the replay failed: {esc(g.replay_error)}")
    if g.missing_seqs:
        items.insert(0, "missing game_input seq " + esc(", ".join(map(str, g.missing_seqs[:20]))))
    check_html = (f'<div class="check {cls}"><b>Replay check: {esc(check)}</b>'
                  + ("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else
                     " (no game_end in the log: nothing to compare; results below are recomputed so far)"
                     if g.incomplete else " (the recomputed results match the log)")
                  + "</div>")
    timeline = g.timeline if seat is None else timeline_for(g.timeline, seat)
    log = "".join(entry_html(e, renderer) for e in timeline)
    finals = ""
    final_views = {s: v for s, v in g.final_views.items() if seat in (None, s)}
    if final_views:
        views = [(s, g.display(s), v) for s, v in final_views.items()]
        finals = "<h2>Final boards</h2>" + _boards(renderer, views, open_=True,
                                                   summary="final view of " + ("every seat" if seat is None else
                                                                               g.display(seat)))
    title = f"{g.task} game {g.index}: {g.file}" + ("" if seat is None else f", as {g.display(seat)} saw it")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{esc(title)}</h1>"
            f'<table class="meta">{"".join(meta)}</table>{check_html}'
            "<h2>Transcript</h2><p style=\"color:#777;font-size:12px\">Left: input step (#seq) and log line. "
            "Game-master messages, rejections and boards are recomputed by the replay; rows marked "
            '<span class="src">log</span> come only from the log (Slurk rows, codes). '
            '<span class="private">private</span> marks what only some seats saw (a line to some seats names them: '
            '"Alice \u2192 Assistant").</p>'
            f'<ol class="log">{log}</ol>{finals}</body></html>')


def write_transcript(g: GameReplay, path: str, seat: Optional[str] = None) -> str:
    write_private(path, transcript_html(g, seat))  # completion codes and everything people wrote: mode 0600
    return path
