"""A stand-in for ``minedojo.make`` with MineDojo's documented interface (no Minecraft).

Observation keys and shapes follow MineDojo's docs: ``rgb`` (3, H, W) uint8; ``inventory``
name (36,) / quantity (36,); ``voxels`` block_name (3, 3, 3); ``life_stats`` life, food,
oxygen; ``location_stats`` pos (3,), pitch, yaw; ``nearby_tools`` table, furnace;
``masks`` action_type (8,), craft_smelt (244,), equip/place/destroy (36,). Actions are
``MultiDiscrete([3, 3, 4, 25, 25, 8, 244, 36])``. A tree stands ahead: attacking it gives
a log. Environment variables make it misbehave like Minecraft can:
``STANDIN_CRASH_AT_STEP`` (the process dies), ``STANDIN_HANG_AT_STEP`` (it stops
answering); ``STANDIN_PID_FILE`` records the pid of a child process (like Minecraft's JVM).
"""

from __future__ import annotations

import os
import subprocess
import time

import numpy as np

CRAFT_ITEMS = ["planks", "stick", "crafting_table", "wooden_pickaxe", "furnace"] + [
    f"item_{i}" for i in range(239)
]


class StandInEnv:
    craft_items = CRAFT_ITEMS

    def __init__(self, task_id: str, image_size=(160, 256), seed: int = 0):
        self.task_id = task_id
        self.height, self.width = image_size
        self.rng = np.random.default_rng(seed)
        self.steps = 0
        self.child = subprocess.Popen(["sleep", "1000"])  # same process group, like the JVM
        pid_file = os.environ.get("STANDIN_PID_FILE")
        if pid_file:
            with open(pid_file, "w") as f:
                f.write(f"{os.getpid()} {self.child.pid}")

    def reset(self):
        self.steps = 0
        self.logs = 0
        self.yaw = 0.0
        self.z = 0.0
        return self._obs()

    def step(self, action):
        self.steps += 1
        if str(self.steps) == os.environ.get("STANDIN_CRASH_AT_STEP"):
            os._exit(3)
        if str(self.steps) == os.environ.get("STANDIN_HANG_AT_STEP"):
            time.sleep(3600)
        action = np.asarray(action)
        assert action.shape == (8,), action.shape
        if action[0] == 1:
            self.z += 1
        self.yaw = (self.yaw + 15.0 * (int(action[4]) - 12)) % 360
        reward = 0.0
        if action[5] == 3:  # attack the tree ahead
            self.logs += 1
            reward = 1.0
        done = self.logs >= 1 and self.task_id == "harvest_1_log"
        return self._obs(), reward, done, {"steps": self.steps}

    def _obs(self):
        names = np.array(["air"] * 36, dtype="<U20")
        quantity = np.zeros(36, dtype=np.float32)
        if self.logs:
            names[0], quantity[0] = "log", self.logs
        voxels = np.full((3, 3, 3), "air", dtype="<U20")
        voxels[:, 0, :] = "grass"
        voxels[1, 1, 2] = "log"  # ahead of the player, at its feet
        return {
            "rgb": self.rng.integers(0, 255, (3, self.height, self.width), dtype=np.uint8),
            "inventory": {"name": names, "quantity": quantity},
            "voxels": {"block_name": voxels},
            "life_stats": {
                "life": np.array([20.0], np.float32),
                "food": np.array([18.0], np.float32),
                "oxygen": np.array([300.0], np.float32),
            },
            "location_stats": {
                "pos": np.array([0.5, 64.0, self.z], np.float32),
                "pitch": np.array([0.0], np.float32),
                "yaw": np.array([self.yaw], np.float32),
            },
            "nearby_tools": {"table": np.array([False]), "furnace": np.array([False])},
            "masks": {
                "action_type": np.ones(8, dtype=bool),
                "craft_smelt": np.ones(244, dtype=bool),
                "equip": np.ones(36, dtype=bool),
                "place": np.ones(36, dtype=bool),
                "destroy": np.ones(36, dtype=bool),
            },
        }

    def close(self):
        self.child.kill()
        self.child.wait()


def make(task_id: str, image_size=(160, 256), seed: int = 0) -> StandInEnv:
    return StandInEnv(task_id, image_size, seed)
