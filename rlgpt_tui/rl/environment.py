"""The config's world as PPO's VecEnv: world, task, coded actions, reward code and action
table (:class:`~rlgpt_tui.rl.vec_env.CodedActionVecEnv`), for training and evaluation."""

from __future__ import annotations

from rlgpt_tui.envs import make_world
from rlgpt_tui.rl.config import RLConfig, world_groups
from rlgpt_tui.rl.hooks import hooks_for
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.skills.runtime import CodedAction
from rlgpt_tui.tasks.catalog import Task, get_task


def task_for(config: RLConfig) -> Task:
    """The config's task, with its horizon overridden when the config sets one."""
    task = get_task(config.task)
    return task.model_copy(update={"horizon": config.horizon}) if config.horizon else task


def coded_actions_for(config: RLConfig) -> list[CodedAction]:
    """The config's validated coded actions (each spec validates its source at most once:
    see :meth:`CodedActionSpec.validated`; raises CodeValidationError)."""
    return [spec.validated() for spec in config.coded_actions]


def build_env(
    config: RLConfig,
    num_envs: int | None = None,
    seed: int | None = None,
    for_training: bool = True,
) -> CodedActionVecEnv:
    """The config's world, task, observation, reward and action table as one VecEnv.

    ``for_training``: the envs form :attr:`OwnClockPPO.env_groups` groups that step in
    turn (one group's world step runs while Python works on the other's results);
    otherwise one batch, which steps fastest synchronously. Evaluations use the training's
    layout: a world of the training's size then needs no new compilation."""
    seed = config.seed if seed is None else seed
    num_envs = num_envs or config.num_envs
    world = make_world(
        config.env,
        num_envs,
        seed=seed,
        task=config.task,
        episodes_per_world=config.episodes_per_world,
        groups=world_groups(num_envs, for_training),
    )
    reward_code = RewardCode(config.reward_code).source if config.reward_code else None
    return CodedActionVecEnv(
        world,
        task_for(config),
        coded=coded_actions_for(config),
        primitives=config.primitives,
        observation=config.observation,
        gamma=config.ppo.gamma,
        seed=seed,
        hooks=hooks_for(config, reward_code),
    )
