"""Crafter world: the same interface as Craftax, rendering only on demand."""

from __future__ import annotations

import numpy as np

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.envs import describe_view, make_world
from rlgpt_tui.envs.base import BLOCK_NAMES, VIEW_COLS, VIEW_ROWS
from rlgpt_tui.envs.crafter_world import CrafterGymEnv, CrafterWorld
from rlgpt_tui.skills.runtime import CodedAction, run_one_call_each


def test_reset_step_shapes_and_exact_step_count() -> None:
    world = make_world("crafter", 4, seed=0)
    result = world.reset(0)
    assert result.obs.shape == (4, world.observation_size) == (4, 1345)
    assert result.achievements.shape == (4, 22) and result.inventory.shape == (4, 12)
    active = np.array([True, False, True, False])
    before = world.views()
    result = world.step(np.full(4, 2), active)  # move_right
    after = world.views()
    assert world.steps_taken == 2
    assert [a.step - b.step for a, b in zip(after, before, strict=True)] == [1, 0, 1, 0]
    assert result.reward[1] == 0 and not result.game_over.any()


def test_reset_envs_only_resets_masked() -> None:
    world = CrafterWorld(3, seed=1)
    world.reset(1)
    for _ in range(4):
        world.step(np.zeros(3, dtype=int))
    world.reset_envs(np.array([False, True, False]))
    assert [v.step for v in world.views()] == [4, 0, 4]


def test_view_matches_observation_and_description() -> None:
    world = CrafterWorld(2, seed=0)
    obs = world.reset(0).obs[0]
    view = world.views([0])[0]
    assert view.position == (32, 32) and view.inventory["wood"] == 0
    assert len(view.grid) == VIEW_ROWS and all(len(r) == VIEW_COLS for r in view.grid)
    cells = obs[: VIEW_ROWS * VIEW_COLS * 21].reshape(VIEW_ROWS, VIEW_COLS, 21)
    assert [[BLOCK_NAMES[int(np.argmax(c[:17]))] for c in row] for row in cells] == [
        list(r) for r in view.grid
    ]
    assert view.grid[3][4] in {"grass", "sand", "path"}
    text = describe_view(view)
    assert "Inventory: empty." in text and "Position (x, y): (32, 32)" in text


def test_gymnasium_wrapper_and_frame() -> None:
    env = CrafterGymEnv(seed=5)
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(0)
    assert isinstance(reward, float) and not terminated and not truncated
    frame = env.render(144)
    assert frame.shape == (144, 144, 3) and frame.dtype == np.uint8 and frame.std() > 10


def test_coded_collect_wood_works_on_crafter_too() -> None:
    action = CodedAction.from_file(ASSETS_DIR / "skills" / "collect_wood.py")
    world = CrafterWorld(6, seed=2)
    world.reset(2)
    _, after, calls = run_one_call_each(world, action)
    assert sum("collect_wood" in v.achievements for v in after) >= 4
    assert all(c.end_reason for c in calls)
