"""The research levers of the episode runner, each a hook with one job.

A hook (:class:`rlgpt_tui.rl.episodes.EpisodeHook`) changes the runner's behaviour at a few
points: when the runner is built, before and after each world step, when games reset. The
runner knows none of them by name; :func:`hooks_for` builds a config's hooks, in the order
they apply. What each measured is on docs/findings.md; all but the reward code are off by
default.

- :class:`RewardCodeHook`: reward code (``def reward(prev, now)`` over Views, run in the
  sandbox workers) added to the task's reward;
- :class:`DeathPenaltyHook`: an episode that ends in the player's death costs a penalty;
- :class:`DamageInterrupt`, :class:`DangerInterrupt`, :class:`NeedInterrupt`: a coded call
  ends at the step the player loses health, a hostile mob comes near, or health, food or
  drink runs low, so that the policy decides there;
- :class:`ResumeInterrupted`: an interrupted call is parked and resumed later;
- :class:`SharedMemory`: the coded actions' calls share one ``ctx.memory`` per env.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rlgpt_tui.envs.base import OBSERVATION_SEGMENTS, hostile_distances, stat_levels
from rlgpt_tui.rl.episodes import EpisodeHook, EpisodeRunner, RunnerSetup, WorldStep
from rlgpt_tui.sandbox import RewardSpec

if TYPE_CHECKING:
    from rlgpt_tui.rl.config import RLConfig

#: the ctx.memory every coded action of a table with shared memory uses
SHARED_MEMORY = "shared"


class RewardCodeHook(EpisodeHook):
    """Reward code (validated by the caller) added to each step's reward: the workers
    compare the Views before and after the step (a failing reward code is disabled by the
    scheduler, its failures counted in ``coded_usage``)."""

    def __init__(self, source: str):
        self.source = source

    def configure(self, setup: RunnerSetup) -> None:
        setup.reward = RewardSpec(self.source)

    def before_step(self, runner: EpisodeRunner, stepping: np.ndarray) -> Any:
        scheduler = runner.scheduler
        if scheduler.reward is None or scheduler.reward_disabled:
            return None
        envs = np.flatnonzero(stepping).tolist()
        return envs, runner.world.view_rows(envs)

    def add_reward(
        self, runner: EpisodeRunner, step: WorldStep, reward: np.ndarray, before: Any
    ) -> None:
        if before is None:
            return
        envs, prev = before
        reward[envs] += runner.scheduler.rewards(envs, prev, runner.world.view_rows(envs))


class DeathPenaltyHook(EpisodeHook):
    """``penalty`` subtracted from the reward of the step an episode ends in the player's
    death (the task's goal not reached)."""

    def __init__(self, penalty: float):
        self.penalty = penalty

    def add_reward(
        self, runner: EpisodeRunner, step: WorldStep, reward: np.ndarray, before: Any
    ) -> None:
        reward -= self.penalty * (step.result.game_over & step.stepping & ~step.reached)


class DamageInterrupt(EpisodeHook):
    """A coded call ends at the step the player loses health: the policy decides then.
    (Worlds without an ``intrinsics`` segment: never.)"""

    def __init__(self) -> None:
        self._health: np.ndarray | None = None  # per env, as of its last step

    def interrupts(self, runner: EpisodeRunner, step: WorldStep) -> list[int]:
        segment = getattr(runner.world, "observation_segments", {}).get("intrinsics")
        if segment is None:
            return []
        health = np.array(step.result.obs[:, segment.start], dtype=np.float32)
        if self._health is None:
            self._health = health.copy()
        hurt = np.flatnonzero(step.running & (health < self._health - 1e-6)).tolist()
        self._health[step.stepping] = health[step.stepping]
        return hurt


class DangerInterrupt(EpisodeHook):
    """A coded call ends at the step a zombie, skeleton or arrow comes within ``steps``
    (Manhattan) of the player, from farther or out of sight: the policy decides there.
    (Worlds without Craftax's map segment: never.)"""

    def __init__(self, steps: int):
        self.steps = steps
        self._distance: np.ndarray | None = None  # per env, as of its last step

    def _applies(self, runner: EpisodeRunner) -> bool:
        segments = getattr(runner.world, "observation_segments", {})
        return segments.get("map") == OBSERVATION_SEGMENTS["map"]

    def interrupts(self, runner: EpisodeRunner, step: WorldStep) -> list[int]:
        if not self._applies(runner):
            return []
        distance = hostile_distances(step.result.obs)
        if self._distance is None:
            self._distance = distance.copy()
        near = distance <= self.steps
        came = step.running & near & (self._distance > self.steps)
        self._distance[step.stepping] = distance[step.stepping]
        return np.flatnonzero(came).tolist()

    def after_reset(self, runner: EpisodeRunner, envs: np.ndarray | None) -> None:
        if envs is None:
            self._distance = None  # measured afresh from the next step
        elif self._distance is not None:  # a new game: what its first View shows
            self._distance[envs] = hostile_distances(runner.last.obs[envs])


class NeedInterrupt(EpisodeHook):
    """A coded call ends at the step health, food or drink falls to ``level`` or below
    (from above): the policy decides then (eat, drink, heal, or go on). (Worlds without
    Craftax's intrinsics segment: never.)"""

    def __init__(self, level: int):
        self.level = level
        self._stats: np.ndarray | None = None  # health, food, drink per env, as of its last step

    def interrupts(self, runner: EpisodeRunner, step: WorldStep) -> list[int]:
        segment = getattr(runner.world, "observation_segments", {}).get("intrinsics")
        if segment != OBSERVATION_SEGMENTS["intrinsics"]:
            return []
        stats = stat_levels(step.result.obs)[:, :3]
        if self._stats is None:
            self._stats = stats.copy()
        fell = step.running & ((stats <= self.level) & (self._stats > self.level)).any(axis=1)
        self._stats[step.stepping] = stats[step.stepping]
        return np.flatnonzero(fell).tolist()


class ResumeInterrupted(EpisodeHook):
    """A call ended from outside (damage, danger, need, a chain's stage) is parked and
    resumed where it yielded, with the step budget it had left, when the policy chooses its
    action again in that episode (else it starts afresh, losing its progress)."""

    parks_interrupted_calls = True


class SharedMemory(EpisodeHook):
    """The coded actions' calls share one ``ctx.memory`` per env (default: one per action),
    so that a skill chosen beside a script knows what the script saw."""

    def configure(self, setup: RunnerSetup) -> None:
        setup.table = [
            replace(e, memory_key=SHARED_MEMORY) if e.coded is not None else e for e in setup.table
        ]


def hooks_for(config: RLConfig, reward_code: str | None = None) -> list[EpisodeHook]:
    """The hooks ``config`` asks for (``config.hooks``, and ``reward_code``: the config's
    reward code, validated by the caller), in the order they apply; new ones per call, as
    hooks keep per-env state."""
    levers = config.hooks
    hooks: list[EpisodeHook] = []
    if levers.shared_memory:
        hooks.append(SharedMemory())
    if reward_code:
        hooks.append(RewardCodeHook(reward_code))
    if levers.death_penalty:
        hooks.append(DeathPenaltyHook(levers.death_penalty))
    if levers.interrupt_on_damage:
        hooks.append(DamageInterrupt())
    if levers.interrupt_on_danger:
        hooks.append(DangerInterrupt(levers.interrupt_on_danger))
    if levers.interrupt_on_need:
        hooks.append(NeedInterrupt(levers.interrupt_on_need))
    if levers.resume_interrupted:
        hooks.append(ResumeInterrupted())
    return hooks
