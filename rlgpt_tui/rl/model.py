"""The PPO a training runs: made fresh for a config (an MLP policy over the symbolic
observation, :class:`~rlgpt_tui.rl.prior.PriorPolicy`), with its device, quiet logger and
the weights of another."""

from __future__ import annotations

from threading import Thread
from typing import TypeVar

import torch
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.logger import Logger

from rlgpt_tui.rl.config import RLConfig, device_choice
from rlgpt_tui.rl.prior import PriorPolicy, start_as
from rlgpt_tui.rl.rollout import OwnClockPPO
from rlgpt_tui.rl.vec_env import CodedActionVecEnv

Model = TypeVar("Model", bound=BaseAlgorithm)


def coded_mask(env: CodedActionVecEnv) -> list[bool]:
    """Which of the policy's actions are coded ones."""
    return [entry.coded is not None for entry in env.table]


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


def quiet(model: Model) -> Model:
    """Metrics go to on_metrics only: SB3's default logger would leave a folder in /tmp at
    every learn()."""
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


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
        PriorPolicy,  # SB3's MlpPolicy, able to be pulled toward the code (prior.py)
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
