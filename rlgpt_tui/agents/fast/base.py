"""The fast agent's interface."""

from __future__ import annotations

from abc import ABC, abstractmethod

from rlgpt_tui.agents.schemas import RLAnswer, SubAction
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.tasks.catalog import Task


class FastAgent(ABC):
    """Writes code for coded sub-actions and RL configurations for learned ones, and holds
    the skills it is handed at construction: the session's ``--library`` offer (none for
    the builtin agent, whose templates are its own)."""

    def __init__(self, shelf: SkillShelf | None = None) -> None:
        self.shelf = shelf if shelf is not None else SkillShelf()

    @abstractmethod
    def write_code(
        self, task: Task, sub: SubAction, previous: str | None = None, problem: str | None = None
    ) -> str: ...

    @abstractmethod
    def write_rl(
        self, task: Task, sub: SubAction, coded: list[str], env: str = "craftax"
    ) -> RLAnswer:
        """The RL configuration; ``high_level_actions`` None keeps the plan's."""
