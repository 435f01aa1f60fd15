"""The Deal-or-No-Deal LLM agents: `llm` (the paper's raw agent, §7, in our words: the game prompt with the
counts and the seat's own values only, the message in <s>...</s> with bounded retries, the deal extracted by the
model and played as an explicit /propose, "halt negotiation" as /accept) and `llm-workflow` (the paper's workflow, §8, with the
possibility sets R1 / R2, the acceptance probabilities and the option lists computed exactly; the model picks an
option and writes the message). A failing model falls back visibly to `bayes`; `strict_llm` makes the game invalid
instead; the real client plays through the fake OpenAI server; the CLI refuses both agents without a model."""
from __future__ import annotations

import json
import re

import pytest

from bots import local
from tasks.core import evaluation
from bots.llm import LLMClient, LLMConfig
from tasks.core.evaluation import play_game
from tasks import get_task
from tasks.core import ChatShown, Command, Join, Match, SeatInfo, View
from tasks.dond import items as I
from tasks.dond.brains.llm_brain import SYSTEM, LLMBrain
from tasks.dond.brains.llm_workflow import LLMWorkflowBrain, PossibilitySets
from tasks.dond.game import DondGame
from tasks.dond.generator import make_instance
from tests.fake_openai import FakeOpenAI, request_schema

SPEC = get_task("dond")
OPTIONS = {"instance": 3}  # counts (2 books, 3 hats, 2 balls); Alice values (1, 2, 1), Bob (3, 0, 2)
COUNTS, ALICE, BOB = (2, 3, 2), (1, 2, 1), (3, 0, 2)


class ScriptedLLM:
    """`chat` answers come from `texts`, `chat_json` answers from `jsons` (values or callables of the prompt)."""

    def __init__(self, texts=(), jsons=()):
        self.texts, self.jsons = list(texts), list(jsons)
        self.prompts: list = []   # (kind, messages, schema)

    def _next(self, queue, messages):
        if not queue:
            raise RuntimeError("script exhausted")
        a = queue.pop(0)
        if isinstance(a, Exception):
            raise a
        return a(messages[-1]["content"]) if callable(a) else a

    def _count(self, usage):
        if usage is not None:
            usage["calls"] += 1
            usage["prompt_tokens"] += 10
            usage["completion_tokens"] += 5

    def chat(self, messages, usage=None, **kw):
        self.prompts.append(("text", messages, None))
        self._count(usage)
        return self._next(self.texts, messages)

    def chat_json(self, messages, schema, usage=None, **kw):
        self.prompts.append(("json", messages, schema))
        self._count(usage)
        return self._next(self.jsons, messages)


def deal(books, hats, balls, proposal=True, accepts=False):
    return {"proposal": proposal, "accepts": accepts, "books": books, "hats": hats, "balls": balls}


# --- the raw agent ------------------------------------------------------------------------------------------------
def test_raw_prompt_retries_extracts_the_offer_and_halts_into_an_accept():
    llm = ScriptedLLM(texts=["I should ask for a lot.",  # no tag: asked again
                             "Let me ask. <s>I'd like both books, all the hats and one ball; you get a ball.</s>",
                             "They countered. <s>halt negotiation</s>"],
                      jsons=[deal(2, 3, 1)])
    rec = play_game(SPEC, 0, {"alice": "llm", "bob": "bayes"}, OPTIONS, llm=llm)
    r = rec.results
    assert r["deal"] and r["end"] == "accepted" and r["proposals"] == 2  # Alice's extracted offer, Bob's counter
    kind, messages, _ = llm.prompts[0]
    system, user = messages[0]["content"], messages[1]["content"]
    assert kind == "text" and system == SYSTEM
    assert "divide 2 books, 3 hats and 2 balls" in user and "Keep your own values to yourself." in user
    assert "A book is worth 1 to you (there are 2), a hat is worth 2 to you (there are 3)" in user
    assert "everything together is worth 10 to you" in user and "write <s>halt negotiation</s>" in user
    assert "worth 3 to you" not in user and "worth 0 to you" not in user  # Bob's values
    kind, messages, schema = llm.prompts[2]
    assert kind == "json" and "both books, all the hats and one ball" in messages[-1]["content"]
    assert schema["properties"]["hats"]["maximum"] == 3
    last = llm.prompts[3][1][-1]["content"]
    assert "Alice said in round 1: I'd like both books" in last and "Bob said in round 1:" in last
    assert "(Alice made formal offer #1 in round 1: you get 2 books, 3 hats and 1 ball, Bob gets 1 ball.)" in last
    assert "Bob's standing offer: you get" in last
    acts = rec.llm_acts
    assert [a["seat"] for a in acts] == ["alice", "alice"] and not any(a["fallback"] for a in acts)
    assert acts[0]["calls"] == 3 and acts[1]["calls"] == 1  # two tries and the extraction; the halt needs none
    assert r["alice_score"] == I.utility(r["split"]["alice"], ALICE)


def share_of(text):
    out = [0, 0, 0]
    for n, name in re.findall(r"(\d+) (book|hat|ball)", text):
        out[I.ITEMS.index(name)] = int(n)
    return out


def test_a_proposal_equal_to_the_partners_offer_is_taken_as_the_deal():
    def same_as_theirs(prompt):  # the model "proposes" exactly what Alice's standing offer gives Bob
        return deal(*share_of(re.search(r"latest proposal gives Bob (.*?) and Alice", prompt).group(1)))
    llm = ScriptedLLM(texts=["<s>OK, I agree to what you said: that split.</s>"], jsons=[same_as_theirs])
    rec = play_game(SPEC, 0, {"alice": "bayes", "bob": "llm"}, OPTIONS, llm=llm)
    r = rec.results
    assert r["deal"] and r["end"] == "accepted" and r["proposals"] == 1 and r["rejections"] == 0
    assert len(llm.prompts) == 2 and not any(a["fallback"] for a in rec.llm_acts)


def test_a_failing_model_falls_back_visibly_to_bayes():
    agents = {"alice": "llm", "bob": "bayes"}
    llm = ScriptedLLM(texts=[RuntimeError("model down")] * 50)
    rec = play_game(SPEC, 0, agents, OPTIONS, llm=llm)
    assert rec.results["deal"]  # bayes stood in and made the deal
    seat = rec.results["llm"]["alice"]
    assert seat["acts"] > 0 and seat["fallback"] == seat["acts"]
    assert evaluation.agent_label(SPEC, agents, [rec]) == "llm+fallback,bayes"
    no_model = play_game(SPEC, 0, agents, OPTIONS, llm=None)
    assert no_model.results["deal"] and all(a["fallback"] for a in no_model.llm_acts)


def test_strict_llm_makes_the_game_invalid_instead_of_falling_back():
    llm = ScriptedLLM(texts=["no tag"] * 10)
    rec = play_game(SPEC, 0, {"alice": "llm", "bob": "bayes"}, OPTIONS, llm=llm, brain_options={"strict_llm": True})
    assert rec.results["status"] == "invalid"
    assert len(llm.prompts) == 3 and rec.llm_acts[-1]["failed"] and not rec.llm_acts[-1]["fallback"]


def test_halting_with_no_offer_is_asked_again_and_with_our_offer_asks_for_the_accept():
    _, inputs, llm = brain_after([], None, LLMBrain, ScriptedLLM(
        texts=["<s>halt negotiation</s>", "<s>Could I have the hats?</s>"], jsons=[deal(0, 3, 0)]))
    assert [p[0] for p in llm.prompts] == ["text", "text", "json"]  # nothing to accept yet: asked again
    assert [getattr(i, "text", None) or i.name for i in inputs] == ["Could I have the hats?", "propose"]
    moves = [Command("alice", "propose", ("0", "3", "0"), t=1.0), Command("bob", "reject", (), t=2.0),
             Command("alice", "propose", ("1", "3", "0"), t=3.0)]
    _, inputs, _ = brain_after(moves, None, LLMBrain, ScriptedLLM(texts=["<s>halt negotiation</s>"]), heard=["hmm"])
    assert [i.text for i in inputs] == ["I think we agree: please accept my offer to close the deal."]


# --- the workflow: exact arithmetic -------------------------------------------------------------------------------
def brute_sets(pool, m, o):
    """The paper's definitions written out: R1 = M unfair to them and O fair; R2 = M fair and O gives them more."""
    def theirs(s, v):
        return sum((c - n) * x for c, n, x in zip(COUNTS, s, v))

    def mine(s, v):
        return sum(n * x for n, x in zip(s, v))
    r1 = [v for v in pool if mine(m, v) > theirs(m, v) and theirs(o, v) >= mine(o, v)]
    r2 = [v for v in pool if theirs(m, v) >= mine(m, v) and theirs(o, v) > theirs(m, v)]
    return r1, r2


def test_possibility_sets_follow_the_papers_definitions_exactly():
    omega = [v for v in ((a, b, c) for a in range(11) for b in range(11) for c in range(11))
             if 2 * v[0] + 3 * v[1] + 2 * v[2] == 10]
    assert BOB in omega
    sets = PossibilitySets(COUNTS)
    assert sorted(sets.omega) == sorted(omega)
    m1, o1 = (2, 3, 1), (0, 3, 0)
    assert sets.update(m1, o1) and not sets.update(m1, o1)  # the same pair twice changes nothing
    r1, r2 = brute_sets(omega, m1, o1)
    assert sets.r1 == r1 and sets.r2 == r2 and BOB in r1 + r2
    assert sets.p_envy() == pytest.approx(len(r1) / (len(r1) + len(r2)))
    m2, o2 = (1, 3, 1), (0, 3, 1)
    sets.update(m2, o2)  # the next pair re-filters the candidates (hard elimination)
    r1b, r2b = brute_sets(r1 + r2, m2, o2)
    assert (sets.r1, sets.r2) == ((r1b, r2b) if r1b or r2b else brute_sets(omega, m2, o2))
    pool = sets.r1 + sets.r2
    for s in I.all_splits(COUNTS):
        fair = sum(sum((c - n) * x for c, n, x in zip(COUNTS, s, v)) >= 5 for v in pool)
        assert sets.acceptance(s) == pytest.approx(fair / len(pool))


def brain_after(moves, answer, cls=LLMWorkflowBrain, llm=None, heard=()):
    """An llm-workflow Alice (or `cls`) that has seen `moves` and Bob's lines `heard` and answers with `answer`;
    returns (brain, its inputs, llm)."""
    game = DondGame(1, {}, make_instance(COUNTS, ALICE, BOB))
    m = Match(game, {s: SeatInfo("person", s) for s in game.seats}, code_source=lambda: "X")
    m.open(0.0)
    for s in game.seats:
        m.handle(Join(s, t=0.0))
    for inp in moves:
        m.handle(inp)
    llm = llm or ScriptedLLM(jsons=[answer])
    brain = cls("alice", seed=0, llm=llm)
    brain.observe(View("alice", game.view("alice")))
    for text in heard:
        brain.observe(ChatShown("bob", text))
    return brain, brain.act(), llm


def option_splits(prompt):
    """The numbered options of the prompt as (number, my share)."""
    out = []
    for num, text in re.findall(r"^(\d+)\. you get (.*?) \(worth", prompt, re.M):
        share = [0, 0, 0]
        for n, name in re.findall(r"(\d+) (book|hat|ball)", text):
            share[I.ITEMS.index(name)] = int(n)
        out.append((int(num), tuple(share)))
    return out


def test_workflow_prompt_has_the_analysis_and_the_chosen_option_is_proposed():
    moves = [Command("alice", "propose", ("2", "3", "1"), t=1.0), Command("bob", "propose", ("2", "0", "2"), t=2.0)]
    brain, inputs, llm = brain_after(moves, {"message": "Fair enough, how about this?", "action": "propose",
                                             "option": 3})
    kind, messages, schema = llm.prompts[0]
    prompt = messages[-1]["content"]
    assert "### Last Round of Negotiation\nYou proposed that you get 2 books, 3 hats and 1 ball." in prompt
    r1, r2 = brute_sets(I.valuations(COUNTS), (2, 3, 1), (0, 3, 0))
    pe = len(r1) / (len(r1) + len(r2))
    assert f"probability {pe:.2f} ({len(r1)} possible value combinations" in prompt
    assert "You get 3 hats: worth 6 to you" in prompt and "You would not envy Bob" in prompt
    options = option_splits(prompt)
    assert options and schema["properties"]["option"]["maximum"] == len(options)
    for _, s in options:  # every option: I do not envy it, and it takes nothing worth 0 to me
        assert I.envy_free_for(COUNTS, s, ALICE) and all(n == 0 or x > 0 for n, x in zip(s, ALICE))
    chosen = dict(options)[3]
    said = [i.text for i in inputs if hasattr(i, "text")]
    cmds = [(i.name, i.args) for i in inputs if isinstance(i, Command)]
    assert said == ["Fair enough, how about this?"]
    assert cmds == [("reject", ("2", "we", "can", "do", "better")),  # bound to Bob's offer #2, the one it saw
                    ("propose", tuple(f"{p}={n}" for p, n in zip(I.PLURALS, chosen)))]
    assert "3 hats" in prompt and "whose values to you are 3" not in prompt  # own values only


def test_workflow_accept_and_an_unusable_answer_falls_back():
    moves = [Command("alice", "propose", ("2", "3", "1"), t=1.0), Command("bob", "propose", ("2", "0", "2"), t=2.0)]
    _, inputs, _ = brain_after(moves, {"message": "ok", "action": "accept", "option": 1})
    assert [(i.name, i.args) for i in inputs] == [("accept", ("2",))]  # Bob's offer #2, the one it saw
    brain, inputs, _ = brain_after(moves, {"message": "hm", "action": "propose", "option": 99})
    acts = brain.drain_llm_acts()
    assert len(acts) == 1 and acts[0]["fallback"] and "option 99" in acts[0]["error"]
    assert inputs  # bayes answered the counter-offer instead


# --- the real client through the fake OpenAI server ------------------------------------------------------------------
def fake_model(request):
    schema = request_schema(request) or {}
    prompt = request["messages"][-1]["content"]
    props = schema.get("properties", {})
    if "option" in props:  # the workflow: take a standing offer, else the most acceptable option
        if "Standing Offer\n" in prompt:
            return json.dumps({"message": "That works for me.", "action": "accept", "option": 1})
        best = max(option_splits(prompt), key=lambda x: float(re.search(
            rf"^{x[0]}\. .*?finds it fair: ([\d.]+)", prompt, re.M).group(1)))
        return json.dumps({"message": "Here is a fair split.", "action": "propose", "option": best[0]})
    if "proposal" in props:
        return json.dumps(deal(0, 3, 0, proposal="hats" in prompt))
    if "standing offer: you get" in prompt:
        return "They offered something. <s>halt negotiation</s>"
    return "Thinking it over. <s>I would like the hats; you can have the books and balls.</s>"


@pytest.mark.parametrize("agent", ["llm", "llm-workflow"])
def test_the_real_client_through_the_fake_server(agent):
    cfg = LLMConfig(model="test-model", base_url=None, api_key="sk-test", timeout=5.0, max_retries=0)
    with FakeOpenAI(default=fake_model) as fake:
        cfg.base_url = fake.url
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            rec = play_game(SPEC, 0, {"alice": agent, "bob": "bayes"}, OPTIONS, llm=llm)
        assert fake.requests and fake.requests[0]["json"]["model"] == "test-model"
    r = rec.results
    assert r["deal"] and r["tokens"] > 0 and r["alice_score"] > 0
    assert not any(a["fallback"] for a in rec.llm_acts) and all(a["valid"] for a in rec.llm_acts)


def test_cli_refuses_the_llm_agents_without_a_model(monkeypatch):
    for var in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    for agents in ("llm,bayes", "bayes,llm-workflow"):
        with pytest.raises(SystemExit, match="needs an LLM"):
            local.main(["dond", "--agents", agents])


def test_the_table_shows_when_the_fallback_played_and_counts_strict_failures(tmp_path, monkeypatch, capsys):
    """Issue 31 item 8/9: a dead model's games equal the symbolic pair's because `bayes` played; the table says so
    (llm+fallback, 0% effective, the baseline row on the same seeds beside it), and under --strict-llm the games are
    invalid: counted in the invalid column, in no mean, with no '+fallback' label."""
    monkeypatch.setenv("LLM_MODEL", "test-model")
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")
    with FakeOpenAI(default=lambda req: {"status": 503}) as fake:
        monkeypatch.setenv("LLM_BASE_URL", fake.url)
        assert local.main(["dond", "--games", "3", "--agents", "llm,bayes", "--out", str(tmp_path / "a")]) == 0
        loose = capsys.readouterr().out
        assert local.main(["dond", "--games", "3", "--agents", "llm,bayes", "--strict-llm",
                           "--out", str(tmp_path / "b")]) == 0
        strict = capsys.readouterr().out

    def row(out, start):
        return next(ln for ln in out.splitlines() if ln.startswith(start)).split()
    ours = row(loose, "this run: llm+fallback,bayes (preset ours)")
    base = row(loose, "llm,bayes without LLM (baseline) (preset ours)")
    assert ours[-10:] == base[-10:] and ours[-1] == "0"  # the same figures, and the label says why
    lines = loose.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("agents") and "effective %" in ln)
    cells = dict(zip(re.split(r"\s{2,}", lines[at].strip()), re.split(r"\s{2,}", lines[at + 2].strip())))
    assert (cells["seat"], cells["use"]) == ("alice", "turn")
    assert (cells["valid %"], cells["effective %"], cells["fallback %"]) == ("0.0", "0.0", "100.0")
    bad = row(strict, "this run: llm,bayes (preset ours)")
    assert bad[-10] == "0" and bad[-1] == "3" and set(bad[-9:-1]) == {"-"}  # n 0, every mean blank, 3 invalid
