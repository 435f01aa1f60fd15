"""The released Deal or No Deal test split (Lewis et al. 2017, as shipped with Hua et al.'s code) as instances of this
task. Never bundled: `load(path)` reads a path; None or "default" means `$DOND_DATA`, else
`../shared/data/dond/deal_no_deal_test.txt` relative to the project root.

One line: `<input> c0 v0 c1 v1 c2 v2 </input> <dialogue> ... </dialogue> <output> ... </output> <partner_input>
c0 v0' c1 v1' c2 v2' </partner_input>`. Each dialogue is in the file twice, once from each side; as the reference's
selection code does, the even lines (0, 2, 4, ...: 526 dialogues) are the instances: that line's agent is Alice, the
partner Bob. The other perspective line is found by its mirrored dialogue (most are next to it, not all) and kept
as `mirror_line`. The human outcome is scored from the even line's `<output>` (Alice's selection, then Bob's;
`<disagree>`, `<no_agreement>` and `<disconnect>` are no deal), with the paper's metric definitions.

Hard cases (`--hard L1<=4`, reference §6): duplicates (same counts and both valuations), instances whose counts are
all even, and "maximum covered" ones are removed; the rest with L1 distance of the valuations <= the bound are kept.
"""
from __future__ import annotations

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
NO_DEAL = {"<disagree>": "disagree", "<no_agreement>": "no_agreement", "<disconnect>": "disconnect"}
_TAG = {t: re.compile(rf"<{t}>(.*?)</{t}>", re.S) for t in ("input", "dialogue", "output", "partner_input")}


class DataMissing(FileNotFoundError):
    pass


def data_path(path: Optional[str] = None) -> Path:
    """The file to read: `path`, or `$DOND_DATA`, or the default beside the project."""
    if path in (None, "", "default", True):
        path = os.environ.get(ENV) or str(DEFAULT_PATH)
    p = Path(path)
    if not p.is_file():
        raise DataMissing(f"the Deal or No Deal data file {p} is missing: download deal_no_deal_test.txt (the DND "
                          f"test split) and pass --data PATH or set ${ENV}")
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


@lru_cache(maxsize=4)
def _load(path: str) -> tuple:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    parsed = [parse_line(t) for t in lines if t.strip()]
    where = {}
    for i, ln in enumerate(parsed):
        where.setdefault(ln.dialogue, i)
    out = []
    for k, i in enumerate(range(0, len(parsed), 2)):
        ln = parsed[i]
        for v in (ln.values, ln.partner_values):
            if not valid_values(ln.counts, v):
                raise ValueError(f"line {i + 1}: values {v} do not add up to 10 over {ln.counts}")
        alice, bob, how = _picks(ln.output)
        j = where.get(_mirror(ln.dialogue))
        mirror_deal = None if j is None else _picks(parsed[j].output)[2] == "agreed"
        human = {"output": how, "alice": alice, "bob": bob, "rounds": human_rounds(ln.dialogue),
                 "mirror_line": None if j is None else j + 1, "mirror_deal": mirror_deal,
                 **metrics.outcome(ln.counts, ln.values, ln.partner_values, alice, bob)}
        inst = make_instance(ln.counts, ln.values, ln.partner_values, source="released", line=i + 1,
                             dialogue=k, human=human)
        out.append(inst)
    return tuple(out)


def load(path: Optional[str] = None) -> list[dict]:
    """Every dialogue of the file as an instance (even lines), in file order. Copies: callers may change them."""
    import copy
    return copy.deepcopy(list(_load(str(data_path(path)))))


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
    chosen = hard_cases(load(options.get("data")), parse_hard(options.get("hard")))
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
