"""Hua et al.'s published Deal-or-No-Deal figures (reference game-theory-negotiation.md §6 and §9), printed beside
ours: Table 9 (humans on all filtered data) and the rows on the paper's 44 sampled datapoints with an envy-free split
(Tables 10-13, 17, 18). Numbers only; no wording of the paper."""
from __future__ import annotations

# Table 9, humans on all filtered data, cumulative by L1 bound: N, agreement, EF, PO, EF&PO.
TABLE_9 = {2: (13, .5385, .3077, .5384, .3077), 3: (27, .5556, .4074, .4444, .3333),
           4: (57, .5614, .4035, .4385, .3333), 5: (85, .6235, .4824, .4823, .3882),
           6: (108, .6574, .5463, .5277, .4537), 7: (133, .6917, .6015, .5413, .4812),
           8: (177, .7119, .6441, .5310, .4858), 9: (189, .7249, .6614, .5396, .4973),
           10: (210, .7381, .6810, .5523, .5142), 11: (217, .7373, .6820, .5529, .5161)}

# On the 44: rounds (None: not reported), agreement, Alice, Bob, PO, EF, total.
COLUMNS = ("rounds", "agreement", "Alice", "Bob", "PO", "EF", "total")
ROWS = {
    "Best (EF+PO, max total)": (None, 1.0, 5.82, 6.66, 1.0, 1.0, 12.48),
    "Human (T10)": (2.86, .6817, 3.32, 3.39, .4317, .4545, 6.64),
    "T10 raw vs raw: Sonnet": (7.07, .9545, 5.55, 5.57, .7045, .7045, 11.11),
    "T10 raw vs raw: o1": (3.86, .75, 4.39, 4.43, .4545, .4772, 8.82),
    "T10 raw vs raw: GPT-4o": (18.45, .6363, 2.80, 4.38, .4091, .3864, 7.14),
    "T10 raw vs raw: Opus": (4.37, .4772, 2.68, 3.02, .3636, .2727, 5.70),
    "T11 raw GPT-4o, temperature 0": (19.36, .5681, 2.98, 3.47, .4091, .3260, 6.44),
    "T12 wf vs wf: Opus": (4.05, 1.0, 5.82, 6.50, .9091, .9318, 12.31),
    "T12 wf vs wf: GPT-4o": (4.91, 1.0, 5.93, 6.25, .8636, 1.0, 12.18),
    "T12 wf vs wf: Sonnet": (4.45, 1.0, 5.93, 6.16, .7953, .9772, 12.11),
    "T13 wf GPT-4o, temperature 0": (4.80, 1.0, 5.53, 6.67, .8695, 1.0, 12.20),
    "T17 wf(Alice) vs raw(Bob): Sonnet": (6.91, .9773, 4.88, 6.57, .6136, .5909, 11.45),
    "T17 wf(Alice) vs raw(Bob): GPT-4o": (11.84, .8182, 3.66, 6.18, .5909, .3636, 9.84),
    "T17 wf(Alice) vs raw(Bob): Opus": (3.86, .9091, 5.09, 5.53, .6136, .5909, 10.52),
    "T18 raw(Alice) vs wf(Bob): Sonnet": (6.45, 1.0, 6.39, 5.70, .7727, .5909, 12.09),
    "T18 raw(Alice) vs wf(Bob): GPT-4o": (11.36, .8181, 5.75, 4.14, .6136, .5227, 9.89),
    "T18 raw(Alice) vs wf(Bob): Opus": (3.89, .7955, 4.86, 4.57, .4318, .5455, 9.43),
}
RATES = ("agreement", "PO", "EF")


def row(name: str) -> dict:
    """One published row as {column: value}."""
    return dict(zip(COLUMNS, ROWS[name]))


__all__ = ["TABLE_9", "ROWS", "COLUMNS", "row"]
