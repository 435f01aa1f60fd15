"""The paper's 50-instance evaluation file (`sampled_50_deal_no_deal.txt`: one line per dialogue, 44 with an
envy-free split) loads whole: a synthetic 50-line file gives 50 instances (the loader used to keep even lines only, 25
of them), a malformed file is refused with a message naming the line or the layout, and, with the real file under
../shared/data (skipped clearly without it), 50 instances, 44 with an EF split and the paper's "best" row 5.82 /
6.66 / 12.48 on the 44; the CLI prints the paper's rows beside ours with the preset named."""
from __future__ import annotations

import pytest

from bots.local import main
from tasks.dond import metrics, released
from tasks.dond.generator import generate
from tasks.dond.items import ef_splits

PAPER_FILE = released.DEFAULT_PATH.with_name(released.PAPER_SAMPLE)


def line(counts, va, vb, said: str, output: str = "<disagree> " * 6) -> str:
    inp = " ".join(f"{c} {v}" for c, v in zip(counts, va))
    partner = " ".join(f"{c} {v}" for c, v in zip(counts, vb))
    return (f"<input> {inp} </input> <dialogue> YOU: {said} <eos> THEM: no <eos> YOU: <selection> </dialogue> "
            f"<output> {output.strip()} </output> <partner_input> {partner} </partner_input>")


def synthetic(n: int, ef: bool = True) -> list[tuple]:
    out = []
    for seed in range(n):
        inst = generate(seed, {"ef": ef})
        out.append((inst["counts"], inst["values"]["alice"], inst["values"]["bob"]))
    return out


def write(tmp_path, lines, name="sample.txt"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    released._load.cache_clear()
    return str(path)


def test_a_file_with_one_line_per_dialogue_loads_every_line(tmp_path):
    games = synthetic(50, ef=False)
    path = write(tmp_path, [line(c, a, b, f"i want item {k}") for k, (c, a, b) in enumerate(games)])
    data = released.load(path)
    assert len(data) == 50  # not 25: no line is a mirror of another, so there is nothing to skip
    assert [i["line"] for i in data] == list(range(1, 51))
    assert [(i["counts"], i["values"]["alice"], i["values"]["bob"]) for i in data] == [tuple(map(list, g)) for g in games]
    info = released.file_info(path)
    with_ef = sum(bool(ef_splits(c, a, b)) for c, a, b in games)
    assert info == {"path": path, "layout": "single", "lines": 50, "dialogues": 50, "with_ef": with_ef,
                    "paper_sample": False}
    assert len(released.select({"data": path})) == with_ef < 50


def test_the_paired_layout_keeps_one_line_per_dialogue(tmp_path):
    lines = []
    for k, (c, a, b) in enumerate(synthetic(6)):
        lines.append(line(c, a, b, f"i want item {k}"))
        lines.append(line(c, b, a, f"i want item {k}").replace("YOU:", "\0").replace("THEM:", "YOU:")
                     .replace("\0", "THEM:"))
    path = write(tmp_path, lines)
    data = released.load(path)
    assert len(data) == 6 and released.file_info(path)["layout"] == "paired"
    assert [i["human"]["mirror_line"] for i in data] == [2, 4, 6, 8, 10, 12]


@pytest.mark.parametrize("damage, message", [
    (lambda ls: ls[:3] + [ls[3].replace("<output>", "<outp>")] + ls[4:], r"sample.txt line 4: no <output>"),
    (lambda ls: ls[:2] + [ls[2].replace("<input> ", "<input> 9 9 ", 1)] + ls[3:], r"line 3: bad counts"),
    (lambda ls: ls + [ls[0]], r"1 dialogue line\(s\) appear twice"),
    (lambda ls: ["   "], r"no dialogue lines"),
])
def test_a_malformed_file_is_refused_with_a_clear_message(tmp_path, damage, message):
    lines = [line(c, a, b, f"i want item {k}") for k, (c, a, b) in enumerate(synthetic(8))]
    path = write(tmp_path, damage(lines))
    with pytest.raises(released.DataMalformed, match=message):
        released.load(path)


def test_values_that_do_not_add_up_and_a_half_mirrored_file_are_refused(tmp_path):
    games = synthetic(8)
    c, a, b = games[0]
    bad = [line(c, [x + 1 for x in a], b, "hello")] + [line(*g, f"x {k}") for k, g in enumerate(games[1:])]
    with pytest.raises(released.DataMalformed, match=r"line 1: values .* do not add up to 10"):
        released.load(write(tmp_path, bad))
    lines = [line(*g, f"i want item {k}") for k, g in enumerate(games)]
    c, a, b = games[0]
    lines.append(line(c, b, a, "i want item 0").replace("YOU:", "\0").replace("THEM:", "YOU:").replace("\0", "THEM:"))
    with pytest.raises(released.DataMalformed, match="2 of 9 lines have their other-perspective line"):
        released.load(write(tmp_path, lines, "mixed.txt"))


def test_the_cli_refuses_a_malformed_file_without_playing(tmp_path):
    path = write(tmp_path, ["<input> 1 2 </input> nothing else"])
    with pytest.raises(SystemExit, match="line 1: no <dialogue>"):
        main(["dond", "--data", path, "--agents", "greedy,fair-split", "--out", str(tmp_path / "out")])


# --- the real file ---------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def paper_file():
    if not PAPER_FILE.is_file():
        pytest.skip(f"the paper's sample {PAPER_FILE} is absent (../shared/data/dond/, from Wenyueh/game_theory)")
    released._load.cache_clear()
    return str(PAPER_FILE)


def test_the_papers_50_have_44_with_an_envy_free_split_and_its_best_row(paper_file):
    info = released.file_info(paper_file)
    assert (info["layout"], info["dialogues"], info["with_ef"], info["paper_sample"]) == ("single", 50, 44, True)
    assert released.file_info("paper") == info
    chosen = released.select({"data": paper_file})
    assert len(chosen) == 44
    best = metrics.best_row([metrics.reference(i["counts"], i["values"]["alice"], i["values"]["bob"])
                             for i in chosen])
    assert (best["n"], round(best["Alice"], 2), round(best["Bob"], 2), round(best["total"], 2)) == (44, 5.82, 6.66,
                                                                                                   12.48)


def test_the_cli_prints_the_papers_table_beside_ours_with_the_preset(paper_file, tmp_path, capsys):
    assert main(["dond", "--data", paper_file, "--games", "3", "--agents", "greedy,fair-split",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "preset ours; 3 instances (the paper's 50-instance sample: 50 lines" in out
    assert "44 with an envy-free split" in out and "(this run played 3 of them)" in out
    rows = {ln.split("  ")[0].strip(): ln.split() for ln in out.splitlines()}
    assert "this run: greedy,fair-split (preset ours)" in rows
    best = rows["paper: Best (EF+PO, max total)"]
    assert best[-6:-2] == ["1.0000", "1.0000", "1.0000", "12.48"] and "5.82" in best and "6.66" in best
    assert rows["paper: T10 raw vs raw: Sonnet"][-3:] == ["11.11", "7.07", "-"]
