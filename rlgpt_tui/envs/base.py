"""The world interface every backend implements, and the View that coded actions read.

A world is a batch of ``num_envs`` independent games. It does not reset by itself: the
caller (the task layer) decides when an episode ends and calls :meth:`World.reset_envs`.
``step`` takes an ``active`` mask so that a coded action running in one env can advance
that env alone while the others wait for their next decision.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, cast

import numpy as np

from rlgpt_tui.envs.vocabulary import (  # noqa: F401 (re-exported: the world's names)
    ACHIEVEMENTS,
    ACTION_NAMES,
    BLOCK_NAMES,
    FACING_NAMES,
    HOSTILE_MOBS,
    INVENTORY_ITEMS,
    MAP_FEATURES,
    MOB_NAMES,
    OBSERVATION_SEGMENTS,
    OBSERVATION_SIZE,
    STATS,
    VIEW_COLS,
    VIEW_ROWS,
    WALKABLE,
)

if TYPE_CHECKING:
    from rlgpt_tui.envs.knowledge import WorldDocs


def stat_levels(obs: np.ndarray) -> np.ndarray:
    """Per row of ``obs`` (the symbolic observation, :data:`OBSERVATION_SEGMENTS`' layout):
    health, food, drink and energy as the game counts them (0-9)."""
    return np.round(np.asarray(obs)[:, OBSERVATION_SEGMENTS["intrinsics"]] * 10.0)


def hostile_distances(obs: np.ndarray) -> np.ndarray:
    """Per row of ``obs`` (the symbolic observation, :data:`OBSERVATION_SEGMENTS`' layout):
    the Manhattan distance from the player to the nearest hostile mob (zombie, skeleton,
    arrow) in its 7x9 View; ``inf`` where none is in sight."""
    channels = len(BLOCK_NAMES) + len(MOB_NAMES)
    cells = np.asarray(obs)[:, :MAP_FEATURES].reshape(-1, VIEW_ROWS, VIEW_COLS, channels)
    hostile = [len(BLOCK_NAMES) + MOB_NAMES.index(m) for m in HOSTILE_MOBS]
    present = cells[..., hostile].max(-1) > 0.5
    rows = np.abs(np.arange(VIEW_ROWS) - VIEW_ROWS // 2)[:, None]
    cols = np.abs(np.arange(VIEW_COLS) - VIEW_COLS // 2)[None, :]
    distance = (rows + cols).astype(np.float64)
    return np.where(present, distance, np.inf).min(axis=(1, 2))


class WorldSetupError(ValueError):
    """A world's machine-level setting (e.g. an environment variable) is invalid."""


@dataclass(frozen=True)
class View:
    """What one env's player perceives, in plain Python types, for coded actions and prompts.

    ``grid[row][col]`` holds block names for the 7x9 area the player sees, the player at
    ``grid[3][4]``. World coordinates: ``position`` is (x, y); the block at world (x, y)
    is ``grid[y - position[1] + 3][x - position[0] + 4]``.
    """

    grid: tuple[tuple[str, ...], ...]
    mobs: tuple[tuple[str, int, int], ...]  # (name, x, y) in world coordinates
    inventory: dict[str, int]
    health: int
    food: int
    drink: int
    energy: int
    facing: tuple[int, int]
    daylight: float
    position: tuple[int, int]
    sleeping: bool = False
    achievements: frozenset[str] = field(default_factory=frozenset)
    step: int = 0

    @property
    def center(self) -> tuple[int, int]:
        """(col, row) of the player in ``grid``."""
        return VIEW_COLS // 2, VIEW_ROWS // 2

    def block_at(self, x: int, y: int) -> str:
        """The block at world position (x, y), or ``"unknown"`` outside the view."""
        col = x - self.position[0] + VIEW_COLS // 2
        row = y - self.position[1] + VIEW_ROWS // 2
        if 0 <= row < VIEW_ROWS and 0 <= col < VIEW_COLS:
            return self.grid[row][col]
        return "unknown"

    def mob_at(self, x: int, y: int) -> str | None:
        """The mob at world position (x, y), if one is visible there."""
        for name, mx, my in self.mobs:
            if (mx, my) == (x, y):
                return name
        return None

    @property
    def facing_position(self) -> tuple[int, int]:
        """The world position the player faces (where ``do`` acts)."""
        return self.position[0] + self.facing[0], self.position[1] + self.facing[1]

    def to_dict(self) -> dict:
        """A JSON-ready dict (used to record Views for dry runs and prompts)."""
        return {
            "grid": [list(row) for row in self.grid],
            "mobs": [list(m) for m in self.mobs],
            "inventory": dict(self.inventory),
            "health": self.health,
            "food": self.food,
            "drink": self.drink,
            "energy": self.energy,
            "facing": list(self.facing),
            "daylight": self.daylight,
            "position": list(self.position),
            "sleeping": self.sleeping,
            "achievements": sorted(self.achievements),
            "step": self.step,
        }

    @classmethod
    def from_dict(cls, data: dict) -> View:
        """Inverse of :meth:`to_dict`."""
        return cls(
            grid=tuple(tuple(row) for row in data["grid"]),
            mobs=tuple((str(m[0]), int(m[1]), int(m[2])) for m in data["mobs"]),
            inventory={k: int(v) for k, v in data["inventory"].items()},
            health=int(data["health"]),
            food=int(data["food"]),
            drink=int(data["drink"]),
            energy=int(data["energy"]),
            facing=(int(data["facing"][0]), int(data["facing"][1])),
            daylight=float(data["daylight"]),
            position=(int(data["position"][0]), int(data["position"][1])),
            sleeping=bool(data.get("sleeping", False)),
            achievements=frozenset(data.get("achievements", ())),
            step=int(data.get("step", 0)),
        )


_GRID_SYMBOLS: dict[str, str] = {
    "unknown": "?",
    "out_of_bounds": "#",
    "grass": ".",
    "water": "~",
    "stone": "S",
    "tree": "T",
    "wood": "W",
    "path": "_",
    "coal": "C",
    "iron": "I",
    "diamond": "D",
    "table": "t",
    "furnace": "f",
    "sand": ":",
    "lava": "L",
    "plant": "p",
    "ripe_plant": "P",
}
_MOB_SYMBOLS: dict[str, str] = {"zombie": "z", "cow": "c", "skeleton": "k", "arrow": "a"}


class EpisodeEnd(StrEnum):
    """How an episode ended: reached its goal, ran out of time, or how the player died."""

    SUCCESS = "success"
    HORIZON = "horizon"
    ZOMBIE = "killed_by_zombie"
    SKELETON = "killed_by_skeleton"
    LAVA = "lava"
    STARVED = "starved"
    DEHYDRATED = "dehydrated"
    EXHAUSTED = "exhausted"
    DIED = "died"  # health ran out, cause not visible


def death_cause(view: View) -> EpisodeEnd:
    """Why the player in ``view`` (the last View of an episode that ended by game over)
    died: what stands next to it, else the stat that ran out."""
    x, y = view.position
    near = {name for name, mx, my in view.mobs if abs(mx - x) + abs(my - y) <= 1}
    if "zombie" in near:
        return EpisodeEnd.ZOMBIE
    if "arrow" in near or "skeleton" in near:
        return EpisodeEnd.SKELETON
    if view.block_at(x, y) == "lava":
        return EpisodeEnd.LAVA
    for stat, end in (
        (view.food, EpisodeEnd.STARVED),
        (view.drink, EpisodeEnd.DEHYDRATED),
        (view.energy, EpisodeEnd.EXHAUSTED),
    ):
        if stat <= 0:
            return end
    sides = [view.block_at(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    return EpisodeEnd.LAVA if "lava" in sides else EpisodeEnd.DIED


def describe_view(view: View) -> str:
    """A plain-text description of a View for LLM prompts."""
    px, py = view.position
    lines = [
        f"Position (x, y): ({px}, {py}); facing {FACING_NAMES.get(view.facing, view.facing)} "
        f"toward {view.block_at(*view.facing_position)}.",
        f"Health {view.health}/9, food {view.food}/9, drink {view.drink}/9, "
        f"energy {view.energy}/9; daylight {view.daylight:.2f}"
        + ("; sleeping." if view.sleeping else "."),
    ]
    held = {k: v for k, v in view.inventory.items() if v}
    lines.append(
        "Inventory: " + (", ".join(f"{k} {v}" for k, v in held.items()) if held else "empty") + "."
    )
    if view.achievements:
        lines.append("Achievements so far: " + ", ".join(sorted(view.achievements)) + ".")
    mobs = {(x, y): name for name, x, y in view.mobs}
    rows = []
    for r, row in enumerate(view.grid):
        cells = []
        for c, block in enumerate(row):
            x = px + c - VIEW_COLS // 2
            y = py + r - VIEW_ROWS // 2
            if (x, y) == (px, py):
                cells.append("@")
            elif (x, y) in mobs:
                cells.append(_MOB_SYMBOLS[mobs[(x, y)]])
            else:
                cells.append(_GRID_SYMBOLS.get(block, "?"))
        rows.append("".join(cells))
    lines.append(
        f"Map around the player (rows top to bottom, x from {px - VIEW_COLS // 2} to "
        f"{px + VIEW_COLS // 2}, y from {py - VIEW_ROWS // 2} to {py + VIEW_ROWS // 2}; @ is "
        "the player):"
    )
    lines.extend("  " + row for row in rows)
    seen = sorted(
        {block for row in view.grid for block in row} - {"grass", "out_of_bounds", "unknown"}
    )
    if seen:
        lines.append("Visible blocks: " + ", ".join(seen) + ".")
    if view.mobs:
        lines.append(
            "Visible creatures: "
            + ", ".join(f"{name} at ({x}, {y})" for name, x, y in view.mobs)
            + "."
        )
    legend = ", ".join(f"{sym}={name}" for name, sym in _GRID_SYMBOLS.items() if name != "unknown")
    lines.append(f"Legend: {legend}, " + ", ".join(f"{s}={n}" for n, s in _MOB_SYMBOLS.items()))
    return "\n".join(lines)


# Views travel to sandbox workers as rows of int32 (one row per env) plus a float each
# (daylight): position, facing, stats, step, inventory, achievements (bits), the grid's
# block indices, and per grid cell a bit mask of the mobs there.
_CELLS = VIEW_ROWS * VIEW_COLS
_INV = 10  # first inventory column
_ACH = _INV + len(INVENTORY_ITEMS)
_GRID = _ACH + 1
_MOBS = _GRID + _CELLS
VIEW_ROW_WIDTH = _MOBS + _CELLS
_ROW_STARTS = range(0, _CELLS, VIEW_COLS)
_BLOCK_INDEX = {name: i for i, name in enumerate(BLOCK_NAMES)}
_MOB_INDEX = {name: i for i, name in enumerate(MOB_NAMES)}


def encode_views(views: list[View]) -> tuple[np.ndarray, np.ndarray]:
    """Views as (rows, light): int32 (n, VIEW_ROW_WIDTH) and float64 (n,) (the generic path;
    a world may build the same rows faster from its own arrays)."""
    rows = np.zeros((len(views), VIEW_ROW_WIDTH), dtype=np.int32)
    light = np.zeros(len(views), dtype=np.float64)
    unknown = _BLOCK_INDEX["unknown"]
    for k, view in enumerate(views):
        row = rows[k]
        row[:10] = (
            *view.position,
            *view.facing,
            view.health,
            view.food,
            view.drink,
            view.energy,
            int(view.sleeping),
            view.step,
        )
        row[_INV:_ACH] = [view.inventory.get(item, 0) for item in INVENTORY_ITEMS]
        row[_ACH] = sum(1 << i for i, a in enumerate(ACHIEVEMENTS) if a in view.achievements)
        row[_GRID:_MOBS] = [_BLOCK_INDEX.get(b, unknown) for line in view.grid for b in line]
        left = view.position[0] - VIEW_COLS // 2
        top = view.position[1] - VIEW_ROWS // 2
        for name, x, y in view.mobs:
            r, c = y - top, x - left
            if 0 <= r < VIEW_ROWS and 0 <= c < VIEW_COLS and name in _MOB_INDEX:
                row[_MOBS + r * VIEW_COLS + c] |= 1 << _MOB_INDEX[name]
        light[k] = view.daylight
    return rows, light


def decode_views(rows: np.ndarray, light: np.ndarray) -> list[View]:
    """The Views :func:`encode_views` (or a world's ``view_rows``) encoded."""
    views = []
    for row, daylight in zip(np.asarray(rows).tolist(), np.asarray(light).tolist(), strict=True):
        x, y = row[0], row[1]
        cells = [BLOCK_NAMES[i] for i in row[_GRID:_MOBS]]
        left, top = x - VIEW_COLS // 2, y - VIEW_ROWS // 2
        mobs: list[tuple[str, int, int]] = []
        for cell, mask in enumerate(row[_MOBS:]):
            if mask:
                r, c = divmod(cell, VIEW_COLS)
                mobs.extend(
                    (name, left + c, top + r) for m, name in enumerate(MOB_NAMES) if mask >> m & 1
                )
        bits = row[_ACH]
        views.append(
            View(
                grid=tuple(
                    tuple(cells[r * VIEW_COLS : (r + 1) * VIEW_COLS]) for r in range(VIEW_ROWS)
                ),
                mobs=tuple(mobs),
                inventory=dict(zip(INVENTORY_ITEMS, row[_INV:_ACH], strict=True)),
                health=row[4],
                food=row[5],
                drink=row[6],
                energy=row[7],
                facing=(row[2], row[3]),
                daylight=daylight,
                position=(x, y),
                sleeping=bool(row[8]),
                achievements=frozenset(a for i, a in enumerate(ACHIEVEMENTS) if bits >> i & 1),
                step=row[9],
            )
        )
    return views


_DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # the observation's direction one-hot order


def view_observations(views: list[View]) -> np.ndarray:
    """The symbolic observation (:data:`OBSERVATION_SEGMENTS`' layout, float32 rows) of
    ``views``, computed as Craftax-Classic's ``render_craftax_symbolic`` computes it from the
    game's state: the 7x9 map one-hot over blocks then mob channels, inventory and stats as
    float16 tenths (as XLA rounds them), the facing direction one-hot, daylight, sleeping. A
    View holds every input of that function, so a policy trained on the world's
    observation acts on a View alone (a policy skill in a sandbox worker); a test checks
    equality on real Craftax steps."""
    n = len(views)
    channels = len(BLOCK_NAMES) + len(MOB_NAMES)
    cells = np.zeros((n, VIEW_ROWS, VIEW_COLS, channels), dtype=np.float32)
    tenths = np.zeros((n, len(INVENTORY_ITEMS) + len(STATS)), dtype=np.float16)
    rest = np.zeros((n, 6), dtype=np.float32)  # direction one-hot, daylight, sleeping
    unknown = _BLOCK_INDEX["unknown"]
    for k, view in enumerate(views):
        for r, line in enumerate(view.grid):
            for c, block in enumerate(line):
                cells[k, r, c, _BLOCK_INDEX.get(block, unknown)] = 1.0
        left = view.position[0] - VIEW_COLS // 2
        top = view.position[1] - VIEW_ROWS // 2
        for name, x, y in view.mobs:
            r, c = y - top, x - left
            if 0 <= r < VIEW_ROWS and 0 <= c < VIEW_COLS and name in _MOB_INDEX:
                cells[k, r, c, len(BLOCK_NAMES) + _MOB_INDEX[name]] = 1.0
        tenths[k] = [view.inventory.get(item, 0) for item in INVENTORY_ITEMS] + [
            view.health,
            view.food,
            view.drink,
            view.energy,
        ]
        if view.facing in _DIRECTIONS:
            rest[k, _DIRECTIONS.index(view.facing)] = 1.0
        rest[k, 4] = view.daylight
        rest[k, 5] = float(view.sleeping)
    # float16 tenths as XLA computes the renderer's ``x / 10.0``: times float16(0.1), rounded
    # to float16 (a true division rounds 3 and 7 to the other neighbour)
    tenths = tenths * np.float16(0.1)
    return np.concatenate(
        [cells.reshape(n, -1), tenths.astype(np.float32), rest], axis=1, dtype=np.float32
    )


@dataclass
class StepResult:
    """What :meth:`World.step` returns, one row per env.

    ``reward`` is the game's own reward (Crafter's: +1 per new achievement, +-0.1 per
    health point). ``game_over`` is true when the game itself ended (death or its time
    limit). ``achievements`` is a (num_envs, 22) bool array of achievements unlocked this
    episode, ``inventory`` a (num_envs, 12) int array in :data:`INVENTORY_ITEMS` order.
    """

    obs: np.ndarray
    reward: np.ndarray
    game_over: np.ndarray
    achievements: np.ndarray
    inventory: np.ndarray


class World(ABC):
    """A batch of games behind one interface (Harlequin-style adapter)."""

    name: str = "world"
    num_envs: int
    action_names: tuple[str, ...] = ACTION_NAMES
    #: Named slices of the symbolic observation vector, for feature selection.
    observation_segments: dict[str, slice] = OBSERVATION_SEGMENTS
    #: Length of the flat float32 symbolic observation.
    observation_size: int = OBSERVATION_SIZE

    @classmethod
    def documentation(cls) -> WorldDocs:
        """What agents are told of this world: rules, actions, achievements, observation,
        and the tech tree the builtin agent plans with (see :mod:`rlgpt_tui.envs.knowledge`)."""
        raise NotImplementedError(f"{cls.__name__} has no documentation: define documentation()")

    @abstractmethod
    def reset(self, seed: int) -> StepResult:
        """Start fresh games in every env, seeded; returns the first observations."""

    @abstractmethod
    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> StepResult:
        """Advance the envs where ``active`` is true by one primitive action each.

        Inactive envs keep their state; their rows in the result repeat their last values
        with zero reward. ``active=None`` means all envs.
        """

    def step_async(self, actions: np.ndarray, active: np.ndarray | None = None) -> object:
        """Start :meth:`step`; :meth:`step_wait` with the returned handle finishes it.

        Between the two the caller may work on (view, reset, step) envs of other groups
        (:meth:`env_groups`); a world that computes elsewhere (Craftax: XLA's threads)
        runs the step meanwhile. Here: the step runs at once.
        """
        return self.step(actions, active)

    def step_wait(self, handle: object) -> StepResult:
        """The result of the :meth:`step_async` call that returned ``handle``."""
        return cast(StepResult, handle)  # here step_async's handle is the step's result

    def compiling(self) -> str:
        """What this world's first :meth:`reset` will compile in this process, for a person
        to read while it waits ('' : nothing)."""
        return ""

    @classmethod
    def check_backend(cls) -> None:
        """Raise a one-line error naming the fix when this backend cannot run here (e.g.
        its interpreter is not configured); cheap, imports nothing heavy. Default: it can."""
        return None

    @classmethod
    def load(cls) -> None:
        """Import and set up, on the calling thread, what every world of this backend
        shares (e.g. Craftax's JAX and its kernels' definitions: Python work that holds
        the GIL, done before :meth:`prepare`'s threads start). Default: nothing."""
        return None

    @classmethod
    def prepare(cls, num_envs: int, groups: int = 1) -> None:
        """Make worlds of ``num_envs`` envs in ``groups`` quick to build later in this
        process (e.g. compile their kernels); may run on another thread while the caller
        works, and changes no game a world plays. Default: nothing to prepare."""
        return None

    def env_groups(self) -> list[np.ndarray]:
        """Groups of envs that step independently: one group's step may be in flight
        (:meth:`step_async`) while another group's envs are viewed, reset or stepped."""
        return [np.arange(self.num_envs)]

    @abstractmethod
    def reset_envs(self, mask: np.ndarray) -> StepResult:
        """Start new games in the envs where ``mask`` is true; others are untouched."""

    @abstractmethod
    def views(self, indices: list[int] | None = None) -> list[View]:
        """Views of the given envs (all when None), reflecting the current state."""

    def view_rows(self, indices: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The Views of the given envs encoded for sandbox workers (:func:`encode_views`)."""
        return encode_views(self.views(indices))

    @abstractmethod
    def frame(self, index: int, size: int = 288) -> np.ndarray:
        """An RGB uint8 frame of one env, about ``size`` pixels wide, for display and GIFs."""

    def close(self) -> None:  # noqa: B027 - optional hook, most worlds hold nothing
        """Release resources."""

    @property
    def steps_taken(self) -> int:
        """Primitive env steps taken so far across all envs (for exact sample accounting)."""
        return self._steps_taken

    _steps_taken: int = 0
