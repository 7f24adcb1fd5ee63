"""What a training reports as it goes, as sessions record it: a rollout's metrics (the
payload of ``training_progress`` events) and a scored task's training episodes (an
iteration's result keeps them, for the session's own measure and for a resume)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rlgpt_tui.recorded import RecordedPayload
from rlgpt_tui.tasks.catalog import Task
from rlgpt_tui.tasks.measure import Measure

if TYPE_CHECKING:  # the sandbox and the worlds behind it: not for reading records
    from rlgpt_tui.rl.episodes import EpisodeTally


@dataclass(kw_only=True)
class TrainingMetrics(RecordedPayload):
    """One rollout's metrics (:meth:`~rlgpt_tui.rl.callbacks.ProgressCallback.report`), in the
    order it reports them. Records older than the task's measure lack ``score``,
    ``measure`` and ``value``; those older than the phase times lack the last three."""

    samples: int  # this training's so far (an earlier run's it continues included)
    elapsed: float  # training seconds (pauses and event handling left out)
    fps: float
    episodes: int  # ended so far
    ep_return_mean: float | None  # over SB3's recent episodes (None: none ended yet)
    ep_length_mean: float | None
    success_rate: float | None
    score: float | None = None  # Crafter's, over every episode ended (scored tasks)
    measure: Measure | None = None
    value: float | None = None  # the task's measure: the score, or the success rate
    coded_decision_share: float
    coded_sample_share: float
    coded_actions: dict[str, dict[str, Any]]  # each coded action's calls, steps, ends
    # where the time went (:mod:`rlgpt_tui.engine.phases`)
    setup_seconds: float | None = None  # before the first rollout: the world's reset
    checkpoint_seconds: float | None = None
    resumed_from: int | None = None  # the samples of the run it continues

    @property
    def measured_in(self) -> Measure:
        """The task's measure (records older than it: a success rate)."""
        return self.measure or Measure.SUCCESS_RATE

    @property
    def measured_value(self) -> float | None:
        """The task's measure so far (records older than it: the success rate)."""
        return self.success_rate if "value" in self.absent else self.value


@dataclass(kw_only=True)
class TrainingEpisodes(RecordedPayload):
    """A scored task's training episodes: how many, their score, what each unlocked
    (:meth:`~rlgpt_tui.rl.episodes.EpisodeTally.bitmasks`) and how they ended."""

    episodes: int
    score: float
    achievements: list[int]
    ends: dict[str, int]

    @classmethod
    def of_tally(cls, tally: EpisodeTally, task: Task, seed: int) -> TrainingEpisodes:
        """``tally``'s episodes, measured in ``task``'s score."""
        measured = tally.measure(task, seed=seed)
        return cls(
            episodes=len(tally),
            score=round(measured.value, 3),
            achievements=tally.bitmasks(),
            ends=measured.ends,
        )
