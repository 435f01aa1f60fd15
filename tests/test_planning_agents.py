"""DialOp Planning agents: reading plain English with typos, the planner's belief and exact search, the simulated
user's own wording (never its private preference texts), games that finish without stalls, and the `llm` brain
(search tool through the real query engine, a repair round, a visible fallback, the CLI's refusal without an LLM)."""
from __future__ import annotations

import pytest

from bots.local import main
from tasks.core.evaluation import play_game
from tasks import get_task
from tasks.planning import generator
from tasks.planning.brains import language
from tasks.planning.brains.belief import Belief

SPEC = get_task("planning")
SITES = generator.generate(0)["sites"]


def _read(text):
    return [(m.kind, m.key, m.good, m.bad, m.budget, m.sites, m.etype, m.strength) for m in language.read(text, SITES)]


@pytest.mark.parametrize("text,want", [
    ("I'm vegetarian", ("feature", "vegetarian options", [True])),
    ("i'm vegitarian tbh", ("feature", "vegetarian options", [True])),
    ("i dont eat meat", ("feature", "vegetarian options", [True])),
    ("I am looking for places for big groups without live music", ("feature", "live music", [False])),
    ("I am looking for places for big groups without live music", ("feature", "good for groups", [True])),
    ("I hate that restaurant since it has no Vegan options", ("feature", "vegan options", [True])),
    ("no live music, too loud", ("feature", "live music", [False])),
    ("we're travelling with kids", ("feature", "good for kids", [True])),
    ("a must: only hidden spots and no tourist traps", ("feature", "touristy", [False])),
    ("i love thai food but no korean", ("feature", "cuisine", ["thai"])),
])
def test_features_in_plain_english(text, want):
    got = [(k, key, good) for k, key, good, *_ in _read(text)]
    assert want in got, got


def test_budget_sites_types_distance_and_strength():
    assert ("budget", 50) in [(k, b) for k, _, _, _, b, *_ in _read("nothing over $50 please")]
    assert ("budget", 40) in [(k, b) for k, _, _, _, b, *_ in _read("i'm on a tight budget")]
    assert ("at_least_one", [False], "museum") in [(k, g, t) for k, _, g, _, _, _, t, _ in _read("can we skip the museum")]
    name = SITES[3]["name"]
    wants = [s for k, *_, s, _, _ in _read(f"my friend said {name} is great") if k == "want_to_go"]
    assert wants == [[name]]
    typo = name[:-2] + name[-1] + name[-2] if len(name) > 8 else name
    assert [name] in [s for k, *_, s, _, _ in _read(f"heard {typo} is nice")]
    assert any(k == "at_least_one" and t == "museum" for k, *_, t, _ in _read("want to see at least one museum"))
    assert any(k == "distance" and st >= 5 for k, *_, st in _read("that's too far"))
    assert any(k == "distance" and st <= 3 for k, *_, st in _read("i don't mind travel at all"))
    strong = [st for *_, st in _read("vegan food is a must for me")]
    weak = [st for *_, st in _read("vegan food would be nice, not a big deal")]
    assert max(strong) > 8 and max(weak) < 4
    assert language.enough("nah that's it, you choose") and not language.enough("i like parks")


def test_a_site_named_in_a_complaint_is_avoided():
    name = SITES[5]["name"]
    b = Belief(SITES, {"distance": "haversine"})
    b.learn(language.read(f"not {name}, i hate that place", SITES))
    b.learn(language.read(f"{name} is bad for me: i really want wifi", SITES))
    wishes = [p for p in b.prefs.values() if p["kind"] == "want_to_go"]
    assert wishes and all(p["weight"] < 0 for p in wishes)
    assert 5 not in b.best()


def test_belief_best_is_the_exact_optimum_when_the_belief_is_the_truth():
    inst = generator.generate(11)
    b = Belief(inst["sites"], inst["rules"])
    b.prefs = {(i,): dict(p) for i, p in enumerate(inst["prefs"])}
    assert b.explain(b.best())["total"] == inst["best"]
    first = b.best()
    assert b.best(exclude={tuple(first)}) != first


@pytest.mark.parametrize("turns", ["alternate", "free"])
def test_planner_and_simuser_finish_with_a_good_itinerary(turns):
    norms = []
    for seed in range(6):
        rec = play_game(SPEC, seed, {"user": "simuser", "assistant": "planner"}, {"turns": turns})
        assert rec.results["status"] == "completed" and rec.results["proposals"] >= 1
        norms.append(rec.results["normalized_score"])
    assert sum(norms) / len(norms) > 0.85


def test_the_simulated_user_never_says_its_preference_texts():
    for seed in range(5):
        shown = []
        rec = play_game(SPEC, seed, {"user": "simuser", "assistant": "planner"}, {"turns": "alternate"},
                        show=shown.append)
        descs = [p["desc"] for p in SPEC.generate(seed, {})["prefs"]]
        said = [line for line in shown if line.startswith("User:")]
        assert said and not any(d in line for d in descs for line in said), rec.log_path


class ScriptedLLM:
    def __init__(self, answers):
        self.answers, self.prompts = list(answers), []

    def chat_json(self, messages, schema, usage=None, **kw):
        self.prompts.append(messages)
        if usage is not None:
            usage["calls"] += 1
        if not self.answers:
            raise RuntimeError("script exhausted")
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a


def test_llm_assistant_thinks_searches_and_proposes():
    inst = SPEC.generate(4, {})
    best = ", ".join(inst["sites"][i]["name"] for i in inst["best_itinerary"])
    llm = ScriptedLLM([{"act": "think", "text": "find cafes first"},
                       {"act": "search", "query": "type == cafe, sort_by=price, limit=2"},
                       {"act": "propose", "itinerary": "Nowhere, Nothing, Nobody"},   # refused by the game
                       {"act": "propose", "itinerary": best}])
    rec = play_game(SPEC, 4, {"user": "simuser", "assistant": "llm"}, {"turns": "free"}, llm=llm)
    assert rec.results["status"] == "completed" and rec.results["searches"] == 1
    prompts = ["\n".join(m["content"] for m in p) for p in llm.prompts]
    assert "[think] find cafes first" in prompts[1] and "Search Results (5)" in prompts[2]
    assert "No site called" in prompts[3]
    assert not any(a.get("fallback") for a in rec.llm_acts[:3])  # later acts (script exhausted) may fall back


def test_a_failing_llm_falls_back_visibly_on_either_seat():
    llm = ScriptedLLM([RuntimeError("model down")] * 200)
    rec = play_game(SPEC, 5, {"user": "llm", "assistant": "llm"}, {"turns": "alternate"}, llm=llm)
    assert rec.results["status"] == "completed"
    seats = {a["seat"] for a in rec.llm_acts if a.get("fallback")}
    assert seats == {"user", "assistant"}


def test_cli_refuses_llm_agents_without_an_llm(monkeypatch):
    for var in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit, match="needs an LLM"):
        main(["planning", "--agents", "simuser,llm"])



def test_a_reject_that_comes_before_its_reason_gets_a_new_plan_with_a_question_then_another():
    """A person clicks Reject (and may never type why): the planner proposes the next plan at once and asks what to
    change beside it (never waiting on its question, issue 30); the reason, when it comes, brings another plan."""
    from tasks.core import Chat, Command, Join, MatchDriver, SeatInfo, TimerConfig, build_match
    seats = {"user": SeatInfo("person", "user"), "assistant": SeatInfo("agent", "assistant", "planner")}
    match, brains = build_match(SPEC, 2, seats, options={"turns": "free"},
                                timers=TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None))
    driver = MatchDriver(match, brains, clock=lambda: 1.0)
    list(driver.open())

    def moves(inp):
        out = []
        for batch in driver.feed(inp):
            out += [e for e in batch if type(e).__name__ == "LogEvent" and e.event == "game_input"
                    and e.data["input"].get("seat") == "assistant"]
        return [e.data["input"] for e in out]

    moves(Join("user", 1.0))
    first = moves(Chat("user", "i love parks and vegan food, that's all, you choose", t=1.0))
    assert any(m.get("name") == "propose" for m in first), first
    asked = moves(Command("user", "reject", (), t=1.0))
    assert any(m.get("name") == "propose" for m in asked), asked
    assert any("change" in (m.get("text") or "") and "?" in m["text"] for m in asked), asked
    again = moves(Chat("user", "that's way too far, places close together please", t=1.0))
    # a plan that heeds it, or (when the open plan already does) a line saying so: the reason is never ignored
    assert [m for m in again if m.get("name") == "propose" or "heeds" in (m.get("text") or "")], again
