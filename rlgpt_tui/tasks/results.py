"""A task's results: a measurement over episodes (value, 95% interval, per-achievement rates,
how episodes ended) and any recorded evaluation summary as one line of text."""

from __future__ import annotations

from dataclasses import dataclass, field

from rlgpt_tui.tasks.measure import Measure


@dataclass
class Measurement:
    """A task's measure over a set of episodes, with a 95% interval, per-achievement
    success rates and how the episodes ended (success, horizon, starved, killed ...)."""

    measure: Measure
    value: float
    ci95: tuple[float, float]
    episodes: int
    successes: int
    achievement_rates: dict[str, float]
    ends: dict[str, int] = field(default_factory=dict)

    @property
    def success_rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0

    @property
    def score(self) -> float | None:
        return self.value if self.measure is Measure.CRAFTER_SCORE else None

    def text(self) -> str:
        """e.g. ``Crafter score 12.4 (95% CI 10.2-14.9, 64 episodes)``."""
        return result_text(self.as_dict(), ends=False)

    def as_dict(self) -> dict:
        return {
            "measure": self.measure.value,
            "value": round(self.value, 4),
            "ci95": [round(self.ci95[0], 4), round(self.ci95[1], 4)],
            "episodes": self.episodes,
            "success_rate": round(self.success_rate, 4),
            "score": None if self.score is None else round(self.score, 3),
            "achievement_rates": {k: round(v, 4) for k, v in self.achievement_rates.items()},
            "episode_ends": dict(self.ends),
        }


def result_text(result: dict, episodes: bool = True, ends: bool = True) -> str:
    """An evaluation summary (:meth:`Measurement.as_dict`, or an older one with only a
    success rate) as one line in its measure: the value, its 95% interval and (unless
    turned off) the episode count and, for a score, the commonest episode ends. An
    evaluation stopped early shows the range its full result could still take (a score:
    its interval), and the episodes it used of those planned, and what they decided."""
    measure = Measure(result.get("measure", Measure.SUCCESS_RATE))
    value = result.get("value", result.get("success_rate"))
    low, high = result.get("ci95") or [value, value]
    count = f", {result.get('episodes')} episodes" if episodes else ""
    if result.get("decision") and measure is Measure.CRAFTER_SCORE:  # whole episodes
        planned = f", {result.get('episodes')} of {result.get('planned')} episodes"
        decided = f"{planned}: {result['decision']}" if episodes else ""
        interval = f"95% CI {measure.show(low)}-{measure.show(high)}"
        return f"{measure.label} {measure.show(value)} ({interval}{decided})"
    if result.get("decision"):  # stopped once its episodes decided: the full result's range
        text = f"{measure.label} between {measure.show(low)} and {measure.show(high)}"
        planned = f"{result.get('episodes')} of {result.get('planned')} episodes"
        return text + (f" ({planned}: {result['decision']})" if episodes else "")
    text = (
        f"{measure.label} {measure.show(value)} "
        f"(95% CI {measure.show(low)}-{measure.show(high)}{count})"
    )
    how = result.get("episode_ends") or {}
    if ends and measure is Measure.CRAFTER_SCORE and how:
        text += "; ended: " + ", ".join(f"{k} {n}" for k, n in list(how.items())[:4])
    return text
