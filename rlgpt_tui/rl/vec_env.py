"""The RL-GPT action space: primitive actions plus coded actions, as one SB3 VecEnv.

The policy picks from a table of actions: a chosen subset of the world's primitives, then
K coded actions. Picking a coded action runs its routine (a budgeted generator over the
View) in that env until it returns or runs out of budget: temporal abstraction. Envs that
picked a primitive take one step and wait while other envs finish their coded actions
(the world's masked step keeps them frozen). Rewards inside a coded action are summed with
discount ``gamma``. Every primitive step counts as one sample, wherever it was taken.

Episodes end on the task's goal, its horizon or the game ending; ended envs are reset
here (SB3 auto-reset semantics, with ``terminal_observation`` and ``episode`` infos).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from rlgpt_tui.envs.base import ACTION_NAMES, StepResult, World
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.skills.runtime import CodedAction, CodedActionStats, CodedCall
from rlgpt_tui.tasks import Task


@dataclass(frozen=True)
class ActionEntry:
    """One entry of the policy's action table."""

    name: str
    primitive: int | None = None  # world action index, for primitives
    coded: CodedAction | None = None


def build_action_table(primitives: list[str] | None, coded: list[CodedAction]) -> list[ActionEntry]:
    """Primitives (all when None) followed by coded actions (which may share a primitive's
    name, e.g. a coded ``place_table`` that gathers wood first)."""
    names = list(ACTION_NAMES) if primitives is None else primitives
    unknown = [n for n in names if n not in ACTION_NAMES]
    if unknown:
        raise ValueError(
            f"unknown primitive action(s) {', '.join(unknown)}: use names from "
            f"{', '.join(ACTION_NAMES)}"
        )
    table = [ActionEntry(n, primitive=ACTION_NAMES.index(n)) for n in names]
    table += [ActionEntry(c.name, coded=c) for c in coded]
    coded_names = [c.name for c in coded]
    if len(set(coded_names)) != len(coded_names):
        raise ValueError("coded action names must be distinct: rename one")
    return table


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
        reward_code: RewardCode | None = None,
        gamma: float = 0.99,
        seed: int = 0,
    ):
        self.world = world
        self.task = task
        self.table = build_action_table(primitives, list(coded or []))
        self.gamma = gamma
        self.reward_code = reward_code
        self._seed = seed
        self._features = feature_index(world, observation)
        size = len(self._features) if self._features is not None else world.observation_size
        obs_space = gym.spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        super().__init__(world.num_envs, obs_space, gym.spaces.Discrete(len(self.table)))
        n = world.num_envs
        self.samples = 0  # primitive env steps taken through this env, exactly
        self.decisions = 0
        self.coded_decisions = 0
        self.coded_samples = 0
        self.stats = {e.name: CodedActionStats() for e in self.table if e.coded is not None}
        self._episode_return = np.zeros(n)
        self._episode_length = np.zeros(n, dtype=np.int64)
        self._episode_start = np.full(n, time.time())
        self._memories: list[dict[str, dict]] = [{} for _ in range(n)]
        self._rngs = [random.Random(seed * 100_003 + i) for i in range(n)]
        self._actions: np.ndarray | None = None
        self._last: StepResult | None = None
        self.episodes_finished = 0
        self.successes = 0
        self.on_world_step: Callable[[], None] | None = None  # e.g. to grab frames for a GIF

    # -- observation --------------------------------------------------------------------
    def _obs(self, obs: np.ndarray) -> np.ndarray:
        # a writable copy: the world's arrays may be read-only views of device memory
        obs = obs if self._features is None else obs[:, self._features]
        return np.array(obs, dtype=np.float32)

    # -- VecEnv API -----------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else self._seed
        self._last = self.world.reset(seed)
        self._reset_seeds()
        n = self.num_envs
        self._episode_return[:] = 0
        self._episode_length[:] = 0
        self._episode_start[:] = time.time()
        self._memories = [{} for _ in range(n)]
        return self._obs(self._last.obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        n = self.num_envs
        entries = [self.table[int(a)] for a in self._actions]
        calls: dict[int, CodedCall] = {}
        views = self.world.views([i for i, e in enumerate(entries) if e.coded is not None])
        view_iter = iter(views)
        for i, entry in enumerate(entries):
            if entry.coded is not None:
                memory = self._memories[i].setdefault(entry.name, {})
                calls[i] = entry.coded.start(next(view_iter), memory, self._rngs[i])
        self.decisions += n
        self.coded_decisions += len(calls)

        reward = np.zeros(n, dtype=np.float64)
        discount = np.ones(n, dtype=np.float64)
        running = np.ones(n, dtype=bool)
        done = np.zeros(n, dtype=bool)
        success = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        first = True
        while running.any():
            actions = np.zeros(n, dtype=np.int32)
            stepping = np.zeros(n, dtype=bool)
            coded_running = [i for i in np.flatnonzero(running) if i in calls]
            coded_views = dict(zip(coded_running, self.world.views(coded_running), strict=True))
            for i in np.flatnonzero(running):
                call = calls.get(i)
                if call is None:  # a primitive: one step, on the first micro-step only
                    actions[i] = entries[i].primitive
                    stepping[i] = True
                    continue
                action = call.next_action(coded_views[i])
                if action is None:
                    running[i] = False
                    if call.steps == 0:  # ended without acting: time still passes once
                        actions[i], stepping[i] = 0, True
                    continue
                actions[i], stepping[i] = action, True
            if not stepping.any():
                break
            prev_views = self._shaping_views(stepping)
            result = self.world.step(actions, stepping)
            if self.on_world_step is not None:
                self.on_world_step()
            count = int(stepping.sum())
            self.samples += count
            self.coded_samples += sum(1 for i in np.flatnonzero(stepping) if i in calls)
            step_reward = self._reward(result, stepping, prev_views)
            reward[stepping] += discount[stepping] * step_reward[stepping]
            discount[stepping] *= self.gamma
            self._episode_length[stepping] += 1
            self._episode_return[stepping] += step_reward[stepping]
            reached = self.task.success(result.achievements, result.inventory) & stepping
            out_of_time = (self._episode_length >= self.task.horizon) & stepping
            ended = reached | out_of_time | (result.game_over & stepping)
            success |= reached
            truncated |= out_of_time & ~reached & ~result.game_over
            done |= ended
            for i in np.flatnonzero(ended):
                if i in calls:
                    calls[i].stop("episode ended")
            running &= ~ended
            if first:
                primitive = np.array([i not in calls for i in range(n)])
                running &= ~primitive
                first = False
            self._last = result
        for call in calls.values():
            self.stats[call.action.name].record(call)
        return self._finish_step(reward, done, success, truncated)

    def _shaping_views(self, stepping: np.ndarray):
        if self.reward_code is None:
            return None
        return dict(
            zip(
                np.flatnonzero(stepping),
                self.world.views(list(np.flatnonzero(stepping))),
                strict=True,
            )
        )

    def _reward(self, result: StepResult, stepping: np.ndarray, prev_views) -> np.ndarray:
        if self.task.reward == "game":
            reward = result.reward.astype(np.float64).copy()
        else:
            reward = self.task.success(result.achievements, result.inventory).astype(np.float64)
        if prev_views:
            now = dict(zip(prev_views, self.world.views(list(prev_views)), strict=True))
            for i, prev in prev_views.items():
                reward[i] += self.reward_code(prev, now[i])
        return reward * stepping

    def _finish_step(self, reward, done, success, truncated):
        obs = self._obs(self._last.obs)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            now = time.time()
            for i in np.flatnonzero(done):
                infos[i]["terminal_observation"] = obs[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(truncated[i])
                infos[i]["is_success"] = bool(success[i])
                infos[i]["episode"] = {
                    "r": float(self._episode_return[i]),
                    "l": int(self._episode_length[i]),
                    "t": round(now - self._episode_start[i], 6),
                }
                infos[i]["achievements"] = self._last.achievements[i].copy()
                self._episode_return[i] = 0.0
                self._episode_length[i] = 0
                self._episode_start[i] = now
                self._memories[i] = {}
            self.episodes_finished += int(done.sum())
            self.successes += int(success.sum())
            self._last = self.world.reset_envs(done)
            obs = self._obs(self._last.obs)
        return obs, reward.astype(np.float32), done, infos

    def coded_usage(self) -> dict[str, Any]:
        """Share of decisions and samples in coded actions, and per-action statistics."""
        return {
            "decision_share": self.coded_decisions / self.decisions if self.decisions else 0.0,
            "sample_share": self.coded_samples / self.samples if self.samples else 0.0,
            "actions": {name: s.as_dict() for name, s in self.stats.items()},
        }

    # -- the rest of the VecEnv interface -------------------------------------------------
    def close(self) -> None:
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
