"""Evaluation: ``evaluate(config, model, ...)`` runs one episode per env (the one episode
driver, :func:`~rlgpt_tui.rl.episodes.run_episodes`) and measures the task: a success rate
with a Wilson 95% interval, or Crafter's score with a bootstrap one, stopping early once
its episodes decide the question asked of it (:mod:`rlgpt_tui.rl.decide`)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

import numpy as np
from stable_baselines3 import PPO

from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.decide import SCORE_FIRST, Decision, Question, score_rounds
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.episodes import (
    EpisodeOutcome,
    EpisodeRunner,
    EpisodeTally,
    code_alone,
    run_episodes,
)
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.skills.runtime import CodedActionStats
from rlgpt_tui.tasks.catalog import Task

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (envs, observations) -> actions


def evaluate(
    config: RLConfig,
    model: PPO | None = None,
    only_coded: str | None = None,
    episodes: int = 100,
    seed: int = 10_000,
    deterministic: bool | None = None,
    on_episodes: Callable[[int, int], None] | None = None,
    question: Question | None = None,
    env: CodedActionVecEnv | None = None,
    first: int = SCORE_FIRST,
    most: int | None = None,
) -> EvalResult:
    """Run one episode in each of ``episodes`` envs and measure the task.

    With ``model``: the trained policy (over its action table, coded actions included).
    With ``only_coded``: that coded action alone, called again whenever it returns.
    With neither: a uniformly random policy over the action table (the baseline).
    ``deterministic`` (None: only for a policy that started from code, whose mode is the
    code until PPO learned better; other policies sample, as they were trained).
    ``on_episodes(done, total)`` hears of each step that ends episodes (an exception it
    raises ends the evaluation, the world closed). ``question``: stop as soon as the
    episodes ended decide it (:mod:`rlgpt_tui.rl.decide`; a score: in rounds of whole
    episodes, the first of ``first``, until its interval answers or ``most`` episodes
    ended, in the world of ``episodes`` envs); the result then counts
    those episodes and says so (``decision``). ``env``: play in this world (e.g.
    the training's, with ``episodes`` envs: no new world is built or compiled); it is
    reset to ``seed`` and left open.

    Each env decides on its own clock and stops at its episode's end
    (:func:`rlgpt_tui.rl.episodes.run_episodes`, the one episode driver).
    """
    if deterministic is None:
        deterministic = config.start.action is not None
    if env is None or env.num_envs != episodes:
        # in the training's layout of groups: the same sizes reuse compiled kernels
        env, own = build_env(config, num_envs=episodes, seed=seed), True
    else:
        own = False
    choose = _policy(env, model, only_coded, deterministic, seed)
    stop = _EarlyStop(env.task, question, episodes, seed, first, most, on_episodes)
    try:
        played = _play(env.runner, choose, seed, stop)
    finally:
        if own:
            env.close()
    outcomes = played.outcomes
    tally = tally_of(outcomes)
    return EvalResult(
        measurement=tally.measure(env.task, seed=seed),
        mean_length=float(np.mean([o.length for o in outcomes])) if outcomes else 0.0,
        mean_return=float(np.mean([o.ret for o in outcomes])) if outcomes else 0.0,
        samples=played.samples,
        tally=tally,
        decision=stop.decision,
        notes={name: n for name, n in played.notes.items() if n},
        calls=played.calls,
    )


def _policy(
    env: CodedActionVecEnv,
    model: PPO | None,
    only_coded: str | None,
    deterministic: bool,
    seed: int,
) -> Policy:
    """What acts: the trained ``model``, the coded action ``only_coded`` alone, or (with
    neither) a uniformly random choice over the action table."""
    runner = env.runner
    if only_coded is not None and runner.coded_index(only_coded) is None:
        offered = [e.name for e in runner.table if e.coded is not None]
        raise ValueError(f"no coded action {only_coded!r} in the config: use one of {offered}")
    if model is not None:

        def choose(envs: np.ndarray, obs: np.ndarray) -> np.ndarray:
            actions, _ = model.predict(env.features(obs), deterministic=deterministic)
            return actions

        return choose
    if only_coded is not None:
        return code_alone(runner, only_coded)
    rng = np.random.default_rng(seed)
    size = len(runner.table)

    def choose_at_random(envs: np.ndarray, obs: np.ndarray) -> np.ndarray:
        return rng.integers(0, size, len(envs))

    return choose_at_random


class _EarlyStop:
    """When an evaluation stops: once its episodes decide ``question`` (a success rate
    by its range after any episode; a score in rounds of whole episodes, the first of
    ``first``, up to ``most``), or when every planned episode ended. It tells
    ``on_episodes`` of each step that ends episodes."""

    def __init__(
        self,
        task: Task,
        question: Question | None,
        episodes: int,
        seed: int,
        first: int,
        most: int | None,
        on_episodes: Callable[[int, int], None] | None,
    ):
        self.task, self.question, self.episodes, self.seed = task, question, episodes, seed
        self.on_episodes = on_episodes
        self.scored = task.scored
        # a score is decided in rounds of whole episodes (a rate by its range, all at once)
        self.planned = min(most or episodes, episodes) if self.scored else episodes
        self.ends = (
            score_rounds(self.planned, first)
            if self.scored and question is not None
            else [episodes]
        )
        self.decision: Decision | None = None  # what the episodes answered, once they did

    def rounds(self, groups: list[np.ndarray]) -> list[np.ndarray]:
        """The envs of each round, taken from the groups in turn."""
        order = [int(e) for turn in zip_longest(*groups) for e in turn if e is not None]
        return [np.array(order[a:b]) for a, b in zip([0, *self.ends], self.ends, strict=False)]

    def __call__(self, outcomes: list[EpisodeOutcome]) -> bool:
        """Whether the episodes ended so far decide the question."""
        if self.on_episodes is not None:
            self.on_episodes(len(outcomes), self.planned)
        question = self.question
        if question is None or len(outcomes) >= self.planned:
            return False
        if self.scored:
            if len(outcomes) not in self.ends:  # the round goes on
                return False
            measured = tally_of(outcomes).measure(self.task, seed=self.seed)
            decided = question.settled(measured.value, *measured.ci95, len(outcomes), self.planned)
        else:
            wins = sum(o.success for o in outcomes)
            decided = question.decided(wins, len(outcomes), self.episodes)
        if decided is not None and self.decision is None:
            self.decision = decided
        return self.decision is not None


@dataclass
class _Played:
    """An evaluation's episodes, its samples, and its coded actions' notes and calls."""

    outcomes: list[EpisodeOutcome]
    samples: int
    notes: dict[str, dict[str, int]]
    calls: dict[str, dict[str, Any]]


def _play(runner: EpisodeRunner, choose: Policy, seed: int, stop: _EarlyStop) -> _Played:
    """The evaluation's episodes in the runner, whose training tally, reset rule and
    coded actions' statistics are kept (what the evaluation's calls did is told apart)."""
    rounds = stop.rounds(runner.groups)
    kept = (runner.tally, runner.reset_ended, runner.samples)
    before = {name: copy.deepcopy(stats) for name, stats in runner.stats.items()}
    runner.tally, runner.reset_ended = EpisodeTally(), False  # the training's are kept
    try:
        outcomes = run_episodes(runner, choose, seed, until=stop, rounds=rounds)
        samples = runner.samples - kept[2]
        since = {
            name: stats.since(before.get(name, CodedActionStats()))
            for name, stats in runner.stats.items()
        }
        notes = {name: dict(stats.notes.most_common(3)) for name, stats in since.items()}
        calls = {
            name: runner.with_policies(name, stats.totals())
            for name, stats in since.items()
            if stats.calls
        }
    finally:
        runner.tally, runner.reset_ended = kept[0], kept[1]
    return _Played(outcomes, samples, notes, calls)


def tally_of(outcomes: list[EpisodeOutcome]) -> EpisodeTally:
    """Episodes' successes, achievements and ends, in env order."""
    tally = EpisodeTally()
    for o in sorted(outcomes, key=lambda o: o.env):
        tally.add(o.success, o.achievements, o.end)
    return tally
