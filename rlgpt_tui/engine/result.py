"""What an engine run returns, and what a task chain returns."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rlgpt_tui.agents.slow import IterationFeedback
from rlgpt_tui.engine.choice import FinalChoice
from rlgpt_tui.engine.ends import EndKind, RunEnd
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tasks.results import Measurement


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


@dataclass
class ChainResult:
    """What a task chain returns: the planner's sub-tasks, the stages solved and the samples
    they trained on, and the chained evaluation on the whole task (None: no stage was
    solved). A chain stopped in stage ``stopped_at`` (a person, or an error: ``end``) has
    no evaluation."""

    subtasks: list[str]
    solved_stages: list[str] = field(default_factory=list)
    training_samples: int = 0
    evaluation: EvaluationSummary | None = None
    stopped_at: str | None = None
    end: RunEnd = RunEnd(EndKind.FINISHED)

    def to_dict(self) -> dict[str, Any]:
        """The chain's summary as recorded and printed (a stopped chain: where, and how)."""
        if self.stopped_at is not None:
            return {"subtasks": self.subtasks, "stopped_at": self.stopped_at, "end": self.end.text}
        return {
            "subtasks": self.subtasks,
            "solved_stages": self.solved_stages,
            "training_samples": self.training_samples,
        } | (self.evaluation.to_dict() if self.evaluation is not None else {})

    def summary(self) -> EvaluationSummary:
        """The chained evaluation with the sub-tasks and stages solved (its event's)."""
        return replace(
            self.evaluation or EvaluationSummary(),
            subtasks=self.subtasks,
            solved_stages=self.solved_stages,
            training_samples=self.training_samples,
        )
