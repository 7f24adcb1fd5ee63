"""MineDojo behind the World interface, one worker process per env (out of process).

What maps, and how (actions: :mod:`rlgpt_tui.envs.minedojo.actions`):
- The World interface speaks Crafter's 17 actions (:data:`ACTION_NAMES`), each a short
  sequence of MineDojo primitives (:func:`~rlgpt_tui.envs.minedojo.actions.crafter_to_minedojo`).
- Observation for the policy: inventory counts of :data:`TRACKED_ITEMS`, life stats, the
  3x3x3 voxel block ids around the player, pitch/yaw, nearby table/furnace (normalised).
- View: MineDojo sees only the 3x3x3 voxels around the player, so the 7x9 grid holds them
  at its centre (the layer at the player's feet, the layer above drawn where it is solid)
  and ``unknown`` elsewhere; health and food come from life stats (scaled to 0-9), drink is
  oxygen, energy is fixed at 9 (Minecraft has none), facing comes from yaw.
- ``inventory`` (the 12 Crafter items) is filled from their Minecraft counterparts (log ->
  wood, cobblestone -> stone, ...), and Crafter ``achievements`` from what is held or nearby
  (:data:`ACHIEVED_BY`: collect_wood when a log is held, place_table when a crafting table is
  nearby, ...), so Crafter-catalog goals work; eat/drink/sleep/defeat ones stay false.
  MineDojo tasks also check their own inventory goals (:func:`minedojo_success`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    ACTION_NAMES,
    INVENTORY_ITEMS,
    VIEW_COLS,
    VIEW_ROWS,
    StepResult,
    View,
    World,
)
from rlgpt_tui.envs.knowledge import WorldDocs, crafter_tech_tree
from rlgpt_tui.envs.minedojo.actions import (
    PRIMITIVES,
    TOOL_CRAFTS,
    ActionEncoder,
    crafter_to_minedojo,
)
from rlgpt_tui.envs.minedojo.process import (
    MineDojoError,
    WorkerCrashed,
    WorkerProcess,
    minedojo_interpreter,
)

TRACKED_ITEMS = (
    "log",
    "planks",
    "stick",
    "crafting_table",
    "wooden_pickaxe",
    "cobblestone",
    "stone_pickaxe",
    "furnace",
    "coal",
    "iron_ore",
    "iron_ingot",
    "iron_pickaxe",
    "diamond",
    "bucket",
    "milk_bucket",
    "beef",
    "cooked_beef",
    "bed",
    "wool",
)
CRAFTER_COUNTERPART = {
    "wood": "log",
    "stone": "cobblestone",
    "coal": "coal",
    "iron": "iron_ore",
    "diamond": "diamond",
    "sapling": "sapling",
    "wood_pickaxe": "wooden_pickaxe",
    "stone_pickaxe": "stone_pickaxe",
    "iron_pickaxe": "iron_pickaxe",
    "wood_sword": "wooden_sword",
    "stone_sword": "stone_sword",
    "iron_sword": "iron_sword",
}
# Crafter achievement -> Minecraft item held (or tool nearby)
ACHIEVED_BY = (
    {
        f"collect_{item}": CRAFTER_COUNTERPART[item]
        for item in ("wood", "stone", "coal", "iron", "diamond", "sapling")
    }
    | TOOL_CRAFTS
    | {"place_table": "nearby:table", "place_furnace": "nearby:furnace"}
)
BLOCK_IDS = {
    "air": 0,
    "grass": 1,
    "dirt": 2,
    "stone": 3,
    "log": 4,
    "leaves": 5,
    "water": 6,
    "lava": 7,
    "sand": 8,
    "coal_ore": 9,
    "iron_ore": 10,
    "diamond_ore": 11,
    "crafting_table": 12,
    "furnace": 13,
}
OBSERVATION_SEGMENTS = {
    "inventory": slice(0, len(TRACKED_ITEMS)),
    "life": slice(len(TRACKED_ITEMS), len(TRACKED_ITEMS) + 3),
    "voxels": slice(len(TRACKED_ITEMS) + 3, len(TRACKED_ITEMS) + 30),
    "orientation": slice(len(TRACKED_ITEMS) + 30, len(TRACKED_ITEMS) + 32),
    "nearby_tools": slice(len(TRACKED_ITEMS) + 32, len(TRACKED_ITEMS) + 34),
}
OBSERVATION_SIZE = len(TRACKED_ITEMS) + 34
_VIEW_BLOCKS = {
    "log": "tree",
    "leaves": "tree",
    "stone": "stone",
    "cobblestone": "stone",
    "coal_ore": "coal",
    "iron_ore": "iron",
    "diamond_ore": "diamond",
    "water": "water",
    "lava": "lava",
    "sand": "sand",
    "grass": "grass",
    "dirt": "grass",
    "air": "grass",
    "crafting_table": "table",
    "furnace": "furnace",
}


def inventory_counts(obs: dict[str, Any]) -> dict[str, int]:
    """Item name -> total count over the 36 inventory slots."""
    counts: dict[str, int] = {}
    inventory = obs["inventory"]
    for name, quantity in zip(inventory["name"], inventory["quantity"], strict=True):
        name = str(name).replace(" ", "_")
        if name not in ("air", "none"):
            counts[name] = counts.get(name, 0) + int(quantity)
    return counts


def minedojo_success(goal: dict[str, int], obs: dict[str, Any]) -> bool:
    """A MineDojo task's inventory goal (e.g. ``{"log": 1}``) holds in ``obs``."""
    counts = inventory_counts(obs)
    return all(counts.get(item, 0) >= n for item, n in goal.items())


class MineDojoWorld(World):
    """``num_envs`` MineDojo envs, each in its own worker process (crash -> restart)."""

    name = "minedojo"
    action_names = ACTION_NAMES  # Crafter's, translated (see crafter_to_minedojo)
    observation_segments = OBSERVATION_SEGMENTS
    observation_size = OBSERVATION_SIZE

    def __init__(
        self,
        num_envs: int = 1,
        seed: int = 0,
        task_id: str = "harvest_1_log",
        python: str | None = None,
        image_size: tuple[int, int] = (160, 256),
        step_timeout: float = 60.0,
        worker_env: dict[str, str] | None = None,
    ):
        self.num_envs = num_envs
        self.task_id = task_id
        self.image_size = image_size
        self.step_timeout = step_timeout
        self.seed = seed
        self.workers = [WorkerProcess(python, env=worker_env) for _ in range(num_envs)]
        self.encoders: list[ActionEncoder] = []
        for i, worker in enumerate(self.workers):
            self.encoders.append(self._make(worker, seed + i))
        self.obs: list[dict[str, Any] | None] = [None] * num_envs
        self.restarts = 0
        self.minedojo_steps = 0  # MineDojo primitive steps (a Crafter action takes 1-3)

    def _make(self, worker: WorkerProcess, seed: int) -> ActionEncoder:
        reply = worker.request(
            {
                "op": "make",
                "task_id": self.task_id,
                "image_size": list(self.image_size),
                "seed": seed,
            },
            timeout=600.0,  # the first make builds Minecraft
        )
        return ActionEncoder(reply["craft_items"])

    # -- World API ------------------------------------------------------------------------
    def reset(self, seed: int) -> StepResult:
        return self.reset_envs(np.ones(self.num_envs, dtype=bool))

    def reset_envs(self, mask: np.ndarray) -> StepResult:
        for i in np.flatnonzero(mask).tolist():
            self.obs[i] = self._call(i, {"op": "reset"})["obs"]
        return self._result(
            np.zeros(self.num_envs, dtype=np.float32), np.zeros(self.num_envs, bool)
        )

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> StepResult:
        active = np.ones(self.num_envs, dtype=bool) if active is None else active
        reward = np.zeros(self.num_envs, dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        for i in np.flatnonzero(active).tolist():
            name = self.action_names[int(actions[i])]
            yaw = float(np.ravel(self._observed(i)["location_stats"]["yaw"])[0])
            for primitive, turn in crafter_to_minedojo(name, yaw):
                step = self.step_primitive(i, primitive, turn)
                if step is None:  # Minecraft died: a fresh worker, and this episode ends
                    done[i] = True
                    break
                reward[i] += step[0]
                if step[1]:
                    done[i] = True
                    break
            self._steps_taken += 1
        return self._result(reward, done)

    def step_primitive(self, i: int, primitive: str, turn: int = 0) -> tuple[float, bool] | None:
        """One MineDojo step of env ``i``; (reward, done), or None after a crash (restarted)."""
        try:
            vector = self.encoders[i].encode(primitive, self.obs[i], turn)
        except ValueError:  # e.g. an item this MineDojo cannot craft: nothing happens
            vector = self.encoders[i].encode("noop", self.obs[i])
        try:
            reply = self._call(i, {"op": "step", "action": vector.tolist()}, restart=False)
        except WorkerCrashed:
            self._restart(i)
            return None
        self.obs[i] = reply["obs"]
        self.minedojo_steps += 1
        return reply["reward"], reply["done"]

    def _observed(self, i: int) -> dict[str, Any]:
        """Env ``i``'s latest MineDojo observation (one from its first reset on)."""
        obs = self.obs[i]
        if obs is None:
            raise MineDojoError("no observation yet: reset the world first")
        return obs

    def _call(self, i: int, message: dict[str, Any], restart: bool = True) -> dict[str, Any]:
        try:
            return self.workers[i].request(message, timeout=self.step_timeout)
        except WorkerCrashed:
            if not restart:
                raise
            self._restart(i)
            return self.workers[i].request(message, timeout=self.step_timeout)

    def _restart(self, i: int) -> None:
        self.workers[i].restart()
        self.encoders[i] = self._make(self.workers[i], self.seed + i)
        self.obs[i] = self.workers[i].request({"op": "reset"}, timeout=self.step_timeout)["obs"]
        self.restarts += 1

    def _result(self, reward: np.ndarray, done: np.ndarray) -> StepResult:
        obs = np.stack([self.vector(o) for o in self.obs])
        inventory = np.zeros((self.num_envs, len(INVENTORY_ITEMS)), dtype=np.int64)
        achievements = np.zeros((self.num_envs, len(ACHIEVEMENTS)), dtype=bool)
        for i, o in enumerate(self.obs):
            if o is None:
                continue
            counts = inventory_counts(o)
            inventory[i] = [counts.get(CRAFTER_COUNTERPART[k], 0) for k in INVENTORY_ITEMS]
            tools = o.get("nearby_tools", {})
            for name, source in ACHIEVED_BY.items():
                if source.startswith("nearby:"):
                    held = bool(np.ravel(tools.get(source[7:], [False]))[0])
                else:
                    held = counts.get(source, 0) > 0
                achievements[i, ACHIEVEMENTS.index(name)] = held
        return StepResult(
            obs=obs,
            reward=reward,
            game_over=done,
            achievements=achievements,
            inventory=inventory,
        )

    @staticmethod
    def vector(obs: dict[str, Any] | None) -> np.ndarray:
        """The policy's observation (see :data:`OBSERVATION_SEGMENTS`), values in [0, 1]."""
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        if obs is None:
            return out
        counts = inventory_counts(obs)
        out[OBSERVATION_SEGMENTS["inventory"]] = [
            min(counts.get(k, 0), 64) / 64 for k in TRACKED_ITEMS
        ]
        life = obs["life_stats"]
        out[OBSERVATION_SEGMENTS["life"]] = [
            float(np.ravel(life["life"])[0]) / 20,
            float(np.ravel(life["food"])[0]) / 20,
            float(np.ravel(life["oxygen"])[0]) / 300,
        ]
        blocks = np.ravel(obs["voxels"]["block_name"])
        out[OBSERVATION_SEGMENTS["voxels"]] = [
            BLOCK_IDS.get(str(b), len(BLOCK_IDS)) / len(BLOCK_IDS) for b in blocks
        ]
        location = obs["location_stats"]
        out[OBSERVATION_SEGMENTS["orientation"]] = [
            (float(np.ravel(location["pitch"])[0]) + 90) / 180,
            (float(np.ravel(location["yaw"])[0]) % 360) / 360,
        ]
        tools = obs.get("nearby_tools", {})
        out[OBSERVATION_SEGMENTS["nearby_tools"]] = [
            float(bool(np.ravel(tools.get("table", [False]))[0])),
            float(bool(np.ravel(tools.get("furnace", [False]))[0])),
        ]
        return out

    def views(self, indices: list[int] | None = None) -> list[View]:
        chosen = range(self.num_envs) if indices is None else indices
        return [self.view(self._observed(i)) for i in chosen]

    @staticmethod
    def view(obs: dict[str, Any]) -> View:
        """The 3x3x3 voxels at the centre of a 7x9 grid; stats scaled to Crafter's 0-9."""
        grid = [["unknown"] * VIEW_COLS for _ in range(VIEW_ROWS)]
        voxels = np.asarray(obs["voxels"]["block_name"]).reshape(3, 3, 3)  # (x, y, z)
        for dx in range(3):
            for dz in range(3):
                feet = str(voxels[dx, 1, dz])
                above = str(voxels[dx, 2, dz])
                name = above if above not in ("air", "leaves") and feet == "air" else feet
                grid[VIEW_ROWS // 2 + dz - 1][VIEW_COLS // 2 + dx - 1] = _VIEW_BLOCKS.get(
                    name, "unknown"
                )
        life = obs["life_stats"]
        location = obs["location_stats"]
        yaw = math.radians(float(np.ravel(location["yaw"])[0]))
        facing = (round(-math.sin(yaw)), round(math.cos(yaw)))
        pos = np.ravel(location["pos"])
        counts = inventory_counts(obs)
        return View(
            grid=tuple(tuple(row) for row in grid),
            mobs=(),
            inventory={k: counts.get(CRAFTER_COUNTERPART[k], 0) for k in INVENTORY_ITEMS},
            health=round(float(np.ravel(life["life"])[0]) * 9 / 20),
            food=round(float(np.ravel(life["food"])[0]) * 9 / 20),
            drink=round(float(np.ravel(life["oxygen"])[0]) * 9 / 300),
            energy=9,
            facing=facing if facing != (0, 0) else (0, 1),
            daylight=1.0,
            position=(int(pos[0]), int(pos[2])),
        )

    def frame(self, index: int, size: int = 288) -> np.ndarray:
        obs = self._observed(index)
        rgb = np.transpose(np.asarray(obs["rgb"]), (1, 2, 0))  # MineDojo: (3, H, W)
        return np.ascontiguousarray(rgb, dtype=np.uint8)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()

    @classmethod
    def check_backend(cls) -> None:
        """MineDojo runs in its own interpreter: it must be configured and exist."""
        minedojo_interpreter()

    @classmethod
    def documentation(cls) -> WorldDocs:
        """Minecraft through MineDojo, as this backend maps it: Crafter's actions and
        achievements become Minecraft primitives and items (the builtin agent's tech tree
        is Crafter's, over that mapping)."""
        counterparts = ", ".join(f"{k} = {v}" for k, v in CRAFTER_COUNTERPART.items())
        achieved = ", ".join(
            f"{k} ({v.replace('nearby:', 'a ') + ' nearby' if v.startswith('nearby:') else v})"
            for k, v in ACHIEVED_BY.items()
        )
        return WorldDocs(
            world="MineDojo (Minecraft, 3D, first person), behind Crafter's action names",
            actions="Coded actions and the policy use Crafter's action names, each run as "
            "MineDojo primitives: move_left/right/up/down turn the camera to face west/east/"
            "north/south and walk forward one step; do attacks (mines or hits) what is in front; "
            "place_table / place_furnace / place_stone place a crafting table, a furnace, "
            "cobblestone; make_*_pickaxe and make_*_sword craft planks, sticks, then the tool; "
            "sleep and noop do nothing (no bed). Raw MineDojo primitives: "
            + ", ".join(PRIMITIVES)
            + ".",
            rules="Minecraft's rules: punch a tree to get logs; crafting needs planks (from logs) "
            "and sticks; tools need a crafting table nearby; stone and ores need a pickaxe "
            "(wooden for cobblestone and coal, stone for iron); iron ore is smelted in a "
            "furnace. Health and food fall when hurt or hungry; mobs attack at night.",
            achievements="Crafter's achievements are read from what is held or nearby: "
            + achieved
            + "; eat, drink, sleep and defeat achievements stay false. MineDojo tasks (harvest, "
            "craft, obtain) also check their own inventory goals.",
            observation="The player sees only the 3x3x3 blocks around it: a View's grid holds "
            "them at its centre (the layer at the feet, the layer above where solid) and "
            "'unknown' elsewhere; no creatures are listed. Inventory uses Crafter's item names "
            f"for their Minecraft counterparts ({counterparts}). Health and food are scaled to "
            "0-9, drink is oxygen, energy is fixed at 9, daylight at 1.",
            tech_tree=crafter_tech_tree(),
        )
