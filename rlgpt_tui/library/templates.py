"""The builtin library's skill templates (data under ``assets/skills/templates``): the tech
tree's routines, ``go_to_<target>`` and ``collect_<target>``."""

from __future__ import annotations

from rlgpt_tui import ASSETS_DIR, read_asset

TEMPLATES = ASSETS_DIR / "skills" / "templates"


def template_code(name: str) -> str | None:
    """Code for a catalog task (tech-tree skills), a ``code_<task>`` name (the task's own
    skill) or a ``go_to_X``/``collect_X`` name."""
    name = name.removeprefix("code_")
    techtree = read_asset(TEMPLATES / "techtree.py")
    if f"\ndef {name}(ctx):" in techtree:
        return f"{techtree}\n\ndef act(ctx):\n    return (yield from {name}(ctx))\n"
    for prefix, template in (("go_to_", "go_to.py"), ("collect_", "collect.py")):
        if name.startswith(prefix):
            target = name[len(prefix) :]
            return read_asset(TEMPLATES / template).replace("{target}", target)
    return None
