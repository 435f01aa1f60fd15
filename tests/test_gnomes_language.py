"""The language module: flags from the rule-based reader and an (injected) LLM, templates, inquiry answers."""
import pytest

from tasks.core import ChatShown, View
from tasks.gnomes.brains import language as lang
from tasks.gnomes.brains import AgentBrain
from tasks.gnomes.game import GnomesGame
from tasks.gnomes.maze import DOWN, LEFT, RIGHT, UP


@pytest.mark.parametrize("text, flag", [
    ("Right and then down. First move should be right.", "right"),
    ("Can you move left by one step?", "left"),
    ("Where exactly is the hidden treasure located?", "Inquiry"),
    ("Can you stay put?", "stay"),
    ("Ok.", "Accept"),
    ("Sure.", "Accept"),
    ("I did.", "Accept"),
    ("I cannot, there is a wall in that direction.", "Reject"),
    ("Can you move right?", "right"),
    ("go down please", "down"),
    ("UP", "up"),
    ("wait", "stay"),
    ("no", "Reject"),
    ("blocked", "Reject"),
    ("yes", "Accept"),
    ("all right", "Accept"),
    ("which way?", "Inquiry"),
    ("should I go left?", "Inquiry"),
    ("I moved right", "Accept"),        # describes the writer's own move, not a request
    ("lol", "None"),
    ("", "None"),
    ("   ", "None"),
])
def test_reader_flags(text, flag):
    assert lang.read_flag(text) == flag


def test_reader_keeps_a_reject_and_a_request_from_one_message():
    r = lang.read("There's a wall on the left, can you move down?")
    assert r.flags == ["Reject", "down"] and r.flag == "down" and r.reject_direction == LEFT


def test_reject_template_names_its_direction():
    text = lang.wall_reject(LEFT)
    assert text == "I cannot move left: a wall blocks that side."
    r = lang.read(text)
    assert r.flag == "Reject" and r.reject_direction == LEFT


def test_suggestion_templates_read_back_as_their_flag():
    for a in range(5):
        assert lang.read_flag(lang.suggest(a)) == lang.FLAGS[a]
    assert lang.suggest(RIGHT) == "Can you move right?" and lang.suggest(0) == "Can you stay put?"


def test_treasure_hints():
    text = lang.treasure_direction((0, 0), (4, 3))
    r = lang.read(text)
    assert r.hint == {RIGHT, DOWN} and not r.straight
    r = lang.read(lang.treasure_direction((3, 0), (3, 7)))
    assert r.hint == {DOWN} and r.straight
    assert lang.read(lang.ONLY_YOU_SEE).flag == "Inquiry"  # answered by the partner, never a Reject


def test_wall_lines_round_trip():
    for action, opens in ((DOWN, [0, 8]), (DOWN, []), (RIGHT, [3]), (UP, [1, 2, 5])):
        r = lang.read(lang.wall_line(action, opens))
        assert r.line == (action, tuple(opens)) and r.flag == "None"


class FakeLLM:
    def __init__(self, flag=None, answer="It is to the lower right; mind the walls.", fail=False):
        self.flag, self.answer, self.fail = flag, answer, fail
        self.calls = []

    def chat_json(self, messages, schema, usage=None):
        self.calls.append(("json", messages, schema))
        if self.fail:
            raise RuntimeError("llm down")
        if usage is not None:
            usage["calls"] = usage.get("calls", 0) + 1
        return {"flag": self.flag}

    def chat(self, messages, usage=None):
        self.calls.append(("chat", messages))
        if self.fail:
            raise RuntimeError("llm down")
        return self.answer


def test_llm_flag_classifier_prompt_and_validation():
    llm = FakeLLM(flag="left")
    assert lang.llm_flag(llm, "go the other way, towards the west") == "left"
    kind, messages, schema = llm.calls[0]
    assert schema["properties"]["flag"]["enum"] == list(lang.FLAGS)
    assert "Examples" in messages[1]["content"] and "towards the west" in messages[1]["content"]
    assert lang.llm_flag(FakeLLM(flag="accept"), "k") == "Accept"   # case is forgiven
    with pytest.raises(ValueError):
        lang.llm_flag(FakeLLM(flag="sideways"), "hm")
    assert lang.llm_flag(FakeLLM(flag="left"), "  ") == "None"       # empty chat: no call needed


def _agent_with_view(llm):
    game = GnomesGame(1, {})
    brain = AgentBrain("e", seed=1, llm=llm, options={"iterations": 50})
    game.round = 1
    game.cur = {"turns": 0}
    data = dict(game.view("e"), core={"phase": "playing"})
    brain.observe(View("e", data))
    return brain


def test_agent_uses_the_llm_flag_and_answers_inquiries():
    llm = FakeLLM(flag="Inquiry", answer="The treasure is far to the right, past some walls.")
    brain = _agent_with_view(llm)
    brain.observe(ChatShown("h", "hey, any idea where it is"))
    out = brain.act()
    assert [m.text for m in out] == ["The treasure is far to the right, past some walls."]
    assert brain.usage["calls"] == 1


def test_agent_falls_back_to_rules_and_templates_when_the_llm_fails():
    brain = _agent_with_view(FakeLLM(fail=True))
    brain.observe(ChatShown("h", "Where is the treasure?"))
    out = brain.act()
    assert [m.text for m in out] == [lang.ONLY_YOU_SEE]   # round 1: only the partner sees the treasure
    kinds = [n["kind"] for n in brain.notes]
    assert kinds.count("llm_fallback") == 2 and brain.usage["failures"] == 2
