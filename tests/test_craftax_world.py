"""Craftax-Classic world: batched reset/step, masked steps, pooled resets, Views."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rlgpt_tui.envs import ACTION_NAMES, describe_view
from rlgpt_tui.envs.base import BLOCK_NAMES, VIEW_COLS, VIEW_ROWS
from rlgpt_tui.envs.craftax_world import CraftaxWorld

MOVE_RIGHT = ACTION_NAMES.index("move_right")


def test_reset_and_step_shapes(craftax8: CraftaxWorld) -> None:
    result = craftax8.reset(3)
    assert result.obs.shape == (8, craftax8.observation_size) == (8, 1345)
    assert result.obs.dtype == np.float32
    result = craftax8.step(np.zeros(8, dtype=int))
    assert result.reward.shape == (8,)
    assert result.achievements.shape == (8, 22) and result.achievements.dtype == bool
    assert result.inventory.shape == (8, 12)
    assert not result.game_over.any()


def test_same_seed_same_world_and_different_envs_differ(craftax8: CraftaxWorld) -> None:
    first = craftax8.reset(11).obs.copy()
    again = craftax8.reset(11).obs
    assert np.array_equal(first, again)
    assert not np.array_equal(first[0], first[1])


def test_masked_step_advances_only_active_envs(craftax8: CraftaxWorld) -> None:
    craftax8.reset(5)
    before = craftax8.views()
    steps_before = craftax8.steps_taken
    active = np.zeros(8, dtype=bool)
    active[[1, 4]] = True
    craftax8.step(np.full(8, MOVE_RIGHT), active)
    after = craftax8.views()
    assert craftax8.steps_taken - steps_before == 2
    for i in range(8):
        if active[i]:
            assert after[i].step == before[i].step + 1
            assert after[i].facing == (1, 0)
        else:
            assert after[i] == before[i]


def test_reset_envs_only_resets_masked(craftax8: CraftaxWorld) -> None:
    craftax8.reset(6)
    for _ in range(5):
        craftax8.step(np.zeros(8, dtype=int))
    mask = np.zeros(8, dtype=bool)
    mask[[0, 7]] = True
    craftax8.reset_envs(mask)
    steps = [v.step for v in craftax8.views()]
    assert steps[0] == steps[7] == 0
    assert all(s == 5 for s in steps[1:7])


def test_view_matches_observation_on_fixed_seed(craftax8: CraftaxWorld) -> None:
    craftax8.reset(0)
    view = craftax8.views([0])[0]
    assert len(view.grid) == VIEW_ROWS and all(len(r) == VIEW_COLS for r in view.grid)
    assert all(b in BLOCK_NAMES for row in view.grid for b in row)
    assert view.position == (32, 32)  # Craftax spawns the player in the map's centre
    assert (view.health, view.food, view.drink, view.energy) == (9, 9, 9, 9)
    assert view.inventory["wood"] == 0 and view.achievements == frozenset()
    assert view.grid[3][4] in {"grass", "sand", "path"}  # the player stands on walkable ground
    # the View's grid is the same data as the one-hot map in the observation
    obs = craftax8.step(np.zeros(8, dtype=int), np.zeros(8, dtype=bool)).obs[0]
    cells = obs[: VIEW_ROWS * VIEW_COLS * 21].reshape(VIEW_ROWS, VIEW_COLS, 21)
    names = [[BLOCK_NAMES[int(np.argmax(c[:17]))] for c in row] for row in cells]
    assert [list(r) for r in view.grid] == names
    text = describe_view(view)
    assert "Position (x, y): (32, 32)" in text
    assert "Inventory: empty." in text
    map_rows = [line.strip() for line in text.splitlines() if line.startswith("  ")]
    assert len(map_rows) == VIEW_ROWS and map_rows[3][4] == "@"


def test_moving_changes_position(craftax8: CraftaxWorld) -> None:
    craftax8.reset(0)
    start = craftax8.views([0])[0]
    right = (start.position[0] + 1, start.position[1])
    craftax8.step(np.full(8, MOVE_RIGHT))
    after = craftax8.views([0])[0]
    if start.block_at(*right) in {"grass", "sand", "path"}:
        assert after.position == right
    else:
        assert after.position == start.position
    assert after.facing == (1, 0)


def test_frame_is_rgb(craftax8: CraftaxWorld) -> None:
    frame = craftax8.frame(0, size=144)
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[1:] == (144, 3)
    assert frame.std() > 10  # a real picture, not a blank


def test_random_play_counts_steps_and_reaches_achievements() -> None:
    world = CraftaxWorld(num_envs=8, seed=1)
    world.reset(1)
    rng = np.random.default_rng(1)
    unlocked = np.zeros(22, dtype=bool)
    for _ in range(200):
        result = world.step(rng.integers(0, 17, 8))
        unlocked |= result.achievements.any(axis=0)
        world.reset_envs(result.game_over)
    assert world.steps_taken == 200 * 8
    assert unlocked.sum() >= 2  # random play unlocks at least collect_wood-like basics


def test_sub_batch_step_matches_semantics_of_masked_step() -> None:
    world = CraftaxWorld(num_envs=16, seed=9)  # at most 4 active envs use the sub-batch path
    world.reset(9)
    before = world.views()
    active = np.zeros(16, dtype=bool)
    active[[2, 11]] = True
    result = world.step(np.full(16, MOVE_RIGHT), active)
    after = world.views()
    assert world.steps_taken == 2
    for i in range(16):
        if active[i]:
            assert after[i].step == before[i].step + 1 and after[i].facing == (1, 0)
        else:
            assert after[i] == before[i]
            assert result.reward[i] == 0 and not result.game_over[i]
    # the observation rows of the stepped envs were refreshed
    assert np.array_equal(result.obs, world.step(np.zeros(16, int), np.zeros(16, bool)).obs)


def test_each_pool_world_starts_at_most_episodes_per_world_episodes() -> None:
    world = CraftaxWorld(8, seed=4, pool_size=16, episodes_per_world=3)
    world.reset(4)
    first_pool = world._pool_obs.copy()
    starts = []
    for _ in range(6):  # 48 resets = 16 pool worlds x 3 episodes each
        starts.append(world.reset_envs(np.ones(8, dtype=bool)).obs.copy())
    starts = np.concatenate(starts)
    # the pool was handed out three times over, in order, and not generated again
    np.testing.assert_array_equal(starts, np.concatenate([first_pool] * 3))
    assert len({row.tobytes() for row in first_pool}) == 16  # 16 different worlds
    world.reset_envs(np.ones(8, dtype=bool))  # the 49th reset: a newly generated pool
    assert not np.array_equal(world._pool_obs, first_pool)
    world.step(np.zeros(8, dtype=int))  # pending pool states apply before stepping


def test_one_groups_step_in_flight_while_the_other_is_stepped_and_reset() -> None:
    """Two groups step independently: dispatching both before fetching either gives the
    same games as stepping them one after the other."""
    together, in_turn = CraftaxWorld(8, seed=5, groups=2), CraftaxWorld(8, seed=5, groups=2)
    together.reset(5)
    in_turn.reset(5)
    first, second = (np.isin(np.arange(8), g) for g in together.env_groups())
    assert first.sum() == second.sum() == 4
    rng = np.random.default_rng(5)
    for _ in range(40):
        actions = rng.integers(0, 17, 8)
        pending = together.step_async(actions, first)
        late = together.step_wait(together.step_async(actions, second))
        early = together.step_wait(pending)
        expected = in_turn.step(actions, first), in_turn.step(actions, second)
        for got, want, rows in ((early, expected[0], first), (late, expected[1], second)):
            np.testing.assert_array_equal(got.reward, want.reward)
            np.testing.assert_array_equal(got.game_over, want.game_over)
            np.testing.assert_array_equal(got.obs[rows], want.obs[rows])
        ended = early.game_over | late.game_over | (rng.random(8) < 0.1)
        together.reset_envs(ended)
        in_turn.reset_envs(ended)
    assert together.views() == in_turn.views()
    assert together.steps_taken == in_turn.steps_taken == 40 * 8
    # a group with a step in flight can be neither stepped nor reset; the other group can
    pending = together.step_async(np.zeros(8, dtype=int), first)
    with pytest.raises(RuntimeError, match="step_wait"):
        together.reset_envs(first)
    with pytest.raises(RuntimeError, match="fetched"):
        together.step(np.zeros(8, dtype=int), first)
    together.reset_envs(second)
    together.step(np.zeros(8, dtype=int), second)
    together.step_wait(pending)


@pytest.mark.slow
def test_packed_state_unpacks_to_craftax_state_bit_for_bit(craftax8: CraftaxWorld) -> None:
    """Worlds are kept packed (three arrays, not 49); unpacking gives Craftax's own state."""
    import jax
    from craftax.craftax_classic.envs.craftax_state import EnvParams, StaticEnvParams
    from craftax.craftax_classic.world_gen import generate_world

    kernels = craftax8._k
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    expected = jax.vmap(lambda k: generate_world(k, EnvParams(), StaticEnvParams()))(keys)
    packed = jax.jit(kernels.packing.pack)(expected)
    assert len(packed) == 3
    got = jax.jit(kernels.packing.unpack)(packed)
    assert jax.tree.structure(got) == jax.tree.structure(expected)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(expected), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # floats survive as bits (e.g. light level and the player's hunger counters)
    assert any(leaf.dtype == np.float32 for leaf in jax.tree.leaves(got))


def _xla_pool_threads(setting: str | None) -> int:
    """tf_XLAEigen threads in a new process that made a CraftaxWorld and computed (XLA's CPU
    pool)."""
    import os
    import subprocess
    import sys

    from rlgpt_tui.envs.craftax_kernels import XLA_THREADS_ENV

    env = {k: v for k, v in os.environ.items() if k not in (XLA_THREADS_ENV, "NPROC")}
    if setting is not None:
        env[XLA_THREADS_ENV] = setting
    code = (
        "import os\n"
        "from rlgpt_tui.envs.craftax_world import CraftaxWorld\n"
        "import jax.numpy as jnp\n"
        "CraftaxWorld(4)\n"  # starts JAX's CPU client; a small product spins up its pool
        "(jnp.ones((64, 64)) @ jnp.ones((64, 64))).block_until_ready()\n"
        "names = [open(f'/proc/self/task/{t}/comm').read().strip()"
        " for t in os.listdir('/proc/self/task')]\n"
        "print(names.count('tf_XLAEigen'), 'NPROC' in os.environ)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    count, leaked = out.stdout.split()
    assert leaked == "False"  # NPROC is set only while XLA's client starts
    return int(count)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads Linux's /proc")
@pytest.mark.slow
def test_xla_cpu_pool_leaves_a_core_to_python() -> None:
    import os

    cores = len(os.sched_getaffinity(0))
    assert _xla_pool_threads(None) == max(1, cores - 1)
    assert _xla_pool_threads("0") == cores  # XLA's own default: every core
    assert _xla_pool_threads("1") == 1


def test_bad_xla_threads_setting_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from rlgpt_tui.envs import WorldSetupError
    from rlgpt_tui.envs.craftax_kernels import XLA_THREADS_ENV, xla_cpu_threads

    monkeypatch.setenv(XLA_THREADS_ENV, "two")
    with pytest.raises(WorldSetupError, match="whole number"):
        xla_cpu_threads()


def test_a_warm_start_traces_nothing_its_kernels_are_kept_traced_on_disk(
    craftax8: CraftaxWorld,
) -> None:
    from rlgpt_tui.envs.craftax_kernels import enable_compilation_cache

    craftax8.reset(2)
    craftax8.step(np.zeros(8, dtype=int))
    # the world's step was exported once (this process or an earlier one) and kept, so a
    # later process loads it instead of tracing Craftax again (needs flatbuffers)
    stored = list((enable_compilation_cache() / "kernels").glob("step-*.jax"))
    assert stored and all(path.stat().st_size > 10_000 for path in stored)
    assert craftax8._k.step._calls  # the step runs the stored (exported) program
    assert all(call is not craftax8._k.step.fn for call in craftax8._k.step._calls.values())
    # a run says what its world's build waits for: compiling on this machine's first run,
    # loading the stored kernels on a later one, nothing once this process has them
    assert craftax8._stored_marker().exists() and craftax8.compiling() == ""
    unseen = CraftaxWorld(num_envs=5, seed=0)  # never reset: nothing compiled or loaded
    marker = unseen._stored_marker()
    existed = marker.exists()
    marker.unlink(missing_ok=True)
    try:
        assert unseen.compiling().startswith("compiling Craftax's kernels for 5 envs")
        marker.touch()
        assert unseen.compiling() == (
            "loading Craftax's kernels for 5 envs from the disk (once per process)"
        )
    finally:
        if not existed:
            marker.unlink(missing_ok=True)
        unseen.close()
