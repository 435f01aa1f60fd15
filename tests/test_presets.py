"""The shared preset contract (tasks/core/presets.py): `--preset NAME` puts a task's named options under the explicit
ones, `--paper-prompts PATH` points at a paper's original release whose files must exist, brain option `sampling`
reaches the LLM client's wire per use, and a bad preset stops a run with one line (exit 2), not a traceback."""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from bots import local  # noqa: E402
from bots.llm import LLMClient, LLMConfig, LLMDeadlineError  # noqa: E402
from bots.study import setup as study_setup  # noqa: E402
from bots.study.task_options import study_options  # noqa: E402
from fake_openai import FakeOpenAI  # noqa: E402
from tasks.core import Brain, Preset, PresetError, SeatInfo, build_match, resolve_preset  # noqa: E402
from tests.toygame import SPEC as TOY  # noqa: E402

PAPER = Preset("paper", "the paper's protocol", options={"turn_limit": 3, "rounds": 2},
               brain_options={"sampling": {"*": {"temperature": 1.0}}, "resamples": 3},
               release_files=("prompts/a.txt", "prompts/b.txt"), release="https://example.org/release")
SPEC = dataclasses.replace(TOY, presets={"paper": PAPER, "short": Preset("short", "few turns", {"turn_limit": 2})})
MSGS = [{"role": "user", "content": "Your move?"}]


def fake_release(root: Path, files=PAPER.release_files) -> Path:
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("our placeholder text", encoding="utf-8")
    return root


# --- resolve_preset -------------------------------------------------------------------------------------------------
def test_preset_options_go_under_the_explicit_ones():
    options, brain = resolve_preset(SPEC, {"preset": "short", "rounds": 5}, {"x": 1})
    assert options == {"preset": "short", "rounds": 5, "turn_limit": 2} and brain == {"x": 1}
    options, _ = resolve_preset(SPEC, {"preset": "short", "turn_limit": 9}, {})
    assert options["turn_limit"] == 9  # an explicit --option wins


def test_no_preset_and_ours_change_nothing():
    assert resolve_preset(SPEC, {"rounds": 5}, {"x": 1}) == ({"rounds": 5}, {"x": 1})
    assert resolve_preset(SPEC, {"preset": "ours"}, {}) == ({"preset": "ours"}, {})
    assert resolve_preset(TOY, {"preset": "ours"}, {}) == ({"preset": "ours"}, {})  # a task without presets


def test_an_unknown_preset_names_the_choices():
    with pytest.raises(PresetError, match=r"toy has no preset 'papr'; choose from ours, paper, short"):
        resolve_preset(SPEC, {"preset": "papr"}, {})
    assert issubclass(PresetError, ValueError)


def test_release_files_must_exist_under_paper_prompts(tmp_path):
    with pytest.raises(PresetError) as info:
        resolve_preset(SPEC, {"preset": "paper"}, {})
    text = str(info.value)
    assert "--paper-prompts" in text and "prompts/a.txt" in text and "https://example.org/release" in text
    fake_release(tmp_path, ("prompts/a.txt",))
    with pytest.raises(PresetError, match=r"lacks prompts/b\.txt"):
        resolve_preset(SPEC, {"preset": "paper", "paper_prompts": str(tmp_path)}, {})


def test_the_paper_preset_with_its_release(tmp_path):
    root = str(fake_release(tmp_path))
    options, brain = resolve_preset(SPEC, {"preset": "paper", "paper_prompts": root}, {"resamples": 1})
    assert options == {"preset": "paper", "paper_prompts": root, "turn_limit": 3, "rounds": 2}
    assert brain == {"sampling": {"*": {"temperature": 1.0}}, "resamples": 1, "paper_prompts": root}
    assert resolve_preset(SPEC, options, brain) == (options, brain)  # applying it twice changes nothing


@pytest.mark.parametrize("sampling, message", [
    ({"*": {"temprature": 1}}, "unknown temprature"),
    ({"turn": 0.5}, "must map a use"),
    ([1], "must map a use"),
])
def test_a_malformed_sampling_option_is_refused(sampling, message):
    with pytest.raises(PresetError, match=message):
        resolve_preset(SPEC, {}, {"sampling": sampling})


# --- Brain.sampling and the client's wire ---------------------------------------------------------------------------
class AskingBrain(Brain):
    name = "asking"
    uses_llm = True

    def ask(self, use: str) -> str:
        with self.llm_act(use) as act:
            return self.llm.chat(MSGS, usage=act, **self.sampling(use))


def test_brain_sampling_merges_the_default_use_with_its_own():
    brain = Brain("a", options={"sampling": {"*": {"temperature": 1.0, "max_tokens": 1200, "seed": None},
                                             "reader": {"max_tokens": 600, "stop": ["\n"]}}})
    assert brain.sampling("turn") == {"temperature": 1.0, "max_tokens": 1200}
    assert brain.sampling("reader") == {"temperature": 1.0, "max_tokens": 600, "stop": ["\n"]}
    assert Brain("a").sampling("turn") == {}


@pytest.fixture
def client():
    with FakeOpenAI() as fake:
        llm = LLMClient(LLMConfig(model="m", base_url=fake.url, api_key="k", timeout=5.0))
        llm.fake = fake
        yield llm
        llm.close()


def test_the_client_sends_every_sampling_setting(client):
    client.chat(MSGS, temperature=0.1, top_p=0.95, max_tokens=128, seed=7, stop=["\n\n"])
    body = client.fake.requests[-1]["json"]
    assert (body["temperature"], body["top_p"], body["max_tokens"], body["seed"], body["stop"]) == \
        (0.1, 0.95, 128, 7, ["\n\n"])
    client.fake.script([{"json": {"move": "x"}}])
    client.chat_json(MSGS, {"type": "object", "properties": {"move": {"type": "string"}}}, top_p=0.5, seed=3,
                     stop="END", temperature=1.0)
    body = client.fake.requests[-1]["json"]
    assert (body["temperature"], body["top_p"], body["seed"], body["stop"]) == (1.0, 0.5, 3, "END")
    client.chat(MSGS)
    assert not {"top_p", "seed", "stop"} & set(client.fake.requests[-1]["json"])  # unset: not sent


def test_a_brains_sampling_reaches_the_wire_per_use(client):
    brain = AskingBrain("a", llm=client, options={"sampling": {"*": {"temperature": 1.0, "top_p": 0.9},
                                                               "reader": {"max_tokens": 600}}})
    brain.ask("turn")
    brain.ask("reader")
    turn, reader = (r["json"] for r in client.fake.requests)
    assert (turn["temperature"], turn["top_p"], turn["max_tokens"]) == (1.0, 0.9, 800)  # 800: the config's
    assert (reader["temperature"], reader["top_p"], reader["max_tokens"]) == (1.0, 0.9, 600)


def test_a_calls_deadline_replaces_the_configs_and_the_turns(client):
    client.config.deadline = 0.2
    client.fake.script([{"hang": 0.5, "content": "late but allowed"}, {"hang": 1.0, "content": "too late"}])
    with client.turn():
        assert client.chat(MSGS, deadline=5) == "late but allowed"
    with pytest.raises(LLMDeadlineError):
        client.chat(MSGS, deadline=0.3)


# --- where presets enter a run --------------------------------------------------------------------------------------
def test_build_match_gives_the_brains_the_presets_brain_options(tmp_path):
    root = str(fake_release(tmp_path))
    seats = {s: SeatInfo("agent", s, "toy") for s in SPEC.seats}
    match, brains = build_match(SPEC, 1, seats, options={"preset": "paper", "paper_prompts": root},
                                brain_options={"resamples": 1})
    assert brains["a"].options == {"sampling": {"*": {"temperature": 1.0}}, "resamples": 1, "paper_prompts": root}
    assert match.game.options["turn_limit"] == 3 and match.game.options["preset"] == "paper"


@pytest.fixture
def toy_cli(monkeypatch):
    monkeypatch.setattr(local, "available_tasks", lambda: ["toy"])
    monkeypatch.setattr(local, "get_task", lambda name: SPEC)


@pytest.mark.parametrize("argv, message", [
    (["--preset", "nope"], "toy: toy has no preset 'nope'; choose from ours, paper, short"),
    (["--preset", "paper"], "--paper-prompts PATH"),
    (["--preset", "paper", "--paper-prompts", "/nonexistent"], "/nonexistent lacks prompts/a.txt, prompts/b.txt"),
])
def test_the_local_cli_stops_with_one_line(toy_cli, tmp_path, capsys, argv, message):
    assert local.main(["toy", "--out", str(tmp_path), "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # no game started


def test_the_local_cli_records_the_preset_in_the_games_log(toy_cli, tmp_path):
    root = str(fake_release(tmp_path / "release"))
    out = tmp_path / "out"
    code = local.main(["toy", "--out", str(out), "--quiet", "--preset", "paper", "--paper-prompts", root,
                       "--option", "turn_limit=4"])
    assert code == 0
    rows = [json.loads(line) for line in (out / "game.jsonl").read_text().splitlines()]
    logged = json.dumps(rows)
    assert '"preset": "paper"' in logged and json.dumps(root) in logged and '"turn_limit": 4' in logged
    assert '"rounds": 2' in logged


def test_a_study_takes_the_preset_as_task_options(tmp_path):
    root = str(fake_release(tmp_path))
    options = study_options(SPEC, {"preset": "paper", "paper_prompts": root, "rounds": 7})
    assert options == {"preset": "paper", "paper_prompts": root, "turn_limit": 3, "rounds": 7}
    with pytest.raises(PresetError):
        study_options(SPEC, {"preset": "paper"})


def test_setup_stops_with_one_line_on_a_bad_preset(tmp_path):
    out: list[str] = []
    env = {"SLURK_URL": "http://127.0.0.1:9", "SLURK_ADMIN_TOKEN": "x"}
    rc = study_setup.main(["travel", "--participants", "2", "--out", str(tmp_path), "--dry-run",
                           "--preset", "nonesuch"], env=env, echo=out.append)
    assert rc == 2 and len(out) == 1 and "travel has no preset 'nonesuch'" in out[0]
