"""What an engine run returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from rlgpt_tui.agents.slow import IterationFeedback
from rlgpt_tui.engine.choice import FinalChoice
from rlgpt_tui.engine.ends import RunEnd
from rlgpt_tui.tasks import Measure, Measurement


@dataclass
class EngineResult:
    """How the run ended, with its measured history."""

    end: RunEnd
    best: float  # the best iteration's value of the task's measure
    total_samples: int
    tokens: int
    history: list[IterationFeedback] = field(default_factory=list)
    final_code: dict[str, str] = field(default_factory=dict)
    measure: Measure = Measure.SUCCESS_RATE
    run: Measurement | None = None  # scored tasks: over every training episode of the run
    final: FinalChoice | None = None  # the candidates' fresh evaluation and the one kept

    @property
    def reason(self) -> str:
        """The recorded text of :attr:`end` (``target reached``, ``error: ...``)."""
        return self.end.text
