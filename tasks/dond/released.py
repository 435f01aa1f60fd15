"""Released Deal or No Deal dialogues (Lewis et al. 2017, as shipped with Hua et al.'s code) as instances of this
task. Never bundled: `load(path)` reads a path; None or "default" means `$DOND_DATA`, else
`../shared/data/dond/deal_no_deal_test.txt` relative to the project root.

One line: `<input> c0 v0 c1 v1 c2 v2 </input> <dialogue> ... </dialogue> <output> ... </output> <partner_input>
c0 v0' c1 v1' c2 v2' </partner_input>`. Two layouts, told apart by whether a line's mirrored dialogue (YOU and THEM
swapped) is in the file, and anything else is refused with a message saying why:
- "paired", the test split (1,052 lines): each dialogue twice, once from each side; as the reference's selection
  code does, the even lines (526 dialogues) are the instances and the other perspective line is kept as
  `mirror_line` (most are next to it, not all);
- "single", the paper's evaluation sample `sampled_50_deal_no_deal.txt` (50 lines, 44 with an envy-free split): one
  line per dialogue, every line an instance (keeping even lines would silently keep 25 of them).
A line's agent is Alice, the partner Bob. The human outcome is scored from the line's `<output>` (Alice's
selection, then Bob's; `<disagree>`, `<no_agreement>` and `<disconnect>` are no deal), with the paper's metrics.

Hard cases (`--hard L1<=4`, reference §6): duplicates (same counts and both valuations), instances whose counts are
all even, and "maximum covered" ones are removed; the rest with L1 distance of the valuations <= the bound are kept.
"""
from __future__ import annotations

import copy
import hashlib
import math
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from . import metrics
from .generator import is_hard, make_instance
from .items import ef_splits, valid_values
from .parse import parse_hard

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PATH = ROOT.parent / "shared" / "data" / "dond" / "deal_no_deal_test.txt"
ENV = "DOND_DATA"
# sha256 of the paper's sample as released (lines stripped, joined by newlines): its published rows are on these 44.
PAPER_SAMPLE = "sampled_50_deal_no_deal.txt"
PAPER_SAMPLE_SHA256 = "d62e8b72912b599d933614ffaac27bd280af0e50a48a2ea70599414c18011a28"
NO_DEAL = {"<disagree>": "disagree", "<no_agreement>": "no_agreement", "<disconnect>": "disconnect"}
_TAG = {t: re.compile(rf"<{t}>(.*?)</{t}>", re.S) for t in ("input", "dialogue", "output", "partner_input")}


class DataMissing(FileNotFoundError):
    pass


class DataMalformed(ValueError):
    pass


def data_path(path: Optional[str] = None, release: Optional[str] = None) -> Path:
    """The file to read: `path`, or `$DOND_DATA`, or the test split beside the project; "paper" is the paper's
    sample, from the release checkout `release` (`--paper-prompts`) when given, else beside the project."""
    if path in (None, "", "default", True):
        path = os.environ.get(ENV) or str(DEFAULT_PATH)
    elif path == "paper":
        path = str(Path(release) / "src" / "deal_no_deal" / PAPER_SAMPLE if release else DEFAULT_PATH.with_name(
            PAPER_SAMPLE))
    p = Path(path)
    if not p.is_file():
        raise DataMissing(f"the Deal or No Deal data file {p} is missing: download deal_no_deal_test.txt (the DND "
                          f"test split) or {PAPER_SAMPLE} (the paper's 50) from https://github.com/Wenyueh/game_theory "
                          f"(src/deal_no_deal/) and pass --data PATH or set ${ENV}")
    return p


@dataclass(frozen=True)
class Line:
    counts: tuple
    values: tuple
    partner_values: tuple
    dialogue: str
    output: tuple  # six tokens


def parse_line(text: str) -> Line:
    parts = {}
    for tag, rx in _TAG.items():
        m = rx.search(text)
        if not m:
            raise ValueError(f"no <{tag}> in line: {text[:80]!r}")
        parts[tag] = m.group(1).split() if tag != "dialogue" else m.group(1).strip()
    mine = [int(x) for x in parts["input"]]
    theirs = [int(x) for x in parts["partner_input"]]
    if len(mine) != 6 or len(theirs) != 6 or mine[0::2] != theirs[0::2]:
        raise ValueError(f"bad counts/values in line: {text[:80]!r}")
    return Line(tuple(mine[0::2]), tuple(mine[1::2]), tuple(theirs[1::2]), parts["dialogue"], tuple(parts["output"]))


def _picks(output: tuple) -> tuple[Optional[list], Optional[list], str]:
    """(Alice's selection, Bob's selection, "agreed" | disagree | no_agreement | disconnect)."""
    if output and output[0] in NO_DEAL:
        return None, None, NO_DEAL[output[0]]
    nums = [int(t.split("=", 1)[1]) for t in output]
    return nums[:3], nums[3:6], "agreed"


def _mirror(dialogue: str) -> str:
    return dialogue.replace("YOU:", "\0").replace("THEM:", "YOU:").replace("\0", "THEM:")


def human_rounds(dialogue: str) -> int:
    """Rounds of a human dialogue: utterances (the closing <selection> is none) in pairs, rounded up."""
    said = [u for u in dialogue.split("<eos>") if u.strip() and "<selection>" not in u]
    return math.ceil(len(said) / 2)


def file_format(path: str, parsed: list[Line]) -> str:
    """"paired" (each dialogue twice, the test split) or "single" (one line per dialogue, the paper's sample); else
    DataMalformed, saying what was found."""
    dialogues = {ln.dialogue for ln in parsed}
    mirrored = sum(_mirror(ln.dialogue) in dialogues for ln in parsed)
    if len(dialogues) < len(parsed):
        raise DataMalformed(f"{path}: {len(parsed) - len(dialogues)} dialogue line(s) appear twice")
    if mirrored == 0:
        return "single"
    if 2 * mirrored >= len(parsed):
        return "paired"
    raise DataMalformed(f"{path}: {mirrored} of {len(parsed)} lines have their other-perspective line in the file; "
                        "expected either the test split (each dialogue twice, once from each side) or one line per "
                        f"dialogue ({PAPER_SAMPLE})")


@lru_cache(maxsize=4)
def _load(path: str) -> tuple:
    text = Path(path).read_text(encoding="utf-8")
    numbered = [(n, t) for n, t in enumerate(text.splitlines(), 1) if t.strip()]
    if not numbered:
        raise DataMalformed(f"{path}: no dialogue lines")
    parsed = []
    for n, t in numbered:
        try:
            ln = parse_line(t)
        except ValueError as exc:
            raise DataMalformed(f"{path} line {n}: {exc}") from None
        for v in (ln.values, ln.partner_values):
            if not valid_values(ln.counts, v):
                raise DataMalformed(f"{path} line {n}: values {v} do not add up to 10 over {ln.counts}")
        parsed.append(ln)
    layout = file_format(path, parsed)
    where = {}
    for i, ln in enumerate(parsed):
        where.setdefault(ln.dialogue, i)
    out = []
    for k, i in enumerate(range(0, len(parsed), 2 if layout == "paired" else 1)):
        ln = parsed[i]
        alice, bob, how = _picks(ln.output)
        j = where.get(_mirror(ln.dialogue))
        mirror_deal = None if j is None else _picks(parsed[j].output)[2] == "agreed"
        human = {"output": how, "alice": alice, "bob": bob, "rounds": human_rounds(ln.dialogue),
                 "mirror_line": None if j is None else numbered[j][0], "mirror_deal": mirror_deal,
                 **metrics.outcome(ln.counts, ln.values, ln.partner_values, alice, bob)}
        out.append(make_instance(ln.counts, ln.values, ln.partner_values, source="released", line=numbered[i][0],
                                 dialogue=k, human=human))
    digest = hashlib.sha256("\n".join(t.strip() for _, t in numbered).encode()).hexdigest()
    info = {"path": path, "layout": layout, "lines": len(parsed), "dialogues": len(out),
            "with_ef": sum(1 for i in out if ef_splits(i["counts"], i["values"]["alice"], i["values"]["bob"])),
            "paper_sample": digest == PAPER_SAMPLE_SHA256}
    return tuple(out), info


def load(path: Optional[str] = None, release: Optional[str] = None) -> list[dict]:
    """Every dialogue of the file as an instance, in file order. Copies: callers may change them."""
    return copy.deepcopy(list(_load(str(data_path(path, release)))[0]))


def file_info(path: Optional[str] = None, release: Optional[str] = None) -> dict:
    """What the file is: layout ("paired" | "single"), lines, dialogues, how many have an envy-free split, and
    whether it is the paper's 50 (so the published rows are on the same instances)."""
    return dict(_load(str(data_path(path, release)))[1])


def describe(info: dict) -> str:
    layout = ("each dialogue twice, the even lines kept" if info["layout"] == "paired" else "one line per dialogue")
    what = "the paper's 50-instance sample" if info["paper_sample"] else Path(info["path"]).name
    return (f"{what}: {info['lines']} lines, {layout}, {info['dialogues']} instances, {info['with_ef']} with an "
            "envy-free split")


def hard_cases(instances: list[dict], bound: Optional[int]) -> list[dict]:
    """The reference's selection: duplicates, all-even counts and "maximum covered" removed, L1 <= bound (None:
    no selection at all, every instance)."""
    if bound is None:
        return list(instances)
    seen, out = set(), []
    for inst in instances:
        c, va, vb = tuple(inst["counts"]), tuple(inst["values"]["alice"]), tuple(inst["values"]["bob"])
        key = (c, va, vb)
        if key in seen:
            continue
        seen.add(key)
        if is_hard(c, va, vb, bound):
            out.append(inst)
    return out


def cumulative_counts(instances: list[dict], bounds=range(2, 12)) -> list[int]:
    """How many hard cases there are for L1 <= each bound (the paper's Table 9 "total number of datapoints")."""
    return [len(hard_cases(instances, b)) for b in bounds]


def select(options: dict) -> list[dict]:
    """The instances an evaluation plays: `data` (path or "default"), `hard` (L1<=d), and `ef_only` (default
    true: only instances with an envy-free split, as the paper's runs)."""
    chosen = hard_cases(load(options.get("data"), options.get("paper_prompts")), parse_hard(options.get("hard")))
    ef_only = str(options.get("ef_only", True)).lower() not in ("false", "0", "no", "off")
    if ef_only:
        chosen = [i for i in chosen if ef_splits(i["counts"], i["values"]["alice"], i["values"]["bob"])]
    if not chosen:
        raise ValueError("no released instance passes this selection")
    return chosen


def instance_for_seed(seed: int, options: dict) -> dict:
    """A single game on released data: the selection's instance number `seed` (modulo its size)."""
    chosen = select(options)
    return chosen[int(seed) % len(chosen)]
