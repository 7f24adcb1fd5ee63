"""The worlds this app knows: name -> backend class and what it offers.

Every place that needs to know about a world (making one, the observation segments an
RLConfig may pick, the primitive actions, the usual number of envs, the help text) asks
this registry instead of switching on the world's name. Backend modules are imported only
when a world is made or its class is asked for (Craftax imports JAX).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from rlgpt_tui.envs.base import ACTION_NAMES, OBSERVATION_SEGMENTS, World
from rlgpt_tui.envs.knowledge import WorldDocs


class UnknownWorldError(ValueError):
    """Raised for a world name that is not in the registry."""


class WorldBackend(Protocol):
    """A registered backend class as :meth:`WorldInfo.make` calls it: every backend takes
    the number of envs, a seed, and the keyword options its ``options`` function gives."""

    def __call__(self, *, num_envs: int, seed: int, **options: Any) -> World: ...


@dataclass(frozen=True)
class WorldInfo:
    """One registered world: its backend class (imported lazily) and capabilities."""

    name: str
    class_path: str  # "module:Class"
    doc: str
    default_num_envs: int
    actions: tuple[str, ...] = ACTION_NAMES
    segments: tuple[str, ...] | None = None  # None: the class's ``observation_segments``
    options: Callable[..., dict[str, Any]] = field(default=lambda **kw: {})
    # "module:function" giving the world's WorldDocs without importing its backend (the
    # class's own ``documentation``; Craftax amends Crafter's recipes)
    docs: str = "rlgpt_tui.envs.knowledge:crafter_documentation"
    # its observation is :func:`~rlgpt_tui.envs.base.view_observations` of its Views (tested
    # on real steps), so a policy trained on it runs as a skill in a sandbox worker
    views_observe: bool = False

    @property
    def cls(self) -> type[World]:
        return _resolve(self.class_path)

    def documentation(self) -> WorldDocs:
        """The world's documentation (rules, actions, achievements, observation, tech tree):
        what prompts, the builtin agent and the critic know of it."""
        return _resolve(self.docs)()

    @property
    def observation_segments(self) -> tuple[str, ...]:
        """The observation segment names an RLConfig may choose for this world."""
        return self.segments if self.segments is not None else tuple(self.cls.observation_segments)

    def make(
        self,
        num_envs: int,
        seed: int = 0,
        task: str | None = None,
        episodes_per_world: int = 1,
        groups: int = 1,
    ) -> World:
        """A world of ``num_envs`` envs (the keyword options this backend takes)."""
        extra = self.options(task=task, episodes_per_world=episodes_per_world, groups=groups)
        backend: WorldBackend = _resolve(self.class_path)
        return backend(num_envs=num_envs, seed=seed, **extra)


def _resolve(path: str) -> Any:
    """``module:attribute.attribute`` imported."""
    module, _, names = path.partition(":")
    value: Any = importlib.import_module(module)
    for name in names.split("."):
        value = getattr(value, name)
    return value


def _craftax_options(episodes_per_world: int, groups: int, **_: Any) -> dict[str, Any]:
    return {"episodes_per_world": episodes_per_world, "groups": groups}


def _minedojo_options(task: str | None, **_: Any) -> dict[str, Any]:
    # start-up: pydantic and MineDojo's task table load only when a MineDojo world is made
    from rlgpt_tui.envs.minedojo.tasks import minedojo_task_id

    return {"task_id": minedojo_task_id(task or "collect_wood")}


WORLDS: dict[str, WorldInfo] = {
    info.name: info
    for info in (
        WorldInfo(
            "craftax",
            "rlgpt_tui.envs.craftax_world:CraftaxWorld",
            "Craftax-Classic in JAX (default): every env stepped in one jitted call",
            64,
            segments=tuple(OBSERVATION_SEGMENTS),
            options=_craftax_options,
            docs="rlgpt_tui.envs.knowledge:craftax_classic_documentation",
            views_observe=True,
        ),
        WorldInfo(
            "crafter",
            "rlgpt_tui.envs.crafter_world:CrafterWorld",
            "the original Crafter package, one Python env each",
            8,
            segments=tuple(OBSERVATION_SEGMENTS),
        ),
        WorldInfo(
            "minedojo",
            "rlgpt_tui.envs.minedojo.world:MineDojoWorld",
            "MineDojo (Minecraft) in its own interpreter (RLGPT_MINEDOJO_PYTHON)",
            1,
            options=_minedojo_options,
            docs="rlgpt_tui.envs.minedojo.world:MineDojoWorld.documentation",
        ),
    )
}

WORLD_NAMES: tuple[str, ...] = tuple(WORLDS)


def world_info(name: str) -> WorldInfo:
    """The registered world ``name``; raises :class:`UnknownWorldError` with the fix."""
    try:
        return WORLDS[name]
    except (KeyError, TypeError):
        raise UnknownWorldError(
            f"unknown env {name!r}: use one of {', '.join(WORLD_NAMES)} (e.g. --env craftax)"
        ) from None
