"""The task catalog: goal predicates, horizons and descriptions, read from assets/tasks/*.toml."""

from __future__ import annotations

import json
import math
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rlgpt_tui import ASSETS_DIR, asset_files, read_asset
from rlgpt_tui.envs.base import ACHIEVEMENTS, INVENTORY_ITEMS
from rlgpt_tui.envs.knowledge import Step, WorldDocs

TASKS_DIR = ASSETS_DIR / "tasks"


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


class UnknownTaskError(ValueError):
    """A task name that is not in the catalog."""


class Goal(BaseModel):
    """When an episode of a task counts as a success."""

    model_config = ConfigDict(extra="forbid")

    achievement: str | None = None
    inventory: dict[str, int] | None = None
    score: Literal["crafter"] | None = None
    # the player is alive when the episode reaches its horizon (Crafter's survival)
    survive: Literal[True] | None = None

    @model_validator(mode="after")
    def _check(self) -> Goal:
        kinds = (self.achievement, self.inventory, self.score, self.survive)
        if sum(x is not None for x in kinds) != 1:
            raise ValueError("a goal has exactly one of: achievement, inventory, score, survive")
        if self.achievement is not None and self.achievement not in ACHIEVEMENTS:
            raise ValueError(f"unknown achievement {self.achievement!r}")
        for item in self.inventory or {}:
            if item not in INVENTORY_ITEMS:
                raise ValueError(f"unknown inventory item {item!r}")
        return self


class Task(BaseModel):
    """A task: what to achieve, within how many primitive steps."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str
    horizon: int = Field(gt=0, le=100_000)
    prerequisites: list[str] = []
    reward: Literal["goal", "game"] = "goal"
    goal: Goal

    def success(self, achievements: np.ndarray, inventory: np.ndarray) -> np.ndarray:
        """Per-env goal test over (n, 22) achievements and (n, 12) inventory arrays."""
        goal = self.goal
        if goal.achievement is not None:
            return achievements[:, ACHIEVEMENTS.index(goal.achievement)].astype(bool)
        if goal.inventory is not None:
            ok = np.ones(len(inventory), dtype=bool)
            for item, count in goal.inventory.items():
                ok &= inventory[:, INVENTORY_ITEMS.index(item)] >= count
            return ok
        # scored tasks have no success state; a survival is judged at the horizon
        # (:meth:`survived`)
        return np.zeros(len(achievements), dtype=bool)

    def survived(self, at_horizon: np.ndarray, game_over: np.ndarray) -> np.ndarray:
        """Per-env success of a survival goal: the episode reached its horizon with the
        player alive (all False for any other goal)."""
        if self.goal.survive is None:
            return np.zeros(len(at_horizon), dtype=bool)
        return np.asarray(at_horizon, dtype=bool) & ~np.asarray(game_over, dtype=bool)

    @property
    def goal_text(self) -> str:
        """The goal in a word or two (the task list's column)."""
        goal = self.goal
        if goal.survive:
            return f"alive at step {self.horizon}"
        return goal.achievement or goal.score or json.dumps(goal.inventory)

    @property
    def scored(self) -> bool:
        return self.goal.score is not None

    def steps(self, docs: WorldDocs) -> list[Step]:
        """The steps toward the goal from ``docs``' recipes, in order: a step per
        achievement for a score (:meth:`WorldDocs.score_steps`), the world's survival skill
        for a survival (:meth:`WorldDocs.survival_steps`), none where they do not say."""
        if self.scored:
            return docs.score_steps()
        if self.goal.survive:
            return docs.survival_steps()
        return docs.steps_to(self.goal.achievement)

    @property
    def measure(self) -> Measure:
        return Measure.CRAFTER_SCORE if self.scored else Measure.SUCCESS_RATE

    def measurement(
        self, success: np.ndarray, achieved: np.ndarray, ends: list[str] | None = None, seed=0
    ) -> Measurement:
        """The task's measure over episodes: ``success`` (n,) and ``achieved`` (n, 22)
        achievements unlocked in each episode. A rate gets a Wilson interval, a score a
        bootstrap over episodes."""
        success = np.asarray(success, dtype=bool)
        achieved = np.asarray(achieved, dtype=bool).reshape(len(success), len(ACHIEVEMENTS))
        n = len(success)
        rates = achieved.mean(axis=0) if n else np.zeros(len(ACHIEVEMENTS))
        if self.measure is Measure.SUCCESS_RATE:
            value = float(success.mean()) if n else 0.0
            ci = wilson_interval(int(success.sum()), n)
        else:
            value = crafter_score(rates)
            ci = bootstrap_score_interval(achieved, seed=seed)
        return Measurement(
            self.measure,
            value,
            ci,
            n,
            int(success.sum()),
            dict(zip(ACHIEVEMENTS, rates.tolist(), strict=True)),
            dict(Counter(ends or []).most_common()),
        )

    def prompt_text(self) -> str:
        """The task as it appears in prompts."""
        return f"Task {self.name}: {self.description} Horizon: {self.horizon} steps."


@cache
def load_catalog(directory: Path = TASKS_DIR) -> dict[str, Task]:
    """All tasks in ``directory``, by name; a missing or empty catalog is a
    :class:`rlgpt_tui.MissingAssetError` naming the fix."""
    tasks: dict[str, Task] = {}
    for path in asset_files(directory, "*.toml"):
        try:
            task = Task.model_validate(tomllib.loads(read_asset(path)))
        except (tomllib.TOMLDecodeError, ValidationError) as error:
            raise ValueError(f"bad task file {path}: {error}") from None
        tasks[task.name] = task
    return tasks


def get_task(name: str) -> Task:
    """A task by name, or :class:`UnknownTaskError` naming the valid ones."""
    catalog = load_catalog()
    if name not in catalog:
        raise UnknownTaskError(
            f"unknown task {name!r}: run `rlgpt-tui tasks` to list them "
            f"(e.g. {', '.join(list(catalog)[:4])})"
        )
    return catalog[name]


def crafter_score(success_rates: dict[str, float] | np.ndarray) -> float:
    """Crafter's score: geometric mean of (1 + success rate in %) over achievements, minus 1."""
    rates = list(success_rates.values()) if isinstance(success_rates, dict) else success_rates
    rates = np.asarray(rates, dtype=float) * 100.0
    return float(math.exp(np.mean(np.log1p(rates))) - 1.0)


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def bootstrap_score_interval(
    achieved: np.ndarray, resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of Crafter's score, resampling episodes with replacement.

    ``achieved``: (n, 22) achievements unlocked per episode."""
    n = len(achieved)
    if n == 0:
        return 0.0, 100.0
    rng = np.random.default_rng(seed)
    unlocked = achieved.astype(np.float64)
    scores = []
    for start in range(0, resamples, 100):  # weights in chunks: (100, n) at a time
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=min(100, resamples - start))
        rates = weights @ unlocked / n * 100.0
        scores.append(np.exp(np.log1p(rates).mean(axis=1)) - 1.0)
    low, high = np.percentile(np.concatenate(scores), [2.5, 97.5])
    return float(low), float(high)
