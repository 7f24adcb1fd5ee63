"""The RL-GPT action space: primitive actions plus coded actions, as one SB3 VecEnv.

The policy picks from a table of actions: a chosen subset of the world's primitives, then
K coded actions. Picking a coded action runs its routine (a budgeted generator over the
View) in that env until it returns or runs out of budget: temporal abstraction. Rewards
inside a coded action are summed with discount ``gamma``. Every primitive step counts as
one sample, wherever it was taken.

Each env runs its current action on its own clock, through three calls:
``begin(envs, actions)`` starts actions in idle envs, ``advance()`` takes one world step
for every busy env, ``prepare()`` asks running coded actions for their next primitive (a
routine that returns finishes its action). Finished actions wait in ``take_finished()``.
Two drivers use them: SB3's synchronous ``step`` (all envs decide together; envs whose
action ended wait, frozen by the world's masked step, until every env's action ended),
and :class:`rlgpt_tui.rl.rollout.OwnClockPPO`, where an env decides again as soon as its
own action ends, so the world keeps stepping full batches. ``advance()`` is ``launch``
then ``land`` for each of the world's env groups; OwnClockPPO calls those per group, so
that one group's world step runs while it works on another's results.

Episodes end on the task's goal, its horizon or the game ending; ended envs are reset
here (SB3 auto-reset semantics, with ``terminal_observation`` and ``episode`` infos).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from rlgpt_tui.envs.base import ACTION_NAMES, StepResult, World
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.skills.runtime import CodedAction, CodedActionStats, CodedCall
from rlgpt_tui.tasks import Task

NOOP = ACTION_NAMES.index("noop")


@dataclass(frozen=True)
class ActionEntry:
    """One entry of the policy's action table."""

    name: str
    primitive: int | None = None  # world action index, for primitives
    coded: CodedAction | None = None


@dataclass
class Finished:
    """Actions that ended: per env, the discounted reward sum, the observation to decide
    from next (after a reset, if the episode ended), and SB3's step infos."""

    envs: np.ndarray
    obs: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    infos: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.envs)


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
        self.batched_steps = 0  # calls of the world's batched step
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
        # the action in progress in each env
        self.busy = np.zeros(n, dtype=bool)
        self._calls: list[CodedCall | None] = [None] * n
        self._next = np.full(n, -1, dtype=np.int32)  # primitive to take at the next advance
        self._final = np.zeros(n, dtype=bool)  # the action ends after that step
        self._reward = np.zeros(n)  # discounted reward so far
        self._discount = np.ones(n)
        self._finished: list[tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]] = []
        # groups of envs whose world steps may be in flight together (see launch / land)
        self.groups = world.env_groups()
        self._in_flight: dict[int, tuple[Any, np.ndarray, Any]] = {}

    # -- observation --------------------------------------------------------------------
    def _obs(self, obs: np.ndarray) -> np.ndarray:
        # a writable copy: the world's arrays may be read-only views of device memory
        obs = obs if self._features is None else obs[:, self._features]
        return np.array(obs, dtype=np.float32)

    # -- VecEnv API -----------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else self._seed
        self.abandon()
        self._finished.clear()
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
        """Every env's action runs to its end; envs that finished first wait."""
        n = self.num_envs
        self.abandon()
        self._finished.clear()
        self.begin(np.arange(n), self._actions)
        while self.busy.any():
            self.advance()
            self.prepare()
        finished = self.take_finished()
        rewards = np.zeros(n, dtype=np.float32)
        dones = np.zeros(n, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        rewards[finished.envs] = finished.rewards
        dones[finished.envs] = finished.dones
        for i, info in zip(finished.envs, finished.infos, strict=True):
            infos[i] = info
        return self._obs(self._last.obs), rewards, dones, infos

    # -- actions on each env's own clock -----------------------------------------------------
    def begin(self, envs: np.ndarray, actions: np.ndarray) -> None:
        """Start action-table entries ``actions`` in the idle envs ``envs``."""
        envs = np.asarray(envs, dtype=np.int64)
        if self.busy[envs].any():
            raise RuntimeError("an env got a new action before its last one ended")
        coded = []
        for i, a in zip(envs.tolist(), np.asarray(actions).tolist(), strict=True):
            entry = self.table[int(a)]
            if entry.coded is None:
                self._next[i], self._final[i] = entry.primitive, True
            else:
                coded.append((i, entry))
        starting = [i for i, _ in coded]
        views = self.world.views(starting)
        for (i, entry), view in zip(coded, views, strict=True):
            memory = self._memories[i].setdefault(entry.name, {})
            self._calls[i] = entry.coded.start(view, memory, self._rngs[i])
        self.busy[envs] = True
        self._reward[envs] = 0.0
        self._discount[envs] = 1.0
        self.decisions += len(envs)
        self.coded_decisions += len(coded)
        self._ask(starting, views)

    def prepare(self, among: np.ndarray | list[int] | None = None) -> None:
        """Ask the running coded actions that wait for their next step (those ``among``
        these envs; default all) for it.

        A routine that returns ends its action; one that returns before acting takes a
        no-op first, so that time passes and the action costs one sample.
        """
        waiting = self.busy & (self._next < 0)
        if among is not None:
            chosen = np.zeros(self.num_envs, dtype=bool)
            chosen[np.asarray(among, dtype=np.int64)] = True
            waiting &= chosen
        envs = np.flatnonzero(waiting).tolist()
        self._ask(envs, self.world.views(envs))

    def _ask(self, envs: list[int], views: list) -> None:
        """Each of ``envs``' coded call picks its next primitive from the env's View."""
        ended = []
        for i, view in zip(envs, views, strict=True):
            call = self._calls[i]
            action = call.next_action(view)
            if action is not None:
                self._next[i] = action
            elif call.steps == 0:
                self._next[i], self._final[i] = NOOP, True
            else:
                ended.append(i)
        if ended:
            self._finish(np.asarray(ended, dtype=np.int64), np.zeros(len(ended), dtype=bool))

    def advance(self) -> None:
        """One world step for every busy env (each takes its prepared primitive)."""
        for group in range(len(self.groups)):
            self.launch(group)
        self.settle()

    def launch(self, group: int) -> None:
        """Start one world step for the busy envs of ``group`` (see :meth:`land`)."""
        members = self.groups[group]
        stepping = np.zeros(self.num_envs, dtype=bool)
        stepping[members] = self.busy[members] & (self._next[members] >= 0)
        if not stepping.any():
            return
        actions = np.where(stepping, self._next, 0).astype(np.int32)
        prev_views = self._shaping_views(stepping)
        handle = self.world.step_async(actions, stepping)
        self._in_flight[group] = (handle, stepping, prev_views)

    def land(self, group: int) -> None:
        """Finish the group's step: rewards, action and episode ends, resets."""
        if group not in self._in_flight:
            return
        handle, stepping, prev_views = self._in_flight.pop(group)
        result = self.world.step_wait(handle)
        self.batched_steps += 1
        if self.on_world_step is not None:
            self.on_world_step()
        stepped = np.flatnonzero(stepping)
        self.samples += len(stepped)
        self.coded_samples += sum(self._calls[i] is not None for i in stepped.tolist())
        step_reward = self._step_reward(result, stepping, prev_views)
        self._reward[stepping] += self._discount[stepping] * step_reward[stepping]
        self._discount[stepping] *= self.gamma
        self._episode_length[stepping] += 1
        self._episode_return[stepping] += step_reward[stepping]
        self._next[stepping] = -1
        self._last = result
        reached = self.task.success(result.achievements, result.inventory) & stepping
        out_of_time = (self._episode_length >= self.task.horizon) & stepping
        ended = reached | out_of_time | (result.game_over & stepping)
        for i in np.flatnonzero(ended & self.busy):
            if self._calls[i] is not None:
                self._calls[i].stop("episode ended")
        finished = ended | (self._final & stepping)
        if not finished.any():
            return
        envs = np.flatnonzero(finished)
        infos = self._episode_infos(
            envs, ended, reached, out_of_time & ~reached & ~result.game_over
        )
        self._finish(envs, ended[envs], infos)
        if ended.any():
            self._last = self.world.reset_envs(ended)

    def settle(self) -> None:
        """Land every step in flight."""
        for group in list(self._in_flight):
            self.land(group)

    def _episode_infos(self, envs, ended, reached, truncated) -> list[dict[str, Any]]:
        """SB3's infos for the finished actions ``envs``; bookkeeping of ended episodes."""
        infos: list[dict[str, Any]] = [{} for _ in envs]
        over = np.flatnonzero(ended)
        if not len(over):
            return infos
        position = {i: k for k, i in enumerate(envs.tolist())}
        terminal = self._obs(self._last.obs[over])
        now = time.time()
        for k, i in enumerate(over.tolist()):
            infos[position[i]] = {
                "terminal_observation": terminal[k],
                "TimeLimit.truncated": bool(truncated[i]),
                "is_success": bool(reached[i]),
                "episode": {
                    "r": float(self._episode_return[i]),
                    "l": int(self._episode_length[i]),
                    "t": round(now - self._episode_start[i], 6),
                },
                "achievements": self._last.achievements[i].copy(),
            }
        self._episode_return[over] = 0.0
        self._episode_length[over] = 0
        self._episode_start[over] = now
        for i in over.tolist():
            self._memories[i] = {}
        self.episodes_finished += len(over)
        self.successes += int(reached[over].sum())
        return infos

    def _release(self, envs: np.ndarray) -> None:
        """Record the coded calls of ``envs`` and make the envs idle."""
        for i in envs.tolist():
            call = self._calls[i]
            if call is not None:
                self.stats[call.action.name].record(call)
                self._calls[i] = None
        self.busy[envs] = False
        self._final[envs] = False
        self._next[envs] = -1

    def _finish(self, envs: np.ndarray, dones: np.ndarray, infos=None) -> None:
        self._release(envs)
        rewards = self._reward[envs].astype(np.float32)
        self._finished.append((envs, rewards, dones, infos or [{} for _ in envs]))

    def take_finished(self) -> Finished:
        """The actions that ended since the last call, with the observations to decide from."""
        parts, self._finished = self._finished, []
        envs = np.concatenate([np.zeros(0, dtype=np.int64)] + [p[0] for p in parts])
        return Finished(
            envs=envs,
            obs=self._obs(self._last.obs[envs]),
            rewards=np.concatenate([np.zeros(0, dtype=np.float32)] + [p[1] for p in parts]),
            dones=np.concatenate([np.zeros(0, dtype=bool)] + [p[2] for p in parts]),
            infos=[info for p in parts for info in p[3]],
        )

    def abandon(self) -> None:
        """Drop the actions in progress (training stopped mid-rollout); the envs are idle."""
        self.settle()
        envs = np.flatnonzero(self.busy)
        for i in envs.tolist():
            if self._calls[i] is not None:
                self._calls[i].stop("abandoned")
        self._release(envs)

    def _shaping_views(self, stepping: np.ndarray):
        if self.reward_code is None:
            return None
        envs = np.flatnonzero(stepping).tolist()
        return dict(zip(envs, self.world.views(envs), strict=True))

    def _step_reward(self, result: StepResult, stepping: np.ndarray, prev_views) -> np.ndarray:
        if self.task.reward == "game":
            reward = result.reward.astype(np.float64).copy()
        else:
            reward = self.task.success(result.achievements, result.inventory).astype(np.float64)
        if prev_views:
            now = dict(zip(prev_views, self.world.views(list(prev_views)), strict=True))
            for i, prev in prev_views.items():
                reward[i] += self.reward_code(prev, now[i])
        return reward * stepping

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

    def replace_coded(self, name: str, action: CodedAction) -> None:
        """Swap the coded action ``name`` for ``action`` in place (same action index, so the
        policy keeps its weights); calls started after this run the new code."""
        for index, entry in enumerate(self.table):
            if entry.coded is not None and entry.name == name:
                self.table[index] = ActionEntry(name, coded=action)
                return
        raise KeyError(f"no coded action {name!r} in the action table")
