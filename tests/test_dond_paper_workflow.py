"""dond's `llm-workflow` under preset `paper` sends the release workflow's own prompts, read at run time: every
request of a game (workflow Alice, raw Bob: the paper's Table 17) to a fake OpenAI-compatible server is the fake
release's text (tests/dond_fake_release.py: the release's code shapes, our placeholder words) composed in the
release's order, with the possibility sets' numbers rendered where the release renders them: the draft with the
"last round" block, its extraction, the reflection and the update question, again after an update, until the draft
is kept. With PAPER_RELEASES set, the requests under the real release are byte for byte those the release's own
DealNoDeal sends for the same instance and answers."""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import types
from pathlib import Path

import pytest

from tasks import get_task
from tasks.dond.paper_prompt import read_release
from tasks.dond.paper_workflow import read_workflow
from tests.dond_fake_release import ALICE, BOB, COUNTS, fake_release
from tests.fake_openai import play_against
from tests.test_dond_paper_sample import line

SPEC = get_task("dond")
# The scripted negotiations. "alice reflects": Alice asks for hats and balls, Bob for books and balls (a rejection
# of hers); Alice drafts "hats and a ball", updates it to "the hats" (Bob's own offer), keeps that, and both halt.
# "bob reflects": the same first round; Alice then asks for hats and a ball, Bob drafts "the books", updates it to
# "books and a ball" (Alice's offer), keeps that, and both halt.
A1, B1, A2, A3 = "A1 hats and balls to me", "B1 books and balls to me", "A2 hats and a ball", "A3 just the hats"
B2, B3 = "B2 just the books", "B3 books and a ball"
HALT = "halt negotiation"
DEALS = {A1: (0, 3, 2), B1: (2, 0, 2), A2: (0, 3, 1), A3: (0, 3, 0), B2: (2, 0, 0), B3: (2, 0, 1)}  # the speaker's
PLANS = {  # Alice's message, Bob's, who updates a draft (the other keeps theirs), the update, what each presents
    "alice reflects": (lambda p: A1 if B1 not in p else A2 if A3 not in p else HALT,
                       lambda p: HALT if A3 in p else B1, True, A3, (0, 3, 0), (2, 0, 2)),
    "bob reflects": (lambda p: A1 if B1 not in p else A2 if B3 not in p else HALT,
                     lambda p: B1 if A2 not in p else B2 if B3 not in p else HALT, False, B3, (0, 3, 1), (2, 0, 1)),
}


def deal_tag(split) -> str:
    return "<deal>book={} hat={} ball={}</deal>".format(*split)


def script(kind: str, alice: bool, prompt: str, message: str = "", plan: str = "alice reflects") -> str:
    """The model's answer to a question of `kind` ("message", "has_deal", "summarize", "update", "present")."""
    alice_says, bob_says, alice_updates, update, alice_gets, bob_gets = PLANS[plan]
    if kind == "message":
        return f"Thinking. <s>{(alice_says if alice else bob_says)(prompt)}</s>"
    if kind == "has_deal":
        return "<answer>no</answer>" if message == HALT else "So <answer>yes</answer>"
    if kind == "summarize":
        return "It gives " + deal_tag(DEALS[message])
    if kind == "update":
        keep = alice != alice_updates or update in prompt
        return "<answer>no</answer>" if keep else f"<answer>yes</answer> better: <s>{update}</s>"
    return deal_tag(alice_gets if alice else bob_gets)  # present


def fake_kind(prompt: str) -> tuple:
    """(kind, the message asked about) of a prompt of the fake release, by its placeholders."""
    for marker, kind in (("FAKE-HAS-DEAL [", "has_deal"), ("FAKE-MESSAGE [", "summarize"),
                         ("FAKE-UPDATE [", "update")):
        if marker in prompt:
            return kind, prompt.split(marker, 1)[1].split("]", 1)[0]
    return ("present" if "FAKE-PRESENT" in prompt else "message"), ""


def fake_model(request) -> str:
    prompt = request["messages"][-1]["content"]
    kind, message = fake_kind(prompt)
    return script(kind, "I am Alice" in prompt, prompt, message)


def play(root, tmp_path, agents=("llm-workflow", "llm"), answer=fake_model, options=None):
    rec, requests = play_against(answer, SPEC, 0, dict(zip(("alice", "bob"), agents)),
                                 {"preset": "paper", "paper_prompts": str(root), **(options or {})},
                                 str(tmp_path / "game.jsonl"))
    return [r["messages"][-1]["content"] for r in requests], rec


# --- the fake release: every request, in order -------------------------------------------------------------------
GAME = {"Alice": "FAKE-GAME 2 books, 3 hats, 2 balls; I am Alice, the other is Bob.\nFAKE-VALUES 2x1 3x2 2x1. "
                 "FAKE-MAX 10\n",
        "Bob": "FAKE-GAME 2 books, 3 hats, 2 balls; I am Bob, the other is Alice.\nFAKE-VALUES 2x3 3x0 2x2. "
               "FAKE-MAX 10\n"}
OTHER = {"Alice": "Bob", "Bob": "Alice"}
LINES = [f"A-LINE 1: {A1}", f"B-LINE 1: {B1}", f"A-LINE 2: {A3}", f"B-LINE 2: {HALT}", f"A-LINE 3: {HALT}",
         f"B-LINE 3: {HALT}"]
# the reflections on Alice's drafts in round 2: the sets after her (0,3,2) and Bob's counter-offer (0,3,0) are
# R1 = {(0,0,5), (1,0,4), (2,0,3)} and R2 = {(3,0,2), (4,0,1)}: P(envy) 0.6, P(greed) 0.4; every option with its
# acceptance (the share of R1 ∪ R2 under which Bob does not envy Alice), (0,3,2) flagged as proposed before
FAIR = ["F1 021/211 r5 a1.0 HIGH", "F2 030/202 r6 a1.0 HIGH", "F3 120/112 r5 a1.0 HIGH", "F4 121/111 r6 a1.0 HIGH",
        "F5 130/102 r7 a1.0 HIGH", "F6 131/101 r8 a1.0 HIGH", "F7 220/012 r6 a0.6", "F8 230/002 r8 a0.6"]
REFLECT_A2 = ("UNFAIR? mine 7 theirs 6.0|8.5\nNO-ENVY of Bob\nE1 0.0\nE2 0.0\nFAIR for Bob:\n" + "\n".join(FAIR)
              + "\nGAIN for Bob:\nG1 032 REJECTED 1\nG2 131 r8 a1.0 HIGH\nG3 230 r8 a0.6 HIGH\nG4 231 r9 a0.2 LOW")
FAIR[1] = "F2 031/201 r7 a1.0 HIGH"  # the drafted deal is never among its own options
REFLECT_A3 = ("UNFAIR? mine 6 theirs 10.0|10.0\nNO-ENVY of Bob\nE1 0.0\nE2 0.0\nFAIR for Bob:\n" + "\n".join(FAIR)
              + "\nGAIN for Bob:\nG1 031 r7 a1.0 HIGH\nG2 032 REJECTED 1\nG3 130 r7 a1.0 HIGH\nG4 131 r8 a1.0 HIGH"
                "\nG5 221 r7 a0.2 LOW\nG6 230 r8 a0.6 HIGH\nG7 231 r9 a0.2 LOW")


def history(n: int) -> str:
    return "FAKE-HISTORY:\n" + "\n".join(LINES[:n])


def turn(me: str, heard: int, message: str, deal: bool = True, thinking: str = "") -> list[str]:
    """A raw turn's requests: the message (after `heard` lines), is there a deal, which (when there is one)."""
    out = [GAME[me] + thinking + f"FAKE-NEGOTIATE with {OTHER[me]} in 20 rounds" + (history(heard) if heard else ""),
           GAME[me] + history(heard) + f"FAKE-HAS-DEAL [{message}] to {OTHER[me]}"]
    return out + ([GAME[me] + f"FAKE-MESSAGE [{message}]FAKE-SUMMARIZE for {OTHER[me]}"] if deal else [])


def update(draft: str, reflection: str) -> str:
    return (GAME["Alice"] + "\nUPDATE-HISTORY:\n" + "\n".join(LINES[:2])
            + f"\nFAKE-UPDATE [{draft}] after [{LINES[1]}] REFLECTION:{reflection}\n")


def test_the_workflow_seat_sends_the_releases_draft_reflection_and_update_prompts_in_its_order(tmp_path):
    prompts, rec = play(fake_release(tmp_path / "game_theory"), tmp_path)
    think = "\nTHINK-BOTH [{}] envy 0.6 greed 0.4 by Bob\n"
    assert prompts == [
        *turn("Alice", 0, A1), *turn("Bob", 1, B1),
        # round 2: Bob rejected Alice's (0,3,2) with his own offer: the block before the turn instruction, the
        # draft, its deal, the reflection on it and the update question; the updated draft again, kept ("no")
        *turn("Alice", 2, A2, thinking=think.format("LAST-REJECTED Alice=032 Bob=202")), update(A2, REFLECT_A2),
        *turn("Alice", 2, A3)[1:], update(A3, REFLECT_A3),
        *turn("Bob", 3, HALT, deal=False),
        # round 3: Alice's last proposal is Bob's: the "agreed" summary, the sets kept; a halt has no deal
        *turn("Alice", 4, HALT, deal=False, thinking=think.format("LAST-AGREED Alice=030")),
        *turn("Bob", 5, HALT, deal=False),
        GAME["Alice"] + history(6) + "FAKE-PRESENT answer <deal>book=x hat=y ball=z</deal>",
        GAME["Bob"] + history(6) + "FAKE-PRESENT answer <deal>book=x hat=y ball=z</deal>",
    ]
    r = rec.results
    assert r["deal"] and r["split"] == {"alice": [0, 3, 0], "bob": [2, 0, 2]} and r["end"] == "presented"
    acts = [(a["seat"], a["use"]) for a in rec.llm_acts]
    assert acts == ([("alice", "turn"), ("alice", "extract"), ("bob", "turn"), ("bob", "extract")]
                    + [("alice", "turn"), ("alice", "extract"), ("alice", "reflect")] + [("alice", "extract"),
                                                                                          ("alice", "reflect")]
                    + [("bob", "turn"), ("bob", "extract"), ("alice", "turn"), ("alice", "extract"),
                       ("bob", "turn"), ("bob", "extract"), ("alice", "present"), ("bob", "present")])
    assert all(a["valid"] and not a["fallback"] for a in rec.llm_acts)


def test_an_unparsable_update_answer_is_retried_then_the_draft_goes_with_its_deal(tmp_path):
    def stubborn(request):  # never answers the update question in its format
        prompt = request["messages"][-1]["content"]
        return "I would rather not say." if "FAKE-UPDATE [" in prompt else fake_model(request)
    prompts, rec = play(fake_release(tmp_path / "game_theory"), tmp_path, answer=stubborn,
                        options={"max_rounds": 2})
    assert sum("FAKE-UPDATE [" in p for p in prompts) == 10  # the preset's 10 tries, one act
    failed = [a for a in rec.llm_acts if a["use"] == "reflect"]
    assert len(failed) == 1 and not failed[0]["valid"] and not failed[0]["fallback"]
    log = [json.loads(row) for row in Path(rec.log_path).read_text(encoding="utf-8").splitlines()]
    offers = [(r["data"]["by"], r["data"]["split"]) for r in log if r["event"] == "offer"]
    assert offers[:3] == [("alice", [0, 3, 2]), ("bob", [2, 0, 2]), ("alice", [0, 3, 1])]
    assert f"A-LINE 2: {A2}" in prompts[-1]  # the draft was sent with the deal extracted from it


def test_the_default_preset_keeps_our_workflow_prompt(tmp_path):
    prompts, _ = play(fake_release(tmp_path / "game_theory"), tmp_path, answer=lambda r: "{}",
                      options={"preset": "ours", "max_rounds": 1})
    assert prompts and not any("FAKE-" in p or "THINK-" in p for p in prompts)


# --- the real release (PAPER_RELEASES) ------------------------------------------------------------------------------
def release_answer(root: str, plan: str):
    """The script, its questions told apart by how the release's prompts end; the message asked about is the last
    of the script's messages in the prompt."""
    raw, flow = read_release(root), read_workflow(root)
    tails = {"has_deal": raw.has_deal, "summarize": raw.summarize, "present": raw.present, "update": flow.update}
    alice = raw.values.render({"example_count": COUNTS, "values": ALICE})

    def answer(prompt: str) -> str:
        kind = next((k for k, t in tails.items() if prompt.endswith(t.parts[-1])), "message")
        said = max((m for m in (*DEALS, HALT) if m in prompt), key=prompt.rfind, default="")
        return script(kind, alice in prompt, prompt, said, plan)
    return answer


def release_requests(monkeypatch, src: Path, data: str, workflow: str, answer) -> list:
    """(system, prompt) of every call the release's own DealNoDeal makes, loaded with stand-ins for its model
    wrapper, its missing config module and tqdm, answered by `answer`."""
    sent = []
    stand_ins = {"model": types.SimpleNamespace(call_api=None), "config": types.SimpleNamespace(MAX_TRIAL=10),
                 "tqdm": types.SimpleNamespace(tqdm=lambda x: x)}
    for name, module in stand_ins.items():
        monkeypatch.setitem(sys.modules, name, module)
    for name in ("deal_no_deal_metrics", "deal_no_deal"):
        spec = importlib.util.spec_from_file_location(name, src / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)

    def call_api(model, prompt, system_prompt):
        sent.append((system_prompt, prompt))
        return answer(prompt)
    module.call_api = call_api
    args = types.SimpleNamespace(model="gpt-4o", system_prompt="rational", max_negotiation_round=20,
                                 special_prompting=False, use_workflow=workflow, deteriorate_rate=0.0)
    module.DealNoDeal(args, data).play()
    return sent


@pytest.mark.skipif(not os.environ.get("PAPER_RELEASES"), reason="set PAPER_RELEASES to a folder holding the "
                    "papers' original releases (game_theory = Wenyueh/game_theory)")
@pytest.mark.parametrize("agents,workflow,plan", [
    (("llm-workflow", "llm"), "Alice", "alice reflects"), (("llm", "llm-workflow"), "Bob", "bob reflects"),
    (("llm-workflow", "llm-workflow"), "Alice,Bob", "alice reflects"),
    (("llm-workflow", "llm-workflow"), "Alice,Bob", "bob reflects")])
def test_the_real_release_prompts_are_those_its_own_workflow_sends(tmp_path, monkeypatch, agents, workflow, plan):
    root = Path(os.environ["PAPER_RELEASES"]) / "game_theory"
    data = line(COUNTS, ALICE, BOB, "hello there")
    sample = tmp_path / "sampled_50_deal_no_deal.txt"
    sample.write_text(data + "\n", encoding="utf-8")
    answer = release_answer(str(root), plan)
    theirs = release_requests(monkeypatch, root / "src" / "deal_no_deal", data, workflow, answer)
    rec, requests = play_against(lambda req: answer(req["messages"][-1]["content"]), SPEC, 0,
                                 dict(zip(("alice", "bob"), agents)),
                                 {"preset": "paper", "paper_prompts": str(root), "data": str(sample)},
                                 str(tmp_path / "game.jsonl"))
    ours = [(r["messages"][0]["content"], r["messages"][-1]["content"]) for r in requests]
    assert len(ours) == len(theirs) and ours == theirs
    update = read_workflow(str(root)).update.parts[-1]
    updates = sum(prompt.endswith(update) for _, prompt in ours)
    both = agents == ("llm-workflow", "llm-workflow")
    # a draft updated once, then kept (and, when Bob reflects, Alice's round-2 draft kept at once: she has the workflow)
    assert updates == 2 + (both and plan == "bob reflects")
    *_, alice_gets, bob_gets = PLANS[plan]
    assert rec.results["split"] == {"alice": list(alice_gets), "bob": list(bob_gets)}
