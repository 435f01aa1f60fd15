"""Paper-comparable evaluation: the paper's planner settings as an option, medians with bootstrap intervals, and
rounds that hit the turn cap counted as such."""
import itertools

from tasks import get_task
from tasks.core import LogEvent, Match, MatchDriver, SeatInfo
from tasks.gnomes import metrics
from tasks.gnomes.brains import AgentBrain

SPEC = get_task("gnomes")


def play(options, agent_options, seed=5):
    game = SPEC.game_class(seed, {"index": seed, **options})
    match = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    brains = {"h": SPEC.make_brain("partner", "h", seed * 10, None, {}),
              "e": SPEC.make_brain("aismcts", "e", seed * 10 + 1, None, agent_options)}
    clock = itertools.count(0.0, 0.5)
    driver = MatchDriver(match, brains, clock=lambda: next(clock), max_steps=100000)
    return match, [e for batch in driver.open() for e in batch]


def test_paper_planner_settings_are_an_option():
    paper = AgentBrain("e", options={"planner": "paper"})
    assert paper.iterations == 100
    assert paper.planner_kw["epsilon"] == 1.0 and paper.planner_kw["rollout_depth"] >= 10000  # random roll-outs
    ours = AgentBrain("e", options={})
    assert ours.iterations is None and "epsilon" not in ours.planner_kw
    match, effects = play({"rounds": 1}, {"planner": "paper"})
    decisions = [e.data for e in effects if isinstance(e, LogEvent) and e.event == "agent_note"
                 and e.data["kind"] == "decision"]
    assert decisions and all(d["iterations"] == 100 for d in decisions)
    assert match.status == "completed"


def test_bootstrap_median_interval():
    xs = [5, 6, 7, 8, 9, 10, 30]
    med, lo, hi = metrics.bootstrap_median(xs, resamples=2000)
    assert med == 8 and lo < med < hi <= 10   # the outlier moves a mean, not the median's interval
    assert metrics.bootstrap_median(xs, resamples=2000) == (med, lo, hi)  # seeded
    assert metrics.bootstrap_median([]) == (None, None, None)


def test_capped_rounds_are_reported_and_medians_are_in_the_summary():
    capped, _ = play({"rounds": 2, "turn_cap": 8}, {"iterations": 100})
    found, _ = play({"rounds": 2}, {"iterations": 100}, seed=6)
    rounds = capped.results["rounds"]
    n_capped = sum(r["status"] == "timeout" for r in rounds)
    assert n_capped >= 1  # round 2 cannot be done in 8 turns (its optimum is 11)
    s = metrics.summarize([capped.results, found.results])
    assert s["capped"] == n_capped
    turns_r2 = sorted(r["turns"] for res in (capped.results, found.results) for r in res["rounds"] if r["round"] == 2)
    assert s["med_r2"] == sum(turns_r2) / 2
    lo, hi = (float(x) for x in s["ci_r2"].split("-"))
    assert lo <= s["med_r2"] <= hi
