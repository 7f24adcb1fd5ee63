"""PPO as a tool: ``train(config, on_metrics)``.

Read top to bottom: build the world and the action space from the config
(:mod:`rlgpt_tui.rl.environment`), run SB3 PPO until the sample budget (primitive env steps)
is spent, stream metrics after every rollout, save checkpoints. What an evaluation measured
is an :class:`EvalResult` (evaluations run in :mod:`rlgpt_tui.rl.evaluation`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from threading import Thread
from typing import Any, TypeVar

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, make_output_format

from rlgpt_tui.rl.config import RLConfig, device_choice
from rlgpt_tui.rl.decide import Decision
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.rl.growth import grow_action_head
from rlgpt_tui.rl.prior import anchor_to_start, start_as
from rlgpt_tui.rl.rollout import OwnClockPPO
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.tasks.results import Measurement
from rlgpt_tui.tasks.statistics import crafter_score

MetricsHandler = Callable[[dict[str, Any]], None]
Model = TypeVar("Model", bound=BaseAlgorithm)

#: how to install what ``tensorboard_dir`` (``--tensorboard DIR``) needs
TENSORBOARD_INSTALL = "pip install 'rlgpt-tui[tensorboard]'"


def coded_mask(env: CodedActionVecEnv) -> list[bool]:
    """Which of the policy's actions are coded ones."""
    return [entry.coded is not None for entry in env.table]


class MetricsCallback(BaseCallback):
    """Stops at the sample budget, reports metrics per rollout, saves checkpoints."""

    def __init__(
        self,
        env: CodedActionVecEnv,
        config: RLConfig,
        on_metrics: MetricsHandler,
        samples_done: int = 0,
    ):
        super().__init__()
        self.env = env
        self.config = config
        self.on_metrics = on_metrics
        self.started = time.perf_counter()
        self.start_samples = env.samples
        self.samples_done = samples_done  # spent by an earlier run this one continues
        self.rollouts = 0
        self.history: list[dict[str, Any]] = []
        self.handler_seconds = 0.0  # spent in on_metrics (a pause included): not training
        self.setup_seconds = 0.0  # before the first rollout: the world's reset, compilation
        self.checkpoint_seconds = 0.0  # spent writing checkpoints

    def _on_training_start(self) -> None:
        self.setup_seconds = time.perf_counter() - self.started

    @property
    def samples(self) -> int:
        return self.samples_done + self.env.samples - self.start_samples

    def _on_step(self) -> bool:
        return self.samples < self.config.samples

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        try:
            self.report()
        except BaseException:  # a stop between rollouts: keep every sample trained
            if self.config.checkpoint_dir:
                self.save(self.config.checkpoint_dir)
            raise
        if self.config.checkpoint_dir and self.rollouts % self.config.checkpoint_every == 0:
            self.save(self.config.checkpoint_dir)

    def save(self, directory: Path) -> Path:
        """A checkpoint in ``directory`` of the model as trained so far (its time counted)."""
        began = time.perf_counter()
        try:
            return save_checkpoint(self.model, directory, self.samples)
        finally:
            self.checkpoint_seconds += time.perf_counter() - began

    def report(self) -> dict[str, Any]:
        elapsed = self.training_seconds
        samples = self.samples
        fresh = self.env.samples - self.start_samples
        episodes = list(self.model.ep_info_buffer or [])  # None until learn() has started
        successes = list(self.model.ep_success_buffer or [])
        usage = self.env.coded_usage()
        success_rate = float(np.mean(successes)) if successes else None
        score = self._score_so_far()
        metrics = {
            "samples": samples,
            "elapsed": round(elapsed, 3),
            "fps": round(fresh / elapsed, 1) if elapsed > 0 else 0.0,
            "episodes": self.env.episodes_finished,
            "ep_return_mean": float(np.mean([e["r"] for e in episodes])) if episodes else None,
            "ep_length_mean": float(np.mean([e["l"] for e in episodes])) if episodes else None,
            "success_rate": success_rate,
            "score": score,
            "measure": self.env.task.measure.value,
            "value": score if self.env.task.scored else success_rate,
            "coded_decision_share": round(usage["decision_share"], 4),
            "coded_sample_share": round(usage["sample_share"], 4),
            "coded_actions": usage["actions"],
            # where the time went (see rlgpt_tui.engine.phases)
            "setup_seconds": round(self.setup_seconds, 3),
            "checkpoint_seconds": round(self.checkpoint_seconds, 3),
            "resumed_from": self.samples_done,
        }
        self.history.append(metrics)
        board = self.model.logger
        if isinstance(board, SampleAxisLogger):  # dumped by SB3 after the rollout, or by train()
            board.samples = samples
            board.record("rollout/coded_decision_share", metrics["coded_decision_share"])
            if score is not None:
                board.record("rollout/crafter_score", score)
        handed = time.perf_counter()
        try:
            self.on_metrics(metrics)
        finally:
            self.handler_seconds += time.perf_counter() - handed
        return metrics

    @property
    def training_seconds(self) -> float:
        """Seconds since the start, less those spent in on_metrics (pauses, events)."""
        return time.perf_counter() - self.started - self.handler_seconds

    def _score_so_far(self) -> float | None:
        """Crafter's score over every episode this training ended (scored tasks only)."""
        tally = self.env.runner.tally
        if not self.env.task.scored or not len(tally):
            return None
        return round(crafter_score(np.mean(tally.achieved, axis=0)), 3)


def save_checkpoint(model: BaseAlgorithm, directory: Path, samples: int | None = None) -> Path:
    """Write the model to ``directory/latest.zip`` atomically (write then rename).

    ``samples`` (training samples spent so far) goes to ``latest.json`` after the model,
    so a resumed run never counts samples its checkpoint has not seen.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / "latest.partial.zip"
    model.save(partial)
    final = directory / "latest.zip"
    partial.replace(final)
    if samples is not None:
        meta = directory / "latest.partial.json"
        meta.write_text(json.dumps({"samples": samples}))
        meta.replace(directory / "latest.json")
    return final


def checkpoint_samples(directory: Path) -> int | None:
    """The samples the checkpoint in ``directory`` was trained on (None: no checkpoint)."""
    directory = Path(directory)
    meta = directory / "latest.json"
    if not (directory / "latest.zip").exists() or not meta.exists():
        return None
    return int(json.loads(meta.read_text())["samples"])


def load_checkpoint(directory: Path) -> tuple[OwnClockPPO, int] | None:
    """The model in ``directory/latest.zip`` and the samples it was trained on, if any."""
    samples = checkpoint_samples(directory)
    if samples is None:
        return None
    model = OwnClockPPO.load(Path(directory) / "latest.zip", device=policy_device())
    return quiet(model), samples


def quiet(model: Model) -> Model:
    """Metrics go to on_metrics only: SB3's default logger would leave a folder in /tmp at
    every learn()."""
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def require_tensorboard() -> None:
    """Raise :class:`TensorBoardUnavailable` (naming the install) without the tensorboard
    package."""
    try:
        import tensorboard  # noqa: F401 - optional: the tensorboard extra
    except ImportError:
        raise TensorBoardUnavailable(
            f"TensorBoard logging needs the tensorboard package: {TENSORBOARD_INSTALL}"
        ) from None


class TensorBoardUnavailable(ValueError):
    """A TensorBoard folder was given, and the tensorboard package is not installed."""


class SampleAxisLogger(Logger):
    """SB3's logger writing TensorBoard event files into one run's folder, on the training's
    samples (primitive env steps, as everywhere in this app; SB3's own step counts
    decisions, and a coded action is one decision of many steps)."""

    def __init__(self, folder: Path):
        require_tensorboard()
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(str(folder), [make_output_format("tensorboard", str(folder))])
        self.folder = folder
        self.samples = 0  # set by MetricsCallback before each of SB3's dumps
        self.layout_written = False

    def dump(self, step: int = 0) -> None:
        super().dump(self.samples)

    @property
    def writer(self):
        """torch's SummaryWriter under SB3's TensorBoard format."""
        return self.output_formats[0].writer


def log_to_tensorboard(model: PPO, folder: Path) -> None:
    """From now on ``model``'s PPO metrics (SB3's train/* and rollout/* scalars) go to the
    TensorBoard run ``folder``; an earlier run's files are closed."""
    old = getattr(model, "_logger", None)
    if isinstance(old, SampleAxisLogger):
        if old.folder == Path(folder):
            return
        old.close()
    model.set_logger(SampleAxisLogger(Path(folder)))


def log_evaluation(model: PPO | None, evaluation: EvalResult) -> None:
    """Write ``evaluation`` (the task's measure, its 95% interval, its episodes) to the
    TensorBoard run of ``model``'s training, at the samples it was trained on, and end
    that run (its files closed; a later training opens its own). Nothing without one."""
    board = getattr(model, "_logger", None)
    if model is None or not isinstance(board, SampleAxisLogger):
        return
    measure = evaluation.measurement.measure.value
    if not board.layout_written:  # TensorBoard's Custom Scalars tab: the value in its band
        band = ["Margin", [f"eval/{measure}", "eval/ci95_low", "eval/ci95_high"]]
        board.writer.add_custom_scalars({"evaluation": {f"{measure} (95% CI)": band}})
        board.layout_written = True
    board.record(f"eval/{measure}", evaluation.value)
    board.record("eval/ci95_low", evaluation.ci_low)
    board.record("eval/ci95_high", evaluation.ci_high)
    board.record("eval/episodes", evaluation.episodes)
    board.record("eval/mean_length", evaluation.mean_length)
    board.dump()
    board.close()
    quiet(model)


@dataclass
class TrainResult:
    """What a training run produced and measured."""

    model: PPO
    env: CodedActionVecEnv
    samples: int
    seconds: float
    history: list[dict[str, Any]] = field(default_factory=list)
    checkpoint: Path | None = None
    resumed_from: int = 0  # samples spent before this run (resumed from a checkpoint)

    @property
    def fps(self) -> float:
        return (self.samples - self.resumed_from) / self.seconds if self.seconds else 0.0


def policy_device() -> str:
    """Where PPO's policy and its update live (:func:`rlgpt_tui.rl.config.device_choice`):
    with ``auto``, the GPU when torch sees one, else the CPU. The rollout's decisions run
    on a NumPy copy of the weights either way (:mod:`rlgpt_tui.rl.numpy_policy`), so the
    GPU does the PPO update and the evaluations' forward passes."""
    chosen = device_choice()
    if chosen == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return chosen


def load_optimizer_support() -> Thread:
    """Import, on a background thread, what torch's optimizers import when PPO is first
    made and updated (``torch._dynamo``, ~1.5 s here): a run starts it while its world
    loads, so the wait for the world's kernels (off the GIL) covers it."""

    def work() -> None:
        import torch._dynamo  # noqa: F401 - start-up: on this thread (see above)

    thread = Thread(target=work, name="import torch._dynamo", daemon=True)
    thread.start()
    return thread


def make_model(config: RLConfig, env: CodedActionVecEnv) -> OwnClockPPO:
    """A fresh PPO (SB3's, with rollouts on each env's own clock) with an MLP policy over
    the symbolic observation; with ``config.start.action``, a policy that starts as that
    coded action (:mod:`rlgpt_tui.rl.prior`)."""
    p = config.ppo
    steps = config.rollout_steps(env.num_envs)
    rollout = steps * env.num_envs
    # a capped rollout (RL from code) is split in two minibatches: two gradient steps an epoch
    batch = min(p.batch_size, rollout if steps == p.n_steps else max(rollout // 2, 8))
    model = OwnClockPPO(
        "MlpPolicy",
        env,
        learning_rate=p.learning_rate,
        n_steps=steps,
        batch_size=batch,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        policy_kwargs={
            "net_arch": list(p.net_arch),
            # SB3's Adam (eps 1e-5) as one fused kernel: PPO's update ~7-10% faster on CPU
            "optimizer_kwargs": {"eps": 1e-5, "fused": True},
        },
        seed=config.seed,
        device=policy_device(),
        verbose=0,
    )
    model.discount_per_step = p.discount_per == "step"
    quiet(model)
    start = config.start
    if start.action is not None:
        index = env.coded_index(start.action)
        start_as(model, index, start.share, coded_mask(env), start.primitive_share)
        model.critic_warmup = start.critic_warmup
    return model


def with_policy_of(trained: OwnClockPPO, fresh: OwnClockPPO) -> OwnClockPPO:
    """``fresh`` (a PPO over the training's envs) with ``trained``'s policy weights: SB3
    binds a model to its number of envs, and a library policy is loaded and measured over
    the evaluation's (``eval_episodes``), not the training's (``num_envs``)."""
    fresh.policy.load_state_dict(trained.policy.state_dict())
    return fresh


def train(
    config: RLConfig,
    on_metrics: MetricsHandler | None = None,
    model: OwnClockPPO | None = None,
    env: CodedActionVecEnv | None = None,
    samples_done: int = 0,
) -> TrainResult:
    """Train PPO on ``config`` until ``config.samples`` primitive steps are spent.

    Pass ``model`` to continue training a policy; if the config offers more actions than
    the model has, its action head is grown and the learned weights kept. ``samples_done``
    says how much of the budget a checkpointed ``model`` already spent (resume).
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
    callback = MetricsCallback(env, config, on_metrics or (lambda m: None), samples_done)
    callback.init_callback(model)
    if samples_done < config.samples:  # a resumed run may already have spent its budget
        model.learn(total_timesteps=10**12, callback=callback, reset_num_timesteps=False)
    seconds = callback.training_seconds
    # before the last report
    checkpoint = callback.save(config.checkpoint_dir) if config.checkpoint_dir else None
    final = callback.report()
    if isinstance(model.logger, SampleAxisLogger):  # the last update's train/* scalars
        model.logger.dump()
    return TrainResult(
        model, env, final["samples"], seconds, callback.history, checkpoint, samples_done
    )


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
    config: RLConfig, history: list[dict[str, Any]], mode: EvalResult
) -> float | None:
    """The training figure in the task's measure (the last success rate; for a score,
    Crafter's over every training episode), when a policy that started from code did
    better in training (where it sampled) than its mode's interval allows; else None.

    Evaluated by its mode, such a policy is the code until PPO learned better; but a policy
    that learned to compose (say, a walk to water then ``do``) can have a mode that repeats
    one of the parts forever. Then it is worth evaluating as trained, sampled, and keeping
    the higher measurement (the engine and ``table2.py`` do, on worlds of their own).
    Scored tasks too: a policy's training episodes can score far above its mode."""
    value = history[-1].get("value") if history else None
    if config.start.action is None or value is None or value <= mode.ci_high:
        return None
    return float(value)
