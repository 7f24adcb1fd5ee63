"""Worlds: batched game backends behind one interface (see :mod:`rlgpt_tui.envs.base`)."""

from __future__ import annotations

import contextlib
import threading

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
from rlgpt_tui.envs.registry import WORLD_NAMES, WORLDS, UnknownWorldError, WorldInfo, world_info


def make_world(
    name: str,
    num_envs: int,
    seed: int = 0,
    task: str | None = None,
    episodes_per_world: int = 1,
    groups: int = 1,
) -> World:
    """Create a registered world backend by name (``task`` picks the MineDojo task that
    stands for it; see :mod:`rlgpt_tui.envs.registry`).

    ``episodes_per_world``: how many episodes each generated world may start (Craftax's
    reset pool; other backends generate a world per episode). ``groups``: Craftax's envs
    in that many groups that step independently (see :meth:`World.step_async`).
    ``minedojo`` runs in the interpreter named by ``RLGPT_MINEDOJO_PYTHON``.
    """
    return world_info(name).make(num_envs, seed, task, episodes_per_world, groups)


_PREPARED: set[tuple[str, int, int]] = set()  # (world, envs, groups) prepared or under way
_PREPARED_LOCK = threading.Lock()


def prepare_worlds(name: str, sizes: list[tuple[int, int]]) -> threading.Thread:
    """Prepare worlds of each size (envs, groups) in turn (:meth:`World.prepare`: e.g.
    Craftax's kernels traced and compiled) on a background thread, while the caller goes
    on (e.g. writes and tries code); a world built later waits only for what is left. A
    failure there is left to the world built later to meet and report."""

    with _PREPARED_LOCK:  # each size once per process
        sizes = [s for s in sizes if (name, *s) not in _PREPARED]
        _PREPARED.update((name, *s) for s in sizes)

    def work() -> None:
        for num_envs, groups in sizes:
            with contextlib.suppress(Exception):  # the real world's build reports it
                world_info(name).cls.prepare(num_envs, groups)

    thread = threading.Thread(target=work, name=f"prepare {name} worlds", daemon=True)
    thread.start()
    return thread


__all__ = [
    "ACHIEVEMENTS",
    "ACTION_NAMES",
    "INVENTORY_ITEMS",
    "WORLDS",
    "WORLD_NAMES",
    "StepResult",
    "UnknownWorldError",
    "View",
    "World",
    "WorldInfo",
    "WorldSetupError",
    "describe_view",
    "make_world",
    "prepare_worlds",
    "world_info",
]
