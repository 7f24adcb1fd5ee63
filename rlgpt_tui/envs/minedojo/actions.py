"""MineDojo's actions as the World interface speaks them.

- The World interface speaks Crafter's 17 actions
  (:data:`~rlgpt_tui.envs.base.ACTION_NAMES`), so the skill API, coded actions and the RL
  action table work unchanged: each becomes a short sequence of MineDojo primitives
  (:func:`crafter_to_minedojo`): ``move_left`` turns the camera to face west (one camera
  action turns up to 180 degrees) and walks forward; ``do`` attacks; ``place_table`` places
  a crafting table; ``make_wood_pickaxe`` crafts planks, sticks and the pickaxe; ``sleep``
  is a no-op (no bed).
- Primitives (see :data:`PRIMITIVES`) become MineDojo's
  ``MultiDiscrete([3, 3, 4, 25, 25, 8, 244, 36])`` vectors: movement, jump/sneak/sprint,
  camera steps of 15 degrees, and the functional actions (use, drop, attack, craft, equip,
  place, destroy). ``craft:<item>`` takes the item's index from the list the worker reports
  (MineDojo's own ``ALL_CRAFT_SMELT_ITEMS``); ``equip:`` / ``place:`` / ``destroy:`` pick the
  first inventory slot holding the item.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ACTION_SHAPE = (3, 3, 4, 25, 25, 8, 244, 36)
CAMERA_CENTER = 12  # no camera change; each step is 15 degrees
FUNCTIONAL = ("noop", "use", "drop", "attack", "craft", "equip", "place", "destroy")
MOVES: dict[str, tuple[int, int]] = {
    "noop": (0, 0),
    "forward": (0, 1),
    "back": (0, 2),
    "left": (1, 1),
    "right": (1, 2),
    "jump": (2, 1),
    "sneak": (2, 2),
    "sprint": (2, 3),
    "camera_up": (3, CAMERA_CENTER - 1),
    "camera_down": (3, CAMERA_CENTER + 1),
    "camera_left": (4, CAMERA_CENTER - 1),
    "camera_right": (4, CAMERA_CENTER + 1),
}
ITEM_ARGUMENTS = (
    "planks",
    "stick",
    "crafting_table",
    "wooden_pickaxe",
    "stone_pickaxe",
    "furnace",
    "iron_ingot",
    "iron_pickaxe",
    "bucket",
    "cooked_beef",
    "bed",
    "wooden_sword",
    "stone_sword",
    "iron_sword",
)
PRIMITIVES: tuple[str, ...] = (
    *MOVES,
    "use",
    "drop",
    "attack",
    *(f"craft:{item}" for item in ITEM_ARGUMENTS),
    "equip:wooden_pickaxe",
    "equip:stone_pickaxe",
    "equip:iron_pickaxe",
    "place:crafting_table",
    "place:furnace",
    "place:cobblestone",
    "place:sapling",
)
# Crafter's absolute moves as Minecraft yaw (0 = south, +z; 90 = west, -x)
MOVE_YAW = {"move_down": 0.0, "move_left": 90.0, "move_up": 180.0, "move_right": 270.0}
TOOL_CRAFTS = {
    "make_wood_pickaxe": "wooden_pickaxe",
    "make_stone_pickaxe": "stone_pickaxe",
    "make_iron_pickaxe": "iron_pickaxe",
    "make_wood_sword": "wooden_sword",
    "make_stone_sword": "stone_sword",
    "make_iron_sword": "iron_sword",
}
PLACES = {
    "place_stone": "place:cobblestone",
    "place_table": "place:crafting_table",
    "place_furnace": "place:furnace",
    "place_plant": "place:sapling",
}


def crafter_to_minedojo(name: str, yaw: float) -> list[tuple[str, int]]:
    """A Crafter action as MineDojo primitives: (primitive, camera yaw steps) pairs."""
    if name in MOVE_YAW:
        turn = (MOVE_YAW[name] - yaw + 180.0) % 360.0 - 180.0
        steps = round(turn / 15.0)
        return ([("turn", steps)] if steps else []) + [("forward", 0)]
    if name == "do":
        return [("attack", 0)]
    if name in PLACES:
        return [(PLACES[name], 0)]
    if name in TOOL_CRAFTS:
        return [("craft:planks", 0), ("craft:stick", 0), (f"craft:{TOOL_CRAFTS[name]}", 0)]
    return [("noop", 0)]  # noop, and sleep (Minecraft sleeps only in a bed)


class ActionEncoder:
    """Named primitives -> MultiDiscrete vectors, given the craft list and the inventory."""

    def __init__(self, craft_items: list[str]):
        self.craft_index = {name: i for i, name in enumerate(craft_items)}

    def encode(self, name: str, obs: dict[str, Any] | None, turn: int = 0) -> np.ndarray:
        action = np.zeros(len(ACTION_SHAPE), dtype=np.int64)
        action[3] = action[4] = CAMERA_CENTER
        if name == "turn":  # ``turn`` camera steps of 15 degrees in one action
            action[4] = CAMERA_CENTER + max(-CAMERA_CENTER, min(CAMERA_CENTER, turn))
            return action
        if name in MOVES:
            index, value = MOVES[name]
            action[index] = value
            return action
        verb, _, item = name.partition(":")
        if verb not in FUNCTIONAL:
            raise ValueError(f"unknown MineDojo action {name!r}: use one of {PRIMITIVES}")
        action[5] = FUNCTIONAL.index(verb)
        if verb == "craft":
            if item not in self.craft_index:
                raise ValueError(f"MineDojo cannot craft {item!r} (not in its craft list)")
            action[6] = self.craft_index[item]
        elif verb in ("equip", "place", "destroy"):
            action[7] = self._slot(item, obs)
        return action

    @staticmethod
    def _slot(item: str, obs: dict[str, Any] | None) -> int:
        if obs is not None:
            for slot, name in enumerate(obs["inventory"]["name"]):
                if str(name).replace(" ", "_") == item:
                    return slot
        return 0  # not held: MineDojo's action mask makes this a no-op
