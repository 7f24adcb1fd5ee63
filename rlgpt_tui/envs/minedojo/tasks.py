"""The paper's MineDojo tasks (assets/tasks/minedojo/*.toml): MineDojo task id + goal."""

from __future__ import annotations

import tomllib
from functools import cache

from pydantic import BaseModel, ConfigDict

from rlgpt_tui import ASSETS_DIR


class MineDojoTask(BaseModel):
    """``task_id`` is MineDojo's; ``goal`` an inventory predicate in Minecraft item names."""

    model_config = ConfigDict(extra="forbid")

    name: str
    task_id: str
    description: str
    horizon: int
    goal: dict[str, int]
    paper: str = ""  # where the task appears in the paper


@cache
def load_minedojo_tasks() -> dict[str, MineDojoTask]:
    tasks = {}
    for path in sorted((ASSETS_DIR / "tasks" / "minedojo").glob("*.toml")):
        task = MineDojoTask.model_validate(tomllib.loads(path.read_text()))
        tasks[task.name] = task
    return tasks
