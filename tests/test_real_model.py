"""The real-model tier: every LLM brain of every registered task plays one seeded game against a real model.

Opt-in, like the real-Slurk conformance tests:

    LLM_TEST_BASE_URL=http://127.0.0.1:8087/v1 LLM_TEST_MODEL=<model id> ./run_bot.sh test -m realmodel

Optional: LLM_TEST_API_KEY (from the environment only, never the command line), LLM_TEST_DEADLINE (seconds per agent
act, default 20), LLM_TEST_STRUCTURED (auto | json_schema | json_object_schema | json_object | off; default auto).
Besides the configured setting, the last LLM brain of each task also plays with structured answers off, so the model
answers free-form and malformed answers are certain. A brain counts as an LLM brain when it declares `uses_llm` (it
calls its LLM when it has one) or `needs_llm` (it is an LLM agent).

Symbolic agents that can read chat through the model (READERS) play with brain option reader=llm.

Each game asserts: it ends (completed or out of turns; never stalled, never an error), every LLM act is logged with its
validity and timing, no act takes longer than its deadline, nothing the model says crashes or blocks the room, and the
accounting adds up: valid and invalid acts make up all acts, effective acts are valid ones that were no fallback,
every invalid act fell back (or failed under strict mode), and the figures in the results are the logged acts'. One
strict game per task checks that an invalid game is labelled the same way in every task (`results["invalid"]`, the
summary's `invalid` count, no "+fallback"). The figures (acts, valid %, effective %, fallback %, seconds per act) are
printed, not asserted: they belong to the model.
"""
from __future__ import annotations

import os

import pytest

from tasks.core import evaluation
from tasks.core.evaluation import read_rows
from bots.llm import LLMClient, LLMConfig
from tasks import available_tasks, get_task
from tasks.core.llm_acts import acts_in, per_seat

URL_ENV, MODEL_ENV = "LLM_TEST_BASE_URL", "LLM_TEST_MODEL"
CONFIGURED = bool(os.environ.get(URL_ENV) and os.environ.get(MODEL_ENV))
SEED = 11
SLACK = 1.0  # seconds beyond the deadline an act may take (the answer that arrives at the deadline, the fallback)
# Shorter games than the defaults, so the tier fits in minutes on a CPU: the agents' behaviour is the same.
TASK_OPTIONS = {"travel": {"turn_limit": 8}, "gnomes": {"rounds": 2, "turn_cap": 30},
                "assignment": {"turns": "alternate"}}
BRAIN_OPTIONS = {"gnomes": {"iterations": 200}}
READERS = {"travel": "solver", "gnomes": "aismcts"}  # symbolic agents with an LLM reader (brain option reader=llm)

pytestmark = [
    pytest.mark.realmodel,
    pytest.mark.skipif(not CONFIGURED, reason=f"real model not configured: set {URL_ENV} and {MODEL_ENV} (and "
                                              "LLM_TEST_API_KEY if the endpoint needs one) to run the realmodel tier"),
]


def llm_brains() -> list:
    """(task, seat, brain) for every brain of every registered task that uses an LLM (`TaskSpec.wants_llm`, or a
    reader in READERS), in the last seat it may take; the other seats get the task's default brains."""
    out = []
    for name in available_tasks():
        spec = get_task(name)
        for brain in spec.brains:
            if spec.wants_llm(brain) or READERS.get(name) == brain:
                seat = [s for s in spec.seats if brain in spec.brains_for(s)][-1]
                out.append((name, seat, brain))
    return out


def cases() -> list:
    """Every LLM brain with the configured setting; the last of each task also with structured answers off."""
    out, last = [], {}
    for task, seat, brain in llm_brains():
        out.append(pytest.param(task, seat, brain, None, id=f"{task}-{brain}"))
        last[task] = (seat, brain)
    for task, (seat, brain) in last.items():
        out.append(pytest.param(task, seat, brain, "off", id=f"{task}-{brain}-unstructured"))
    return out


def brain_options(task: str, brain: str, **extra) -> dict:
    reader = {"reader": "llm"} if READERS.get(task) == brain else {}
    return {**BRAIN_OPTIONS.get(task, {}), **reader, **extra}


def check_accounting(rec, acts: list) -> None:
    """The LLM figures add up, whatever the model answered."""
    valid = [a for a in acts if a["valid"]]
    invalid = [a for a in acts if not a["valid"]]
    assert len(valid) + len(invalid) == len(acts)
    assert all(a["valid"] and not a["fallback"] for a in acts if a["effective"])  # effective <= valid
    assert all(a["fallback"] or a["failed"] for a in invalid)  # an unusable answer never vanishes
    assert per_seat(acts) == rec.results.get("llm", {})
    for f in rec.results.get("llm", {}).values():
        assert f["effective"] <= f["valid"] <= f["acts"] and f["fallback"] + f["failed"] == f["acts"] - f["valid"]


def deadline() -> float:
    return float(os.environ.get("LLM_TEST_DEADLINE") or 20.0)


def client(structured):
    cfg = LLMConfig(model=os.environ[MODEL_ENV], base_url=os.environ[URL_ENV],
                    api_key=os.environ.get("LLM_TEST_API_KEY") or "not-needed", deadline=deadline(), seed=SEED,
                    temperature=0.2, max_retries=1, structured=structured or os.environ.get("LLM_TEST_STRUCTURED")
                    or "auto")
    return LLMClient(cfg)


@pytest.mark.parametrize("task, seat, brain, structured", cases())
def test_every_llm_brain_plays_a_game_against_the_real_model(tmp_path, task, seat, brain, structured):
    spec = get_task(task)
    agents = {s: (brain if s == seat else spec.default_brains[i]) for i, s in enumerate(spec.seats)}
    log = tmp_path / "game.jsonl"
    with client(structured) as llm:
        rec = evaluation.play_game(spec, SEED, agents, dict(TASK_OPTIONS.get(task, {})), llm=llm, log_path=str(log),
                                   brain_options=brain_options(task, brain))
        form = llm.structured_form

    rows = [r for _, r in read_rows(str(log))]
    # the game ended on its own: no stall, no error
    assert rec.results["status"] in ("completed", "timeout"), rec.results["status"]
    assert not [r for r in rows if r["event"] == "error"]
    assert not [r for r in rows if r["event"] == "agent_note" and r["data"].get("kind") == "error"]
    # every act is logged with its validity and timing, and none took longer than its deadline
    acts = acts_in(rows)
    assert acts, "the brain never used the model"
    assert {a["seat"] for a in acts} >= {seat}
    for a in acts:
        assert isinstance(a["valid"], bool) and isinstance(a["fallback"], bool)
        assert a["seconds"] >= a["model_seconds"] >= 0
        assert a["seconds"] <= deadline() + SLACK, a
        assert a["valid"] or a["fallback"]  # an unusable answer was played by the symbolic policy, never dropped
    check_accounting(rec, acts)
    for s, f in sorted(rec.results["llm"].items()):
        print(f"\n{task} {brain} seat {s} ({form}): {f['acts']} acts, {100 * f['valid'] / f['acts']:.1f}% valid, "
              f"{100 * f['effective'] / f['acts']:.1f}% effective, "
              f"{100 * f['fallback'] / f['acts']:.1f}% fallback, {f['seconds'] / f['acts']:.2f} s/act, "
              f"max {f['max_seconds']:.2f} s, {f['prompt_tokens'] + f['completion_tokens']} tokens")


def strict_cases() -> list:
    """The first LLM agent of every task (a reader where the task has no LLM agent), in strict mode."""
    first: dict = {}
    for task, seat, brain in sorted(llm_brains(), key=lambda c: READERS.get(c[0]) == c[2]):
        first.setdefault(task, (seat, brain))
    return [pytest.param(task, seat, brain, id=f"{task}-{brain}-strict") for task, (seat, brain) in first.items()]


@pytest.mark.parametrize("task, seat, brain", strict_cases())
def test_an_invalid_game_is_labelled_the_same_way_in_every_task(tmp_path, task, seat, brain):
    spec = get_task(task)
    agents = {s: (brain if s == seat else spec.default_brains[i]) for i, s in enumerate(spec.seats)}
    options = brain_options(task, brain, strict_llm=True)
    with client(None) as llm:
        rec = evaluation.play_game(spec, SEED, agents, dict(TASK_OPTIONS.get(task, {})), llm=llm,
                                   log_path=str(tmp_path / "game.jsonl"), brain_options=options)
    acts = acts_in(r for _, r in read_rows(str(tmp_path / "game.jsonl")))
    check_accounting(rec, acts)
    assert not [a for a in acts if a["fallback"]]  # strict: nothing falls back
    summary = evaluation.summary_table(spec, [rec])
    label = evaluation.agent_label(spec, agents, [rec], options)
    assert "+fallback" not in label
    if rec.results["status"] == "invalid":
        assert rec.results["invalid"] is True and summary["invalid"] == 1 and acts[-1]["failed"]
    else:
        assert rec.results["status"] in ("completed", "timeout") and not rec.results.get("invalid")
        assert summary.get("invalid", 0) == 0 and not [a for a in acts if a["failed"]]
    print(f"\n{task} {brain} strict: status {rec.results['status']}, {len(acts)} acts, label {label}")
