"""Checks code answered by an LLM must pass before it is validated and run: helpers and
actions that exist, stats read as stats, a place step that does not look for what it
places, a recipe's step done with what its recipe involves."""

from __future__ import annotations

import ast
import difflib
from typing import Any

from rlgpt_tui.agents.grounding import Check
from rlgpt_tui.envs.base import ACTION_NAMES, INVENTORY_ITEMS, STATS
from rlgpt_tui.envs.knowledge import Step
from rlgpt_tui.library.compose import calls_in, method_calls
from rlgpt_tui.skills.api import MAKEABLE, SkillContext
from rlgpt_tui.skills.checker import attribute_hint

#: the ``ctx`` helpers that find where a thing is on the map
_LOOKUPS = frozenset({"nearest", "recall"})


def helper_check(answer: Any) -> None:
    """Refuses code that uses a ``ctx`` helper or an ``Action`` that does not exist, naming
    what to use instead (as the worker does when such a line runs): a line the dry run
    does not reach (``ctx.do()`` after a walk to a cow) would otherwise fail only in the
    runs, after the walk."""
    try:
        tree = ast.parse(answer.code)
    except (SyntaxError, ValueError):
        return  # validation names it
    known = {name for name in dir(SkillContext) if not name.startswith("_")}
    known |= {"memory", "random", "skill"}  # set per call; skill is linked before it runs
    actions = [name.upper() for name in ACTION_NAMES]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if node.value.id == "ctx" and node.attr not in known:
            hint = attribute_hint(node.attr, SkillContext)
            raise ValueError(f"code: ctx.{node.attr} is no helper{hint}")
        if node.value.id == "Action" and node.attr not in actions:  # e.g. Action.DRINK
            close = difflib.get_close_matches(node.attr, actions, n=2, cutoff=0.6)
            raise ValueError(
                f"code: Action.{node.attr} is no primitive action (drinking, eating and "
                "hitting are Action.DO, facing water, a cow or a mob)"
                + (f"; did you mean {' or '.join(close)}?" if close else "")
            )


def stat_check(answer: Any) -> None:
    """Refuses code that reads a stat (health, food, drink, energy) from the inventory,
    where it never is: ``ctx.inventory.get('energy', 0)`` is always 0, so a loop on it
    (``while ctx.inventory.get('energy', 0) < 9: sleep``) never ends."""
    try:
        tree = ast.parse(answer.code)
    except (SyntaxError, ValueError):
        return  # validation names it
    inventory: ast.expr
    key: ast.expr | None
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):  # ctx.inventory['food']
            inventory, key = node.value, node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "has":  # ctx.has('energy')
                inventory, key = node.func, node.args[0] if node.args else None
            elif node.func.attr == "get":  # ctx.inventory.get('energy', 0)
                inventory, key = node.func.value, node.args[0] if node.args else None
            else:
                continue
        else:
            continue
        named = isinstance(inventory, ast.Attribute) and inventory.attr in ("inventory", "has")
        if named and isinstance(key, ast.Constant) and key.value in STATS:
            raise ValueError(
                f"code: {key.value} is a stat, not an inventory item: read "
                f"ctx.view.{key.value} (0-9)"
            )


def placed_item_check(name: str) -> Check | None:
    """For a step ``place_X`` where X is no inventory item (a table, a furnace, a plant): a
    check refusing code that looks for an X to go to (``ctx.nearest``, ``ctx.recall``).
    None exists until the step places it, and a repair would not see why the code found
    none. ``ctx.is_near`` (already placed?) stays allowed."""
    item = name.removeprefix("place_")
    if item == name or item in INVENTORY_ITEMS:  # stone is mined first: looking is right
        return None

    def check(answer: Any) -> None:
        try:
            lookups = method_calls(answer.code, _LOOKUPS)
        except (SyntaxError, ValueError):
            return  # validation names it
        for call in lookups:
            if item in _literal_args(call):
                raise ValueError(
                    f"code: {name} looks for a {item} (ctx.{method_name(call)}({item!r})), but "
                    f"there is none until this step places it: do not look for one; face a "
                    f"free tile and `yield from ctx.place({item!r})`"
                )

    return check


def method_name(call: ast.Call) -> str:
    """The method a call ``ctx.name(...)`` calls ("" for a plain function call)."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else ""


def _literal_args(call: ast.Call) -> list[str]:
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def _condition_calls(tree: ast.AST, method: str) -> list[ast.Call]:
    """The ``<expr>.<method>(...)`` calls in the conditions of ``tree``'s ifs and loops (a
    call in a return value decides nothing)."""
    tests = [n.test for n in ast.walk(tree) if isinstance(n, ast.If | ast.While | ast.IfExp)]
    return [call for test in tests for call in calls_in(test, {method})]


def recipe_check(step: Step) -> Check:
    """For code of a step the world's recipes describe: a check refusing code that never
    does the step (a place or make step without ``ctx.place``/``ctx.make`` of its item or
    its primitive action) or whose condition checks the inventory for an item the recipe
    does not involve (a material: a held tool may be checked; a return value decides
    nothing: a copied collect_wood's ``return ctx.has("wood")`` in collect_stone stays):
    a place_table waiting for the task's stone, where the recipe uses wood, or a make step
    that hits the table with ``do``, never does the step."""
    involved = {step.product, *step.uses}
    primitive = f"{step.kind.upper()}_{step.product.upper()}"

    def check(answer: Any) -> None:
        try:
            tree = ast.parse(answer.code)
        except (SyntaxError, ValueError):
            return  # validation names it
        calls = calls_in(tree, {step.kind})
        for call in _condition_calls(tree, "has"):
            for item in _literal_args(call)[:1]:
                if item not in involved and item not in MAKEABLE:  # a tool may be checked
                    raise ValueError(
                        f"code: {step.name} checks for {item} (ctx.has({item!r})), which its "
                        f"recipe does not involve: {step.text()}"
                    )
        if step.kind == "collect":
            return
        does = any(
            method_name(call) == step.kind and step.product in _literal_args(call) for call in calls
        ) or any(isinstance(n, ast.Attribute) and n.attr == primitive for n in ast.walk(tree))
        if not does:
            raise ValueError(
                f"code: {step.name} never does the step: {step.text()}; the helper: "
                f"`{step.helper()}`"
            )

    return check
