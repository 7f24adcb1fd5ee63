"""The survival guard: when a composed plan calls the library's ``survive`` skill, and when a
survive policy is done.

Run before every step of a plan, a 1.5B model's own ``survive`` cost its crafter_score plan a
third of its score (10.2 with it, 15.1 without, docs/findings.md); most of the plan's episodes
still ended killed by a zombie or starved. So a plan calls survive only when there is
something to survive: a vital at or below its level, or a hostile next to the player. A
survive policy acts until the guard no longer holds (:meth:`SurvivalGuard.holds` is its
``done`` test), so that it returns to the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlgpt_tui.envs.base import View

#: the name of the composed plan's guard function (``if survival_due(ctx): ...``)
GUARD_FUNCTION = "survival_due"


@dataclass(frozen=True)
class SurvivalGuard:
    """Survival is due when health, food, drink or energy (0-9, as the game counts them) is
    at or below its level, or one of ``hostiles`` is adjacent (within 1 tile, diagonals too:
    ``ctx.is_near``). The builtin library's ``survive`` drinks at 5, eats at 4 and rests at
    energy 3; the levels here are those where waiting longer risks the episode."""

    health: int = 4
    food: int = 3
    drink: int = 3
    energy: int = 2
    hostiles: tuple[str, ...] = ("zombie", "skeleton")
    steps: int = 64  # the most steps a survive policy acts in one call

    def levels(self) -> dict[str, int]:
        return {
            "health": self.health,
            "food": self.food,
            "drink": self.drink,
            "energy": self.energy,
        }

    def holds(self, view: View) -> bool:
        """Whether survival is due in ``view`` (what :meth:`source`'s function returns)."""
        if any(getattr(view, stat) <= level for stat, level in self.levels().items()):
            return True
        x, y = view.position
        return any(
            name in self.hostiles and max(abs(mx - x), abs(my - y)) <= 1
            for name, mx, my in view.mobs
        )

    def condition(self) -> str:
        """:meth:`holds` as code of a coded action (``ctx`` in scope)."""
        vitals = [f"ctx.view.{stat} <= {level}" for stat, level in self.levels().items()]
        near = [f"ctx.is_near({name!r})" for name in self.hostiles]
        return " or ".join(vitals + near)

    def source(self) -> str:
        """The guard as a function a composed plan calls before each step."""
        vitals = "\n        or ".join(
            f"ctx.view.{stat} <= {level}" for stat, level in self.levels().items()
        )
        near = "".join(f"\n        or ctx.is_near({name!r})" for name in self.hostiles)
        return (
            f"def {GUARD_FUNCTION}(ctx):\n"
            '    """Survival is due: a vital at or below its level, or a hostile adjacent\n'
            '    (rlgpt_tui.skills.guard.SurvivalGuard)."""\n'
            f"    return (\n        {vitals}{near}\n    )\n"
        )


#: the guard composed plans use and survive policies stop at
SURVIVAL_GUARD = SurvivalGuard()
