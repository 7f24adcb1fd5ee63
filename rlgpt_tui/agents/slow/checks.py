"""Checks a plan answered by an LLM must pass: the goal's steps in their order, and the step
a survival goal is."""

from __future__ import annotations

from typing import Any

from rlgpt_tui.agents.grounding import Check


def step_order_check(steps: list[str], complete: bool = True) -> Check:
    """A check refusing a plan of code alone, of several sub-actions, that lists the goal's
    ``steps`` out of their order, leaves out one before a step it lists, or ends on a step
    before the goal's last: it runs its steps in turn, so a step whose materials no earlier
    step makes never succeeds (make_wood_pickaxe before place_table), and a plan that stops
    short never reaches the goal. One coded sub-action may do the whole goal, under a name
    of its own: one named for a goal step after the first (`collect_stone` alone, whose
    code would mine stone without a pickaxe) is refused naming the steps before it.
    With ``complete`` False (a scored task: every step is an achievement of its own) only
    the order is checked."""
    rank = {name: i for i, name in enumerate(steps)}

    def check(plan: Any) -> None:
        subs = plan.subactions
        if any(sub.mode != "code" for sub in subs):
            return  # with RL, coded steps are options the policy picks in any order
        if complete and len(subs) == 1 and rank.get(subs[0].name, 0) > 0:
            name = subs[0].name
            raise ValueError(
                f"subactions: {name} (step {rank[name] + 1} of the goal) is planned alone, "
                f"but it needs what the steps before it make: plan "
                f"{', '.join(steps[: rank[name] + 1])}, in order, each coded"
            )
        if len(subs) < 2:
            return
        named = [sub.name for sub in subs if sub.name in rank]
        in_order = (
            "a plan of code alone runs its steps in turn: list the goal's steps in order "
            f"({', '.join(steps)})"
        )
        for before, after in zip(named, named[1:], strict=False):
            if rank[before] > rank[after]:
                raise ValueError(
                    f"subactions: {after} (step {rank[after] + 1} of the goal) is planned "
                    f"after {before} (step {rank[before] + 1}); {in_order}"
                )
        last = max((rank[n] for n in named), default=-1)
        if complete and subs[-1].name in rank and last < len(steps) - 1:  # ends early
            raise ValueError(
                f"subactions: the plan ends at {subs[-1].name} (step {last + 1} of "
                f"{len(steps)}), before the goal: add {', '.join(steps[last + 1 :])}; "
                f"{in_order}"
            )
        missing = [step for step in steps[:last] if step not in named]
        if missing:
            raise ValueError(
                f"subactions: {', '.join(missing)} missing before {steps[last]} (step "
                f"{last + 1} of the goal), which needs what they make; {in_order}"
            )

    return check


def step_named_check(step: str, what: str) -> Check:
    """A check refusing a plan without a sub-action named ``step``, the goal's one step that
    no other names for (a survival goal: staying alive; ``what`` it does). Told only the
    task, small models plan tech-tree steps for a survival goal, not the staying alive."""

    def check(plan: Any) -> None:
        if all(sub.name != step for sub in plan.subactions):
            raise ValueError(
                f"subactions: none is the goal's step `{step}` ({what}): plan a sub-action "
                f"named {step} that does it"
            )

    return check
