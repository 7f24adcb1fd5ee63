"""Training, the heart of the RL step: PPO over the primitives and the coded actions.

Between two rollouts the run reports its progress, pauses or stops (the checkpoint is
kept), and swaps a person's code edits into the action table."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from rlgpt_tui.agents.schemas import SubAction
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import StopRequested
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.engine.steps.edits import swap_code_edits
from rlgpt_tui.rl.checkpoints import load_checkpoint
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.train import TrainResult, train
from rlgpt_tui.rl.vec_env import CodedActionVecEnv

Policy = tuple[str, RLConfig, Any]  # a training's sub-action, configuration and PPO


class TrainingStopped(StopRequested):
    """A person's stop inside the RL step; ``total``: the session's samples by then (the
    cut-off training's included); ``code``: a person's code swapped into the training
    before the stop, by sub-action."""

    def __init__(self, total: int, code: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.total = total
        self.code = dict(code or {})


@dataclass
class Trained:
    """A finished training run."""

    result: TrainResult
    config: RLConfig  # with the coded actions that ran last (a person's swaps)
    usage: dict[str, Any]  # how often the policy chose its coded actions
    env: CodedActionVecEnv  # the training's world, still open: evaluation plays in it
    code: dict[str, str] = field(default_factory=dict)  # a person's code swapped in


class ProgressEvents:
    """A training's progress as ``TrainingProgress`` events (train()'s ``on_metrics``):
    its reports so far and the samples of the last."""

    def __init__(self, ctx: StepContext, subaction: str, total_before: int):
        self.ctx = ctx
        self.subaction = subaction
        self.total_before = total_before  # the session's samples before this training
        self.reports = 0
        self.samples = 0

    def __call__(self, metrics: TrainingMetrics) -> None:
        self.reports += 1
        self.samples = metrics.samples
        self.ctx.emit(
            ev.TrainingProgress(
                subaction=self.subaction,
                metrics=metrics,
                total_samples=self.total_before + metrics.samples,
            ),
        )


class ShowFrame(BaseCallback):
    """Between rollouts: env 0's frame for ``ctx.on_frame``, at most once an interval."""

    def __init__(self, ctx: StepContext, env: CodedActionVecEnv):
        super().__init__()
        self.ctx = ctx
        self.env = env
        self.last = 0.0

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        now = time.monotonic()
        if self.ctx.on_frame is not None and now - self.last >= self.ctx.frame_interval:
            self.last = now
            self.ctx.on_frame(self.env.world.frame(0, 144))


class Pause(BaseCallback):
    """Between rollouts: the session's safe point, where a person pauses or stops (the
    training keeps its checkpoint)."""

    def __init__(self, ctx: StepContext):
        super().__init__()
        self.ctx = ctx

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.ctx.safe_point()


class CodeSwaps(BaseCallback):
    """Between rollouts: a person's code edits swapped into the training's action table
    (``specs``, updated), numbered by ``progress``'s reports and samples; ``code``: the
    session's code, which they replace; ``swapped``: what was swapped in, by sub-action."""

    def __init__(
        self,
        ctx: StepContext,
        env: CodedActionVecEnv,
        specs: dict[str, CodedActionSpec],
        code: Mapping[str, str],
        progress: ProgressEvents,
    ):
        super().__init__()
        self.ctx = ctx
        self.env = env
        self.specs = specs
        self.code = code
        self.progress = progress
        self.swapped: dict[str, str] = {}

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        session_code = {**self.code, **self.swapped}  # with what this training swapped in
        self.swapped.update(
            swap_code_edits(
                self.ctx,
                self.env,
                self.specs,
                self.progress.reports,
                self.progress.samples,
                session_code,
            )
        )


def train_policy(
    ctx: StepContext,
    sub: SubAction,
    config: RLConfig,
    checkpoints: Path | None,
    *,
    from_checkpoint: bool,
    continued: Any,
    total_before: int,
    code: Mapping[str, str],
) -> Trained:
    """Train PPO on ``config``: from the checkpoint a cut-off run left in ``checkpoints``
    (``from_checkpoint``), else the policy it ``continued`` (open-ended play), else a fresh
    one. Between rollouts: a ``TrainingProgress`` event, env 0's frame for
    ``ctx.on_frame``, a safe point, and a person's code edits swapped in (``code``: the
    session's code, which they replace; what was swapped is returned in ``Trained.code``).
    ``total_before``: the session's samples before it. A stop raises
    :class:`TrainingStopped`. The training's world is left open for the evaluation (the
    caller closes ``Trained.env``)."""
    model, done = None, 0
    saved = load_checkpoint(checkpoints) if checkpoints and from_checkpoint else None
    if saved is not None:  # continue a training run that was cut off
        model, done = saved
    elif continued is not None:  # open-ended play: the last iteration's policy
        model = continued
    ctx.phase("world", sub.name, total=config.num_envs)
    env = build_env(config)
    if env.world.compiling():  # say what the wait is for (a first run's compilation)
        ctx.phase("world", f"{sub.name}: {env.world.compiling()}")
    env.reset()  # generate the worlds (and compile) here, not in the first rollout
    specs = {spec.name: spec for spec in config.coded_actions}  # edited ones replaced
    progress = ProgressEvents(ctx, sub.name, total_before)
    swaps = CodeSwaps(ctx, env, specs, code, progress)
    # edits pending before training
    swaps.swapped.update(swap_code_edits(ctx, env, specs, 0, done, code))
    between_rollouts = [ShowFrame(ctx, env), Pause(ctx), swaps]
    ctx.phase("training", sub.name, total=config.samples)
    try:
        result = train(
            config,
            on_metrics=progress,
            model=model,
            env=env,
            samples_done=done,
            between_rollouts=between_rollouts,
        )
    except BaseException as error:
        env.close()  # worker processes, for out-of-process worlds
        if isinstance(error, StopRequested):
            raise TrainingStopped(total_before + progress.samples, swaps.swapped) from None
        raise
    usage = env.coded_usage()
    if any(specs[c.name] is not c for c in config.coded_actions):  # evaluate what ran last
        config = config.model_copy(update={"coded_actions": list(specs.values())})
    return Trained(result, config, usage, env, swaps.swapped)


def policy_to_continue(last: Policy | None, subaction: str, config: RLConfig) -> Any:
    """The last training's policy, when this one offers the same observation and
    primitives and its coded actions extend the last ones (new ones appended): PPO goes on
    learning with its action head grown. None: start a fresh policy."""
    if last is None:
        return None
    name, before_config, model = last
    before = [c.name for c in before_config.coded_actions]
    now = [c.name for c in config.coded_actions]
    same = (name, before_config.observation, before_config.primitives, before_config.ppo) == (
        subaction,
        config.observation,
        config.primitives,
        config.ppo,
    )
    if not same or now[: len(before)] != before:
        return None
    return model
