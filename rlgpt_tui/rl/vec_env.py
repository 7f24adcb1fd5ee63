"""The RL-GPT action space as one SB3 VecEnv: a thin adapter over the episode runner.

The policy picks from a table of actions: a chosen subset of the world's primitives, then
K coded actions. Picking a coded action runs its routine (in a sandbox worker) in that env
until it returns or runs out of budget: temporal abstraction. Rewards inside a coded
action are summed with discount ``gamma``, and the decision after it is worth ``gamma`` to
the power of its steps (``DecisionPoints.discounts``). Every primitive step is one sample.

All of that is :class:`rlgpt_tui.rl.episodes.EpisodeRunner`'s (``runner``, with the
research levers as its hooks); this class adds SB3's interface: observation features,
``reset``/``step_async``/``step_wait`` (all envs decide together; envs whose action ended
wait until every env's action ended), auto-reset infos (``terminal_observation``), and
:meth:`take_finished` with the observations to decide from, for
:class:`rlgpt_tui.rl.rollout.OwnClockPPO`, which drives ``runner`` on each env's own clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from rlgpt_tui.envs.base import World
from rlgpt_tui.rl.episodes import EpisodeHook, EpisodeRunner, build_action_table
from rlgpt_tui.skills.runtime import CodedAction
from rlgpt_tui.tasks.catalog import Task


@dataclass
class DecisionPoints:
    """Actions that ended: per env, the discounted reward sum, the observation to decide
    from next (after a reset, if the episode ended), and SB3's step infos."""

    envs: np.ndarray
    obs: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    discounts: np.ndarray  # gamma ** the action's steps
    infos: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.envs)


def feature_index(world: World, observation: list[str] | None) -> np.ndarray | None:
    """Indices of the chosen observation segments (None: the whole observation)."""
    if not observation:
        return None
    segments = world.observation_segments
    unknown = [s for s in observation if s not in segments]
    if unknown:
        raise ValueError(
            f"unknown observation feature(s) {', '.join(unknown)}: use {', '.join(segments)}"
        )
    return np.concatenate([np.arange(segments[s].start, segments[s].stop) for s in observation])


class CodedActionVecEnv(VecEnv):
    """A world + task as an SB3 VecEnv whose action space includes coded actions."""

    def __init__(
        self,
        world: World,
        task: Task,
        coded: list[CodedAction] | None = None,
        primitives: list[str] | None = None,
        observation: list[str] | None = None,
        gamma: float = 0.99,
        seed: int = 0,
        workers: int | None = None,
        hooks: Sequence[EpisodeHook] = (),
    ):
        self._features = feature_index(world, observation)
        table = build_action_table(primitives, list(coded or []))
        self.runner = EpisodeRunner(
            world, task, table, gamma=gamma, seed=seed, workers=workers, hooks=hooks
        )
        self.world = world
        self.task = task
        self._seed = seed
        size = len(self._features) if self._features is not None else world.observation_size
        obs_space = gym.spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        super().__init__(world.num_envs, obs_space, gym.spaces.Discrete(len(table)))
        self._actions: np.ndarray | None = None

    # -- what the runner counts ----------------------------------------------------------------
    table = property(lambda self: self.runner.table)
    busy = property(lambda self: self.runner.busy)
    stats = property(lambda self: self.runner.stats)
    samples = property(lambda self: self.runner.samples)
    batched_steps = property(lambda self: self.runner.batched_steps)
    decisions = property(lambda self: self.runner.decisions)
    coded_decisions = property(lambda self: self.runner.coded_decisions)
    coded_samples = property(lambda self: self.runner.coded_samples)
    episodes_finished = property(lambda self: self.runner.episodes_finished)
    successes = property(lambda self: self.runner.successes)

    def coded_index(self, name: str) -> int:
        """The policy's action number of the coded action ``name`` (a coded action may share
        a primitive's name)."""
        for index, entry in enumerate(self.runner.table):
            if entry.coded is not None and entry.name == name:
                return index
        raise ValueError(f"no coded action {name!r} in the action table")

    def coded_usage(self) -> dict[str, Any]:
        """Share of decisions and samples in coded actions, and per-action statistics."""
        return self.runner.coded_usage()

    def replace_coded(self, name: str, action: CodedAction) -> None:
        """Swap coded action ``name``'s code (see :meth:`EpisodeRunner.replace_coded`)."""
        self.runner.replace_coded(name, action)

    # -- observation --------------------------------------------------------------------------
    def features(self, obs: np.ndarray) -> np.ndarray:
        """The policy's observation (the chosen features) of the world's ``obs`` rows."""
        # a writable copy: the world's arrays may be read-only views of device memory
        obs = obs if self._features is None else obs[:, self._features]
        return np.array(obs, dtype=np.float32)

    # -- VecEnv API -----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else self._seed
        result = self.runner.reset(seed)
        self._reset_seeds()
        return self.features(result.obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        """Every env's action runs to its end; envs that finished first wait."""
        n, actions = self.num_envs, self._actions
        assert actions is not None  # set by step_async, which SB3 calls first
        self.runner.abandon()
        self.runner.take_finished()
        self.runner.begin(np.arange(n), actions)
        while self.runner.busy.any():
            self.runner.advance()
            self.runner.prepare()
        finished = self.take_finished()
        rewards = np.zeros(n, dtype=np.float32)
        dones = np.zeros(n, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        rewards[finished.envs] = finished.rewards
        dones[finished.envs] = finished.dones
        for i, info in zip(finished.envs, finished.infos, strict=True):
            infos[i] = info
        return self.features(self.runner.last.obs), rewards, dones, infos

    def take_finished(self) -> DecisionPoints:
        """The actions that ended since the last call, with the observations to decide from
        (SB3's infos: ``terminal_observation`` in this env's features)."""
        done = self.runner.take_finished()
        infos = []
        for info in done.infos:
            if "terminal_obs" in info:
                info = dict(info)
                info["terminal_observation"] = self.features(info.pop("terminal_obs")[None])[0]
            infos.append(info)
        return DecisionPoints(
            envs=done.envs,
            obs=self.features(self.runner.last.obs[done.envs]),
            rewards=done.rewards,
            dones=done.dones,
            discounts=done.discounts,
            infos=infos,
        )

    # -- the rest of the VecEnv interface -------------------------------------------------
    def close(self) -> None:
        self.runner.close()
        self.world.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "render_mode":
            return [None] * len(list(self._get_indices(indices)))
        raise AttributeError(attr_name)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"cannot set {attr_name} on a CodedActionVecEnv")

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        raise AttributeError(f"no per-env method {method_name}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def get_images(self):
        return [self.world.frame(i) for i in range(self.num_envs)]
