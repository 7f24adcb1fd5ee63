"""What an evaluation measured (:class:`EvalResult`; evaluations run in
:mod:`rlgpt_tui.rl.evaluation`), and whether a policy that started from code is worth
evaluating as trained (:func:`sampled_may_beat_mode`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.decide import Decision
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.results import Measurement


@dataclass
class EvalResult:
    """The task's measure over ``episodes`` episodes (a success rate with a Wilson 95%
    interval, or Crafter's score with a bootstrap one), and more."""

    measurement: Measurement
    mean_length: float
    mean_return: float
    samples: int
    # each episode's success, achievements and end, to pool evaluations (e.g. over seeds)
    tally: EpisodeTally | None = field(default=None, repr=False)
    decision: Decision | None = None  # stopped early: what its episodes answered
    # each coded action's ctx.log notes in these episodes' calls: {action: {note: calls}}
    notes: dict[str, dict[str, int]] = field(default_factory=dict)
    # each coded action's calls in these episodes: {action: {calls, steps, end_reasons,
    # begun: {a composed plan's step: calls that ran it}}}
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def episodes(self) -> int:
        return self.measurement.episodes

    @property
    def successes(self) -> int:
        return self.measurement.successes

    @property
    def success_rate(self) -> float:
        return self.measurement.success_rate

    @property
    def value(self) -> float:
        """The task's measure: its success rate, or its Crafter score (stopped early: the
        end of the full result's range that proves its decision)."""
        return self.decision.value if self.decision else self.measurement.value

    @property
    def ci_low(self) -> float:
        return self.decision.low if self.decision else self.measurement.ci95[0]

    @property
    def ci_high(self) -> float:
        return self.decision.high if self.decision else self.measurement.ci95[1]

    @property
    def score(self) -> float | None:
        return self.measurement.score

    @property
    def achievement_rates(self) -> dict[str, float]:
        return self.measurement.achievement_rates

    def as_dict(self) -> dict[str, Any]:
        return (
            self.measurement.as_dict()
            | {
                "mean_length": round(self.mean_length, 1),
                "mean_return": round(self.mean_return, 3),
                "samples": self.samples,
            }
            | (self._decided(self.decision) if self.decision else {})
            | ({"coded_notes": self.notes} if self.notes else {})
            | ({"coded_calls": self.calls} if self.calls else {})
        )

    def summary(self) -> EvaluationSummary:
        """The evaluation as sessions record it (:meth:`as_dict`'s figures)."""
        return EvaluationSummary.from_dict(self.as_dict())

    @staticmethod
    def _decided(d: Decision) -> dict[str, Any]:
        """A decided evaluation's value and interval: the proving end of the full result's
        range, and the range (a rate over the episodes that ended would be biased)."""
        if d.estimate is not None:  # scored: whole episodes, their own score and interval
            return d.as_dict()
        decided, value = d.as_dict(), round(d.value, 4)
        return decided | {"value": value, "success_rate": value, "ci95": decided["range"]}


def sampled_may_beat_mode(
    config: RLConfig, history: list[TrainingMetrics], mode: EvalResult
) -> float | None:
    """The training figure in the task's measure (the last success rate; for a score,
    Crafter's over every training episode), when a policy that started from code did
    better in training (where it sampled) than its mode's interval allows; else None.

    Evaluated by its mode, such a policy is the code until PPO learned better; but a policy
    that learned to compose (say, a walk to water then ``do``) can have a mode that repeats
    one of the parts forever. Then it is worth evaluating as trained, sampled, and keeping
    the higher measurement (the engine and ``table2.py`` do, on worlds of their own).
    Scored tasks too: a policy's training episodes can score far above its mode."""
    value = history[-1].value if history else None
    if config.start.action is None or value is None or value <= mode.ci_high:
        return None
    return float(value)
