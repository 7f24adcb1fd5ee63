"""Dense reward code ``def reward(prev, now) -> float``: validated and budgeted like actions."""

from __future__ import annotations

import math
from collections import Counter

from rlgpt_tui.envs.base import View
from rlgpt_tui.skills.runtime import recorded_views
from rlgpt_tui.skills.sandbox import (
    BudgetExceeded,
    CodeValidationError,
    budget,
    compile_untrusted,
    describe_error,
)

MAX_ABS_REWARD = 10.0
MAX_FAILURES = 1000


class RewardCode:
    """A shaping reward over consecutive Views. Failures give 0 and are counted, never raised."""

    def __init__(self, source: str, ticks: int = 5_000, seconds: float = 0.05):
        self.source = source
        self.ticks = ticks  # loop iterations and function calls per call
        self.seconds = seconds
        self.program = compile_untrusted(source, "reward", {}, "reward", arity=2)
        self._function = self.program.function("reward")
        self.failures: Counter = Counter()
        self.disabled = False
        views = recorded_views()
        for prev, now in zip(views, views[1:], strict=False):
            value = self._call(prev, now)
            if value is None:
                reason = next(iter(self.failures))
                raise CodeValidationError(f"reward code failed its dry run: {reason}; fix it")

    def _call(self, prev: View, now: View) -> float | None:
        try:
            with budget(self.ticks, self.seconds):
                value = self._function(prev, now)
            value = float(value)
            if not math.isfinite(value):
                raise ValueError(f"reward is {value}")
        except BudgetExceeded as error:
            self.failures[str(error)] += 1
            return None
        except Exception as error:  # noqa: BLE001 - untrusted code: contained
            self.failures[describe_error(error)[:120]] += 1
            return None
        return max(-MAX_ABS_REWARD, min(MAX_ABS_REWARD, value))

    def __call__(self, prev: View, now: View) -> float:
        """The shaped reward, clipped to +-10; 0 when the code fails (or was disabled)."""
        if self.disabled:
            return 0.0
        value = self._call(prev, now)
        if sum(self.failures.values()) >= MAX_FAILURES:
            self.disabled = True
        return 0.0 if value is None else value
