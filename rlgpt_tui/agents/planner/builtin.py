"""The builtin task planner (no LLM): the task's catalog prerequisites, then the task."""

from __future__ import annotations

from rlgpt_tui.agents.planner.base import TaskPlanner
from rlgpt_tui.tasks.catalog import Task, load_catalog


class BuiltinPlanner(TaskPlanner):
    def subtasks(self, task: Task) -> list[str]:
        catalog = load_catalog()
        return [p for p in task.prerequisites if p in catalog] + [task.name]
