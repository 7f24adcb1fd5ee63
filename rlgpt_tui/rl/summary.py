"""An evaluation's summary as sessions record it: the payload of ``evaluation`` events, of
an iteration's result and of a trained policy's record.

One type for every evaluation a session makes: a solution's (its task's measurement, the
episodes' mean length and return, the samples played, an early stop's decision, its coded
actions' calls and notes), a trained policy's (with how often it chose its coded actions
in training, and the training's samples) and a task chain's (its sub-tasks, stages and how
far the episodes got through them). A field is ``None`` where the evaluation had nothing
to say (``{}`` is an empty summary); keys this version does not name are kept in
``extra``, so what :meth:`EvaluationSummary.from_dict` reads, :meth:`~EvaluationSummary.
to_dict` writes back. Read as every recorded payload is (:mod:`rlgpt_tui.recorded`, where
the older shapes are listed).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from rlgpt_tui.recorded import RecordedPayload, recorded_fields, write_value
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tasks.results import Measurement, result_text


@dataclass
class EvaluationSummary(RecordedPayload):
    """What an evaluation measured, in the order its record names it."""

    # a task chain's: the planner's sub-tasks and the stages solved
    subtasks: list[str] | None = None
    solved_stages: list[str] | None = None
    # the task's measurement (records older than the measure have a success rate only)
    measure: Measure | None = None
    value: float | None = None
    ci95: tuple[float, float] | None = None
    episodes: int | None = None
    success_rate: float | None = None
    score: float | None = None  # recorded (null for a rate) with every measurement
    achievement_rates: dict[str, float] | None = None
    episode_ends: dict[str, int] | None = None
    mean_length: float | None = None
    mean_return: float | None = None
    # a task chain's: its stages, and the share of episodes that reached each
    stages: list[str] | None = None
    stage_reached: dict[str, float] | None = None
    samples: int | None = None  # the evaluation's own
    # stopped once its episodes decided (:class:`~rlgpt_tui.rl.decide.Decision`)
    decision: str | None = None
    episodes_used: int | None = None
    planned: int | None = None
    range: tuple[float, float] | None = None
    # each coded action's ctx.log notes {action: {note: calls}}, and its calls
    coded_notes: dict[str, dict[str, int]] | None = None
    coded_calls: dict[str, dict[str, Any]] | None = None
    # a trained policy's: how often it chose its coded actions, and its training's samples
    coded_decision_share: float | None = None
    training_samples: int | None = None
    coded_actions: dict[str, dict[str, Any]] | None = None

    @classmethod
    def of_measurement(cls, measurement: Measurement) -> EvaluationSummary:
        """A measurement alone (:meth:`~rlgpt_tui.tasks.results.Measurement.as_dict`'s figures)."""
        return cls.from_dict(measurement.as_dict())

    def to_dict(self) -> dict[str, Any]:
        """The summary as recorded: the fields it has, in order (a measurement's ``score``
        even when null), then ``extra``."""
        data: dict[str, Any] = {}
        for name in recorded_fields(type(self)):
            value = getattr(self, name)
            if value is None and not (name == "score" and self.episodes is not None):
                continue
            data[name] = write_value(value)
        return data | copy.deepcopy(self.extra)

    def __bool__(self) -> bool:
        """False for an empty summary (``{}``: nothing was evaluated), as its dict."""
        return bool(self.to_dict())

    @property
    def measured_value(self) -> float | None:
        """The task's measure (records older than it: the success rate); None: none."""
        return self.value if self.value is not None else self.success_rate

    @property
    def measured_in(self) -> Measure:
        """The task's measure (records older than it: a success rate)."""
        return self.measure or Measure.SUCCESS_RATE

    def text(self, episodes: bool = True, ends: bool = True) -> str:
        """One line in its measure (:func:`~rlgpt_tui.tasks.results.result_text`)."""
        return result_text(self.to_dict(), episodes=episodes, ends=ends)
