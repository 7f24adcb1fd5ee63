"""The task catalog: goal predicates, horizons and descriptions, read from assets/tasks/*.toml."""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rlgpt_tui import ASSETS_DIR, asset_files, read_asset
from rlgpt_tui.envs.base import ACHIEVEMENTS, INVENTORY_ITEMS
from rlgpt_tui.envs.knowledge import Step, WorldDocs
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tasks.results import Measurement
from rlgpt_tui.tasks.statistics import bootstrap_score_interval, crafter_score, wilson_interval

TASKS_DIR = ASSETS_DIR / "tasks"


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
