"""The original Crafter as a batched :class:`World` (envs stepped one after another).

Crafter renders an image on every step and reset; here rendering is off (``_obs`` returns
nothing) and a frame is drawn only when asked for. The symbolic observation has the same
layout as Craftax-Classic's: the 7x9 tiles around the player one-hot over 17 block kinds
plus 4 creature kinds, then inventory/10, health/food/drink/energy/10, facing one-hot,
daylight and sleeping. It is built from the world's semantic map (materials) and objects.
"""

from __future__ import annotations

import crafter
import gymnasium as gym
import numpy as np
from crafter import objects

from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    BLOCK_NAMES,
    INVENTORY_ITEMS,
    MOB_NAMES,
    OBSERVATION_SIZE,
    VIEW_COLS,
    VIEW_ROWS,
    StepResult,
    View,
    World,
)

_CHANNELS = len(BLOCK_NAMES) + len(MOB_NAMES)
_FACINGS = [(-1, 0), (1, 0), (0, -1), (0, 1)]
_MOBS = {
    objects.Zombie: "zombie",
    objects.Cow: "cow",
    objects.Skeleton: "skeleton",
    objects.Arrow: "arrow",
}
_PAD = max(VIEW_ROWS, VIEW_COLS)


class _QuietEnv(crafter.Env):
    """crafter.Env without the per-step image: ``_obs`` draws nothing."""

    def _obs(self):  # noqa: D401 - crafter's hook
        return None


class CrafterGymEnv(gym.Env):
    """One Crafter game as a gymnasium env with the symbolic observation (no rendering)."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, seed: int = 0, length: int = 10_000):
        self.env = _QuietEnv(seed=seed, length=length)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.action_space = gym.spaces.Discrete(17)
        self.render_mode = "rgb_array"
        mat_ids = self.env._world._mat_ids  # name -> id, with None -> 0
        self._block_of_id = np.zeros(max(mat_ids.values()) + 1, dtype=np.int64)
        for name, index in mat_ids.items():
            if name is not None:
                self._block_of_id[index] = BLOCK_NAMES.index(name)

    def reset(self, *, seed: int | None = None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.env._seed = seed
            self.env._episode = 0
        self.env.reset()
        return self.observation(), self.info()

    def step(self, action: int):
        _, reward, done, _ = self.env.step(int(action))
        dead = self.env._player.health <= 0
        return self.observation(), float(reward), bool(dead), bool(done and not dead), self.info()

    def render(self, size: int = 288) -> np.ndarray:
        return crafter.Env.render(self.env, (size, size))

    # -- what the player perceives -------------------------------------------------------
    def local_blocks(self) -> np.ndarray:
        """(7, 9) block indices around the player (rows = y, cols = x)."""
        world, player = self.env._world, self.env._player
        padded = np.pad(world._mat_map, _PAD, constant_values=-1)
        x, y = player.pos
        crop = padded[
            x - VIEW_COLS // 2 + _PAD : x + VIEW_COLS // 2 + 1 + _PAD,
            y - VIEW_ROWS // 2 + _PAD : y + VIEW_ROWS // 2 + 1 + _PAD,
        ].T
        blocks = np.where(
            crop < 0, BLOCK_NAMES.index("out_of_bounds"), self._block_of_id[np.clip(crop, 0, None)]
        )
        for obj in self._visible_objects(objects.Plant):
            col, row = self._local(obj.pos)
            blocks[row, col] = BLOCK_NAMES.index("ripe_plant" if obj.ripe else "plant")
        return blocks

    def _local(self, pos) -> tuple[int, int]:
        x, y = self.env._player.pos
        return int(pos[0] - x + VIEW_COLS // 2), int(pos[1] - y + VIEW_ROWS // 2)

    def _visible_objects(self, *kinds):
        for obj in self.env._world.objects:
            if isinstance(obj, kinds):
                col, row = self._local(obj.pos)
                if 0 <= col < VIEW_COLS and 0 <= row < VIEW_ROWS:
                    yield obj

    def mobs(self) -> list[tuple[str, int, int]]:
        return [
            (_MOBS[type(o)], int(o.pos[0]), int(o.pos[1])) for o in self._visible_objects(*_MOBS)
        ]

    def observation(self) -> np.ndarray:
        player = self.env._player
        grid = np.zeros((VIEW_ROWS, VIEW_COLS, _CHANNELS), dtype=np.float32)
        blocks = self.local_blocks()
        rows, cols = np.indices(blocks.shape)
        grid[rows, cols, blocks] = 1.0
        for name, x, y in self.mobs():
            col, row = self._local((x, y))
            grid[row, col, len(BLOCK_NAMES) + MOB_NAMES.index(name)] = 1.0
        inventory = [player.inventory[k] / 10 for k in INVENTORY_ITEMS]
        stats = [player.inventory[k] / 10 for k in ("health", "food", "drink", "energy")]
        facing = [float(tuple(player.facing) == f) for f in _FACINGS]
        extra = [float(self.env._world.daylight), float(player.sleeping)]
        return np.concatenate([grid.ravel(), inventory, stats, facing, extra]).astype(np.float32)

    def info(self) -> dict:
        player = self.env._player
        return {
            "achievements": np.array([player.achievements[a] > 0 for a in ACHIEVEMENTS]),
            "inventory": np.array([player.inventory[k] for k in INVENTORY_ITEMS]),
        }

    def view(self) -> View:
        player = self.env._player
        blocks = self.local_blocks()
        return View(
            grid=tuple(tuple(BLOCK_NAMES[b] for b in row) for row in blocks),
            mobs=tuple(self.mobs()),
            inventory={k: int(player.inventory[k]) for k in INVENTORY_ITEMS},
            health=int(player.inventory["health"]),
            food=int(player.inventory["food"]),
            drink=int(player.inventory["drink"]),
            energy=int(player.inventory["energy"]),
            facing=(int(player.facing[0]), int(player.facing[1])),
            daylight=float(self.env._world.daylight),
            position=(int(player.pos[0]), int(player.pos[1])),
            sleeping=bool(player.sleeping),
            achievements=frozenset(a for a in ACHIEVEMENTS if player.achievements[a] > 0),
            step=int(self.env._step),
        )


class CrafterWorld(World):
    """``num_envs`` Crafter games behind the World interface."""

    name = "crafter"

    def __init__(self, num_envs: int = 8, seed: int = 0):
        self.num_envs = num_envs
        self.envs = [CrafterGymEnv(seed=seed * 1000 + i) for i in range(num_envs)]
        self._seed = seed
        self._steps_taken = 0
        self._obs = np.zeros((num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self._achievements = np.zeros((num_envs, len(ACHIEVEMENTS)), dtype=bool)
        self._inventory = np.zeros((num_envs, len(INVENTORY_ITEMS)), dtype=np.int64)

    def _store(self, i: int, obs: np.ndarray, info: dict) -> None:
        self._obs[i] = obs
        self._achievements[i] = info["achievements"]
        self._inventory[i] = info["inventory"]

    def _result(self, reward: np.ndarray, done: np.ndarray) -> StepResult:
        return StepResult(
            self._obs.copy(), reward, done, self._achievements.copy(), self._inventory.copy()
        )

    def reset(self, seed: int) -> StepResult:
        self._seed = seed
        for i, env in enumerate(self.envs):
            self._store(i, *env.reset(seed=seed * 1000 + i))
        zeros = np.zeros(self.num_envs, dtype=np.float32)
        return self._result(zeros, np.zeros(self.num_envs, dtype=bool))

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> StepResult:
        reward = np.zeros(self.num_envs, dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        for i, env in enumerate(self.envs):
            if active is not None and not active[i]:
                continue
            obs, r, terminated, truncated, info = env.step(int(actions[i]))
            self._store(i, obs, info)
            reward[i], done[i] = r, terminated or truncated
            self._steps_taken += 1
        return self._result(reward, done)

    def reset_envs(self, mask: np.ndarray) -> StepResult:
        for i in np.flatnonzero(mask):
            self.envs[i].env.reset()  # crafter seeds each episode from (seed, episode count)
            self._store(i, self.envs[i].observation(), self.envs[i].info())
        zeros = np.zeros(self.num_envs, dtype=np.float32)
        return self._result(zeros, np.zeros(self.num_envs, dtype=bool))

    def views(self, indices: list[int] | None = None) -> list[View]:
        indices = range(self.num_envs) if indices is None else indices
        return [self.envs[i].view() for i in indices]

    def frame(self, index: int, size: int = 288) -> np.ndarray:
        return self.envs[index].render(size)
