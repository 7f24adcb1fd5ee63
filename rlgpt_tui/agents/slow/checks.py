"""The check a plan answered by an LLM must pass: one, from the world's recipes (its tech tree
of what each step needs and makes), for every task.

A plan of code alone runs its steps in turn. It is refused, with a reason the model can act
on, when a step needs what no earlier step makes and the player does not start with
(make_wood_pickaxe before place_table; `collect_stone` alone, whose code would mine stone
without a pickaxe), or when no step reaches the goal (a collect_stone plan that ends at
make_wood_pickaxe; tech-tree steps for a survival goal). With an RL sub-action the coded
steps are options the policy picks in any order, and the RL sub-action learns the goal: only
a survival goal's step is asked of it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rlgpt_tui.agents.grounding import Check
from rlgpt_tui.envs.base import ACHIEVEMENTS
from rlgpt_tui.envs.knowledge import Recipes


def step_needs(recipes: Recipes, name: str) -> tuple[list[str], list[str]] | None:
    """What step ``name`` needs (tools, materials and stations, in the recipes' order) and
    what it makes (items, or the station it places); None for a name the recipes do not
    know (a routine of the plan's own, eat_cow, wake_up: nothing is asked of it)."""
    kind, _, item = name.partition("_")
    if kind == "collect":
        block = recipes.source_of(item)
        if block is None:
            return None
        needs, gives = recipes.collect[block]
        return list(needs), list(gives)
    if kind == "place" and item in recipes.place:
        uses, _ = recipes.place[item]
        return list(uses), [item]
    if kind == "make" and item in recipes.make:
        uses, near = recipes.make[item]
        return [*uses, *near], [item]
    return None


def maker_of(recipes: Recipes, thing: str) -> str:
    """The step that makes ``thing`` (an item, or a station placed)."""
    if thing in recipes.make:
        return f"make_{thing}"
    if recipes.source_of(thing) is not None:
        return f"collect_{thing}"
    return f"place_{thing}"


def tech_tree_check(
    recipes: Recipes | None,
    goal: str | None,
    survival_step: str = "",
    start: Collection[str] = (),
    complete: bool = True,
    self_contained: Collection[str] = (),
) -> Check:
    """A check refusing a plan whose coded steps, run in turn, need what no earlier step
    makes (nor ``start``, what the player starts with), or in which no step reaches ``goal``
    (an achievement: a step named for it, or a last step of the plan's own naming, which may
    do the whole goal; a survival goal: its step ``survival_step``). With ``complete`` False
    (a scored task: every step is an achievement of its own) no goal is asked for.
    ``self_contained``: steps whose code obtains what it needs itself (the builtin
    templates': collect_stone makes its own pickaxe)."""

    def check(plan: Any) -> None:
        subs = plan.subactions
        names = [sub.name for sub in subs]
        if survival_step:
            if survival_step not in names:
                raise ValueError(
                    f"subactions: none is the goal's step `{survival_step}` (it keeps the "
                    f"player alive, which is the goal): plan a sub-action named "
                    f"{survival_step} that does it"
                )
            return
        if recipes is None or any(sub.mode != "code" for sub in subs):
            return  # with RL, coded steps are options the policy picks in any order
        problems = _short(recipes, names, goal, complete)
        problems += _unmet(recipes, names, set(start), self_contained)
        if problems:
            raise ValueError("subactions: " + "; ".join(problems))

    return check


def _unmet(
    recipes: Recipes, names: list[str], have: set[str], self_contained: Collection[str]
) -> list[str]:
    """The first step of ``names`` (run in turn) that needs what no earlier step makes nor
    the player has (``have``), said with the steps that make it; none when every step can."""
    for n, name in enumerate(names):
        known = step_needs(recipes, name)
        if known is None:
            continue
        needs, makes = known
        if name in self_contained:  # it makes what it needs on its way
            for step in recipes.steps_to(name):
                have.update((step_needs(recipes, step.name) or ([], []))[1])
            needs = []
        missing = [thing for thing in needs if thing not in have]
        if missing:
            makers = [maker_of(recipes, thing) for thing in missing]
            chain = [s.name for s in recipes.steps_for(makers) if s.name not in names[:n]]
            earlier = f" ({', '.join(names[:n])})" if n else ""
            return [
                f"{name} (step {n + 1}) needs {', '.join(missing)}, which no earlier "
                f"step{earlier} makes and the player does not start with: plan "
                f"{', '.join(chain or makers)} before it"
            ]
        have.update(makes)
    return []


def _short(recipes: Recipes, names: list[str], goal: str | None, complete: bool) -> list[str]:
    """Why no step of ``names`` reaches ``goal`` (none when one does: a step named for it, or
    a last step of the plan's own naming, which may do the whole goal)."""
    if not complete or not goal or goal in names or not names:
        return []
    if step_needs(recipes, names[-1]) is None and names[-1] not in ACHIEVEMENTS:
        return []
    chain = [s.name for s in recipes.steps_to(goal) if s.name not in names] or [goal]
    return [
        f"no step reaches the goal {goal} (the plan ends at {names[-1]}): add {', '.join(chain)}"
    ]
