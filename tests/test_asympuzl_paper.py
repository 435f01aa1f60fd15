"""AsymPuzl's `paper` preset against the fake OpenAI server: what the requests carry (temperature 0, 4,096 output
tokens, free text without a JSON mode, the paper's prompt parts in order), the last JSON object of a reasoning answer
read, the single-agent control's one agent seeing both views, a placeholder message never reaching the partner, and
the default preset's labelled variant (ours: a structured JSON answer)."""
from __future__ import annotations

import json

import pytest

from bots.llm import LLMClient, LLMConfig
from tasks import get_task
from tasks.asympuzl import instances, tokens
from tasks.asympuzl.brains.llm_brain import last_json_object
from tasks.asympuzl.evaluate import plans, set_line
from tasks.core import resolve_preset
from tasks.core.evaluation import RunRequest, play_game
from tests.fake_openai import FakeOpenAI, request_form

SPEC = get_task("asympuzl")


def reasoning_answer(truth=None, message="Here are my shapes.", actions=None):
    """A paper-style answer: reasoning (with braces of its own) first, the JSON object last."""
    acts = actions if actions is not None else [
        {"replace": i + 1, "by": {"shape": s, "color": c}} for i, (s, c) in enumerate(truth or [])]
    return ("Let me think. My clues say {position: shape}; the partner knows colours. I should share first.\n"
            'A draft was {"message": "draft", "actions": []} but I can do better.\n'
            f"Final answer:\n```json\n{json.dumps({'message': message, 'actions': acts})}\n```")


def play(fake, seed, agents, options, log_path=None):
    cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
    with LLMClient(cfg, sleep=lambda s: None) as llm:
        return play_game(SPEC, seed, agents, options, llm=llm, log_path=log_path)


def test_the_paper_preset_sends_the_papers_parameters_and_prompt_structure():
    inst = SPEC.generate(4, {"size": 5})

    said = " ".join(f"Position {i + 1} is the {s}." for i, (s, _) in enumerate(inst["truth"]))

    def answer(request):
        user = request["messages"][-1]["content"]
        if "Partner:" in user:  # B's pairs arrived: fill the row
            return reasoning_answer(inst["truth"], message="Thanks, done.")
        return reasoning_answer(message=said, actions=[])

    with FakeOpenAI(default=answer) as fake:
        rec = play(fake, 4, {"a": "llm", "b": "share-all"}, {"preset": "paper", "feedback": "own"})
        first = fake.requests[0]["json"]
    assert rec.results["preset"] == "paper" and rec.results["size"] == 5 and rec.results["turn_limit"] == 10
    assert first["temperature"] == 0 and first["max_tokens"] == 4096
    assert "response_format" not in first and request_form(first) == "off"  # free text, no JSON mode
    system, user = first["messages"][0]["content"], first["messages"][1]["content"]
    assert system.startswith("You are Player A") and "Shapes:" in system and "How to answer" not in system
    order = ["Your clues (read-only): Position 1: the", "Your current working hypothesis: Position 1:",
             "Recent conversation:", "Feedback from the previous turn:", "Round 1 of 10.",
             "first think it through in plain text", '{"message": "<your message to your partner>"']
    at = [user.index(part) for part in order]
    assert at == sorted(at), "the paper's prompt parts in its order, the answer format last"
    # the last JSON object of the reasoning answer was played: A's message reached B, A's row was filled
    assert rec.results["success"] and rec.results["messages"] >= 2
    assert not any(a.get("fallback") for a in rec.llm_acts) and all(a["valid"] for a in rec.llm_acts)


def test_the_default_preset_is_ours_a_structured_json_answer_labelled_ours():
    inst = SPEC.generate(0, {"size": 3})

    def answer(request):
        acts = [{"replace": i + 1, "by": {"shape": s, "color": c}} for i, (s, c) in enumerate(inst["truth"])]
        return json.dumps({"message": "all set", "actions": acts})

    with FakeOpenAI(default=answer) as fake:
        rec = play(fake, 0, {"a": "llm", "b": "share-all"}, {"size": 3})
        first = fake.requests[0]["json"]
    assert request_form(first) != "off" and first["temperature"] != 0 and first["max_tokens"] < 4096
    assert "Answer with a JSON object" in first["messages"][0]["content"]
    assert "first think it through" not in first["messages"][1]["content"]
    assert rec.results["preset"] == "ours" and SPEC.summarize([rec.results])["preset"] == "ours"


def test_the_last_json_object_of_a_reasoning_answer():
    obj = last_json_object(reasoning_answer(actions=[{"replace": 2, "by": {"shape": "star", "color": "red"}}]))
    assert obj["message"] == "Here are my shapes." and obj["actions"][0]["by"] == {"shape": "star", "color": "red"}
    assert last_json_object('{"message": "a"} then {"message": "b", "actions": []} done.')["message"] == "b"
    with pytest.raises(ValueError, match="does not end with a JSON object"):
        last_json_object("I think the square is blue {but I am not sure}.")


def test_an_unreadable_paper_answer_passes_its_turn_without_a_fallback():
    with FakeOpenAI(default=lambda r: "I will share my clues soon, no JSON today.") as fake:
        rec = play(fake, 1, {"a": "llm", "b": "share-all"}, {"preset": "paper", "feedback": "none", "size": 3})
    a = rec.results["llm"]["a"]
    assert a["acts"] == 6 and a["valid"] == 0 and a["fallback"] == 0  # nobody played in the model's place
    assert not rec.results["success"] and rec.results["actions"]["a"] == 0


def test_the_single_agent_control_sees_both_views_and_plays_alone():
    inst = SPEC.generate(2, {"size": 5})
    with FakeOpenAI(default=lambda r: reasoning_answer(inst["truth"], message="")) as fake:
        rec = play(fake, 2, {"a": "llm", "b": "absent"}, {"preset": "paper", "single_agent": True,
                                                         "feedback": "both"})
        requests = [r["json"] for r in fake.requests]
    assert len(requests) == 1 and rec.results["success"] and rec.results["turns_to_success"] == 1
    system, user = requests[0]["messages"][0]["content"], requests[0]["messages"][1]["content"]
    assert "solving a puzzle alone" in system and "Recent conversation" not in user
    clues = user.split("Your clues (read-only): ")[1].split("\n\n")[0]
    assert all(f"the {s}" in clues for s, _ in inst["truth"])                      # A's view: shapes by position
    assert "In no particular order: " + "; ".join(f"the {s} is {c}" for s, c in inst["b_clues"]) in clues  # B's


@pytest.mark.parametrize("preset", ["paper", "ours"])
def test_a_placeholder_message_is_not_sent_to_the_partner(preset, tmp_path):
    placeholder = "What you tell your partner" if preset == "ours" else "<your message to your partner>"
    answer = json.dumps({"message": placeholder, "actions": []})
    content = answer if preset == "ours" else "Thinking it through first.\n" + answer
    log = tmp_path / "game.jsonl"
    with FakeOpenAI(default=lambda r: content) as fake:
        rec = play(fake, 3, {"a": "llm", "b": "share-all"}, {"preset": preset, "feedback": "none", "size": 3},
                   log_path=str(log))
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    shown = [r for r in rows if r["event"] != "agent_note"]
    assert not any(placeholder.lower() in json.dumps(r).lower() for r in shown)  # it reached nobody
    notes = [r["data"] for r in rows if r["event"] == "agent_note" and r["data"].get("kind") == "placeholder_not_sent"]
    assert len(notes) == rec.results["llm"]["a"]["acts"] > 0 and rec.results["messages"] > 0  # B still spoke


def test_turn_tokens_are_counted_with_the_common_tokenizer(tmp_path):
    inst = SPEC.generate(5, {"size": 3})
    with FakeOpenAI(default=lambda r: reasoning_answer(inst["truth"])) as fake:
        play(fake, 5, {"a": "llm", "b": "share-all"}, {"preset": "paper", "feedback": "both", "size": 3},
             log_path=str(tmp_path / "g.jsonl"))
    games = tokens.read_logs([tmp_path])
    assert len(games) == 1 and {n["tokenizer"] for n in games[0]} == {"cl100k_base"}
    rows = tokens.turn_table(games)
    seat, rnd, turns, prompt, output, message, share = rows[0]
    assert (seat, rnd, turns) == ("a", 1, 1) and output == tokens.count(reasoning_answer(inst["truth"]))
    assert message == tokens.count("Here are my shapes.") and 0 < share < 100 and prompt > output
    assert tokens.count("Position 1: the square is blue.") == 9


def test_the_evaluation_set_is_written_checked_counted_and_played(tmp_path):
    path = tmp_path / "paper-30.jsonl"
    assert instances.main(["write", str(path)]) == 0
    puzzles = instances.load(str(path))
    assert instances.describe(puzzles) == "30 puzzles (size 5: 30)"
    assert puzzles[7] == SPEC.generate(7, {"size": 5})
    run = RunRequest({"a": "llm", "b": "llm"}, {"instances": str(path)}, games=30)
    assert set_line(run).startswith(f"evaluation set {path}: 30 puzzles (size 5: 30); this run plays puzzles 0-29")
    with pytest.raises(ValueError, match="holds 30 puzzles"):
        set_line(RunRequest({"a": "llm", "b": "llm"}, {"instances": str(path)}, games=31))
    lines = path.read_text().splitlines()
    bad = json.loads(lines[3])
    bad["truth"] = bad["truth"][:4]
    path.write_text("\n".join(lines[:3] + [json.dumps(bad)]) + "\n")
    with pytest.raises(ValueError, match=r"line 4: truth must hold 5"):
        instances.load(str(path))


def test_the_preset_resolves_and_the_local_run_adds_the_control_row():
    options, brain_options = resolve_preset(SPEC, {"preset": "paper", "feedback": "own"}, {})
    assert options["size"] == 5 and options["feedback"] == "own" and options["history"] == 1
    assert brain_options["answer"] == "paper" and brain_options["sampling"]["turn"]["temperature"] == 0
    options, _ = resolve_preset(SPEC, {"preset": "paper"}, {})
    rows = plans(SPEC, RunRequest({"a": "llm", "b": "llm"}, options, games=2))
    assert [p.options["feedback"] for p in rows[:6]] == list(SPEC.grid["feedback"])
    assert rows[-1].agents == {"a": "llm", "b": "absent"} and rows[-1].options["single_agent"] is True
    repro = SPEC.reproduction
    assert repro.condition("5 pieces, feedback both").paper == {"success %": 80.0}
    assert repro.conditions[-1].agents == ("llm", "absent")
