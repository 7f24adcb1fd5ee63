"""The original Crafter as a batched :class:`World` (envs stepped in-process, one by one).

Each game is a :class:`CrafterGymEnv`, a gymnasium env around ``crafter.Env`` with the
symbolic observation of Craftax-Classic (the same layout as :class:`CraftaxWorld`): the 7x9
tiles around the player one-hot over the 17 :data:`BLOCK_NAMES` plus 4 creature channels,
then inventory / 10, health/food/drink/energy / 10, facing one-hot, daylight and sleeping.

Crafter draws an RGB image on every ``step`` and ``reset`` (about two thirds of a step's
cost); here that is switched off and an image is drawn only by :meth:`CrafterWorld.frame`.
Stock crafter is not reproducible from its seed (creature despawns follow memory addresses,
night-time rendering draws from the game's random generator); both are fixed here, so the
same seed and actions give the same game, frames or not.

Axes: Crafter positions are (x, y) and its maps are indexed ``[x, y]``; the observation and
View grids are ``[row = y][col = x]`` around the player. The block channels hold the
*material* of each tile, also under creatures and the player (as in Craftax, where the
creatures are separate channels); crafter's semantic map would hide it. Plants are
objects in Crafter but blocks in Craftax, so they become ``plant`` / ``ripe_plant`` tiles.
"""

from __future__ import annotations

import crafter
import gymnasium as gym
import numpy as np
from crafter import objects

from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    ACTION_NAMES,
    BLOCK_NAMES,
    INVENTORY_ITEMS,
    MAP_FEATURES,
    MOB_NAMES,
    OBSERVATION_SEGMENTS,
    OBSERVATION_SIZE,
    VIEW_COLS,
    VIEW_ROWS,
    StepResult,
    View,
    World,
)
from rlgpt_tui.envs.knowledge import WorldDocs, crafter_documentation

_NUM_BLOCKS = len(BLOCK_NAMES)
_CHANNELS = _NUM_BLOCKS + len(MOB_NAMES)
_HALF_COLS, _HALF_ROWS = VIEW_COLS // 2, VIEW_ROWS // 2
_OUT_OF_BOUNDS = BLOCK_NAMES.index("out_of_bounds")
_UNKNOWN = BLOCK_NAMES.index("unknown")
_PLANT = BLOCK_NAMES.index("plant")
_RIPE_PLANT = BLOCK_NAMES.index("ripe_plant")
_MOB_CHANNEL = {
    objects.Zombie: _NUM_BLOCKS + MOB_NAMES.index("zombie"),
    objects.Cow: _NUM_BLOCKS + MOB_NAMES.index("cow"),
    objects.Skeleton: _NUM_BLOCKS + MOB_NAMES.index("skeleton"),
    objects.Arrow: _NUM_BLOCKS + MOB_NAMES.index("arrow"),
}
_FACINGS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # left, right, up, down: Craftax's order
_INTRINSICS = ("health", "food", "drink", "energy")
_ROWS, _COLS = np.indices((VIEW_ROWS, VIEW_COLS))
_INV = OBSERVATION_SEGMENTS["inventory"]
_STATS = OBSERVATION_SEGMENTS["intrinsics"]
_DIRECTION = OBSERVATION_SEGMENTS["direction"].start
_LIGHT = OBSERVATION_SEGMENTS["light"].start
_SLEEPING = OBSERVATION_SEGMENTS["sleeping"].start

assert set(ACHIEVEMENTS) == set(crafter.constants.achievements)
assert tuple(crafter.constants.actions) == ACTION_NAMES


def env_seed(seed: int, index: int) -> int:
    """The crafter seed of env ``index`` in a world reset with ``seed`` (distinct per env).

    Deterministic across processes: tuples of ints hash the same in every run (crafter
    itself seeds each episode with ``hash((seed, episode))``).
    """
    return hash((int(seed), int(index))) % (2**31 - 1)


def _position(obj) -> tuple[int, int]:
    return int(obj.pos[0]), int(obj.pos[1])


class _QuietEnv(crafter.Env):
    """``crafter.Env`` that draws no image in ``step``/``reset`` (their obs is None), and
    is deterministic given its seed and actions.

    ``render(size)`` still draws one on demand.
    """

    def _obs(self):  # crafter's hook, called by step and reset to render the image obs
        return None

    def _balance_object(self, chunk, objs, *args):
        # Crafter keeps each chunk's objects in a set ordered by memory address and despawns
        # ``creatures[random.randint(n)]`` from it, so the same seed and actions led to
        # different games (danijar/crafter#31, #36). Positions are unique: order by them.
        return super()._balance_object(chunk, sorted(objs, key=_position), *args)


class CrafterGymEnv(gym.Env):
    """One Crafter game as a gymnasium env with the flat symbolic observation (1345 floats).

    ``reset(seed=s)`` starts the episode sequence of seed ``s`` (the same world for the same
    ``s``); ``reset()`` without a seed starts the next episode of the current sequence.
    ``step`` returns ``(obs, reward, terminated, truncated, info)``: ``terminated`` on death,
    ``truncated`` at crafter's length limit, ``info`` as crafter's (``inventory``,
    ``achievements``, ``discount``, ``semantic``, ``player_pos``, ``reward``); ``reset``'s
    info has the same keys.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(self, seed: int = 0, length: int = 10_000, render_size: int = 288):
        self.game = _QuietEnv(seed=seed, length=length)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.action_space = gym.spaces.Discrete(len(ACTION_NAMES))
        self.render_mode = "rgb_array"
        self.render_size = render_size
        self._lut = np.full(256, _UNKNOWN, dtype=np.int64)  # crafter material id -> block
        self._lut_size = 0
        self._blocks: np.ndarray | None = None  # (7, 9) block indices, set by _perceive
        self._mobs: list[tuple[type, int, int]] = []  # (object class, x, y)
        self._origin = (0, 0)  # world (x, y) of the view's top-left tile

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game = self.game
        if seed is not None:
            game._seed = int(seed)
            game._episode = 0
        game.reset()
        player = game._player
        info = {
            "inventory": player.inventory.copy(),
            "achievements": player.achievements.copy(),
            "discount": 1.0,
            "semantic": game._sem_view(),
            "player_pos": player.pos,
            "reward": 0.0,
        }
        return self._observe(), info

    def step(self, action: int):
        _, reward, done, info = self.game.step(int(action))
        dead = self.game._player.health <= 0
        return self._observe(), float(reward), bool(dead), bool(done) and not dead, info

    def render(self, size: int | None = None) -> np.ndarray:
        """An RGB uint8 ``size`` x ``size`` image drawn by crafter (view and inventory).

        Crafter's night-time noise draws from the world's random generator; its state is
        restored so that rendering never changes how the game goes on.
        """
        size = max(int(size or self.render_size), VIEW_COLS)
        rng = self.game._world.random
        state = rng.get_state()
        try:
            return crafter.Env.render(self.game, (size, size))
        finally:
            rng.set_state(state)

    # -- what the player perceives -------------------------------------------------------
    def _perceive(self) -> None:
        """Read the 7x9 tiles and creatures around the player from the world's maps."""
        world, player = self.game._world, self.game._player
        if len(world._mat_ids) != self._lut_size:  # crafter adds ids for new materials
            for name, index in world._mat_ids.items():
                if name in BLOCK_NAMES:
                    self._lut[index] = BLOCK_NAMES.index(name)
            self._lut_size = len(world._mat_ids)
        width, height = world.area
        x0 = int(player.pos[0]) - _HALF_COLS
        y0 = int(player.pos[1]) - _HALF_ROWS
        xa, xb = max(x0, 0), min(x0 + VIEW_COLS, width)
        ya, yb = max(y0, 0), min(y0 + VIEW_ROWS, height)
        blocks = np.full((VIEW_ROWS, VIEW_COLS), _OUT_OF_BOUNDS, dtype=np.int64)
        rows, cols = slice(ya - y0, yb - y0), slice(xa - x0, xb - x0)
        blocks[rows, cols] = self._lut[world._mat_map[xa:xb, ya:yb]].T
        ids = world._obj_map[xa:xb, ya:yb].T  # [row, col]
        mobs = []
        for r, c in zip(*np.nonzero(ids), strict=True):  # row-major, like Craftax's views
            obj = world._objects[ids[r, c]]
            kind = type(obj)
            if kind is objects.Plant:
                blocks[r + ya - y0, c + xa - x0] = _RIPE_PLANT if obj.ripe else _PLANT
            elif kind in _MOB_CHANNEL:
                mobs.append((kind, int(c) + xa, int(r) + ya))
        self._blocks, self._mobs, self._origin = blocks, mobs, (x0, y0)

    def _observe(self) -> np.ndarray:
        self._perceive()
        player, x0, y0 = self.game._player, *self._origin
        obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        grid = obs[:MAP_FEATURES].reshape(VIEW_ROWS, VIEW_COLS, _CHANNELS)
        grid[_ROWS, _COLS, self._blocks] = 1.0
        for kind, x, y in self._mobs:
            grid[y - y0, x - x0, _MOB_CHANNEL[kind]] = 1.0
        inventory = player.inventory
        obs[_INV] = [inventory[k] for k in INVENTORY_ITEMS]
        obs[_STATS] = [inventory[k] for k in _INTRINSICS]
        obs[_INV.start : _STATS.stop] /= 10.0
        facing = (int(player.facing[0]), int(player.facing[1]))
        if facing in _FACINGS:
            obs[_DIRECTION + _FACINGS.index(facing)] = 1.0
        obs[_LIGHT] = float(self.game._world.daylight)
        obs[_SLEEPING] = float(player.sleeping)
        return obs

    def mobs(self) -> list[tuple[str, int, int]]:
        """Visible creatures as (name, x, y) in world coordinates."""
        return [(MOB_NAMES[_MOB_CHANNEL[k] - _NUM_BLOCKS], x, y) for k, x, y in self._mobs]

    def achievements(self) -> np.ndarray:
        """(22,) bool: achievements unlocked this episode, in :data:`ACHIEVEMENTS` order."""
        unlocked = self.game._player.achievements
        return np.array([unlocked[a] > 0 for a in ACHIEVEMENTS], dtype=bool)

    def inventory(self) -> np.ndarray:
        """(12,) int32 item counts in :data:`INVENTORY_ITEMS` order."""
        held = self.game._player.inventory
        return np.array([held[k] for k in INVENTORY_ITEMS], dtype=np.int32)

    def view(self) -> View:
        game, player = self.game, self.game._player
        inventory = player.inventory
        blocks = self._blocks
        assert blocks is not None  # set by _perceive at every reset and step
        return View(
            grid=tuple(tuple(BLOCK_NAMES[b] for b in row) for row in blocks.tolist()),
            mobs=tuple(self.mobs()),
            inventory={k: int(inventory[k]) for k in INVENTORY_ITEMS},
            health=int(inventory["health"]),
            food=int(inventory["food"]),
            drink=int(inventory["drink"]),
            energy=int(inventory["energy"]),
            facing=(int(player.facing[0]), int(player.facing[1])),
            daylight=float(game._world.daylight),
            position=(int(player.pos[0]), int(player.pos[1])),
            sleeping=bool(player.sleeping),
            achievements=frozenset(a for a in ACHIEVEMENTS if player.achievements[a] > 0),
            step=int(game._step),
        )


class CrafterWorld(World):
    """``num_envs`` Crafter games behind the :class:`World` interface, stepped one by one.

    Resets are expensive in Crafter (world generation with pure-Python simplex noise, about
    0.25 s per env) while a step costs well under a millisecond.
    """

    @classmethod
    def documentation(cls) -> WorldDocs:
        """Crafter's rules, actions and tech tree (Crafter and Craftax-Classic share them)."""
        return crafter_documentation()

    name = "crafter"
    observation_size = OBSERVATION_SIZE
    observation_segments = OBSERVATION_SEGMENTS

    def __init__(self, num_envs: int = 8, seed: int = 0):
        self.num_envs = num_envs
        self.envs = [CrafterGymEnv(seed=env_seed(seed, i)) for i in range(num_envs)]
        self._steps_taken = 0
        # replaced (never written in place) on every change: StepResults handed out earlier
        # keep their values
        self._obs = np.zeros((num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self._achievements = np.zeros((num_envs, len(ACHIEVEMENTS)), dtype=bool)
        self._inventory = np.zeros((num_envs, len(INVENTORY_ITEMS)), dtype=np.int32)

    def _update(self, indices, observations, reward: np.ndarray, done: np.ndarray) -> StepResult:
        """New result arrays with the rows of ``indices`` taken from their envs."""
        if indices:
            self._obs = self._obs.copy()
            self._achievements = self._achievements.copy()
            self._inventory = self._inventory.copy()
            for i, obs in zip(indices, observations, strict=True):
                env = self.envs[i]
                self._obs[i] = obs
                self._achievements[i] = env.achievements()
                self._inventory[i] = env.inventory()
        return StepResult(
            obs=self._obs,
            reward=reward,
            game_over=done,
            achievements=self._achievements,
            inventory=self._inventory,
        )

    def _nothing(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(self.num_envs, dtype=np.float32), np.zeros(self.num_envs, dtype=bool)

    # -- World API -----------------------------------------------------------------------
    def reset(self, seed: int) -> StepResult:
        observations = [env.reset(seed=env_seed(seed, i))[0] for i, env in enumerate(self.envs)]
        return self._update(list(range(self.num_envs)), observations, *self._nothing())

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> StepResult:
        actions = np.asarray(actions).tolist()
        if active is None:
            indices = list(range(self.num_envs))
        else:
            indices = np.flatnonzero(np.asarray(active, dtype=bool)).tolist()
        reward, done = self._nothing()
        observations = []
        for i in indices:
            obs, r, terminated, truncated, _ = self.envs[i].step(actions[i])
            observations.append(obs)
            reward[i], done[i] = r, terminated or truncated
        self._steps_taken += len(indices)
        return self._update(indices, observations, reward, done)

    def reset_envs(self, mask: np.ndarray) -> StepResult:
        # each env goes on to the next episode of its own seed sequence (new world)
        indices = np.flatnonzero(np.asarray(mask, dtype=bool)).tolist()
        observations = [self.envs[i].reset()[0] for i in indices]
        return self._update(indices, observations, *self._nothing())

    def views(self, indices: list[int] | None = None) -> list[View]:
        envs = range(self.num_envs) if indices is None else indices
        return [self.envs[i].view() for i in envs]

    def frame(self, index: int, size: int = 288) -> np.ndarray:
        return self.envs[index].render(size)
