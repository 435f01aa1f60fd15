"""The reproduction declaration (tasks/core/reproduction.py): what `./run_bot.sh reproduce` reads from a TaskSpec."""
import dataclasses

import pytest

from tasks.core.reproduction import ReproCondition, Reproduction
from tasks.dond.spec import SPEC as DOND


def _repro(*conditions, columns=("agreement %",)):
    return Reproduction(conditions=conditions, columns=columns, source="toy, Table 1")


def test_a_task_spec_carries_none_by_default_and_a_declared_reproduction():
    assert DOND.reproduction is None or isinstance(DOND.reproduction, Reproduction)
    repro = _repro(ReproCondition("llm self-play", ("llm", "llm"), paper={"agreement %": 70}))
    spec = dataclasses.replace(DOND, reproduction=repro)
    assert spec.reproduction.condition("llm self-play").paper == {"agreement %": 70}
    with pytest.raises(KeyError, match="llm self-play"):
        repro.condition("absent")


def test_conditions_are_checked_against_the_seats_and_the_columns():
    with pytest.raises(ValueError, match="1 agents for 2 seats"):
        dataclasses.replace(DOND, reproduction=_repro(ReproCondition("one", ("llm",))))
    with pytest.raises(ValueError, match="unknown agent"):
        dataclasses.replace(DOND, reproduction=_repro(ReproCondition("x", ("nobody", "llm"))))
    with pytest.raises(ValueError, match="undeclared columns"):
        _repro(ReproCondition("x", ("llm", "llm"), paper={"score": 1}))
    with pytest.raises(ValueError, match="distinct labels"):
        _repro(ReproCondition("x", ("llm", "llm")), ReproCondition("x", ("llm", "llm")))
    with pytest.raises(ValueError):
        ReproCondition("", ("llm",))
