"""Task options belong to the study (issue 27 item 4): `setup TASK --option key=value` (repeatable) and a
`task_options` section write them into the study (study.json, bot.env), setup prints them back, a key or value the
task does not take is refused with a message that says what it takes (and nothing is created), matrix-games starts
from the paper's negotiation set-up, and every game's `game_start` log records the options the task bot was given
from the study's bot.env (Slurk double, ETags off and on, and a real Slurk).
"""
from __future__ import annotations

import json
import os

from bots.config import load_config
from bots.slurk.runtime import SlurkBot
from bots.study import setup as study_setup
from tasks import get_task
from tests.test_study_concierge import WAIT, Study, stop_later, wait_until  # noqa: F401 (fixture)


def _srv(slurk_double):
    from tests.conftest import SlurkServer

    return SlurkServer(slurk_double.url, slurk_double.admin_token, etag=False, is_real=False, double=slurk_double)


def test_options_are_written_into_the_study_and_printed(slurk_double, tmp_path):
    config = tmp_path / "study.yaml"
    config.write_text("task_options: {negotiation: 3, first: alice}\n")
    study = Study(_srv(slurk_double), tmp_path, participants=1, people_per_room=1, task="matrix-games",
                  config=str(config))
    # --config's section, the task's study defaults (the game) and nothing else
    want = {"negotiation": 3, "first": "alice", "game": "prisoners-dilemma"}
    assert study.manifest["task_options"] == want
    assert json.loads(study.env["TASK_OPTIONS"]) == want
    assert load_config(None, study.bot_env()).task_options == want
    assert any(line.startswith('Task options: first="alice", game="prisoners-dilemma", negotiation=3')
               for line in "\n".join(study.output).splitlines()), study.output
    # --option overrides the file, and a re-run records the change
    out: list[str] = []
    rc = study_setup.main(["matrix-games", "--participants", "1", "--people-per-room", "1", "--study", study.name,
                           "--out", study.out, "--config", str(config), "--option", "negotiation=0",
                           "--option", "game=stag-hunt"], env=study.admin_env(), echo=out.append)
    assert rc == 0, out
    manifest = json.loads((study.folder / "study.json").read_text())
    assert manifest["task_options"] == {"negotiation": 0, "first": "alice", "game": "stag-hunt"}


def test_matrix_games_defaults_to_the_papers_negotiation(slurk_double, tmp_path):
    study = Study(_srv(slurk_double), tmp_path, participants=1, people_per_room=1, task="matrix-games")
    assert study.manifest["task_options"] == {"negotiation": 4, "game": "prisoners-dilemma"}
    game = get_task("matrix-games").game_class(0, study.manifest["task_options"])
    assert game.k == 4


def test_a_quote_in_a_value_survives_bot_env(slurk_double, tmp_path):
    from bots.study.provision import read_env_file

    config = tmp_path / "study.yaml"
    config.write_text("task_options: {data: \"Jo's data.zip\"}\n")
    study = Study(_srv(slurk_double), tmp_path, participants=1, people_per_room=2, task="assignment",
                  config=str(config))
    env = read_env_file(str(study.folder / "bot.env"))
    assert load_config(None, env).task_options == {"data": "Jo's data.zip"}


def test_unknown_options_and_values_are_refused_before_anything_is_created(slurk_double, tmp_path):
    srv = _srv(slurk_double)
    env = {"SLURK_URL": srv.url, "SLURK_ADMIN_TOKEN": srv.admin_token}
    for argv, words in ((["--option", "negotiaton=4"], ["no task option 'negotiaton'", "did you mean 'negotiation'"]),
                        (["--option", "bad key=1"], ["no task option 'bad key'"]),
                        (["--option", "first=carol"], ["first", "alice, bob"]),
                        (["--option", "game=chess"], ["unknown game 'chess'"]),
                        (["--option", "negotiation"], ["KEY=VALUE"])):
        out: list[str] = []
        rc = study_setup.main(["matrix-games", "--participants", "1", "--study", "bad", "--out",
                               str(tmp_path / "studies")] + argv, env=env, echo=out.append)
        text = "\n".join(out)
        assert rc == 2 and all(w in text for w in words), (argv, text)
    assert not os.path.exists(tmp_path / "studies" / "bad")
    assert srv.api("GET", "tasks", params={"name": "bad"}).json() == []


def test_every_game_logs_the_studys_options(slurk_server, tmp_path, stop_later):
    study = Study(slurk_server, tmp_path, participants=1, people_per_room=1, task="matrix-games")
    cfg = load_config(None, study.bot_env(BOT_STATE_DB=str(tmp_path / "bot-state.sqlite3")))
    bot = SlurkBot(cfg, get_task("matrix-games")).start()
    stop_later(bot)
    concierge = study.concierge()
    stop_later(concierge)
    person = study.person()
    stop_later(person.connect(study.waiting_room).rec)
    room = person.wait_moved(study.waiting_room)
    starts = wait_until(lambda: [x for x in slurk_server.logs(room) if x["event"] == "game_start"] or None,
                        timeout=WAIT, what="game_start")
    assert starts[-1]["data"]["options"] == {"negotiation": 4, "game": "prisoners-dilemma"}


def test_an_undeclared_option_the_game_reads_is_passed_on_and_named(slurk_double, tmp_path):
    study = Study(_srv(slurk_double), tmp_path, participants=1, people_per_room=2, task="assignment",
                  config=None)
    out: list[str] = []
    rc = study_setup.main(["assignment", "--participants", "1", "--people-per-room", "2", "--study", study.name,
                           "--out", study.out, "--option", "word_budget=300"], env=study.admin_env(), echo=out.append)
    assert rc == 0, out
    text = "\n".join(out)
    assert "word_budget=300" in text and "not declared by assignment (passed to the game as given): word_budget" in text
    assert json.loads((study.folder / "study.json").read_text())["task_options"] == {"word_budget": 300}


def test_game_start_records_the_brain_options_of_the_preset_the_study_runs(slurk_double, tmp_path, stop_later):
    """A study run under a task's `paper` preset: the agents' brains get the preset's brain options (sampling,
    reader, ...), and the room's game_start on Slurk records them, as a local game's log does, so an LLM game of a
    study can be replayed with its settings."""
    from tests.test_gnomes_paper_preset import fake_release

    root = fake_release(tmp_path / "release")
    cfg_path = tmp_path / "study.yaml"
    cfg_path.write_text(f"task_options:\n  preset: paper\n  paper_prompts: {root}\n", encoding="utf-8")
    srv = _srv(slurk_double)
    study = Study(srv, tmp_path, participants=1, people_per_room=1, task="gnomes", config=str(cfg_path))
    bot = SlurkBot(load_config(None, study.bot_env(BOT_STATE_DB=str(tmp_path / "bot-state.sqlite3"))),
                   get_task("gnomes")).start()
    stop_later(bot)
    stop_later(study.concierge())
    person = study.person()
    stop_later(person.connect(study.waiting_room).rec)
    room = person.wait_moved(study.waiting_room)
    starts = wait_until(lambda: [x for x in srv.logs(room) if x["event"] == "game_start"] or None,
                        timeout=WAIT, what="game_start")
    data = starts[-1]["data"]
    preset = get_task("gnomes").presets["paper"].brain_options
    assert data["options"]["preset"] == "paper"
    assert data["brain_options"]["sampling"] == preset["sampling"]
    assert data["brain_options"]["planner"] == "paper" and data["brain_options"]["reader"] == "llm"
