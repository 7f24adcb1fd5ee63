"""The task planner's interface."""

from __future__ import annotations

from abc import ABC, abstractmethod

from rlgpt_tui.tasks.catalog import Task


class TaskPlanner(ABC):
    """Orders sub-tasks for long-horizon tasks."""

    @abstractmethod
    def subtasks(self, task: Task) -> list[str]: ...
