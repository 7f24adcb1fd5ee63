"""The task catalog: goal predicates, horizons and descriptions, read from assets/tasks/*.toml."""

from __future__ import annotations

import math
import tomllib
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.envs.base import ACHIEVEMENTS, INVENTORY_ITEMS

TASKS_DIR = ASSETS_DIR / "tasks"


class UnknownTaskError(ValueError):
    """A task name that is not in the catalog."""


class Goal(BaseModel):
    """When an episode of a task counts as a success."""

    model_config = ConfigDict(extra="forbid")

    achievement: str | None = None
    inventory: dict[str, int] | None = None
    score: Literal["crafter"] | None = None

    @model_validator(mode="after")
    def _check(self) -> Goal:
        if sum(x is not None for x in (self.achievement, self.inventory, self.score)) != 1:
            raise ValueError("a goal has exactly one of: achievement, inventory, score")
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
        return np.zeros(len(achievements), dtype=bool)  # scored tasks have no success state

    @property
    def scored(self) -> bool:
        return self.goal.score is not None

    def prompt_text(self) -> str:
        """The task as it appears in prompts."""
        return f"Task {self.name}: {self.description} Horizon: {self.horizon} steps."


@cache
def load_catalog(directory: Path = TASKS_DIR) -> dict[str, Task]:
    """All tasks in ``directory``, by name."""
    tasks: dict[str, Task] = {}
    for path in sorted(directory.glob("*.toml")):
        try:
            task = Task.model_validate(tomllib.loads(path.read_text()))
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
