"""The slow agent's interface, and the feedback of each iteration it revises its plan from."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.agents.prompts import evaluation_lines
from rlgpt_tui.agents.schemas import Plan, Verdict
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.catalog import Task
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.text import clipped


@dataclass
class IterationFeedback:
    """What the outer loop learned in one iteration, for the slow agent's revision.

    ``value`` is the task's measure (its success rate, or Crafter's score);
    ``evaluation`` is that iteration's final evaluation summary (per-achievement rates,
    how episodes ended, coded actions' use), empty when nothing was evaluated."""

    iteration: int
    plan: Plan
    verdicts: dict[str, Verdict]
    value: float
    samples: int
    extra: dict[str, Any] = field(default_factory=dict)
    measure: Measure = Measure.SUCCESS_RATE
    evaluation: EvaluationSummary = field(default_factory=EvaluationSummary)

    def text(self) -> str:
        m = self.measure
        lines = [
            f"Iteration {self.iteration}: plan {self.plan.summary()}; task {m.label} "
            f"{m.show(self.value)} after {self.samples:,} training samples."
        ]
        lines += evaluation_lines(self.evaluation, m)
        for name, verdict in self.verdicts.items():
            state = "succeeded" if verdict.success else "failed"
            reason = clipped(verdict.reason, FEEDBACK_CLIP)
            suggestion = clipped(verdict.suggestion, FEEDBACK_CLIP)
            lines.append(f"- {name} {state}: {reason}. Suggestion: {suggestion}")
        for note in self.extra.get("notes", []):
            lines.append(f"- note: {clipped(note, FEEDBACK_CLIP)}")
        return "\n".join(lines)


#: the most characters of one verdict's reason, suggestion or note in the slow agent's
#: feedback: a plan of twenty-odd coded steps with reasons of up to 2,000 characters each
#: would not fit a small local server's 8,192-token context
FEEDBACK_CLIP = 200


class SlowAgent(ABC):
    """Decomposes a task into sub-actions, code or RL, and revises from feedback."""

    @abstractmethod
    def plan(self, task: Task, history: list[IterationFeedback]) -> Plan: ...

    def fallback_plan(self, task: Task) -> Plan | None:
        """A plan not of this agent's making, for when it can make no first plan (its
        answers all failed); ``None``: there is none, and the session cannot go on."""
        return None
