"""How a task is judged: the share of successful episodes, or Crafter's score."""

from __future__ import annotations

from enum import StrEnum


class Measure(StrEnum):
    """How a task is judged: the share of successful episodes, or Crafter's score."""

    SUCCESS_RATE = "success_rate"
    CRAFTER_SCORE = "crafter_score"

    @property
    def label(self) -> str:
        return "success rate" if self is Measure.SUCCESS_RATE else "Crafter score"

    @property
    def top(self) -> float:
        """The best value the measure can take (1 for a rate, 100 for a score in percent)."""
        return 1.0 if self is Measure.SUCCESS_RATE else 100.0

    @property
    def default_target(self) -> float:
        """Success rate 0.9; Crafter score 50.5, the human experts' on Crafter's scoreboard."""
        return 0.9 if self is Measure.SUCCESS_RATE else 50.5

    def show(self, value: float | None) -> str:
        """``value`` to this measure's precision ("-" for none)."""
        if value is None:
            return "-"
        return f"{value:.2f}" if self is Measure.SUCCESS_RATE else f"{value:.1f}"

    def check_target(self, target: float) -> None:
        """Raise ValueError (one line, naming the range) for a target outside the measure."""
        if not 0 < target <= self.top:
            raise ValueError(
                f"target {target} is not a {self.label}: use a number in (0, {self.top:g}]"
            )
