"""AsymPuzl instances: the vocabularies (ours; the paper published only five shapes and five colours) and a seeded
puzzle with optional distractors.

A puzzle of size N holds N positions, each a (shape, colour); shapes are distinct (otherwise B's pairs could not be
placed, even with full information), colours may repeat once the colour vocabulary is smaller than N.

Clues:
- seat A: per position its shape; with `distractors = d`, d positions list a second, wrong shape ("the square or
  the hexagon"), in random order. Distractor shapes are never in the truth.
- seat B: the N true shape-colour pairs plus d decoy pairs (a shape not in the truth and not among A's distractor
  shapes, a colour not in the truth when the vocabulary has one), shuffled; never in the truth's order.
Both views together decide every position; neither alone does.
"""
from __future__ import annotations

import random

# Base shapes (all drawn by plugins/asympuzl.js); "small X" and "large X" extend the vocabulary past 24 for the
# largest puzzles. No name is a prefix of another followed by a word boundary problem: longest match wins.
BASE_SHAPES = ("circle", "square", "triangle", "rectangle", "pentagon", "hexagon", "octagon", "star", "heart",
               "diamond", "cross", "oval", "crescent", "arrow", "trapezoid", "parallelogram", "ring", "semicircle",
               "kite", "chevron", "drop", "bolt", "shield", "bowtie")
SHAPES = BASE_SHAPES + tuple(f"small {s}" for s in BASE_SHAPES) + tuple(f"large {s}" for s in BASE_SHAPES)
COLOURS = ("red", "green", "blue", "yellow", "cyan", "magenta", "orange", "purple", "pink", "brown", "black",
           "grey", "teal", "lime", "navy", "gold")
HEX = {"red": "#d62728", "green": "#2ca02c", "blue": "#1f5fd6", "yellow": "#f2d21b", "cyan": "#17becf",
       "magenta": "#d61fd6", "orange": "#ff7f0e", "purple": "#7b3fb0", "pink": "#f78fbf", "brown": "#8c564b",
       "black": "#222222", "grey": "#8a8a8a", "teal": "#138a8a", "lime": "#9be22d", "navy": "#1b2a6b",
       "gold": "#c9a227"}
MAX_SIZE = len(SHAPES)
FEEDBACK_MODES = ("none", "own", "own-detailed", "joint", "both", "both-detailed")


def vocab_sizes(size: int, distractors: int, shapes=None, colours=None) -> tuple[int, int]:
    """Shape and colour vocabulary sizes: given, else just enough shapes (at least 5) and min(N, 16) colours."""
    need = size + 2 * distractors
    n_shapes = int(shapes) if shapes is not None else max(5, need)
    n_colours = int(colours) if colours is not None else max(5, min(size, len(COLOURS)))
    if need > n_shapes:
        raise ValueError(f"a puzzle of {size} with {distractors} distractors needs {need} shapes; the vocabulary "
                         f"has {n_shapes} (at most {MAX_SIZE})")
    if not 2 <= n_shapes <= MAX_SIZE or not 2 <= n_colours <= len(COLOURS):
        raise ValueError(f"vocabulary sizes: shapes 2..{MAX_SIZE}, colours 2..{len(COLOURS)}")
    return n_shapes, n_colours


def generate(seed: int, size: int = 5, distractors: int = 0, shapes=None, colours=None) -> dict:
    size, distractors = int(size), int(distractors)
    if not 2 <= size <= MAX_SIZE:
        raise ValueError(f"size must be 2..{MAX_SIZE}")
    if not 0 <= distractors <= size:
        raise ValueError("distractors must be 0..size")
    n_shapes, n_colours = vocab_sizes(size, distractors, shapes, colours)
    rng = random.Random(f"asympuzl:{seed}")
    shape_vocab, colour_vocab = list(SHAPES[:n_shapes]), list(COLOURS[:n_colours])
    picked = rng.sample(shape_vocab, size + 2 * distractors)
    truth_shapes, a_extra, b_extra = picked[:size], picked[size:size + distractors], picked[size + distractors:]
    if n_colours >= size:
        truth_colours = rng.sample(colour_vocab, size)
    else:
        truth_colours = [rng.choice(colour_vocab) for _ in range(size)]
    truth = [[s, c] for s, c in zip(truth_shapes, truth_colours)]
    # A's clues: candidate shapes per position (the true one, plus a distractor at d random positions)
    a_clues = [[s] for s in truth_shapes]
    for pos, extra in zip(rng.sample(range(size), distractors), a_extra):
        a_clues[pos].append(extra)
        rng.shuffle(a_clues[pos])
    # B's clues: the true pairs and decoys, shuffled, never in the truth's order
    unused = [c for c in colour_vocab if c not in truth_colours] or colour_vocab
    b_clues = [list(p) for p in truth] + [[s, rng.choice(unused)] for s in b_extra]
    while True:
        rng.shuffle(b_clues)
        if b_clues[:size] != truth:
            break
    return {"size": size, "distractors": distractors, "shapes": shape_vocab, "colours": colour_vocab,
            "truth": truth, "a_clues": a_clues, "b_clues": b_clues}
