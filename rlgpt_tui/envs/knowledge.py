"""What a world tells agents about itself: :class:`WorldDocs` (rules, actions, achievements,
observation, and the tech tree the builtin agent and critic plan with).

Each world class answers ``World.documentation()``; the registry's
:meth:`~rlgpt_tui.envs.registry.WorldInfo.documentation` gives it without importing the
backend. Crafter and Craftax-Classic share Crafter's text, built from Crafter's own rule file;
the tech tree is data (``assets/worlds/crafter_tech_tree.toml``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.envs.base import ACHIEVEMENTS, ACTION_NAMES

TECH_TREE_FILE = ASSETS_DIR / "worlds" / "crafter_tech_tree.toml"


@dataclass(frozen=True)
class TechTree:
    """A world's tech tree as the builtin agent plans with it: what each collecting
    achievement reaches, the library's skills and helpers, what searches for what, and the
    skills (and advice) that answer each way of dying."""

    targets: dict[str, str] = field(default_factory=dict)  # achievement -> block or creature
    skills: dict[str, str] = field(default_factory=dict)  # skill -> what it does
    helpers: tuple[str, ...] = ()  # skills beside one per achievement
    situational: frozenset[str] = frozenset()  # skills whose moment may not come in a run
    search_helpers: dict[str, str] = field(default_factory=dict)  # achievement -> helper
    deaths: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)


@dataclass(frozen=True)
class WorldDocs:
    """A world's documentation, in sections; :meth:`text` is what prompts show."""

    world: str  # its name as prompts say it
    rules: str
    actions: str
    achievements: str
    observation: str
    tech_tree: TechTree = field(default_factory=TechTree)

    def text(self) -> str:
        return "\n".join(
            [
                f"World: {self.world}.",
                "Actions:",
                self.actions,
                "Rules:",
                self.rules,
                "Achievements:",
                self.achievements,
                "Observation:",
                self.observation,
            ]
        )


def _fmt(uses: dict) -> str:
    return ", ".join(f"{n} {k}" for k, n in uses.items()) or "nothing"


@cache
def crafter_tech_tree() -> TechTree:
    """Crafter's tech tree (Craftax-Classic's too) from its asset file."""
    data = tomllib.loads(TECH_TREE_FILE.read_text())
    return TechTree(
        targets=dict(data["targets"]),
        skills=dict(data["skills"]),
        helpers=tuple(data["helpers"]["names"]),
        situational=frozenset(data["helpers"]["situational"]),
        search_helpers=dict(data["search_helpers"]),
        deaths={end: (tuple(d["skills"]), d["advice"]) for end, d in data["deaths"].items()},
    )


@cache
def crafter_documentation() -> WorldDocs:
    """Crafter's rules (Craftax-Classic shares them), with recipes read from Crafter's data."""
    import crafter
    import yaml

    data = yaml.safe_load((crafter.constants.root / "data.yaml").read_text())
    actions = [
        "Primitive actions: " + ", ".join(ACTION_NAMES) + ".",
        "A move action turns the player to face that way and moves one tile if the tile is",
        "walkable (" + ", ".join(data["walkable"]) + "); into a solid block it only turns.",
        "`do` acts on the faced tile: collect a material, hit a creature, drink water, eat.",
    ]
    rules = ["Collecting (do on the faced block):"]
    for block, rule in data["collect"].items():
        need = _fmt(rule["require"])
        chance = f" with probability {rule['probability']}" if "probability" in rule else ""
        rules.append(f"- {block}: needs {need}; gives {_fmt(rule['receive'])}{chance}.")
    rules.append("Placing (onto the faced tile):")
    for item, rule in data["place"].items():
        rules.append(f"- place_{item}: uses {_fmt(rule['uses'])}; onto {', '.join(rule['where'])}.")
    rules.append("Making (needs the listed stations within a few tiles):")
    for item, rule in data["make"].items():
        rules.append(f"- make_{item}: uses {_fmt(rule['uses'])}; near {', '.join(rule['nearby'])}.")
    rules += [
        "In Craftax-Classic, place_furnace needs only 1 stone and the iron tools also use 1 stone.",
        "Survival: health, food, drink and energy range 0-9. Food and drink fall over time; eat",
        "cows or ripe plants, drink water. Sleep when energy is low (wake_up achievement).",
        "Zombies appear on grass (more at night); skeletons live in dark tunnels; lava kills.",
    ]
    return WorldDocs(
        world="Crafter (2D, top-down, 64x64 tiles; Craftax-Classic follows the same rules)",
        rules="\n".join(rules),
        actions="\n".join(actions),
        achievements=f"{len(ACHIEVEMENTS)}, each unlocked once per episode: "
        + ", ".join(ACHIEVEMENTS)
        + ".",
        observation="The player sees 9 wide x 7 tall tiles around it. Coordinates are (x, y): "
        "x grows to the right, y grows downwards. A View holds that grid of block names, the "
        "creatures in sight, the inventory, health/food/drink/energy, facing and daylight.",
        tech_tree=crafter_tech_tree(),
    )
