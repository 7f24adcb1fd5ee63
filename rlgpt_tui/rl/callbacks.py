"""A training's SB3 callbacks of one job each (train() lists them in a ``CallbackList``):
the sample budget (:class:`SampleBudget`), the progress after every rollout
(:class:`ProgressCallback`, a :class:`~rlgpt_tui.rl.progress.TrainingMetrics` to
``on_metrics``), and the caller's own between rollouts, whose time is not training
(:class:`OffTheClock`: a person's pause, code swaps). Checkpoints and TensorBoard have theirs
in :mod:`rlgpt_tui.rl.checkpoints` and :mod:`rlgpt_tui.rl.tensorboard`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.tasks.statistics import crafter_score

MetricsHandler = Callable[[TrainingMetrics], None]


@dataclass
class TrainingClock:
    """Where a training's time went (see :mod:`rlgpt_tui.engine.phases`)."""

    started: float = field(default_factory=time.perf_counter)
    setup: float = 0.0  # before the first rollout: the world's reset, compilation
    idle: float = 0.0  # between rollouts, handing on progress (a pause included): not training
    checkpoints: float = 0.0  # spent writing checkpoints

    @property
    def training_seconds(self) -> float:
        """Seconds since the start, less those spent idle (pauses, events)."""
        return time.perf_counter() - self.started - self.idle

    @contextmanager
    def off(self) -> Iterator[None]:
        """Count the time inside as idle, not training."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self.idle += time.perf_counter() - began


class SampleBudget(BaseCallback):
    """Stops the training once ``budget`` samples (primitive env steps) are spent, counting
    ``samples_done`` by an earlier run this one continues."""

    def __init__(self, env: CodedActionVecEnv, budget: int, samples_done: int = 0):
        super().__init__()
        self.env = env
        self.budget = budget
        self.start_samples = env.samples
        self.samples_done = samples_done

    @property
    def samples(self) -> int:
        return self.samples_done + self.env.samples - self.start_samples

    def _on_step(self) -> bool:
        return self.samples < self.budget


class ProgressCallback(BaseCallback):
    """After every rollout, the training's :class:`TrainingMetrics` to ``on_metrics`` (its
    time off the clock), kept in ``history``."""

    def __init__(
        self,
        env: CodedActionVecEnv,
        budget: SampleBudget,
        clock: TrainingClock,
        on_metrics: MetricsHandler | None = None,
    ):
        super().__init__()
        self.env = env
        self.budget = budget
        self.clock = clock
        self.on_metrics = on_metrics
        self.rollouts = 0
        self.history: list[TrainingMetrics] = []

    def _on_training_start(self) -> None:
        self.clock.setup = time.perf_counter() - self.clock.started

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        self.report()

    @property
    def latest(self) -> TrainingMetrics:
        return self.history[-1]

    def report(self) -> TrainingMetrics:
        """The metrics so far, handed to ``on_metrics``."""
        elapsed = self.clock.training_seconds
        samples = self.budget.samples
        fresh = self.env.samples - self.budget.start_samples
        episodes = list(self.model.ep_info_buffer or [])  # None until learn() has started
        successes = list(self.model.ep_success_buffer or [])
        usage = self.env.coded_usage()
        success_rate = float(np.mean(successes)) if successes else None
        score = self._score_so_far()
        task = self.env.task
        metrics = TrainingMetrics(
            samples=samples,
            elapsed=round(elapsed, 3),
            fps=round(fresh / elapsed, 1) if elapsed > 0 else 0.0,
            episodes=self.env.episodes_finished,
            ep_return_mean=float(np.mean([e["r"] for e in episodes])) if episodes else None,
            ep_length_mean=float(np.mean([e["l"] for e in episodes])) if episodes else None,
            success_rate=success_rate,
            score=score,
            measure=task.measure,
            value=score if task.scored else success_rate,
            coded_decision_share=round(usage["decision_share"], 4),
            coded_sample_share=round(usage["sample_share"], 4),
            coded_actions=usage["actions"],
            setup_seconds=round(self.clock.setup, 3),
            checkpoint_seconds=round(self.clock.checkpoints, 3),
            resumed_from=self.budget.samples_done,
        )
        self.history.append(metrics)
        if self.on_metrics is not None:
            with self.clock.off():
                self.on_metrics(metrics)
        return metrics

    def _score_so_far(self) -> float | None:
        """Crafter's score over every episode this training ended (scored tasks only)."""
        tally = self.env.runner.tally
        if not self.env.task.scored or not len(tally):
            return None
        return round(crafter_score(np.mean(tally.achieved, axis=0)), 3)


class OffTheClock(CallbackList):
    """The caller's callbacks between rollouts (a person's pause, code swaps): their time
    is not training."""

    def __init__(self, callbacks: Sequence[BaseCallback], clock: TrainingClock):
        super().__init__(list(callbacks))
        self.clock = clock

    def _on_rollout_end(self) -> None:
        with self.clock.off():
            super()._on_rollout_end()
