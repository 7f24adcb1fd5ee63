"""Worlds: batched game backends behind one interface (see :mod:`rlgpt_tui.envs.base`)."""

from __future__ import annotations

from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    ACTION_NAMES,
    INVENTORY_ITEMS,
    StepResult,
    View,
    World,
    WorldSetupError,
    describe_view,
)

WORLD_NAMES: tuple[str, ...] = ("craftax", "crafter", "minedojo")


class UnknownWorldError(ValueError):
    """Raised for a world name that is not one of :data:`WORLD_NAMES`."""


def make_world(
    name: str,
    num_envs: int,
    seed: int = 0,
    task: str | None = None,
    episodes_per_world: int = 1,
    groups: int = 1,
) -> World:
    """Create a world backend by name (``task`` picks the MineDojo task that stands for it).

    ``episodes_per_world``: how many episodes each generated world may start (Craftax's
    reset pool; other backends generate a world per episode). ``groups``: Craftax's envs
    in that many groups that step independently (see :meth:`World.step_async`).
    ``minedojo`` runs in the interpreter named by ``RLGPT_MINEDOJO_PYTHON``.
    """
    if name == "craftax":
        from rlgpt_tui.envs.craftax_world import CraftaxWorld

        return CraftaxWorld(
            num_envs=num_envs,
            seed=seed,
            episodes_per_world=episodes_per_world,
            groups=groups,
        )
    if name == "crafter":
        from rlgpt_tui.envs.crafter_world import CrafterWorld

        return CrafterWorld(num_envs=num_envs, seed=seed)
    if name == "minedojo":
        from rlgpt_tui.envs.minedojo import MineDojoWorld
        from rlgpt_tui.envs.minedojo.tasks import minedojo_task_id

        task_id = minedojo_task_id(task or "collect_wood")
        return MineDojoWorld(num_envs=num_envs, seed=seed, task_id=task_id)
    raise UnknownWorldError(
        f"unknown env {name!r}: use one of {', '.join(WORLD_NAMES)} (e.g. --env craftax)"
    )


__all__ = [
    "ACHIEVEMENTS",
    "ACTION_NAMES",
    "INVENTORY_ITEMS",
    "WORLD_NAMES",
    "StepResult",
    "UnknownWorldError",
    "View",
    "World",
    "WorldSetupError",
    "describe_view",
    "make_world",
]
