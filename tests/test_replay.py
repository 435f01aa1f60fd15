"""`replay`: rebuild logged games (local runs and Slurk downloads), check results, write transcripts, a table, plots."""
import csv
import dataclasses
import importlib.util
import json
from pathlib import Path

import pytest

from bots import local
from tasks.core import evaluation
from tasks.core.evaluation import read_rows
from bots.study import replay as rp
from bots.study.replay import compare, replay_paths
from tests.threeseat import SPEC as MEETING_SPEC
from tests.toygame import SPEC, PickNumber, ToyBrain

FIXTURES = Path(__file__).parent / "fixtures"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class BonusToy(PickNumber):
    """The toy game with a payment rule: a quarter for each person seat when the pair scores 17 or more."""

    def results(self):
        r = super().results()
        r["bonus"] = {s: 0.25 for s in self.seats} if (r["score"] or 0) >= 17 else {}
        return r


BONUS_SPEC = dataclasses.replace(SPEC, game_class=BonusToy)


class Stubborn(ToyBrain):
    """Another agent (for several agent pairs): only ever proposes its favourite and submits."""

    name = "stubborn"


SPECS = {"toy": SPEC}


def resolve(name):
    return SPECS[name] if name in SPECS else rp.get_task(name)


def bonus_resolve(name):
    return BONUS_SPEC if name == "toy" else resolve(name)


def run(paths, out, **kw):
    kw.setdefault("echo", None)
    kw.setdefault("resolve", resolve)
    return replay_paths([str(p) for p in paths], str(out), **kw)


def toy_logs(folder: Path, n=3, seed=0, agents=None) -> list[Path]:
    records = evaluation.play_many(SPEC, n, seed, agents or {"a": "toy", "b": "toy"}, {}, None, str(folder), progress=False)
    return [Path(r.log_path) for r in records]


def person_game(path: Path, lines=("hi <script>alert('x')</script>", "/nonsense", "/agree", "/submit"), seed=4,
                spec=BONUS_SPEC):
    """Seat a is a person typing `lines`; seat b the toy agent, which opens with /propose 5 (seed 4: a=4, b=5)."""
    it = iter(lines)

    def ask(prompt):
        try:
            return next(it)
        except StopIteration:
            raise EOFError

    return evaluation.play_game(spec, seed, {"a": "toy", "b": "toy"}, person_seats=("a",), ask=ask, log_path=str(path))


def rows_of(path: Path) -> list[dict]:
    return [r for _, r in read_rows(str(path))]


def write_rows(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    return path


def summary(out: Path) -> list[dict]:
    with open(out / "summary.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# ----------------------------------------------------------------------------------------------------------------
# Comparing


def test_compare_names_keys_and_tolerates_floats_and_volatile_keys():
    logged = {"score": 52, "ratio": 0.3333333, "tour": ["L", "K"], "duration": 3.2, "tokens": 90,
              "rounds": [{"turns": 4, "time": 1.5}], "extra": 1}
    recomputed = {"score": 51, "ratio": 1 / 3, "tour": ["L", "K"], "duration": 9.9, "tokens": 0,
                  "rounds": [{"turns": 5, "time": 7.0}], "new": True}
    diffs = compare(logged, recomputed)
    assert "score: logged 52, recomputed 51" in diffs
    assert "rounds[0].turns: logged 4, recomputed 5" in diffs
    assert "extra: logged 1, recomputed (missing)" in diffs
    assert "new: logged (missing), recomputed true" in diffs
    assert len(diffs) == 4  # ratio within tolerance; duration, tokens and time are volatile
    assert compare({"ok": True}, {"ok": 1}) == ["ok: logged true, recomputed 1"]
    assert compare({"n": 2}, {"n": 2.0}) == []


# ----------------------------------------------------------------------------------------------------------------
# Local logs


def test_replay_reproduces_local_games_and_writes_outputs(tmp_path, capsys):
    logs = toy_logs(tmp_path / "run" / "logs", n=4, seed=0)  # seed 3 ends in a timeout
    out = tmp_path / "out"
    report = replay_paths([str(tmp_path / "run")], str(out), resolve=resolve)
    assert report.ok and len(report.games) == 4 and not report.problems
    for g, path in zip(report.games, logs):
        assert g.check == "ok" and not g.mismatches
        logged = rows_of(path)[-1]["data"]
        assert g.status == logged["status"] == g.recomputed_status
        assert g.recomputed_results["score"] == logged["results"]["score"]
        assert Path(g.transcript).name == f"{path.stem}-1.html" and Path(g.transcript).exists()
    assert [g.status for g in report.games] == ["completed", "completed", "completed", "timeout"]
    # The printed table and summary line.
    printed = capsys.readouterr().out
    assert "game-0000.jsonl#1" in printed and "4 game(s): 4 reproduced, 0 with differences" in printed
    # summary.csv: columns and values.
    rows = summary(out)
    assert list(rows[0])[:9] == ["file", "game", "room", "task", "seed", "seats", "agents", "status", "check"]
    assert {"agreed", "score", "turns", "inputs", "duration", "codes", "bonus", "bonus_total", "mismatches",
            "transcript"} <= set(rows[0])
    first = rows[0]
    assert first["task"] == "toy" and first["seed"] == "0" and first["status"] == "completed" and first["check"] == "ok"
    assert first["seats"] == "a=agent b=agent" and first["agents"] == "a=toy b=toy"
    assert first["score"] == str(report.games[0].results["score"]) and first["turns"] == "4"
    assert float(first["duration"]) >= 0 and first["codes"] == "" and first["bonus_total"] == "0"
    assert rows[3]["status"] == "timeout" and rows[3]["score"] == ""
    # Plots: valid PNGs.
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert pngs == ["metrics.png", "status.png"]
    import matplotlib.image

    for p in (out / "plots").glob("*.png"):
        assert p.read_bytes()[:8] == PNG_MAGIC
        assert matplotlib.image.imread(str(p)).shape[0] > 100
    assert (out / "problems.csv").read_text().splitlines() == ["file,line,skipped,problem"]


def test_tampered_score_is_reported_by_key(tmp_path):
    [path] = toy_logs(tmp_path / "logs", n=1, seed=4)
    rows = rows_of(path)
    true_score = rows[-1]["data"]["results"]["score"]
    rows[-1]["data"]["results"]["score"] = true_score + 35
    write_rows(path, rows)
    report = run([tmp_path / "logs"], tmp_path / "out")
    [g] = report.games
    assert g.mismatches == [f"score: logged {true_score + 35}, recomputed {true_score}"]
    assert g.check == "mismatch (1)" and not report.ok
    assert summary(tmp_path / "out")[0]["mismatches"] == f"score: logged {true_score + 35}, recomputed {true_score}"
    html = Path(g.transcript).read_text()
    assert "Replay check: mismatch (1)" in html and f"score: logged {true_score + 35}" in html


def test_tampered_status_and_task_event_are_reported(tmp_path):
    [path] = toy_logs(tmp_path / "logs", n=1, seed=4)
    rows = rows_of(path)
    rows[-1]["data"]["status"] = "timeout"
    prop = next(r for r in rows if r["event"] == "proposal")
    prop["data"]["value"] = 9
    write_rows(path, rows)
    [g] = run([path], tmp_path / "out").games
    assert "status: logged timeout, recomputed completed" in g.mismatches
    assert "proposal #1.value: logged 9, recomputed 4" in g.mismatches


def test_broken_logs_are_reported_with_file_and_line_and_the_rest_is_processed(tmp_path):
    folder = tmp_path / "logs"
    good, truncated, notjson, other, badinput, badevent, gap, cut = toy_logs(folder, n=8, seed=0)
    rows = rows_of(truncated)
    write_rows(truncated, [r for r in rows if r["event"] != "game_end"][:4])
    lines = notjson.read_text().splitlines()
    lines.insert(2, "{this is not json")
    notjson.write_text("\n".join(lines) + "\n")
    rows = rows_of(other)
    rows[0]["data"]["task"] = "chess"
    write_rows(other, rows)
    rows = rows_of(badinput)
    bad_at = next(i for i, r in enumerate(rows) if r["event"] == "game_input" and r["data"]["seq"] == 2)
    rows[bad_at]["data"]["input"]["type"] = "Teleport"
    write_rows(badinput, rows)
    rows = rows_of(badevent)
    rows.insert(3, {"id": 99, "event": "fireworks", "room_id": "x", "user_id": None, "receiver_id": None,
                    "data": {"boom": 1}, "date_created": "2026-11-22T03:25:24"})
    write_rows(badevent, rows)
    rows = rows_of(gap)
    gap_at = next(i for i, r in enumerate(rows) if r["event"] == "game_input" and r["data"]["seq"] == 2)
    del rows[gap_at]
    write_rows(gap, rows)
    text = cut.read_text()
    cut.write_text(text[: text.rindex('"event": "game_end"') + 5])  # a write cut short in the last line
    (folder / "notes.txt").write_text("not a log")

    out = tmp_path / "out"
    report = run([folder], out)
    probs = {(Path(p.file).name, p.line): p for p in report.problems}

    assert (notjson.name, 3) in probs and "not valid JSON" in probs[(notjson.name, 3)].message
    assert probs[(notjson.name, 3)].skipped
    assert (other.name, 1) in probs and "unknown task 'chess'" in probs[(other.name, 1)].message
    assert (badinput.name, bad_at + 1) in probs and "Teleport" in probs[(badinput.name, bad_at + 1)].message
    assert (badevent.name, 4) in probs and "fireworks" in probs[(badevent.name, 4)].message
    assert all(probs[k].skipped for k in [(other.name, 1), (badinput.name, bad_at + 1), (badevent.name, 4)])
    assert (truncated.name, 4) in probs and "no game_end" in probs[(truncated.name, 4)].message
    assert not probs[(truncated.name, 4)].skipped
    gap_problem = next(p for p in report.problems if Path(p.file) == gap)
    assert "missing game_input seq 2" in gap_problem.message and gap_problem.line == gap_at + 1
    cut_problem = next(p for p in report.problems if Path(p.file) == cut)
    assert cut_problem.line == len(cut.read_text().splitlines()) and not cut_problem.skipped
    assert all(str(p).startswith(p.file) for p in report.problems)

    by_file = {Path(g.file).name: g for g in report.games}
    assert set(by_file) == {good.name, truncated.name, gap.name, cut.name}
    assert by_file[good.name].check == "ok"
    assert by_file[truncated.name].status == "incomplete" and by_file[truncated.name].check == "incomplete"
    assert by_file[gap.name].check == "incomplete (missing inputs)"
    assert by_file[cut.name].status == "incomplete"
    assert by_file[cut.name].notes == [f"the replay ended the game ({by_file[cut.name].recomputed_status}) but the log "
                                       "has no game_end"]
    assert [r["file"] for r in summary(out)] == [str(good), str(truncated), str(gap), str(cut)]
    assert len((out / "problems.csv").read_text().splitlines()) == 1 + len(report.problems)
    assert not report.ok


def test_two_games_in_one_file_and_unique_names(tmp_path):
    a, b = toy_logs(tmp_path / "logs", n=2, seed=1)
    both = write_rows(tmp_path / "room" / "game-0000.jsonl", rows_of(a) + rows_of(b))
    report = run([tmp_path / "logs", both], tmp_path / "out")
    names = sorted(Path(g.transcript).name for g in report.games)
    assert len(names) == 4 and len(set(names)) == 4
    assert "room-game-0000-1.html" in names and "room-game-0000-2.html" in names
    assert [g.index for g in report.games if Path(g.file) == both] == [1, 2]
    assert all(g.check == "ok" for g in report.games)


# ----------------------------------------------------------------------------------------------------------------
# Transcripts, people, codes, bonus


def test_transcript_escapes_people_marks_private_and_counts_codes_and_bonus(tmp_path):
    rec = person_game(tmp_path / "run" / "game.jsonl")
    assert rec.results["status"] == "completed" and rec.results["bonus"] == {"a": 0.25, "b": 0.25}
    report = run([tmp_path / "run"], tmp_path / "out", resolve=bonus_resolve)
    [g] = report.games
    assert g.check == "ok", g.mismatches
    code = next(r["data"]["confirmation_token"] for r in rows_of(tmp_path / "run" / "game.jsonl")
                if r["event"] == "confirmation_log")
    assert g.codes == {"a": code} and g.bonus == {"a": 0.25} and g.bonus_total == 0.25  # agents are not paid
    html = Path(g.transcript).read_text()
    assert Path(g.transcript).name == "run-1.html"
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "<script" not in html
    assert "Unknown command /nonsense" in html and "private: only A saw this" in html
    assert code in html and "/propose 5" in html and "event <b>proposal</b>" in html
    assert "board after step" in html and "Final boards" in html and "&quot;favourite&quot;" in html
    row = summary(tmp_path / "out")[0]
    assert row["codes"] == f"a={code}" and row["bonus"] == '{"a": 0.25}' and row["bonus_total"] == "0.25"
    assert row["seats"] == "a=person b=agent" and row["agents"] == "a=person b=toy"


def test_tampered_reward_is_reported(tmp_path):
    person_game(tmp_path / "game.jsonl")
    rows = rows_of(tmp_path / "game.jsonl")
    next(r for r in rows if r["event"] == "confirmation_log")["data"]["reward"] = 5
    write_rows(tmp_path / "game.jsonl", rows)
    [g] = run([tmp_path / "game.jsonl"], tmp_path / "out", resolve=bonus_resolve).games
    assert g.mismatches == ["confirmation_log[a].reward: logged 5, recomputed 0.25"]
    assert g.bonus == {"a": 5}  # what was promised to the person is what is owed


def test_game_master_html_is_sanitised(tmp_path):
    from bots.study.transcript import sanitise

    assert sanitise('<b>Your code</b> <a href="https://x.org/?a=1&b=2">link</a>') == (
        '<b>Your code</b> <a href="https://x.org/?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">link</a>')
    s = sanitise('<img src=x onerror=alert(1)><script>alert(2)</script><a href="javascript:alert(3)">y</a><i>ok')
    assert "<img" not in s and "<script" not in s and "javascript" not in s and s.endswith("<i>ok</i>")


# ----------------------------------------------------------------------------------------------------------------
# Slurk-shaped logs


BOT, ALICE, AGENT_USER, ROOM = 1, 7, 8, 42


def slurkify(local_rows: list[dict], private_note="psst, go for 5") -> list[dict]:
    """A Slurk room download made from a local game's rows, following the shape of the reference sample
    (../shared/reference/samples/slurk-room-log.jsonl): ids with gaps, an integer room, user ids, receiver_id as user
    ids, Slurk's own rows interleaved, and a seat_map row from the bot."""
    users = {"a": ALICE, "b": AGENT_USER}
    out = []
    next_id = iter(range(100, 10_000, 3))
    date = "2026-11-22T03:25:{:02d}"

    def add(event, data, user_id=None, receiver_id=None):
        out.append({"data": data, "date_created": date.format(len(out) % 60), "date_modified": None, "event": event,
                    "id": next(next_id), "receiver_id": receiver_id, "room_id": ROOM, "user_id": user_id})

    add("join", {}, BOT)
    add("join", {}, ALICE)
    add("join", {}, AGENT_USER)
    add("set_attribute", {"attribute": "readonly", "id": "text", "value": "False"})
    for r in local_rows:
        d = r["data"]
        if r["event"] == "game_start":
            add("game_start", d)
            add("seat_map", dict(users))
            add("text_message", {"broadcast": False, "html": True, "message": "<b>Welcome</b> to the room!"}, BOT)
            continue
        if r["event"] == "game_input":
            inp = d["input"]
            seat = inp.get("seat")
            if inp["type"] == "Chat":
                add("text_message", {"broadcast": False, "html": False, "message": inp["text"]}, users[seat])
                if seat == "a" and private_note:
                    add("text_message", {"broadcast": False, "html": False, "message": private_note}, ALICE, AGENT_USER)
                    private_note = None
            elif inp["type"] == "Command":
                add("command", {"broadcast": False, "command": " ".join([inp["name"], *inp["args"]])}, users[seat])
        receiver = users.get(r["receiver_id"]) if r["receiver_id"] is not None else None
        data = dict(d, receiver_seat=r["receiver_id"]) if receiver is not None else d
        add(r["event"], data, None, receiver)
        if r["event"] == "game_input":
            add("set_text", {"id": "toy-state", "text": "{}"}, None, ALICE)
    add("class_add", {"class": "done", "id": "board"})
    add("leave", {}, ALICE)
    add("leave", {}, BOT)
    return out


def test_slurk_shaped_log_replays(tmp_path):
    person_game(tmp_path / "local.jsonl")
    path = write_rows(tmp_path / "slurk" / f"{ROOM}.jsonl", slurkify(rows_of(tmp_path / "local.jsonl")))
    report = run([tmp_path / "slurk"], tmp_path / "out", resolve=bonus_resolve)
    assert not [p for p in report.problems if p.skipped]
    [g] = report.games
    assert g.check == "ok", g.mismatches
    assert g.room == ROOM and g.seat_map == {"a": ALICE, "b": AGENT_USER}
    assert list(g.codes) == ["a"] and g.bonus == {"a": 0.25} and g.status == "completed"
    html = Path(g.transcript).read_text()
    assert Path(g.transcript).name == f"{ROOM}-1.html"
    # Chat and commands appear once (Slurk's own rows are matched to the game inputs), private chat is marked.
    assert html.count("&lt;script&gt;alert") == 1 and html.count("/propose 5") == 1
    assert "psst, go for 5" in html and "private: only B saw this" in html
    assert "<b>Welcome</b> to the room!" in html  # a bot message only in the log, sanitised HTML
    assert "A joined the room" in html and "A left the room" in html and "user 1 left the room" in html
    assert "seats: A = user 7, B = user 8" in html
    assert "set_attribute" not in html and "class_add" not in html


# The project's shared reference folder sits beside the checkout (as it does in CI).
REFERENCE_SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "samples" / "slurk-room-log.jsonl"


@pytest.mark.skipif(not REFERENCE_SAMPLE.exists(), reason="the shared reference sample is not beside this checkout")
def test_slurk_fixture_and_reference_sample(tmp_path):
    """The committed fixture (a Slurk room log of the toy game) replays; Slurk's reference sample has no game."""
    report = run([FIXTURES / "slurk-toy-room.jsonl", str(REFERENCE_SAMPLE)], tmp_path / "out", resolve=bonus_resolve)
    [g] = report.games
    assert g.check == "ok" and g.status == "completed" and g.codes == {"a": "K7QWM2PX"}
    sample = [p for p in report.problems if p.file.endswith("slurk-room-log.jsonl")]
    assert len(sample) == 1 and "game_end" in sample[0].message and sample[0].line == 11


# ----------------------------------------------------------------------------------------------------------------
# Addressed chat (three seats, relayed)


def meeting_resolve(name):
    return MEETING_SPEC if name == "meeting" else resolve(name)


def meeting_game(path: Path, seed=1):
    """The three-seat relayed game: user1 is a person who tells the assistant its slots and accepts the proposal;
    user2 and the assistant are agents. Users' lines reach the assistant alone; the assistant writes to each user."""
    free = MEETING_SPEC.generate(seed, {})["free"]["user1"]
    lines = iter([f"I am free in slots {', '.join(map(str, free))}.", "/accept"])
    return evaluation.play_game(MEETING_SPEC, seed, {"user1": "user", "user2": "user", "assistant": "assistant"},
                           person_seats=("user1",), ask=lambda prompt: next(lines), log_path=str(path))


def test_addressed_chat_names_who_saw_it_and_a_seat_sees_only_its_lines(tmp_path):
    from bots.study.transcript import transcript_html

    assert meeting_game(tmp_path / "run" / "game.jsonl").results["status"] == "completed"
    [g] = run([tmp_path / "run"], tmp_path / "out", resolve=meeting_resolve).games
    assert g.check == "ok", g.mismatches
    chat = {(e.seat, e.text): e for e in g.timeline if e.kind == "chat"}
    told = chat[("user1", "I am free in slots 1, 2, 3, 5.")]
    assert told.to == "Assistant" and told.seen_by == ("user1", "assistant")
    asked = chat[("assistant", "user2, when are you free?")]
    assert asked.to == "User2" and asked.seen_by == ("assistant", "user2")
    html = Path(g.transcript).read_text(encoding="utf-8")
    assert "User1 \u2192 Assistant</span>: I am free in slots 1, 2, 3, 5." in html
    assert "Assistant \u2192 User2</span>: user2, when are you free?" in html
    assert "private: only Assistant saw this" in html and "private: only User2 saw this" in html

    seen = {seat: [e.text for e in rp.timeline_for(g.timeline, seat) if e.kind == "chat"] for seat in g.seat_order}
    assert seen["user1"] == ["user1, when are you free?", "I am free in slots 1, 2, 3, 5."]
    assert seen["user2"] == ["I am free in slots 3, 4, 8, 9.", "user2, when are you free?"]
    assert seen["assistant"] == [e.text for e in g.timeline if e.kind == "chat"] and len(seen["assistant"]) == 4
    as_user2 = transcript_html(g, "user2")
    assert "as User2 saw it" in as_user2
    lines = as_user2.split("<h2>Transcript</h2>")[1]
    assert "user2, when are you free?" in lines and "I am free in slots 3, 4, 8, 9." in lines
    assert "user1, when are you free?" not in lines and "1, 2, 3, 5" not in lines
    assert g.codes["user1"] not in lines and g.codes["user1"] in transcript_html(g, "user1").split("<h2>Transcript")[1]


def test_relayed_chat_in_a_slurk_log_is_shown_once(tmp_path):
    """On Slurk a relayed line arrives as a page command and the bot shows it privately to each person who may see
    it: the transcript shows each line once, from the replay."""
    meeting_game(tmp_path / "local.jsonl")
    rows = []

    def add(event, data, user_id=None, receiver_id=None):
        rows.append({"id": 100 + len(rows), "event": event, "data": data, "room_id": ROOM, "user_id": user_id,
                     "receiver_id": receiver_id, "date_created": "2026-11-25T01:45:03"})

    add("join", {}, ALICE)
    for r in rows_of(tmp_path / "local.jsonl"):
        inp = r["data"].get("input", {}) if r["event"] == "game_input" else {}
        if inp.get("seat") == "user1" and inp["type"] == "Chat":
            add("command", {"command": {"chat": inp["text"]}, "broadcast": False}, ALICE, BOT)
        elif inp.get("seat") == "user1" and inp["type"] == "Command":
            add("command", {"command": inp["name"], "broadcast": False}, ALICE, BOT)
        add(r["event"], r["data"], None, ALICE if r["receiver_id"] == "user1" else BOT)
        if r["event"] == "game_start":
            add("seat_map", {"user1": ALICE})
        elif inp.get("seat") == "user1" and inp["type"] == "Chat":  # shown to its speaker, as the speaker
            add("text_message", {"message": inp["text"], "html": False}, BOT, ALICE)
        elif inp.get("seat") == "assistant" and "user1" in inp.get("to", ()):  # an agent's line, named
            add("text_message", {"message": f"Assistant: {inp['text']}", "html": False}, BOT, ALICE)
    path = write_rows(tmp_path / "slurk" / f"{ROOM}.jsonl", rows)
    [g] = run([path], tmp_path / "out", resolve=meeting_resolve).games
    assert g.check == "ok", g.mismatches
    html = Path(g.transcript).read_text(encoding="utf-8")
    assert html.count("I am free in slots 1, 2, 3, 5.") == 1 and html.count("user1, when are you free?") == 1
    assert "bot (user 1)" not in html and html.count("<code>/accept</code>") == 2


# ----------------------------------------------------------------------------------------------------------------
# Several agent pairs, CLI


def test_several_agent_pairs_are_plotted_side_by_side(tmp_path):
    spec = dataclasses.replace(SPEC, brains={**SPEC.brains, "stubborn": Stubborn})
    evaluation.play_many(spec, 3, 0, {"a": "toy", "b": "toy"}, {}, None, str(tmp_path / "r1"), progress=False)
    evaluation.play_many(spec, 3, 10, {"a": "stubborn", "b": "toy"}, {}, None, str(tmp_path / "r2"), progress=False)
    report = run([tmp_path / "r1", tmp_path / "r2"], tmp_path / "out")
    assert {g.agent_label for g in report.games} == {"toy/toy", "stubborn/toy"}
    pngs = sorted(p.name for p in (tmp_path / "out" / "plots").glob("*.png"))
    assert pngs == ["by_agents.png", "metrics.png", "status.png", "status_by_agents.png"]
    assert all(p.read_bytes()[:8] == PNG_MAGIC for p in (tmp_path / "out" / "plots").glob("*.png"))
    with open(tmp_path / "out" / "by_agents.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["agents"], r["games"]) for r in rows] == [("toy/toy", "3"), ("stubborn/toy", "3")]


def test_agent_names_from_options_win(tmp_path):
    [path] = toy_logs(tmp_path / "logs", n=1)
    rows = rows_of(path)
    rows[0]["data"]["options"]["agents"] = {"a": "gpt-x", "b": "solver"}
    write_rows(path, rows)
    [g] = run([path], tmp_path / "out").games
    assert g.agent_label == "gpt-x/solver"


def test_cli(tmp_path, monkeypatch, capsys):
    from bots.cli import main as cli_main

    toy_logs(tmp_path / "logs", n=2, seed=0)
    monkeypatch.setattr(rp, "get_task", resolve)
    assert cli_main(["replay", str(tmp_path / "logs"), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "2 game(s): 2 reproduced" in printed and (tmp_path / "out" / "summary.csv").exists()
    (tmp_path / "logs" / "logs" / "bad.jsonl").write_text("nope\n")
    assert cli_main(["replay", str(tmp_path / "logs"), "--out", str(tmp_path / "out2"), "--no-plots"]) == 1
    assert "bad.jsonl:1: skipped: not valid JSON" in capsys.readouterr().out
    assert not (tmp_path / "out2" / "plots").exists()
    assert cli_main(["replay", str(tmp_path / "nothing"), "--out", str(tmp_path / "out3")]) == 2
    assert "nothing: skipped: no such file or folder" in capsys.readouterr().out
    assert not (tmp_path / "out3").exists()


# ----------------------------------------------------------------------------------------------------------------
# Real tasks


def _has(module):
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.skipif(not _has("tasks.travel.spec"), reason="tasks/travel/spec.py (the travel TaskSpec) does not exist yet")
def test_travel_games_replay_with_boards(tmp_path):
    from tasks import get_task

    spec = get_task("travel")
    agents = dict(zip(spec.seats, spec.default_brains))
    evaluation.play_many(spec, 2, 0, agents, {}, None, str(tmp_path / "run"), progress=False)
    report = replay_paths([str(tmp_path / "run")], str(tmp_path / "out"), echo=None)
    assert len(report.games) == 2 and all(g.check == "ok" for g in report.games), [g.mismatches for g in report.games]
    html = Path(report.games[0].transcript).read_text()
    assert 'class="travel-board"' in html
    assert summary(tmp_path / "out")[0]["task"] == "travel"


@pytest.mark.skipif(not _has("tasks.gnomes.spec"), reason="tasks/gnomes/spec.py (the gnomes TaskSpec) does not exist yet")
def test_gnomes_games_replay_with_boards(tmp_path):
    from tasks import get_task

    spec = get_task("gnomes")
    agents = dict(zip(spec.seats, spec.default_brains))
    evaluation.play_many(spec, 1, 0, agents, {"rounds": 2}, None, str(tmp_path / "run"), progress=False)
    report = replay_paths([str(tmp_path / "run")], str(tmp_path / "out"), echo=None)
    [g] = report.games
    assert g.check in ("ok", "incomplete"), g.mismatches
    assert 'class="gnomes-board"' in Path(g.transcript).read_text()


def test_travel_renderer_is_defensive_and_escapes():
    from tasks.travel.render import render_view

    assert render_view({}).startswith("<svg")
    view = {"rooms": [{"id": "L", "name": "living <room>"}, {"id": "K", "name": "kitchen"}, {"id": "B", "name": "bath"}],
            "start": "L", "world": "light", "my_coins": {"K-L": 7, "B-L": 2, "B-K": 3}, "partner_coins": {"K-L": 4},
            "agreed": ["L", "K"], "pending": {"by": "ghost", "mine": False, "path": ["L", "K", "B"], "kind": "extend"},
            "submitted": {"me": None, "partner": False}, "turns_left": {"me": 3, "partner": 4}, "result": None}
    svg = render_view(view)
    assert "living &lt;room&gt;" in svg and "<room>" not in svg
    assert 'class="agreed"' in svg and 'class="pending"' in svg and "stroke-dasharray" in svg
    assert ">7<" in svg and ">/4<" in svg and "turns left: me 3, partner 4" in svg
    assert render_view({"rooms": "junk", "my_coins": {"bad": 1, "A-B": 2}, "agreed": 5, "pending": "x"}).startswith("<svg")


def test_gnomes_renderer_is_defensive():
    from tasks.gnomes.render import render_view

    assert render_view({}).startswith("<svg")
    svg = render_view({"size": 9, "walls": {"right": [[0, 0]], "below": [[1, 1], "junk"]}, "token": [2, 3],
                       "treasure": [4, 0], "round": 1, "rounds": 5, "seat": "h<", "turn": "h", "your_turn": True})
    assert svg.count('class="wall"') == 2 and 'class="token"' in svg and 'class="treasure"' in svg
    assert "h&lt;" in svg and "your turn" in svg
    assert 'class="treasure"' not in render_view({"token": [0, 0], "treasure": None})
