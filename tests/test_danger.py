"""Coded calls that end at a danger point (``interrupt_on_danger``), so that the policy of
RL that starts from the code decides there, and climbs above code that ignores the danger."""

from __future__ import annotations

import numpy as np
import pytest

from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    BLOCK_NAMES,
    MAP_FEATURES,
    MOB_NAMES,
    OBSERVATION_SIZE,
    VIEW_COLS,
    VIEW_ROWS,
    hostile_distances,
)
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.environment import coded_actions_for, task_for
from rlgpt_tui.rl.episodes import EpisodeRunner, run_episodes
from rlgpt_tui.rl.hooks import DangerInterrupt, hooks_for
from rlgpt_tui.rl.model import make_model
from rlgpt_tui.rl.train import train
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.skills.runtime import recorded_views
from rlgpt_tui.skills.validation import validate
from tests.still_world import StillWorld, run_call

DO = 5  # the primitive 'do' in the world's action numbering
WAIT = "def act(ctx):\n    for _ in range(20):\n        yield Action.NOOP\n"


def with_zombie(obs: np.ndarray, row: int, distance: int) -> None:
    """Put a zombie ``distance`` steps right of the player in ``obs[row]``'s View."""
    channels = len(BLOCK_NAMES) + len(MOB_NAMES)
    cells = obs[row, :MAP_FEATURES].reshape(VIEW_ROWS, VIEW_COLS, channels)
    cells[VIEW_ROWS // 2, VIEW_COLS // 2 + distance, len(BLOCK_NAMES)] = 1.0


class ZombieWorld(StillWorld):
    """A zombie shows 3 steps away at step ``arrives - 1`` of an episode (``arrives``: 3, 4 or
    5, by env), 2 steps away at step ``arrives``; the player's next primitive decides: ``do``
    kills it and reaches the collect_wood goal, anything else is death."""

    def arrives(self, env: int) -> int:
        return 3 + env % 3

    def _result(self):
        n = self.num_envs
        obs = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
        over = np.zeros(n, dtype=bool)
        achievements = np.zeros((n, len(ACHIEVEMENTS)), dtype=bool)
        for i, taken in enumerate(self.taken):
            k = self.arrives(i)
            if len(taken) == k - 1:
                with_zombie(obs, i, 3)
            elif len(taken) == k:
                with_zombie(obs, i, 2)
            elif len(taken) > k:
                won = taken[k] == DO
                achievements[i, ACHIEVEMENTS.index("collect_wood")] = won
                over[i] = not won
        result = super()._result()
        result.obs, result.game_over, result.achievements = obs, over, achievements
        return result


def test_hostile_distances_read_the_view() -> None:
    obs = np.zeros((3, OBSERVATION_SIZE), dtype=np.float32)
    with_zombie(obs, 0, 2)
    with_zombie(obs, 1, 4)
    with_zombie(obs, 1, 1)
    assert hostile_distances(obs).tolist() == [2.0, 1.0, float("inf")]


@pytest.mark.parametrize("danger", [0, 2])
def test_a_coded_call_ends_when_a_zombie_comes_close(danger: int) -> None:
    """With interrupt_on_danger 2 a call ends at the step the zombie comes within 2 steps
    (not at the step before, when it showed 3 away): the player's next step is the
    policy's; without it the call runs on, and the zombie kills the player."""
    world = ZombieWorld(3)
    env = CodedActionVecEnv(
        world,
        task_for(RLConfig(task="collect_wood")),
        coded=[wait_spec().validated()],
        primitives=["noop", "do"],
        hooks=[DangerInterrupt(danger)] if danger else [],
        workers=1,
    )
    env.reset()
    env.step(np.full(3, 2, dtype=np.int64))  # the coded action
    env.close()
    if danger:
        assert [len(t) for t in world.taken] == [3, 4, 5]  # ended as the zombie came
    else:
        assert [len(h) for h in world.history] == [4, 5, 6]  # walked on into its death


def wait_spec() -> CodedActionSpec:
    return CodedActionSpec(name="wait", source=WAIT)


def successes(env: CodedActionVecEnv, choose) -> float:
    runner: EpisodeRunner = env.runner
    runner.reset_ended = False
    outcomes = run_episodes(runner, choose, seed=0)
    return float(np.mean([o.success for o in outcomes]))


@pytest.mark.slow
def test_rl_from_code_climbs_where_the_code_ignores_the_danger() -> None:
    """The code (wait) ignores a zombie and dies in every episode. PPO that starts as that
    code, with its calls ending when the zombie comes close, learns to hit it there (the
    mode of the trained policy is the code elsewhere): every evaluation episode succeeds."""
    cfg = RLConfig(
        task="collect_wood",
        num_envs=12,
        seed=0,
        samples=3_000,
        primitives=["noop", "do"],
        coded_actions=[wait_spec()],
        start_from="wait",
        start_share=0.8,
        start_anchor_decay=0.5,
        critic_warmup=1,
        interrupt_on_danger=2,
        ppo={"n_steps": 8, "batch_size": 32, "learning_rate": 3e-3, "n_epochs": 8},
    )

    def vec_env() -> CodedActionVecEnv:
        return CodedActionVecEnv(
            ZombieWorld(12),
            task_for(cfg),
            coded=coded_actions_for(cfg),
            primitives=cfg.primitives,
            hooks=hooks_for(cfg),
            workers=1,
        )

    env = vec_env()
    model = make_model(cfg, env)
    result = train(cfg, model=model, env=env)
    env.close()
    code, rl = vec_env(), vec_env()
    try:
        wait = code.coded_index("wait")
        assert successes(code, lambda envs, obs: np.full(len(envs), wait)) == 0.0
        chosen: list[int] = []

        def mode(envs, obs):
            actions, _ = result.model.predict(rl.features(obs), deterministic=True)
            chosen.extend(actions.tolist())
            return actions

        assert successes(rl, mode) == 1.0
        assert chosen.count(wait) >= len(chosen) // 2  # the code still runs where it is safe
    finally:
        code.close()
        rl.close()


def test_the_skills_to_choose_at_a_danger_point_validate() -> None:
    """``recover`` and ``fight`` are library skills; with no zombie or skeleton in sight,
    ``fight`` returns without acting (the runner then takes one no-op for it)."""
    for name in ("recover", "fight"):
        validate(name, template_code(name))
    view = recorded_views()[0]
    assert not any(name in ("zombie", "skeleton") for name, _, _ in view.mobs)
    taken, record, _ = run_call(validate("fight", template_code("fight")), steps=20)
    assert taken == [0] and record.steps == 0
