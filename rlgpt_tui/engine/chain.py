"""The task planner's chain: solve sub-tasks one by one, then run their solutions in order.

Each stage's solution is the best iteration of its own two-loop run: a coded routine or a
PPO policy over its action table (coded actions included). The chained controller runs
every env on its own clock: it follows stage k's solution until stage k's goal holds, then
moves to stage k+1, and is evaluated on the whole task's goal and horizon. Coded stage
solutions share one ``ctx.memory`` per episode, so what one stage's code learnt of the
world (the tech-tree code keeps a map there) is not lost when the next stage takes over.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rlgpt_tui.envs import make_world
from rlgpt_tui.skills.episodes import ActionEntry, EpisodeRunner, run_episodes
from rlgpt_tui.skills.runtime import CodedAction
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


def _chain_table(stages: list[StageSolution], world) -> tuple[list[ActionEntry], list[dict]]:
    """One action table for every stage: each stage's entries under ``stage<k>_`` names.

    Coded stage solutions share ``ctx.memory`` (:data:`STAGE_CODE_MEMORY`); coded actions
    inside an RL stage keep one memory per action, as in training."""
    from rlgpt_tui.rl.train import coded_actions_for
    from rlgpt_tui.rl.vec_env import build_action_table, feature_index

    table: list[ActionEntry] = []
    plans: list[dict] = []
    for k, solution in enumerate(stages):
        prefix = f"stage{k}_"
        if solution.coded is not None:
            plans.append({"code": len(table)})
            coded = replace(solution.coded, name=prefix + solution.coded.name)
            table.append(ActionEntry(coded.name, coded=coded, memory_key=STAGE_CODE_MEMORY))
            continue
        config = solution.config
        stage_table = build_action_table(config.primitives, coded_actions_for(config))
        plans.append(
            {
                "offset": len(table),
                "model": solution.model,
                "features": feature_index(world, config.observation),
            }
        )
        for entry in stage_table:
            if entry.coded is None:
                table.append(entry)
            else:
                coded = replace(entry.coded, name=prefix + entry.name)
                table.append(ActionEntry(coded.name, coded=coded, memory_key=entry.name))
    return table, plans


def evaluate_chain(
    stages: list[StageSolution], task: str, env: str, episodes: int, seed: int
) -> dict[str, Any]:
    """Run the chained solutions once per env; ``task``'s measure and stage reach.

    Every env follows stage k's solution until stage k's goal holds (its action is then
    interrupted), then stage k+1's; the whole task's goal and horizon end the episode."""
    final = get_task(task)
    goals = [get_task(s.task) for s in stages]
    world = make_world(env, episodes, seed=seed, task=task)
    table, plans = _chain_table(stages, world)
    runner = EpisodeRunner(world, final, table, seed=seed, reset_ended=False)
    stage = np.zeros(episodes, dtype=np.int64)

    def choose(envs: np.ndarray, obs: np.ndarray) -> np.ndarray:
        picked = np.zeros(len(envs), dtype=np.int64)
        for k, plan in enumerate(plans):
            mine = np.flatnonzero(stage[envs] == k)
            if not len(mine):
                continue
            if "code" in plan:
                picked[mine] = plan["code"]
                continue
            batch = obs[mine] if plan["features"] is None else obs[mine][:, plan["features"]]
            actions, _ = plan["model"].predict(np.asarray(batch, dtype=np.float32))
            picked[mine] = plan["offset"] + np.asarray(actions)
        return picked

    def switch_stages(runner: EpisodeRunner) -> None:
        result = runner.last
        moved = []
        for i in range(episodes):
            while (
                stage[i] < len(goals) - 1
                and goals[stage[i]].success(
                    result.achievements[i : i + 1], result.inventory[i : i + 1]
                )[0]
            ):
                stage[i] += 1
                moved.append(i)
        runner.interrupt(moved)

    try:
        outcomes = run_episodes(runner, choose, seed, after_step=switch_stages)
    finally:
        runner.close()
        world.close()
    length = np.array([o.length for o in outcomes])
    measurement = runner.tally.measure(final, seed=seed)
    return measurement.as_dict() | {
        "mean_length": round(float(length.mean()), 1),
        "stages": [s.task for s in stages],
        "stage_reached": {
            s.task: round(float((stage >= k).mean()), 3) for k, s in enumerate(stages)
        },
        "samples": int(length.sum()),
    }
