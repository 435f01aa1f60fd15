"""The reviewers and papers of DialOp Assignment (facts from the released game: rows are reviewers, columns papers)."""
from __future__ import annotations

REVIEWERS = ("Ava Li", "Daniel Nguyen", "Sofia Patel", "Andrei Petrov", "Morgan Reed", "Joseph Santos",
             "Ethan Smith", "Noah Wilson")
TITLES = (
    "BLEU: a Method for Automatic Evaluation of MT",
    "Electra: Pre-training Text Encoders as Discriminators",
    "GloVe: Global Vectors for Word Representation",
    "GLUE: A Multi-Task Benchmark and Analysis Platform for NLU",
    "LLaMA: Open and Efficient Foundation Language Models",
    "RoBERTa: A Robustly Optimized BERT Pretraining Approach",
    "QuAC: Question Answering in Context",
    "SWAG: An Adversarial Dataset for Commonsense Inference",
)
PAPERS = tuple(t.split(":")[0] for t in TITLES)  # short names: BLEU, Electra, ...
N = len(REVIEWERS)
