"""AsymPuzl agents: share-all (default), incremental, noisy-reader (no LLM), the paper's prompted `llm`, and
scripted people for `--population` (people.py); `absent`, the empty seat of the single-agent control."""
from .people import PEOPLE
from .symbolic import AbsentBrain, IncrementalBrain, NoisyReaderBrain, PuzzleBrain

BRAINS = {"share-all": PuzzleBrain, "incremental": IncrementalBrain, "noisy-reader": NoisyReaderBrain,
          "absent": AbsentBrain, **PEOPLE}
try:
    from .llm_brain import LLMBrain
    BRAINS["llm"] = LLMBrain
except ImportError:  # pragma: no cover
    pass

__all__ = ["BRAINS", "PEOPLE", "PuzzleBrain", "IncrementalBrain", "NoisyReaderBrain"]
