"""The paper's MineDojo tasks (assets/tasks/minedojo/*.toml): MineDojo task id + goal."""

from __future__ import annotations

import tomllib
from functools import cache

from pydantic import BaseModel, ConfigDict

from rlgpt_tui import ASSETS_DIR, asset_files, read_asset


class MineDojoTask(BaseModel):
    """``task_id`` is MineDojo's; ``goal`` an inventory predicate in Minecraft item names."""

    model_config = ConfigDict(extra="forbid")

    name: str
    task_id: str
    description: str
    horizon: int
    goal: dict[str, int]
    paper: str = ""  # where the task appears in the paper
    crafter_task: str | None = None  # the catalog task it stands for, when there is one


@cache
def load_minedojo_tasks() -> dict[str, MineDojoTask]:
    tasks = {}
    for path in asset_files(ASSETS_DIR / "tasks" / "minedojo", "*.toml"):
        task = MineDojoTask.model_validate(tomllib.loads(read_asset(path)))
        tasks[task.name] = task
    return tasks


def minedojo_task_id(catalog_task: str) -> str:
    """The MineDojo task id that a Crafter-catalog task runs as on the minedojo world."""
    for task in load_minedojo_tasks().values():
        if task.crafter_task == catalog_task:
            return task.task_id
    known = sorted(t.crafter_task for t in load_minedojo_tasks().values() if t.crafter_task)
    raise ValueError(f"task {catalog_task!r} has no MineDojo counterpart: use one of {known}")
