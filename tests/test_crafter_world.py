"""Crafter world: the same interface as Craftax, rendering only on demand.

Crafter's world generation costs ~0.25 s per env (pure-Python simplex noise), so the tests
use few envs and few resets; steps are cheap.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import numpy as np
from crafter import objects

from rlgpt_tui.envs import ACHIEVEMENTS, ACTION_NAMES, INVENTORY_ITEMS, describe_view, make_world
from rlgpt_tui.envs.base import (
    BLOCK_NAMES,
    MAP_FEATURES,
    MOB_NAMES,
    OBSERVATION_SEGMENTS,
    VIEW_COLS,
    VIEW_ROWS,
    WALKABLE,
    View,
)
from rlgpt_tui.envs.crafter_world import CrafterGymEnv, CrafterWorld, env_seed
from rlgpt_tui.library.skillfile import validate_file
from rlgpt_tui.rl.episodes import run_one_call_each

#: the hand-written skill files the tests use
SKILLS = Path(__file__).resolve().parent / "skills"

NOOP = ACTION_NAMES.index("noop")
DO = ACTION_NAMES.index("do")
MOVE = {
    (-1, 0): ACTION_NAMES.index("move_left"),
    (1, 0): ACTION_NAMES.index("move_right"),
    (0, -1): ACTION_NAMES.index("move_up"),
    (0, 1): ACTION_NAMES.index("move_down"),
}
WOOD = ACHIEVEMENTS.index("collect_wood")


def decode_grid(obs: np.ndarray) -> list[list[str]]:
    cells = obs[:MAP_FEATURES].reshape(VIEW_ROWS, VIEW_COLS, len(BLOCK_NAMES) + len(MOB_NAMES))
    return [[BLOCK_NAMES[int(np.argmax(c[: len(BLOCK_NAMES)]))] for c in row] for row in cells]


def test_reset_and_step_shapes_and_dtypes() -> None:
    world = make_world("crafter", 3, seed=0)
    assert isinstance(world, CrafterWorld) and world.name == "crafter"
    assert world.observation_size == 1345 and world.observation_segments == OBSERVATION_SEGMENTS
    result = world.reset(0)
    assert result.obs.shape == (3, 1345) and result.obs.dtype == np.float32
    assert result.achievements.shape == (3, 22) and result.achievements.dtype == bool
    assert result.inventory.shape == (3, 12) and np.issubdtype(result.inventory.dtype, np.integer)
    assert not result.achievements.any() and not result.inventory.any()
    # every tile is exactly one block kind; all values within [0, 1]
    cells = result.obs[:, :MAP_FEATURES].reshape(3, VIEW_ROWS, VIEW_COLS, 21)
    assert np.array_equal(cells[..., :17].sum(-1), np.ones((3, VIEW_ROWS, VIEW_COLS)))
    assert result.obs.min() >= 0 and result.obs.max() <= 1
    intrinsics = result.obs[:, OBSERVATION_SEGMENTS["intrinsics"]]
    assert np.allclose(intrinsics, 0.9)  # health, food, drink, energy 9 / 10
    direction = result.obs[:, OBSERVATION_SEGMENTS["direction"]]
    assert np.array_equal(direction, np.tile([0, 0, 0, 1], (3, 1)))  # crafter starts facing down
    first_obs = result.obs.copy()
    result = world.step(np.full(3, NOOP))
    assert result.reward.shape == (3,) and result.reward.dtype == np.float32
    assert result.game_over.shape == (3,) and result.game_over.dtype == bool
    assert not result.game_over.any()
    assert result.obs.shape == (3, 1345) and result.obs.dtype == np.float32
    assert not np.shares_memory(first_obs, result.obs)


def test_same_seed_same_worlds_and_envs_differ() -> None:
    world = CrafterWorld(2, seed=7)
    first = world.reset(7).obs.copy()
    again = world.reset(7).obs
    assert np.array_equal(first, again)
    assert not np.array_equal(first[0], first[1])
    assert env_seed(7, 0) != env_seed(7, 1) != env_seed(8, 0)


def test_masked_step_advances_only_active_envs_and_counts_steps() -> None:
    world = CrafterWorld(4, seed=3)
    old = world.reset(3)
    assert world.steps_taken == 0
    before = world.views()
    active = np.array([True, False, True, False])
    result = world.step(np.full(4, MOVE[(1, 0)]), active)
    after = world.views()
    assert world.steps_taken == 2
    assert [a.step - b.step for a, b in zip(after, before, strict=True)] == [1, 0, 1, 0]
    for i in (1, 3):
        assert after[i] == before[i]
        assert np.array_equal(result.obs[i], old.obs[i])
        assert result.reward[i] == 0 and not result.game_over[i]
    for i in (0, 2):
        assert after[i].facing == (1, 0)
    world.step(np.zeros(4, dtype=int))
    world.step(np.zeros(4, dtype=int), np.zeros(4, dtype=bool))
    world.step(np.zeros(4, dtype=int), np.array([False, False, False, True]))
    assert world.steps_taken == 2 + 4 + 0 + 1
    assert [v.step for v in world.views()] == [2, 1, 2, 2]
    world.reset_envs(np.array([True, False, False, False]))
    assert world.steps_taken == 7  # resets are not steps


def test_reset_envs_only_resets_masked() -> None:
    world = CrafterWorld(3, seed=1)
    world.reset(1)
    for _ in range(4):
        last = world.step(np.full(3, MOVE[(0, -1)]))
    before = world.views()
    result = world.reset_envs(np.array([False, True, False]))
    after = world.views()
    assert [v.step for v in after] == [4, 0, 4]
    assert after[0] == before[0] and after[2] == before[2]
    assert np.array_equal(result.obs[[0, 2]], last.obs[[0, 2]])
    assert after[1].position == (32, 32) and after[1].facing == (0, 1)
    # env 1 goes on to the second episode of its seed sequence
    replay = CrafterGymEnv()
    replay.reset(seed=env_seed(1, 1))
    assert np.array_equal(result.obs[1], replay.reset()[0])
    assert not result.achievements[1].any() and not result.game_over.any()


def test_view_matches_observation_and_crafter_semantic_map() -> None:
    env = CrafterGymEnv(seed=env_seed(0, 0))
    obs, info = env.reset(seed=env_seed(0, 0))
    assert env.observation_space.contains(obs)
    view = env.view()
    assert view.position == (32, 32) == tuple(info["player_pos"])
    assert (view.health, view.food, view.drink, view.energy) == (9, 9, 9, 9)
    assert view.inventory == dict.fromkeys(INVENTORY_ITEMS, 0) and view.achievements == frozenset()
    assert len(view.grid) == VIEW_ROWS and all(len(r) == VIEW_COLS for r in view.grid)
    assert all(b in BLOCK_NAMES for row in view.grid for b in row)
    assert view.grid[3][4] in WALKABLE  # the player's tile shows the ground it stands on
    assert decode_grid(obs) == [list(r) for r in view.grid]
    assert obs[OBSERVATION_SEGMENTS["light"]][0] == np.float32(view.daylight)
    # axes: crafter's semantic map is [x, y]; the View grid is [y - y0][x - x0]
    semantic, world = info["semantic"], env.game._world
    object_ids = {i: kind for kind, i in env.game._sem_view._obj_ids.items()}
    px, py = view.position
    seen_mobs = []
    for row in range(VIEW_ROWS):
        for col in range(VIEW_COLS):
            x, y = px + col - 4, py + row - 3
            kind = object_ids.get(int(semantic[x, y]))
            if kind is None:
                assert view.grid[row][col] == world._mat_names[semantic[x, y]]
            elif kind is objects.Player:
                assert (row, col) == (3, 4)
            elif kind is not objects.Plant:
                seen_mobs.append((kind.__name__.lower(), x, y))
    assert sorted(view.mobs) == sorted(seen_mobs)
    text = describe_view(view)
    assert "Inventory: empty." in text and "Position (x, y): (32, 32)" in text
    map_rows = [line.strip() for line in text.splitlines() if line.startswith("  ")]
    assert len(map_rows) == VIEW_ROWS and map_rows[3][4] == "@"


def test_walking_moves_in_the_pressed_direction() -> None:
    world = CrafterWorld(1, seed=4)
    world.reset(4)
    rng = np.random.default_rng(0)
    moved = blocked = 0
    for t in range(40):
        view = world.views()[0]
        free, solid = [], []
        for delta in MOVE:
            target = (view.position[0] + delta[0], view.position[1] + delta[1])
            block = view.block_at(*target)
            if block in WALKABLE and view.mob_at(*target) is None:
                free.append(delta)
            elif block not in WALKABLE | {"lava", "unknown", "out_of_bounds"}:
                solid.append(delta)  # tree, water, stone, ...: the player only turns
        delta = solid[0] if solid and t % 3 == 0 else free[rng.integers(len(free))]
        result = world.step(np.array([MOVE[delta]]))
        after = world.views()[0]
        assert after.facing == delta
        assert result.obs[0, OBSERVATION_SEGMENTS["direction"]].tolist() == [
            float(delta == d) for d in ((-1, 0), (1, 0), (0, -1), (0, 1))
        ]
        if delta in free:
            assert after.position == (view.position[0] + delta[0], view.position[1] + delta[1])
            moved += 1
        else:
            assert after.position == view.position
            blocked += 1
    assert moved >= 10 and blocked >= 1


def _path_to_tree(view: View) -> list[tuple[int, int]] | None:
    """Moves (dx, dy) through free tiles in the view to a tile next to a tree, then facing it."""
    px, py = view.position
    queue = deque([((px, py), [])])
    seen = {(px, py)}
    while queue:
        (x, y), path = queue.popleft()
        for delta in MOVE:
            nx, ny = x + delta[0], y + delta[1]
            if view.block_at(nx, ny) == "tree":
                return [*path, delta]
            free = view.block_at(nx, ny) in WALKABLE and view.mob_at(nx, ny) is None
            if free and (nx, ny) not in seen:
                seen.add((nx, ny))
                queue.append(((nx, ny), [*path, delta]))
    return None


def test_scripted_wood_collection_sets_the_achievement() -> None:
    world = CrafterWorld(1, seed=0)
    world.reset(0)
    for _ in range(20):  # walk next to the nearest visible tree, re-planning each step
        path = _path_to_tree(world.views()[0])
        assert path is not None
        if len(path) == 1:
            break
        world.step(np.array([MOVE[path[0]]]))
    assert len(path) == 1
    world.step(np.array([MOVE[path[0]]]))  # a tree is not walkable: this only turns
    view = world.views()[0]
    tree = view.facing_position
    assert view.facing == path[0] and view.block_at(*tree) == "tree"
    assert "wood" not in describe_view(view).split("Inventory:")[1].split("\n")[0]
    # collecting wood in crafter 1.8.3 always succeeds (no probability in data.yaml) ...
    result = world.step(np.array([DO]))
    assert result.achievements[0, WOOD] and result.inventory[0, INVENTORY_ITEMS.index("wood")] == 1
    assert result.reward[0] >= 1.0  # +1 for a new achievement
    view = world.views()[0]
    assert "collect_wood" in view.achievements and "Inventory: wood 1." in describe_view(view)
    # ... and turns the tree into grass (as Craftax-Classic does)
    assert view.block_at(*tree) == "grass"


def test_frame_shape_and_no_effect_on_the_game() -> None:
    world = CrafterWorld(1, seed=5)
    world.reset(5)
    frame = world.frame(0, size=144)
    assert frame.shape == (144, 144, 3) and frame.dtype == np.uint8 and frame.std() > 10
    assert world.frame(0).shape == (288, 288, 3)
    # Same seed and actions, same game (stock crafter 1.8.3 diverges: it despawns creatures
    # in memory-address order), and frames do not change how the game goes on (crafter draws
    # night-time noise from the world's random generator).
    a, b = CrafterGymEnv(), CrafterGymEnv()
    a.reset(seed=11)
    b.reset(seed=11)
    actions = np.random.default_rng(0).integers(0, 17, 240)
    for t, action in enumerate(actions):
        if t >= 150:  # night (daylight < 0.5) from about step 150 to 270
            assert a.game._world.daylight < 0.5
            a.render(64)
        obs_a, *_ = a.step(action)
        obs_b, *_ = b.step(action)
        assert np.array_equal(obs_a, obs_b)


def test_coded_collect_wood_works_on_crafter_too() -> None:
    action = validate_file(SKILLS / "collect_wood.py")
    world = CrafterWorld(6, seed=2)
    world.reset(2)
    _, after, calls = run_one_call_each(world, action)
    assert sum("collect_wood" in v.achievements for v in after) >= 4
    assert all(c.end is not None for c in calls)
