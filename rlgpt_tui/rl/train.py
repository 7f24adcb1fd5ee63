"""PPO as a tool: ``train(config, on_metrics)``.

Read top to bottom: build the world and the action space from the config
(:mod:`rlgpt_tui.rl.environment`), make or continue the model (:mod:`rlgpt_tui.rl.model`),
run SB3 PPO until the sample budget (primitive env steps) is spent. Its callbacks, one job
each, in one ``CallbackList``: the budget and the progress after every rollout
(:mod:`rlgpt_tui.rl.callbacks`), TensorBoard's scalars (:mod:`rlgpt_tui.rl.tensorboard`),
the caller's own between rollouts (a pause, code swaps), and checkpoints
(:mod:`rlgpt_tui.rl.checkpoints`). What an evaluation measured is an
:class:`~rlgpt_tui.rl.eval_result.EvalResult`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import gymnasium as gym
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from rlgpt_tui.rl.callbacks import (
    MetricsHandler,
    OffTheClock,
    ProgressCallback,
    SampleBudget,
    TrainingClock,
)
from rlgpt_tui.rl.checkpoints import CheckpointCallback
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.growth import grow_action_head
from rlgpt_tui.rl.model import coded_mask, make_model, with_policy_of
from rlgpt_tui.rl.prior import anchor_to_start
from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.rollout import OwnClockPPO
from rlgpt_tui.rl.tensorboard import SampleAxisLogger, TensorBoardCallback, log_to_tensorboard
from rlgpt_tui.rl.vec_env import CodedActionVecEnv


@dataclass
class TrainResult:
    """What a training run produced and measured."""

    model: PPO
    env: CodedActionVecEnv
    samples: int
    seconds: float
    history: list[TrainingMetrics] = field(default_factory=list)
    checkpoint: Path | None = None
    resumed_from: int = 0  # samples spent before this run (resumed from a checkpoint)

    @property
    def fps(self) -> float:
        return (self.samples - self.resumed_from) / self.seconds if self.seconds else 0.0


def train(
    config: RLConfig,
    on_metrics: MetricsHandler | None = None,
    model: OwnClockPPO | None = None,
    env: CodedActionVecEnv | None = None,
    samples_done: int = 0,
    between_rollouts: Sequence[BaseCallback] = (),
) -> TrainResult:
    """Train PPO on ``config`` until ``config.samples`` primitive steps are spent.

    Pass ``model`` to continue training a policy; if the config offers more actions than
    the model has, its action head is grown and the learned weights kept. ``samples_done``
    says how much of the budget a checkpointed ``model`` already spent (resume).
    ``on_metrics`` gets the :class:`TrainingMetrics` after every rollout and at the end;
    ``between_rollouts`` (SB3 callbacks) run after it each time, their time not counted
    as training's; a stop they raise keeps a checkpoint of every sample trained.
    """
    # The policy is a small MLP: one torch thread is as fast, and leaves the other cores to
    # the world (two threads spinning beside JAX's made PPO several times slower here);
    # OwnClockPPO's update, which runs alone, uses up to four cores.
    torch.set_num_threads(OwnClockPPO.rollout_threads)
    env = env or build_env(config)
    if model is None:
        model = make_model(config, env)
    else:
        actions = env.action_space
        assert isinstance(actions, gym.spaces.Discrete)  # one choice in the action table
        grow_action_head(model, int(actions.n))
        if model.n_envs != env.num_envs:  # made over other worlds: the library's, measured
            model = with_policy_of(model, make_model(config, env))
        model.set_env(env)
    start = config.start
    if start.action is not None and start.anchor > 0:  # pulled toward the code
        index = env.coded_index(start.action)
        anchor_to_start(
            model, index, start.share, start.anchor, coded_mask(env), start.primitive_share
        )
        model.anchor_decay = start.anchor_decay
    if config.tensorboard_dir is not None:
        log_to_tensorboard(model, config.tensorboard_dir)
    clock = TrainingClock()
    budget = SampleBudget(env, config.samples, samples_done)
    progress = ProgressCallback(env, budget, clock, on_metrics)
    board = TensorBoardCallback(progress)
    between = OffTheClock(between_rollouts, clock)
    directory = config.checkpoint_dir
    checkpoints = (
        CheckpointCallback(directory, config.checkpoint_every, progress, clock)
        if directory
        else None
    )
    jobs: list[BaseCallback] = [budget, progress, board, between]
    callbacks = CallbackList(jobs + ([checkpoints] if checkpoints else []))
    callbacks.init_callback(model)
    if samples_done < config.samples:  # a resumed run may already have spent its budget
        try:
            model.learn(total_timesteps=10**12, callback=callbacks, reset_num_timesteps=False)
        except BaseException:
            if checkpoints is not None and checkpoints.cut_between_rollouts:  # a stop
                checkpoints.save()
            raise
    seconds = clock.training_seconds
    checkpoint = checkpoints.save() if checkpoints else None  # before the last report
    final = progress.report()
    board.record(final)
    between.on_rollout_end()  # the caller's jobs see the last report too
    if isinstance(model.logger, SampleAxisLogger):  # the last update's train/* scalars
        model.logger.dump()
    return TrainResult(
        model, env, final.samples, seconds, progress.history, checkpoint, samples_done
    )
