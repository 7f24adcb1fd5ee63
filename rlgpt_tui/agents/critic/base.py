"""The critic's interface."""

from __future__ import annotations

from abc import ABC, abstractmethod

from rlgpt_tui.agents.runs import Execution
from rlgpt_tui.agents.schemas import SubAction, Verdict
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.catalog import Task


class Critic(ABC):
    """Judges sub-actions from observations before and after, and from run statistics."""

    @abstractmethod
    def judge_code(self, task: Task, sub: SubAction, runs: list[Execution]) -> Verdict: ...

    @abstractmethod
    def judge_rl(
        self, task: Task, sub: SubAction, evaluation: EvaluationSummary, target: float
    ) -> Verdict: ...
