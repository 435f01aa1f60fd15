"""The negotiation-games agents: the workflow agent against a person typing plain English (it agrees to a PO-NE,
keeps its word, concedes rather than miscoordinates, and never leaves a dominant strategy for cheap talk), the
baselines, and the paper's prompted `llm` baseline through a scripted model and the fake OpenAI server (bounded
retries, the halt that fires, visible fallback)."""
from __future__ import annotations

import pytest

from bots import local
from tasks.core import evaluation
from bots.llm import LLMClient, LLMConfig
from bots.local import main
from tasks.core.evaluation import LOCAL_TIMERS, play_game
from tasks import get_task
from tasks.core import Chat, ChatShown, Command, Join, MatchDriver, SeatInfo, build_match
from tests.fake_openai import FakeOpenAI

SPEC = get_task("matrix-games")


class Room:
    """A person in `person` and an agent in the other seat, driven as the local runtime does."""

    def __init__(self, person: str, agent: str = "workflow", **options):
        seats = {s: SeatInfo("person", s.title()) if s == person else SeatInfo("agent", s.title(), agent)
                 for s in SPEC.seats}
        self.match, brains = build_match(SPEC, 4, seats, options=options, timers=LOCAL_TIMERS)
        self.driver = MatchDriver(self.match, brains, clock=lambda: 1.0)
        self.person = person
        self.effects = [e for b in self.driver.open() for e in b]
        self.effects += [e for b in self.driver.feed(Join(person, t=1.0)) for e in b]

    def send(self, inp) -> list:
        out = [e for b in self.driver.feed(inp) for e in b]
        self.effects += out
        return out

    def say(self, text):
        return self.send(Chat(self.person, text, t=1.0))

    def cmd(self, name, *args):
        return self.send(Command(self.person, name, args, t=1.0))

    def agent_lines(self) -> list[str]:
        return [e.text for e in self.effects if isinstance(e, ChatShown) and e.seat != self.person]


def test_lets_both_go_stag_is_read_and_agreed():
    room = Room("alice", game="stag-hunt", negotiation=3)
    room.say("let's both go stag")
    assert "Deal" in room.agent_lines()[-1] and "Stag" in room.agent_lines()[-1]
    room.cmd("halt")
    room.cmd("move", "stag")
    assert room.match.results["outcome"] == {"alice": "Stag", "bob": "Stag"} and room.match.results["po_ne"]


def test_football_if_you_come_next_time_is_accepted_and_kept():
    room = Room("bob", game="battle-of-sexes", negotiation=2, first="bob")
    room.say("I'll take football if you come next time")
    assert "Deal" in room.agent_lines()[-1] and "Football" in room.agent_lines()[-1]
    room.cmd("halt")
    assert room.match.game.stage == "move"
    room.cmd("move", "football")
    assert room.match.results["outcome"] == {"alice": "Football", "bob": "Football"}


def test_the_agent_keeps_its_word_after_the_partner_agreed():
    room = Room("bob", game="battle-of-sexes", negotiation=2)  # the agent (Alice) speaks first
    first = room.agent_lines()[0]
    assert "I play Opera and you play Opera" in first
    room.say("ok, deal")
    room.cmd("halt")
    room.cmd("move", "opera")
    assert room.match.results["outcome"] == {"alice": "Opera", "bob": "Opera"}


def test_a_refused_proposal_makes_it_concede_rather_than_miss_the_partner():
    room = Room("bob", game="battle-of-sexes", negotiation=3)
    room.say("nope, i dont like that")
    assert "your way" in room.agent_lines()[-1] and "Football" in room.agent_lines()[-1]
    room.say("great")
    room.cmd("halt")
    room.cmd("move", "football")
    assert room.match.results["outcome"] == {"alice": "Football", "bob": "Football"}
    room = Room("bob", game="battle-of-sexes", negotiation=3)
    room.say("no, I want football")  # a counter-proposal that is a PO-NE: agreed at once
    assert "Deal: I play Football and you play Football" in room.agent_lines()[-1]


def test_cheap_talk_never_moves_it_off_a_dominant_strategy():
    room = Room("alice", game="prisoners-dilemma", negotiation=2)
    room.say("let's both cooperate, I promise I will!")
    assert "Defect is my best move" in room.agent_lines()[-1]
    room.say("please, trust me, cooperate")
    room.cmd("halt")
    room.cmd("move", "cooperate")
    assert room.match.results["outcome"] == {"alice": "Cooperate", "bob": "Defect"}


def test_you_wait_i_go_and_you_choose_get_concrete_answers_without_stalling():
    room = Room("alice", game="wait-go", negotiation=3)
    room.say("you wait, I go")
    assert "I play Wait and you play Go" in room.agent_lines()[-1]
    room.cmd("halt")
    room.cmd("move", "go")
    assert room.match.results["outcome"] == {"alice": "Go", "bob": "Wait"}
    room = Room("alice", game="battle-of-sexes", negotiation=2)
    room.say("you choose")
    line = room.agent_lines()[-1]
    assert "I play" in line and "you play" in line  # a concrete proposal, once per turn
    assert len(room.agent_lines()) == 1


def test_a_sequential_promise_that_is_not_credible_is_declined():
    room = Room("alice", game="trigame", negotiation=1)
    room.say("I play choice_1, then you play choice_1 and I give you a good deal")
    assert "not credible" in room.agent_lines()[-1]
    room.cmd("halt")
    room.cmd("move", "choice_1")
    # off the path the agent still best-responds: after choice_1 Bob plays choice_2 (4 > 3)
    room.cmd("halt")
    assert room.match.game.path == ["choice_1", "choice_2"]


@pytest.mark.parametrize("agent", ["random", "always-first"])
def test_the_baselines_finish_every_game(agent):
    for game in ("duopoly", "trigame"):
        rec = play_game(SPEC, 2, {"alice": agent, "bob": "workflow"}, {"game": game, "negotiation": 2})
        assert rec.results["status"] == "completed"
    rec = play_game(SPEC, 2, {"alice": "always-first", "bob": "always-first"}, {"game": "duopoly"})
    assert rec.results["outcome"] == {"alice": "Q1", "bob": "Q1"}


class ScriptedLLM:
    def __init__(self, answers):
        self.answers = list(answers)
        self.prompts = []

    def chat(self, messages, usage=None, **kw):
        self.prompts.append(messages)
        if usage is not None:
            usage["calls"] += 1
            usage["prompt_tokens"] += 10
        a = self.answers.pop(0) if self.answers else RuntimeError("script exhausted")
        if isinstance(a, Exception):
            raise a
        return a


def test_llm_baseline_prompt_tags_retries_and_a_halt_that_fires():
    llm = ScriptedLLM(["Let me think. <s>Let's both hunt the stag.</s>",
                       "Bob agreed. <s>halt negotiation</s>",
                       "I think... Stag is best.",            # no tag: retried
                       "<s>Stag</s>"])
    rec = play_game(SPEC, 1, {"alice": "llm", "bob": "workflow"}, {"game": "stag-hunt", "negotiation": 4}, llm=llm)
    r = rec.results
    assert r["status"] == "completed" and r["halts"] == 1 and r["messages"] == 2
    assert r["outcome"] == {"alice": "Stag", "bob": "Stag"}
    system, user = llm.prompts[0]
    assert system["content"].startswith("Play the game below as a rational player")  # our wording, not the paper's
    assert "### Points" in user["content"] and "- You pick Stag, Bob picks Hare: you get 0, Bob gets 1." \
        in user["content"]
    assert "<s>halt negotiation</s>" in user["content"]
    assert "Bob said in round 1" in llm.prompts[1][1]["content"]
    assert not any(a["fallback"] for a in rec.llm_acts) and len(rec.llm_acts) == 3


def test_llm_baseline_falls_back_visibly_after_bounded_retries():
    llm = ScriptedLLM(["no tags at all"] * 3 + [RuntimeError("model down")] * 20)
    agents = {"alice": "llm", "bob": "workflow"}
    rec = play_game(SPEC, 1, agents, {"game": "prisoners-dilemma"}, llm=llm)
    assert rec.results["status"] == "completed" and rec.results["outcome"]["alice"] == "Defect"
    assert len(llm.prompts) == 3  # three tries, then the fallback
    assert evaluation.agent_label(SPEC, agents, [rec]) == "llm+fallback,workflow"


def test_llm_baseline_through_the_fake_openai_server():
    with FakeOpenAI(default=lambda req: "Backward induction says... <s>choice_2</s>") as fake:
        cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            rec = play_game(SPEC, 1, {"alice": "llm", "bob": "workflow"}, {"game": "monopoly"}, llm=llm)
        assert fake.requests and "decide in turn" in fake.requests[0]["json"]["messages"][1]["content"]
    assert rec.results["outcome"] == ["choice_2", "choice_1"] and rec.results["tokens"] > 0


def test_cli_refuses_the_llm_agent_without_an_llm(monkeypatch):
    for var in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit, match="needs an LLM"):
        main(["matrix-games", "--agents", "llm,workflow"])


class RespondingLLM(ScriptedLLM):
    """Answers by what the prompt asks (the last instruction section)."""

    def __init__(self, respond):
        super().__init__([])
        self.respond = respond

    def chat(self, messages, usage=None, **kw):
        self.prompts.append(messages)
        if usage is not None:
            usage["calls"] += 1
        return self.respond(messages[-1]["content"])


def _last_section(prompt: str) -> str:
    return prompt.rsplit("### ", 1)[-1]


def test_llm_workflow_builds_the_chains_summarises_and_prepends_the_strategy():
    def respond(prompt):
        ask = _last_section(prompt)
        if ask.startswith("Summing Up the Chains"):
            return "<s>Always defect: it is best whatever Bob does.</s>"
        if ask.startswith("Negotiation"):
            return "<s>halt negotiation</s>"
        if ask.startswith("Their Reply to Your Option") and "pick Cooperate." in ask:
            return "<r>he gains more</r> <s>banana</s>"  # unusable every time: the solver fills this step
        return "<r>5 > 3 and 1 > 0</r><s>Defect</s>"
    llm = RespondingLLM(respond)
    agents = {"alice": "llm-workflow", "bob": "workflow"}
    rec = play_game(SPEC, 1, agents, {"game": "prisoners-dilemma", "negotiation": 2}, llm=llm)
    assert rec.results["outcome"] == {"alice": "Defect", "bob": "Defect"} and rec.results["halts"] == 1
    asks = [_last_section(m[-1]["content"]).split("\n")[0] for m in llm.prompts]
    assert asks.count("Their Reply to Your Option") == 2 + 2  # 3 tries for the broken one
    assert asks.count("Your Reply to Their Option") == 2
    assert asks.count("Summing Up the Chains") == 1
    action_prompt = next(m[-1]["content"] for m in llm.prompts
                         if _last_section(m[-1]["content"]).startswith("Your Action"))
    assert "### Your Plan\nAlways defect" in action_prompt
    assert "If I choose Cooperate, then Bob will choose Defect." in action_prompt  # the solver's fill-in
    fallbacks = [a for a in rec.llm_acts if a["fallback"]]
    assert len(fallbacks) == 1 and fallbacks[0]["use"].startswith("chain:")
    assert evaluation.agent_label(SPEC, agents, [rec]) == "llm-workflow+fallback,workflow"


def test_llm_workflow_walks_a_tree_backwards():
    seen = []

    def respond(prompt):
        ask = _last_section(prompt)
        if ask.startswith("A Decision Along the Way"):
            seen.append(ask.split("\n")[1])
            return "<s>choice_2</s>" if "Nothing has been played" in ask else "<s>choice_1</s>"
        return "<s>a plan</s>" if ask.startswith("Summing Up") else "<s>choice_2</s>"
    rec = play_game(SPEC, 1, {"alice": "llm-workflow", "bob": "workflow"}, {"game": "monopoly"},
                    llm=RespondingLLM(respond))
    assert len(seen) == 2 and "Nothing has been played yet" in seen[-1]  # the deepest node first, the root last
    assert rec.results["outcome"] == ["choice_2", "choice_1"]


def test_the_agent_agrees_to_stop_when_the_person_halts_and_does_not_repeat_itself():
    room = Room("alice", game="battle-of-sexes", negotiation=3)
    room.cmd("halt")  # before saying anything: the agent does not keep the person talking
    assert room.match.game.stage == "move"
    room = Room("alice", game="trigame", negotiation=3)
    room.say("hi")
    room.say("hello again")
    lines = room.agent_lines()
    assert len(lines) == 2 and not lines[1].startswith("As I said:") and len(lines[1]) < len(lines[0])  # issue 30
    assert room.match.game.view("alice")["negotiation"]["halt_asked"]["partner"]  # asked again after talking


def test_the_paper_table_shows_llm_fallbacks_honestly(tmp_path, capsys, monkeypatch):
    failing = ScriptedLLM([RuntimeError("model down")] * 100)
    monkeypatch.setattr(local, "make_llm", lambda config: failing)
    assert main(["matrix-games", "--trials", "1", "--negotiation", "0", "--game", "stag-hunt",
                 "--agents", "workflow,llm", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "agents workflow,llm+fallback" in out and "LLM acts per seat and use" in out
    assert "equilibrium (Alice, Bob)" in out and "(3, 3)" in out


@pytest.mark.parametrize("text, labels, mine, theirs", [
    ("let's both go stag", ["Stag", "Hare"], "Stag", "Stag"),
    ("we both hunt the STAG", ["Stag", "Hare"], "Stag", "Stag"),
    ("I'll take football if you come next time", ["Opera", "Football"], "Football", "Football"),
    ("you wait, I go", ["Wait", "Go"], "Wait", "Go"),
    ("i will defect, you should cooperate", ["Cooperate", "Defect"], "Cooperate", "Defect"),
    ("how about choice 2?", ["choice_1", "choice_2"], "choice_2", "choice_2"),
    ("lets do operaa", ["Opera", "Football"], "Opera", "Opera"),
    ("i wont go stag", ["Stag", "Hare"], None, None),
])
def test_plain_english_about_moves(text, labels, mine, theirs):
    from tasks.matrix_games.parse import read_talk
    talk = read_talk(text, labels, labels)
    assert (talk.mine, talk.theirs) == (mine, theirs)


@pytest.mark.parametrize("typed, labels, label", [
    ("defect", ["Cooperate", "Defect"], "Defect"), ("2", ["Cooperate", "Defect"], "Defect"),
    ("second", ["Cooperate", "Defect"], "Defect"), ("Go", ["Wait", "Go"], "Go"), ("go", ["Wait", "Go"], "Go"),
    ("q3", ["Q1", "Q2", "Q3"], "Q3"), ("footbal", ["Opera", "Football"], "Football"),
    ("choice 2", ["choice_1", "choice_2"], "choice_2"), ("I choose stag", ["Stag", "Hare"], "Stag"),
])
def test_typed_moves_are_forgiving(typed, labels, label):
    from tasks.matrix_games.parse import parse_action
    assert parse_action(typed, labels) == label
