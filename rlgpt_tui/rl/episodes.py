"""The one runner of "code in a world": episodes of a task over a World, actions from a table
of primitives and coded actions, coded actions run in sandbox workers.

:class:`EpisodeRunner` owns what every caller used to do on its own: which action each env
is running, asking running coded actions for their next primitive (in one batch per world
step, in the workers), rewards (the task's, plus reward code run in the workers), the
task's success, its horizon and the game's end, resets of ended envs and each episode's
``ctx.memory``. It runs each env on its own clock through a few calls:

- ``begin(envs, actions)`` starts action-table entries in idle envs;
- ``launch(group)`` / ``land(group)`` take one world step for a group's busy envs
  (``advance()`` does both for every group);
- ``prepare()`` asks running coded actions for their next primitive; a routine that
  returns ends its action (one that returns before acting takes a no-op, so that time
  passes and the action costs one sample);
- ``take_finished()`` hands over the actions that ended, with discounted reward sums and
  SB3-style infos of ended episodes; ``interrupt(envs)`` ends actions from outside.

Research levers (interrupts, a death penalty, reward code, resumed calls, shared memory)
are not the runner's: each is an :class:`EpisodeHook` with one job
(:mod:`rlgpt_tui.rl.hooks`), and the runner calls the hooks it is given, in order, at a few
points: when it is built (:meth:`EpisodeHook.configure`), before and after each world step
(:meth:`~EpisodeHook.before_step`, :meth:`~EpisodeHook.add_reward`,
:meth:`~EpisodeHook.interrupts`) and when games are reset (:meth:`~EpisodeHook.after_reset`).

Drivers: :class:`rlgpt_tui.rl.vec_env.CodedActionVecEnv` (SB3, PPO's rollouts), and here
:func:`run_episodes` (code alone, a policy, or anything that picks table entries),
:func:`run_one_call_each` (the critic's sample executions).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rlgpt_tui.envs.base import (
    ACTION_NAMES,
    EpisodeEnd,
    StepResult,
    View,
    World,
    death_cause,
)
from rlgpt_tui.sandbox import CallScheduler, RewardSpec
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.skills.policy import POLICY_MARK
from rlgpt_tui.skills.runtime import CallRecord, CodedAction
from rlgpt_tui.tasks.catalog import Task
from rlgpt_tui.tasks.results import Measurement

NOOP = ACTION_NAMES.index("noop")


@dataclass(frozen=True)
class ActionEntry:
    """One entry of an action table: a world primitive, or a coded action."""

    name: str
    primitive: int | None = None  # world action index, for primitives
    coded: CodedAction | None = None
    memory_key: str | None = None  # the ctx.memory its calls share (default: its name)


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


@dataclass
class EpisodeTally:
    """Every episode that ended through a runner: success, achievements unlocked, how it
    ended. Crafter's score "over all episodes of a run" is measured on this."""

    success: list[bool] = field(default_factory=list)
    achieved: list[np.ndarray] = field(default_factory=list)
    ends: list[str] = field(default_factory=list)

    def add(self, success: bool, achieved: np.ndarray, end: EpisodeEnd) -> None:
        self.success.append(success)
        self.achieved.append(np.asarray(achieved, dtype=bool))
        self.ends.append(end.value)

    def __len__(self) -> int:
        return len(self.success)

    def extend(self, other: EpisodeTally) -> None:
        self.success += other.success
        self.achieved += other.achieved
        self.ends += other.ends

    @classmethod
    def from_bitmasks(cls, masks: list[int], ends: dict[str, int]) -> EpisodeTally:
        """Episodes recorded by :meth:`bitmasks` (their ends as counts; success unknown)."""
        tally = cls()
        bits = 1 << np.arange(22, dtype=np.int64)
        tally.achieved = [(np.int64(m) & bits) > 0 for m in masks]
        tally.success = [False] * len(masks)
        tally.ends = [end for end, n in ends.items() for _ in range(n)][: len(masks)]
        return tally

    def measure(self, task: Task, seed: int = 0) -> Measurement:
        """``task``'s measure over these episodes."""
        achieved = np.array(self.achieved) if self.achieved else np.zeros((0, 22), dtype=bool)
        return task.measurement(np.array(self.success, dtype=bool), achieved, self.ends, seed)

    def bitmasks(self) -> list[int]:
        """Each episode's achievements as an int (bit k: achievement k), for storing."""
        weights = 1 << np.arange(22, dtype=np.int64)
        return [int((a.astype(np.int64) * weights).sum()) for a in self.achieved]


@dataclass
class ActionsEnded:
    """Actions that ended: per env, the discounted reward sum, whether its episode ended,
    gamma to the power of the steps the action took (what the value after it is worth now),
    and SB3-style infos (``episode``, ``is_success``, ``terminal_view`` ...) for those."""

    envs: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    discounts: np.ndarray
    infos: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.envs)


@dataclass
class RunnerSetup:
    """What hooks may change before a runner's sandbox scheduler is built: the action table
    (e.g. the memory keys of its coded actions) and the reward code run in the workers."""

    table: list[ActionEntry]
    reward: RewardSpec | None = None


@dataclass(frozen=True)
class WorldStep:
    """One landed world step of a group, as hooks see it: the world's result, the envs that
    stepped, those whose task's goal was reached (success or survival), those out of time,
    and those whose coded call goes on after this step (``running``)."""

    result: StepResult
    stepping: np.ndarray  # bool per env
    reached: np.ndarray  # bool per env
    out_of_time: np.ndarray  # bool per env
    running: np.ndarray  # bool per env: a coded call that did not end with this step


class EpisodeHook:
    """One research lever of the runner, with one job. Every method is a no-op here; a hook
    overrides the points it needs. The runner calls its hooks in the order given."""

    #: an interrupted call is parked and resumed where it yielded when its action is chosen
    #: again in that episode (else it starts afresh next time)
    parks_interrupted_calls: bool = False

    def configure(self, setup: RunnerSetup) -> None:
        """Once, before the runner builds its sandbox scheduler."""

    def before_step(self, runner: EpisodeRunner, stepping: np.ndarray) -> Any:
        """Before a group's world step starts; what it returns comes back to
        :meth:`add_reward` of that step."""
        return None

    def add_reward(
        self, runner: EpisodeRunner, step: WorldStep, reward: np.ndarray, before: Any
    ) -> None:
        """Change the step's ``reward`` (per env, in place) before the episode's returns."""

    def interrupts(self, runner: EpisodeRunner, step: WorldStep) -> list[int]:
        """The envs among ``step.running`` whose coded call should end now."""
        return []

    def after_reset(self, runner: EpisodeRunner, envs: np.ndarray | None) -> None:
        """After new games started in ``envs`` (a bool mask; None: every env)."""


class EpisodeRunner:
    """A world + task, actions from ``table``, coded actions in sandbox workers.

    ``task=None``: no goal or horizon, only the game's end ends an episode.
    ``reset_ended=False``: ended envs are not reset (each env plays one episode).
    ``hooks``: the research levers to apply (:class:`EpisodeHook`), in order.
    """

    def __init__(
        self,
        world: World,
        task: Task | None,
        table: list[ActionEntry],
        gamma: float = 0.99,
        seed: int = 0,
        reset_ended: bool = True,
        workers: int | None = None,
        hooks: Sequence[EpisodeHook] = (),
    ):
        self.world = world
        self.hooks = list(hooks)
        self.parks_interrupted_calls = any(h.parks_interrupted_calls for h in self.hooks)
        setup = RunnerSetup(list(table))
        for hook in self.hooks:
            hook.configure(setup)
        self.task = task
        self.table = setup.table
        self.gamma = gamma
        self.reset_ended = reset_ended
        n = self.num_envs = world.num_envs
        self._slot_of = {}  # table index -> scheduler slot
        coded: list[ActionEntry] = []
        programs: list[CodedAction] = []
        for index, entry in enumerate(self.table):
            if entry.coded is not None:
                self._slot_of[index] = len(coded)
                coded.append(entry)
                programs.append(entry.coded)
        self.scheduler = CallScheduler(
            programs,
            n,
            seed=seed,
            reward=setup.reward,
            workers=workers,
            memory_keys=[e.memory_key or e.name for e in coded],
        )
        self.samples = 0  # primitive env steps taken through this runner, exactly
        self.batched_steps = 0  # calls of the world's batched step
        self.decisions = 0
        self.coded_decisions = 0
        self.coded_samples = 0
        self.episodes_finished = 0
        self.successes = 0
        self.tally = EpisodeTally()  # every episode that ended here
        self.records: list[CallRecord] = []  # ended calls since the last take_records()
        self._last: StepResult | None = None  # the world's latest step (or reset)
        self.on_world_step: Callable[[], None] | None = None  # e.g. to grab frames for a GIF
        self._episode_return = np.zeros(n)
        self._episode_length = np.zeros(n, dtype=np.int64)
        self._episode_start = np.full(n, time.time())
        self.busy = np.zeros(n, dtype=bool)
        self._coded = np.zeros(n, dtype=bool)  # the action in progress is a coded one
        self._next = np.full(n, -1, dtype=np.int32)  # primitive to take at the next step
        self._final = np.zeros(n, dtype=bool)  # the action ends after that step
        self._reward = np.zeros(n)  # discounted reward of the action so far
        self._discount = np.ones(n)
        self._finished: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list]] = []
        self.groups = world.env_groups()
        self._in_flight: dict[int, tuple[Any, np.ndarray, Any]] = {}

    @property
    def stats(self):
        """Per coded action: calls, steps, end reasons, code versions."""
        return self.scheduler.stats

    def called_policies(self, name: str, begun: Any) -> dict[str, str]:
        """The policy skills coded action ``name``'s calls ran (``begun``: its calls'
        ``policy:<name>`` marks), each by its reference (a digest of its weights), so that
        the library counts the calls on the policy that ran."""
        entry = next((e for e in self.table if e.coded is not None and e.name == name), None)
        if entry is None or entry.coded is None:
            return {}
        return {
            p.name: p.ref for p in entry.coded.policies if p.ref and POLICY_MARK + p.name in begun
        }

    def with_policies(self, name: str, stats: dict[str, Any]) -> dict[str, Any]:
        """``stats`` (a coded action's totals) with the policies its calls ran, where any."""
        refs = self.called_policies(name, stats.get("begun") or {})
        return stats | {"policies": refs} if refs else stats

    def coded_index(self, name: str) -> int | None:
        """The table index of coded action ``name`` (None: there is none)."""
        return next(
            (i for i, e in enumerate(self.table) if e.coded is not None and e.name == name), None
        )

    def replace_coded(self, name: str, action: CodedAction) -> None:
        """Swap coded action ``name``'s code (same table index); calls that start from now
        run ``action`` (validated by the caller)."""
        index = self.coded_index(name)
        if index is None:
            raise KeyError(f"no coded action named {name!r} in this action table")
        entry = self.table[index]
        self.table[index] = ActionEntry(entry.name, coded=action, memory_key=entry.memory_key)
        self.scheduler.replace(name, action)

    def close(self) -> None:
        self.scheduler.close()

    @property
    def last(self) -> StepResult:
        """The world's latest step, or the reset's observations: every env's current state."""
        if self._last is None:
            raise RuntimeError("the runner's world has not been reset yet: call reset(seed)")
        return self._last

    # -- episodes ----------------------------------------------------------------------------
    def reset(self, seed: int) -> StepResult:
        """New games in every env; every action in progress is dropped."""
        self.abandon()
        self._finished.clear()
        self._last = self.world.reset(seed)
        self.scheduler.reset_memory(list(range(self.num_envs)))
        for hook in self.hooks:
            hook.after_reset(self, None)
        self._episode_return[:] = 0
        self._episode_length[:] = 0
        self._episode_start[:] = time.time()
        return self.last

    # -- actions on each env's own clock -----------------------------------------------------
    def begin(self, envs: np.ndarray, actions: np.ndarray) -> None:
        """Start action-table entries ``actions`` in the idle envs ``envs``."""
        envs = np.asarray(envs, dtype=np.int64)
        if self.busy[envs].any():
            raise RuntimeError("an env got a new action before its last one ended")
        starting, slots = [], []
        for i, a in zip(envs.tolist(), np.asarray(actions).tolist(), strict=True):
            entry = self.table[int(a)]
            if entry.coded is None:
                assert entry.primitive is not None  # an entry is a primitive or a coded action
                self._next[i], self._final[i] = entry.primitive, True
            else:
                starting.append(i)
                slots.append(self._slot_of[int(a)])
        self.busy[envs] = True
        self._coded[starting] = True
        self._reward[envs] = 0.0
        self._discount[envs] = 1.0
        self.decisions += len(envs)
        self.coded_decisions += len(starting)
        if starting:
            self.scheduler.start(starting, slots)
            self._ask(starting)

    def prepare(self, among: np.ndarray | list[int] | None = None) -> None:
        """Ask the running coded actions that wait for their next step (those ``among``
        these envs; default all) for it."""
        waiting = self.busy & self._coded & (self._next < 0)
        if among is not None:
            chosen = np.zeros(self.num_envs, dtype=bool)
            chosen[np.asarray(among, dtype=np.int64)] = True
            waiting &= chosen
        envs = np.flatnonzero(waiting).tolist()
        if envs:
            self._ask(envs)

    def _ask(self, envs: list[int]) -> None:
        rows, light = self.world.view_rows(envs)
        actions, ended = self.scheduler.ask(envs, rows, light)
        self.records.extend(ended)
        steps = {r.env: r.steps for r in ended}
        done = []
        for i, action in zip(envs, actions.tolist(), strict=True):
            if action >= 0:
                self._next[i] = action
            elif steps.get(i, 1) == 0:
                self._next[i], self._final[i] = NOOP, True
            else:
                done.append(i)
        if done:
            self._finish(np.asarray(done, dtype=np.int64), np.zeros(len(done), dtype=bool))

    def interrupt(self, envs: list[int]) -> None:
        """End the actions in progress in ``envs`` now (e.g. a chain's stage changed)."""
        envs = [i for i in envs if self.busy[i]]
        if envs:
            stopped = self.scheduler.stop(envs, CallEnd.INTERRUPTED, self.parks_interrupted_calls)
            self.records.extend(stopped)
            self._finish(np.asarray(envs, dtype=np.int64), np.zeros(len(envs), dtype=bool))

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
        before = [hook.before_step(self, stepping) for hook in self.hooks]
        handle = self.world.step_async(actions, stepping)
        self._in_flight[group] = (handle, stepping, before)

    def land(self, group: int) -> None:
        """Finish the group's step: rewards, action and episode ends, resets."""
        if group not in self._in_flight:
            return
        handle, stepping, before = self._in_flight.pop(group)
        result = self.world.step_wait(handle)
        self.batched_steps += 1
        if self.on_world_step is not None:
            self.on_world_step()
        stepped = np.flatnonzero(stepping)
        self.samples += len(stepped)
        self.coded_samples += int(self._coded[stepped].sum())
        if self.task is not None:
            out_of_time = (self._episode_length + 1 >= self.task.horizon) & stepping
            reached = self.task.success(result.achievements, result.inventory) & stepping
            survived = self.task.survived(out_of_time, result.game_over)
            reached |= survived
        else:
            reached = np.zeros(self.num_envs, dtype=bool)
            out_of_time = np.zeros(self.num_envs, dtype=bool)
        ended = reached | out_of_time | (result.game_over & stepping)
        running = stepping & self._coded & ~ended & ~self._final
        step = WorldStep(result, stepping, reached, out_of_time, running)
        step_reward = self._task_reward(result) * stepping
        for hook, token in zip(self.hooks, before, strict=True):
            hook.add_reward(self, step, step_reward, token)
        if self.task is not None and self.task.reward == "goal":
            # survival's reward after the hooks': a survivor takes no death penalty, so
            # every sum is as when reward code and the penalty were the runner's own
            step_reward += survived
        self._reward[stepping] += self._discount[stepping] * step_reward[stepping]
        self._discount[stepping] *= self.gamma
        self._episode_length[stepping] += 1
        self._episode_return[stepping] += step_reward[stepping]
        self._next[stepping] = -1
        self._last = result
        calls_cut = np.flatnonzero(ended & self._coded).tolist()
        if calls_cut:
            self.records.extend(self.scheduler.stop(calls_cut, CallEnd.EPISODE_ENDED))
        cut: list[int] = []
        for hook in self.hooks:  # every hook sees every step (each keeps its own state)
            cut += [i for i in hook.interrupts(self, step) if i not in cut]
        finished = ended | (self._final & stepping)
        if cut:
            self.interrupt(cut)
        if not finished.any():
            return
        envs = np.flatnonzero(finished)
        infos = self._episode_infos(
            envs, ended, reached, out_of_time & ~reached & ~result.game_over
        )
        self._finish(envs, ended[envs], infos)
        if ended.any() and self.reset_ended:
            self._last = self.world.reset_envs(ended)
            self.scheduler.reset_memory(np.flatnonzero(ended).tolist())
            for hook in self.hooks:
                hook.after_reset(self, ended)

    def settle(self) -> None:
        """Land every step in flight."""
        for group in list(self._in_flight):
            self.land(group)

    def _episode_infos(self, envs, ended, reached, truncated) -> list[dict[str, Any]]:
        """Infos for the finished actions ``envs``; bookkeeping of ended episodes."""
        infos: list[dict[str, Any]] = [{} for _ in envs]
        over = np.flatnonzero(ended)
        if not len(over):
            return infos
        position = {i: k for k, i in enumerate(envs.tolist())}
        now = time.time()
        dead = [i for i in over.tolist() if self.last.game_over[i] and not reached[i]]
        causes = dict(zip(dead, map(death_cause, self.world.views(dead)), strict=True))
        for i in over.tolist():
            end = (
                EpisodeEnd.SUCCESS
                if reached[i]
                else causes.get(i, EpisodeEnd.HORIZON if truncated[i] else EpisodeEnd.DIED)
            )
            infos[position[i]] = {
                "terminal_obs": self.last.obs[i],
                "TimeLimit.truncated": bool(truncated[i]),
                "is_success": bool(reached[i]),
                "game_over": bool(self.last.game_over[i]),
                "end": end,
                "episode": {
                    "r": float(self._episode_return[i]),
                    "l": int(self._episode_length[i]),
                    "t": round(now - self._episode_start[i], 6),
                },
                "achievements": self.last.achievements[i].copy(),
            }
            self.tally.add(bool(reached[i]), self.last.achievements[i], end)
        self._episode_return[over] = 0.0
        self._episode_length[over] = 0
        self._episode_start[over] = now
        self.episodes_finished += len(over)
        self.successes += int(reached[over].sum())
        return infos

    def _finish(self, envs: np.ndarray, dones: np.ndarray, infos=None) -> None:
        self.busy[envs] = False
        self._coded[envs] = False
        self._final[envs] = False
        self._next[envs] = -1
        rewards = self._reward[envs].astype(np.float32)
        discounts = self._discount[envs].astype(np.float32)
        self._finished.append((envs, rewards, dones, discounts, infos or [{} for _ in envs]))

    def take_finished(self) -> ActionsEnded:
        """The actions that ended since the last call."""
        parts, self._finished = self._finished, []
        return ActionsEnded(
            envs=np.concatenate([np.zeros(0, dtype=np.int64)] + [p[0] for p in parts]),
            rewards=np.concatenate([np.zeros(0, dtype=np.float32)] + [p[1] for p in parts]),
            dones=np.concatenate([np.zeros(0, dtype=bool)] + [p[2] for p in parts]),
            discounts=np.concatenate([np.zeros(0, dtype=np.float32)] + [p[3] for p in parts]),
            infos=[info for p in parts for info in p[4]],
        )

    def take_records(self) -> list[CallRecord]:
        """The coded calls that ended since the last call, with their reasons."""
        records, self.records = self.records, []
        return records

    def abandon(self) -> None:
        """Drop the actions in progress (training stopped mid-rollout); the envs are idle."""
        self.settle()
        envs = np.flatnonzero(self.busy)
        calls = np.flatnonzero(self._coded).tolist()
        if calls:
            self.records.extend(self.scheduler.stop(calls, CallEnd.ABANDONED))
        self.busy[envs] = False
        self._coded[envs] = False
        self._final[envs] = False
        self._next[envs] = -1

    # -- rewards -------------------------------------------------------------------------------
    def _task_reward(self, result: StepResult) -> np.ndarray:
        """The step's reward per env before hooks: the task's goal (1 while it holds), else
        the world's reward."""
        if self.task is not None and self.task.reward == "goal":
            return self.task.success(result.achievements, result.inventory).astype(np.float64)
        return result.reward.astype(np.float64)

    def coded_usage(self) -> dict[str, Any]:
        """Share of decisions and samples in coded actions, and per-action statistics."""
        return {
            "decision_share": self.coded_decisions / self.decisions if self.decisions else 0.0,
            "sample_share": self.coded_samples / self.samples if self.samples else 0.0,
            "actions": {
                name: self.with_policies(name, s.as_dict()) for name, s in self.stats.items()
            },
            "reward_code_failures": dict(self.scheduler.reward_failures.most_common(5)),
            "worker_restarts": self.scheduler.restarts,
        }


# -- drivers ----------------------------------------------------------------------------------
@dataclass
class EpisodeOutcome:
    """One finished episode."""

    env: int
    success: bool
    length: int
    ret: float
    achievements: np.ndarray
    game_over: bool
    end: EpisodeEnd = EpisodeEnd.DIED
    last_view: View | None = None


Chooser = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (envs, their obs) -> table indices


def run_episodes(
    runner: EpisodeRunner,
    choose: Chooser,
    seed: int,
    after_step: Callable[[EpisodeRunner], None] | None = None,
    keep_last_view: bool = False,
    until: Callable[[list[EpisodeOutcome]], bool] | None = None,
    rounds: list[np.ndarray] | None = None,
) -> list[EpisodeOutcome]:
    """One episode in every env of ``runner`` (built with ``reset_ended=False``): idle envs
    get table entries from ``choose`` until their episode ends. ``after_step`` runs after
    every world step (e.g. a chain switching stages, frames for a GIF, progress; an
    exception it raises ends the run). ``until(outcomes)`` hears of the episodes ended so
    far whenever some end: True stops the run there (the episodes still running are
    dropped, their actions abandoned). ``rounds``: the envs that play, in turns (every
    env's game starts at the reset; a round's envs begin once the last round's episodes
    all ended; None: every env at once). The one driver of "one episode per env": policy
    evaluation (:func:`rlgpt_tui.rl.evaluation.evaluate`), code alone, chains, report GIFs."""
    if runner.reset_ended:
        raise ValueError("run_episodes needs a runner with reset_ended=False")
    result = runner.reset(seed)
    obs = result.obs
    turns = list(rounds) if rounds is not None else [np.arange(runner.num_envs)]
    playing = np.zeros(runner.num_envs, dtype=bool)
    playing[turns.pop(0)] = True
    outcomes: list[EpisodeOutcome] = []
    while playing.any():
        known = len(outcomes)
        deciding = np.flatnonzero(playing & ~runner.busy)
        if len(deciding):
            runner.begin(deciding, np.asarray(choose(deciding, obs[deciding])))
        runner.prepare()
        if runner.busy.any():
            runner.advance()
            if after_step is not None:
                after_step(runner)
            obs = runner.last.obs
        finished = runner.take_finished()
        for env, done, info in zip(
            finished.envs.tolist(), finished.dones.tolist(), finished.infos, strict=True
        ):
            if not done or not playing[env]:
                continue
            playing[env] = False
            view = runner.world.views([env])[0] if keep_last_view else None
            outcomes.append(
                EpisodeOutcome(
                    env,
                    info["is_success"],
                    info["episode"]["l"],
                    info["episode"]["r"],
                    info["achievements"],
                    info["game_over"],
                    info["end"],
                    view,
                )
            )
        if until is not None and len(outcomes) > known and until(outcomes):
            if playing.any():
                runner.abandon()
            break
        if not playing.any() and turns:  # the round ended: the next one begins
            playing[turns.pop(0)] = True
    outcomes.sort(key=lambda o: o.env)
    return outcomes


def code_alone(runner: EpisodeRunner, name: str) -> Chooser:
    """A chooser that always picks coded action ``name`` (called again when it returns)."""
    index = runner.coded_index(name)
    if index is None:
        offered = [e.name for e in runner.table if e.coded is not None]
        raise ValueError(f"no coded action {name!r} in the action table: use one of {offered}")
    return lambda envs, obs: np.full(len(envs), index)


def run_one_call_each(
    world: World, action: CodedAction, seed: int = 0
) -> tuple[list[View], list[View], list[CallRecord]]:
    """One call of ``action`` in every env of ``world`` from its current state (no task:
    only the game's end cuts a call). Returns the Views before and after, and each env's
    call record (steps taken, end reason), in env order."""
    runner = EpisodeRunner(
        world, None, [ActionEntry(action.name, coded=action)], seed=seed, reset_ended=False
    )
    try:
        before = world.views()
        runner.begin(np.arange(world.num_envs), np.zeros(world.num_envs, dtype=np.int64))
        while runner.busy.any():
            runner.advance()
            runner.prepare()
        records = {r.env: r for r in runner.take_records()}
        return before, world.views(), [records[i] for i in range(world.num_envs)]
    finally:
        runner.close()
