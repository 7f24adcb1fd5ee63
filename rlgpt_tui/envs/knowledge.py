"""Environment knowledge injected into prompts, built from Crafter's own rule file."""

from __future__ import annotations

from functools import cache


def _fmt(uses: dict) -> str:
    return ", ".join(f"{n} {k}" for k, n in uses.items()) or "nothing"


@cache
def crafter_knowledge() -> str:
    """Rules of Crafter (Craftax-Classic shares them), with recipes read from Crafter's data."""
    import crafter
    import yaml

    from rlgpt_tui.envs.base import ACHIEVEMENTS, ACTION_NAMES

    data = yaml.safe_load((crafter.constants.root / "data.yaml").read_text())
    lines = [
        "World: Crafter (2D, top-down, 64x64 tiles). The player sees 9 wide x 7 tall tiles.",
        "Coordinates are (x, y): x grows to the right, y grows downwards.",
        "Primitive actions: " + ", ".join(ACTION_NAMES) + ".",
        "A move action turns the player to face that way and moves one tile if the tile is",
        "walkable (" + ", ".join(data["walkable"]) + "); into a solid block it only turns.",
        "`do` acts on the faced tile: collect a material, hit a creature, drink water, eat.",
        "Collecting (do on the faced block):",
    ]
    for block, rule in data["collect"].items():
        need = _fmt(rule["require"])
        chance = f" with probability {rule['probability']}" if "probability" in rule else ""
        lines.append(f"- {block}: needs {need}; gives {_fmt(rule['receive'])}{chance}.")
    lines.append("Placing (onto the faced tile):")
    for item, rule in data["place"].items():
        lines.append(f"- place_{item}: uses {_fmt(rule['uses'])}; onto {', '.join(rule['where'])}.")
    lines.append("Making (needs the listed stations within a few tiles):")
    for item, rule in data["make"].items():
        lines.append(f"- make_{item}: uses {_fmt(rule['uses'])}; near {', '.join(rule['nearby'])}.")
    lines += [
        "In Craftax-Classic, place_furnace needs only 1 stone and the iron tools also use 1 stone.",
        "Survival: health, food, drink and energy range 0-9. Food and drink fall over time; eat",
        "cows or ripe plants, drink water. Sleep when energy is low (wake_up achievement).",
        "Zombies appear on grass (more at night); skeletons live in dark tunnels; lava kills.",
        "Achievements (22): " + ", ".join(ACHIEVEMENTS) + ".",
    ]
    return "\n".join(lines)
