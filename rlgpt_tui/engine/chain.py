"""The task planner's chain: solve sub-tasks one by one, then run their solutions in order.

Each stage's solution is the best iteration of its own two-loop run: a coded routine or a
PPO policy over its action table (coded actions included). The chained controller runs
every env on its own clock: it follows stage k's solution until stage k's goal holds, then
moves to stage k+1, and is evaluated on the whole task's goal and horizon. Coded stage
solutions share one ``ctx.memory`` per episode, so what one stage's code learnt of the
world (the tech-tree code keeps a map there) is not lost when the next stage takes over.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from rlgpt_tui.envs import make_world
from rlgpt_tui.skills.runtime import CodedAction, CodedCall
from rlgpt_tui.tasks import get_task

STAGE_CODE_MEMORY = "stage code"  # the ctx.memory key shared by coded stage solutions


@dataclass
class StageSolution:
    """How one sub-task is solved: ``coded`` alone, or ``model`` over ``config``'s actions."""

    task: str
    coded: CodedAction | None = None
    model: Any = None  # a stable-baselines3 PPO
    config: Any = None  # its RLConfig

    @property
    def kind(self) -> str:
        return "code" if self.coded is not None else "rl"


class _Stage:
    def __init__(self, solution: StageSolution, world):
        from rlgpt_tui.rl.train import coded_actions_for
        from rlgpt_tui.rl.vec_env import build_action_table, feature_index

        self.solution = solution
        self.goal = get_task(solution.task)
        self.table = None
        self.features = None
        if solution.model is not None:
            config = solution.config
            self.table = build_action_table(config.primitives, coded_actions_for(config))
            self.features = feature_index(world, config.observation)


def evaluate_chain(
    stages: list[StageSolution], task: str, env: str, episodes: int, seed: int
) -> dict[str, Any]:
    """Run the chained solutions once per env; success rate on ``task`` and stage reach."""
    from rlgpt_tui.rl.train import wilson_interval

    final = get_task(task)
    world = make_world(env, episodes, seed=seed, task=task)
    result = world.reset(seed)
    runners = [_Stage(s, world) for s in stages]
    stage = np.zeros(episodes, dtype=np.int64)
    done = np.zeros(episodes, dtype=bool)
    success = np.zeros(episodes, dtype=bool)
    length = np.zeros(episodes, dtype=np.int64)
    calls: list[CodedCall | None] = [None] * episodes
    memories: list[dict] = [{} for _ in range(episodes)]
    rngs = [random.Random(seed * 7 + i) for i in range(episodes)]
    while not done.all():
        views = world.views()
        actions = np.zeros(episodes, dtype=np.int32)
        decisions = _policy_decisions(runners, stage, done, calls, result.obs)
        for i in np.flatnonzero(~done):
            runner = runners[stage[i]]
            if calls[i] is None:
                if runner.solution.coded is not None:
                    calls[i] = runner.solution.coded.start(
                        views[i], memories[i].setdefault(STAGE_CODE_MEMORY, {}), rngs[i]
                    )
                else:
                    entry = runner.table[decisions[i]]
                    if entry.coded is None:
                        actions[i] = entry.primitive
                        continue
                    calls[i] = entry.coded.start(
                        views[i], memories[i].setdefault(entry.name, {}), rngs[i]
                    )
            step = calls[i].next_action(views[i])
            if step is None:  # the routine ended: a no-op this tick, a new decision next
                calls[i] = None
                step = 0
            actions[i] = step
        result = world.step(actions, ~done)
        length[~done] += 1
        for i in np.flatnonzero(~done):
            while (
                stage[i] < len(runners) - 1
                and runners[stage[i]].goal.success(
                    result.achievements[i : i + 1], result.inventory[i : i + 1]
                )[0]
            ):
                stage[i] += 1
                calls[i] = None
        reached = final.success(result.achievements, result.inventory) & ~done
        success |= reached
        done |= reached | result.game_over | (length >= final.horizon)
    world.close()
    low, high = wilson_interval(int(success.sum()), episodes)
    return {
        "episodes": episodes,
        "success_rate": round(float(success.mean()), 4),
        "ci95": [round(low, 4), round(high, 4)],
        "mean_length": round(float(length.mean()), 1),
        "stages": [s.task for s in stages],
        "stage_reached": {
            s.task: round(float((stage >= k).mean()), 3) for k, s in enumerate(stages)
        },
        "samples": int(length.sum()),
    }


def _policy_decisions(runners, stage, done, calls, obs) -> np.ndarray:
    """Batch the PPO decisions of envs in RL stages that are not inside a coded action."""
    decisions = np.zeros(len(stage), dtype=np.int64)
    for k, runner in enumerate(runners):
        if runner.solution.model is None:
            continue
        envs = [i for i in np.flatnonzero((stage == k) & ~done) if calls[i] is None]
        if not envs:
            continue
        batch = obs[envs] if runner.features is None else obs[envs][:, runner.features]
        picked, _ = runner.solution.model.predict(np.asarray(batch, dtype=np.float32))
        decisions[envs] = picked
    return decisions
