"""The travel agents: the rule-based chat reader, the solver brain's behaviour, and the four LLM brains against a
scripted fake LLM."""
from __future__ import annotations

import pytest

from tasks.core import Command, LogEvent, input_from_json
from tasks.travel.board import edge
from tasks.travel.brains import BRAINS, LLMBrain, SolverBrain
from tasks.travel.brains.reader import read
from tasks.travel.brains.solver_brain import Knowledge, read_with_llm
from tasks.travel.generator import PRESET_BOARDS
from tasks.travel.spec import SPEC

from .test_travel_game import OPT, OPT2, OTHER, Room, over

HUMAN_ROOMS = ["L", "K", "B", "A", "G", "P"]
BOARD = PRESET_BOARDS[0]


def moves(effects, seat=None):
    """The commands and chat lines the seats sent, in order, as ("/name args" | "chat text")."""
    out = []
    for e in effects:
        if isinstance(e, LogEvent) and e.event == "game_input":
            inp = input_from_json(e.data["input"])
            if seat and getattr(inp, "seat", None) != seat:
                continue
            if isinstance(inp, Command):
                out.append(("/" + inp.name + " " + " ".join(inp.args)).strip())
            elif hasattr(inp, "text"):
                out.append("chat " + inp.text)
    return out


def notes(effects):
    return [e.data for e in effects if isinstance(e, LogEvent) and e.event == "agent_note"]


# ----------------------------------------------------------------------------------------------------------------
# reader


@pytest.mark.parametrize("text, coins", [
    ("L-K is 5", {("K", "L"): 5}),
    ("the hallway between the kitchen and the attic has 7 coins", {("A", "K"): 7}),
    ("K to B: 3", {("B", "K"): 3}),
    ("I have 5 coins on L-K and 3 on K-B", {("K", "L"): 5, ("B", "K"): 3}),
    ("L-K 5, K-B 3, B-A 7", {("K", "L"): 5, ("B", "K"): 3, ("A", "B"): 7}),
    ("between living room and garden I have eight coins", {("G", "L"): 8}),
    ("LK: 4, KB 2", {("K", "L"): 4, ("B", "K"): 2}),
    ("we have 9 together on L-K", {}),           # joint amounts are not the speaker's own coins
    ("L-K is 50", {}),                          # outside the coin range
])
def test_reader_coin_statements(text, coins):
    assert read(text, HUMAN_ROOMS, 1, 10).coins == coins


def test_reader_questions_yes_no_paths_and_caps():
    r = read("What are your coins on L-K and between the bathroom and the attic?", HUMAN_ROOMS)
    assert r.question and r.asks == [("K", "L"), ("A", "B")] and not r.coins
    r = read("how many coins do you have from the kitchen?", HUMAN_ROOMS)
    assert set(r.asks) == {edge("K", x) for x in HUMAN_ROOMS if x != "K"}
    assert read("Could you share all your coins?", HUMAN_ROOMS).ask_all
    assert read("ok, sounds good", HUMAN_ROOMS).yes and not read("ok, sounds good", HUMAN_ROOMS).no
    r = read("No, I don't agree", HUMAN_ROOMS)
    assert r.no and not r.yes
    assert read("let's go L K B A G P L", HUMAN_ROOMS).path == ["L", "K", "B", "A", "G", "P", "L"]
    assert read("how about living room, kitchen, attic", HUMAN_ROOMS).path == ["L", "K", "A"]
    assert read("I think we should go to the garden next", HUMAN_ROOMS).path == ["G"]
    assert read("Each of my other hallways has at most 5 coins.", HUMAN_ROOMS).cap == 5
    assert read("all the rest are below 4", HUMAN_ROOMS).cap == 3
    r = read("A good start is L-K: 9", HUMAN_ROOMS)  # the article "A" is no attic
    assert r.coins == {("K", "L"): 9} and "A" not in r.rooms


def test_reader_understands_the_solver_brains_own_lines():
    from tasks.travel.brains import templates as T
    assert read(T.ask(["K-L", "A-B", "C-E"]), list("LEBKCA")).asks == [("K", "L"), ("A", "B"), ("C", "E")]
    assert read(T.opening_cap(6, 5), HUMAN_ROOMS).cap == 5
    assert read(T.ask_all(), HUMAN_ROOMS).ask_all


# ----------------------------------------------------------------------------------------------------------------
# solver brain


def test_knowledge_estimates_unknown_partner_coins_from_the_budget():
    room = Room()
    k = Knowledge(room.view("light"))
    assert k.budget == (1 + 6) * 15 // 2 == 52
    est = k.estimates()
    assert all(abs(w - 52 / 15) < 1e-9 for w in est.values())
    k.learn(edge("L", "K"), 6)
    k.learn(edge("L", "E"), 6)
    k.apply_cap(3)  # "my other hallways have at most 3"
    est = k.estimates()
    assert edge("L", "K") not in est and len(est) == 13
    assert all(w <= 3 for w in est.values()) and abs(sum(est.values()) - min(40, 3 * 13)) < 1e-9
    w = k.weights("adv", against={edge("L", "E")})
    assert w[edge("L", "E")] == BOARD.own("light", ("L", "E")) + 6  # known exactly
    assert w[edge("B", "E")] == BOARD.own("light", ("B", "E")) + 3 and w[edge("A", "C")] == 1 + 3


def test_light_opens_by_sharing_its_rich_hallways_and_a_cap():
    room = Room(brains={"light": SolverBrain("light", 0)})
    sent = moves(room.effects, "light")
    rich = sorted(f"{u}-{v}" for (u, v), w in BOARD.weights["light"].items() if w >= 4)
    assert sent[0].startswith("/share ") and sorted(sent[0][7:].split(",")) == rich
    assert "at most 3 coins" in sent[1]
    assert not any(m.startswith("/propose") for m in sent)  # nothing is known about the partner yet
    assert sorted(room.view("ghost")["partner_coins"]) == rich


def test_ghost_waits_for_light_and_answers_a_question_with_share():
    room = Room(brains={"ghost": SolverBrain("ghost", 0)})
    assert moves(room.effects, "ghost") == []  # light moves first
    out = room.chat("light", "What are your coins on L-K and between the bathroom and the attic?")
    shared = room.view("light")["partner_coins"]
    assert shared["K-L"] == BOARD.own("ghost", ("L", "K")) and shared["A-B"] == BOARD.own("ghost", ("A", "B"))
    assert moves(out, "ghost")[0].startswith("/share")


def test_solver_agrees_to_the_optimal_tour_and_submits():
    room = Room(brains={"ghost": SolverBrain("ghost", 0)})
    room.cmd("light", "share", "all")
    out = room.cmd("light", "propose", *OPT2)
    assert "/agree" in moves(out, "ghost") and "/submit" in moves(out, "ghost")
    end = over(room.cmd("light", "submit"))
    assert end.status == "completed" and end.results["optimal"]


def test_solver_counters_a_worse_tour_and_accepts_a_backtrack():
    room = Room(brains={"ghost": SolverBrain("ghost", 0)})
    room.cmd("light", "share", "all")
    out = room.cmd("light", "propose", *OTHER)
    sent = moves(out, "ghost")
    assert any(m.startswith("/propose") for m in sent)
    assert room.view("light")["pending"]["by"] == "ghost"
    assert BOARD.score(room.view("light")["pending"]["path"]) == 52
    assert any("I would rather take" in m for m in sent)
    # a backtrack to an earlier agreed room is accepted
    room2 = Room(brains={"ghost": SolverBrain("ghost", 0)})
    room2.cmd("ghost", "propose", "E", "K", "C")  # the brain does not answer its own seat's moves
    room2.cmd("light", "agree")
    out = room2.cmd("light", "undo")
    assert "/agree" in moves(out, "ghost") and room2.view("light")["agreed"] == ["L", "E", "K"]


def test_solver_answers_a_premature_submit():
    room = Room(brains={"ghost": SolverBrain("ghost", 0)})
    room.cmd("light", "share", "all")
    end = over(room.cmd("light", "submit", *OPT[::-1]))  # optimal: the brain submits the same tour
    assert end and end.status == "completed" and end.results["optimal"]
    room = Room(brains={"ghost": SolverBrain("ghost", 0)})
    room.cmd("light", "share", "all")
    out = room.cmd("light", "submit", *OTHER)  # worse: the brain explains and proposes the best tour
    assert not over(out)
    assert any("before we agreed" in m for m in moves(out, "ghost"))
    room.cmd("light", "agree")
    assert over(room.cmd("light", "submit")).results["optimal"]


def test_solver_talks_to_people_yes_and_chat_suggestions():
    room = Room(brains={"ghost": SolverBrain("ghost", 0)})
    room.cmd("light", "share", "all")
    room.chat("light", "hi")
    assert room.view("light")["pending"]["by"] == "ghost"
    out = room.chat("light", "yes")
    assert any("/agree" in m for m in moves(out, "ghost"))  # tells the person to press Agree
    room.cmd("light", "reject")
    out = room.chat("light", "let's go L E K C B A L")
    pending = {k: v for k, v in room.view("light")["pending"].items() if k != "id"}
    assert pending == {"by": "ghost", "mine": False, "path": ["L", "E", "K", "C", "B", "A", "L"], "kind": "tour"}
    assert any("Good idea" in m for m in moves(out, "ghost"))


def test_share_all_policy_shares_everything_in_the_opening():
    room = Room(brains={"light": SolverBrain("light", 0, None, {"share_policy": "all"})})
    assert len(room.view("ghost")["partner_coins"]) == 15


def test_solver_reads_chat_with_an_llm_when_configured():
    llm = FakeLLM([], readings=[{"coins": [{"hallway": ["K", "L"], "coins": 4}], "asks": [["A", "B"]],
                                 "ask_all": False, "cap": None, "path": None, "yes": False, "no": False,
                                 "question": True}])
    usage = {}
    r = read_with_llm(llm, "L-K has 4 for me, what about A-B?", list("LEBKCA"), 1, 6, usage)
    assert r.coins == {("K", "L"): 4} and r.asks == [("A", "B")]
    assert usage["prompt_tokens"] == 10 and usage["completion_tokens"] == 5
    room = Room(brains={"ghost": SolverBrain("ghost", 0, FakeLLM([]))})  # a failing LLM: the rules read it
    room.chat("light", "What are your coins on L-K?")
    assert "K-L" in room.view("light")["partner_coins"]
    assert any(n["kind"] == "llm_fallback" for n in notes(room.effects))


# ----------------------------------------------------------------------------------------------------------------
# LLM brains with a scripted fake LLM


class FakeLLMError(Exception):
    pass


class FakeUsage:
    prompt_tokens = 10
    completion_tokens = 5
    calls = 1
    failures = 0


class FakeLLM:
    """Answers chat_json with canned objects: action answers in order, grounding answers from `grounding`."""

    def __init__(self, answers, grounding=None, fail=False, readings=None):
        self.answers = list(answers)
        self.grounding = list(grounding or [])
        self.readings = list(readings or [])
        self.fail = fail
        self.calls = []

    def chat(self, messages, usage=None):
        raise FakeLLMError("chat is not used")

    def chat_json(self, messages, schema, usage=None, **sampling):
        self.calls.append((messages, schema))
        if usage is not None:
            usage.add(FakeUsage())
        if self.fail:
            raise FakeLLMError("model unavailable")
        props = schema["properties"]
        queue = self.answers if "actions" in props else self.readings if "ask_all" in props else self.grounding
        if not queue:
            raise FakeLLMError("no canned answer left")
        return queue.pop(0)


def answer(*actions, message="", thought="ok"):
    return {"thought": thought, "actions": [{"type": t, "args": a} for t, a in actions], "message": message}


@pytest.mark.parametrize("name", ["baseline", "grounding", "state-tracking", "problem-solving"])
def test_llm_brains_map_actions_onto_commands(name):
    llm = FakeLLM([
        answer(("inform", [["L", "E"], ["E", "L"]]), ("suggest", ["L", "E"]), ("agree-inner", ["L", "E"]),
               message="I have 5 coins between L and E. Shall we go there?"),
    ], grounding=[{"thought": "", "coins": []}])
    room = Room(brains={"light": SPEC.make_brain(name, "light", 0, llm)})
    sent = moves(room.effects, "light")
    assert sent == ["/share E-L", "chat I have 5 coins between L and E. Shall we go there?", "/propose L E"]
    assert room.view("ghost")["pending"]["path"] == ["L", "E"]
    brain = room.driver.brains["light"]
    assert brain.usage["prompt_tokens"] == 10 and brain.usage["completion_tokens"] == 5
    system = llm.calls[0][0][0]["content"]
    user = llm.calls[0][0][-1]["content"]
    # stable prefix (the default): the own coins, which never change, are stated once, in the system prompt
    assert "light world" in system and "[World-state-own]" in system and "[World-state-own]" not in user
    assert ("[History]" in user) == (name in ("baseline", "grounding"))
    assert ("[World-state-partner]" in user) == (name != "baseline")
    assert ("[Visited]" in user and "[Remaining]" in user) == (name in ("state-tracking", "problem-solving"))
    assert ("[IBP]" in user) == (name == "problem-solving")


def test_llm_brain_agrees_and_ends_with_a_submit():
    llm = FakeLLM([answer(("agree-inner", [OPT]), ("visit", ["A"]), ("end", [OPT]), message="Deal!")])
    room = Room(brains={"ghost": BRAINS["baseline"]("ghost", 0, llm)})
    out = room.cmd("light", "propose", *OPT)
    assert moves(out, "ghost") == ["chat Deal!", "/agree", "/submit " + " ".join(OPT)]
    assert over(room.cmd("light", "submit")).results["optimal"]


def test_one_bad_action_does_not_drop_the_others():
    llm = FakeLLM([answer(("suggest", ["L", "Z"]), ("inform", [["K", "L", 1]]), ("reject", []),
                          ("end", [["L", "K", "L"]]), ("ask", [["A", "B"]]), ("suggest", ["K", "B"]))])
    room = Room(brains={"ghost": BRAINS["state-tracking"]("ghost", 0, llm)})
    out = room.cmd("light", "propose", "E")
    sent = moves(out, "ghost")
    assert sent == ["/share K-L", "chat What are your coins on A-B?", "/reject", "/propose L K B"]
    bad = [n for n in notes(out) if n["kind"] == "bad_action"]
    assert len(bad) == 2 and "Z" in bad[0]["error"] and "complete tour" in bad[1]["error"]


def test_grounding_module_normalises_hallways_and_keeps_shares_authoritative():
    llm = FakeLLM([answer(message="thanks"), answer(message="ok")],
                  grounding=[{"thought": "", "coins": [{"hallway": ["K", "L"], "coins": 4},
                                                       {"hallway": ["B", "E"], "coins": 2},
                                                       {"hallway": ["E", "B"], "coins": 3},
                                                       {"hallway": ["L", "Q"], "coins": 3},
                                                       {"hallway": ["A", "C"], "coins": 60}]}])
    room = Room(brains={"ghost": BRAINS["grounding"]("ghost", 0, llm)})
    room.chat("light", "I have 4 on K-L and 2 on B-E, I mean E-B is 3")
    brain = room.driver.brains["ghost"]
    assert brain.partner_ws == {("K", "L"): 4, ("B", "E"): 3}
    room.cmd("light", "share", "K-L")
    assert brain.partner_ws[("K", "L")] == BOARD.own("light", ("K", "L"))
    assert "K-L: " + str(BOARD.own("light", ("K", "L"))) in llm.calls[-1][0][-1]["content"]


def test_llm_failure_or_absence_falls_back_to_the_solver_policy():
    llm = FakeLLM([], fail=True)
    room = Room(brains={"light": BRAINS["problem-solving"]("light", 0, llm)})
    kinds = [n for n in notes(room.effects) if n["kind"] == "llm_fallback"]
    assert kinds and "model unavailable" in kinds[0]["error"]
    assert moves(room.effects, "light")[0].startswith("/share")  # the solver's opening
    room = Room(brains={"light": BRAINS["baseline"]("light", 0, None), "ghost": BRAINS["grounding"]("ghost", 1)})
    end = over(room.effects)
    assert end and end.status == "completed" and end.results["optimal"]
    assert any(n["error"] == "no LLM configured" for n in notes(room.effects))


def test_problem_solving_ibp_starts_with_the_agreed_path():
    llm = FakeLLM([answer(message="hm")], grounding=[{"thought": "", "coins": []}])
    room = Room(brains={"ghost": BRAINS["problem-solving"]("ghost", 0, llm)})
    room.cmd("light", "propose", "K")
    room.cmd("ghost", "agree")
    brain = room.driver.brains["ghost"]
    ibp = brain._ibp()
    assert ibp[:2] == ["L", "K"] and len(ibp) == 7 and ibp[-1] == "L"
    assert isinstance(brain, LLMBrain)


def test_visit_of_the_start_room_is_no_agreement_to_the_partners_tour():
    """Issue 31: "visit L" was taken as /agree to the partner's whole tour (which merely ends in L)."""
    llm = FakeLLM([answer(("visit", ["L"]), message="we start in L"), answer(("visit", [OPT[1]]), message="yes")])
    room = Room(brains={"ghost": BRAINS["baseline"]("ghost", 0, llm)})
    out = room.cmd("light", "propose", *OPT)
    assert moves(out, "ghost") == ["chat we start in L"] and room.view("ghost")["pending"]
    out = room.chat("light", "so?")
    assert moves(out, "ghost") == ["chat yes", "/agree"]  # the next room of the tour is an agreement to it


def test_a_repeated_line_or_the_worked_examples_line_is_not_sent_again():
    """Issue 31: an agent copied the worked example's message 7 turns running."""
    from tasks.travel.brains import paper_prompts as P
    copied = P.EXAMPLE_SCRIPT[1]["message"]  # a line of the ghost's worked example
    llm = FakeLLM([answer(("suggest", ["L", "E"]), message="Shall we go to the empty room?"),
                   answer(("reject", []), message="shall we go to the EMPTY room"), answer(message=copied),
                   answer(message="Then B?"), answer(message="Ok."), answer(message="Ok.")])
    # strict: an answer left with no move is not played by the solver (that would hide what was dropped)
    room = Room(rules="paper", brains={"ghost": BRAINS["baseline"]("ghost", 0, llm, {"strict_llm": True})})
    sent = []
    for text in ("hi", "no, B first", "why?", "hm", "so", "well"):
        sent += moves(room.chat("light", text), "ghost")
    assert copied in llm.calls[0][0][0]["content"]  # the example is in the prompt, its line is not sent
    # short answers may recur
    assert sent == ["chat Shall we go to the empty room?", "/propose L E", "chat Then B?", "chat Ok.", "chat Ok."]
    assert [n["why"] for n in notes(room.effects) if n["kind"] == "stale_message"] == ["repeated", "copied"]


@pytest.mark.parametrize("name,sees", [("baseline", False), ("grounding", False), ("state-tracking", True)])
def test_paper_baseline_and_grounding_are_not_told_the_agreed_path(name, sees):
    """The paper's ablation: Baseline and Grounding keep no agreed path, so the game's announcements of it stay out
    of their [Observation]; state-tracking has [Visited] anyway."""
    llm = FakeLLM([answer(("agree-inner", ["L", "B"]), message="B is fine"), answer(message="what next?")],
                  grounding=[{"thought": "", "coins": []}] * 4)
    room = Room(rules="paper", brains={"ghost": BRAINS[name]("ghost", 0, llm)})
    room.cmd("light", "propose", "B")
    assert room.view("ghost")["agreed"] == ["L", "B"]
    room.chat("light", "good")
    user = [m for m, schema in llm.calls if "actions" in schema["properties"]][1][-1]["content"]
    observation = user.split("[Observation]:")[1]
    assert "Partner: good" in observation
    assert ("agreed path" in observation) == sees and ("L-B" in user) == sees
