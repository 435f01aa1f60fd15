"""The instances of the negotiation games: the catalogue's games (catalogue.py, tasks/matrix_games/games/*.yaml) or
the researcher's own game files, picked by the options; no randomness (the seed only seeds the agents)."""
from __future__ import annotations

from . import catalogue

LABELS = ("named", "neutral")


def generate(seed: int, options: dict) -> dict:
    """The game definitions, in order. `game` may name a sequence ("stag-hunt,battle-of-sexes"), `game_file` one
    file or several separated by commas. `labels`: "named" (ours: the game file's action names, e.g. Cooperate and
    Defect) or "neutral" (the paper's: choice_1..k, and a title that names no game)."""
    files = [f for f in str(options.get("game_file") or "").split(",") if f.strip()]
    names = [n.strip() for n in str(options.get("game") or "prisoners-dilemma").split(",") if n.strip()]
    try:
        games = ([catalogue.load(path=f.strip()) for f in files] if files
                 else [catalogue.load(n) for n in names])
    except catalogue.GameFileError as exc:
        raise ValueError(str(exc)) from None
    labels = str(options.get("labels") or "named")
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {', '.join(LABELS)}, got {labels!r}")
    if labels == "neutral":
        games = [catalogue.neutral(g, n + 1) for n, g in enumerate(games)]
    return {"games": games, "source": files or names}
