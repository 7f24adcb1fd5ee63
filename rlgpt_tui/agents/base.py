"""The agent roles the engine drives, whichever backs them (an LLM or the builtin rules)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.agents.schemas import Plan, RLAnswer, SubAction, Verdict
from rlgpt_tui.envs.base import View
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.tasks import Measure, Task
from rlgpt_tui.text import clipped


@dataclass
class Execution:
    """One sampled execution of a coded sub-action: what the player saw before and after."""

    before: View
    after: View
    steps: int
    end: CallEnd
    detail: str = ""  # the error message of a failure, and what the code logged (ctx.log)
    frames: tuple[Any, Any] | None = None  # RGB arrays before/after, for critics that see
    round: int = 1  # a plan of code alone runs its steps in rounds: the round of this call

    @property
    def end_reason(self) -> str:
        """``reason`` or ``reason: detail``, for prompts and panes."""
        return f"{self.end.value}: {self.detail}" if self.detail else self.end.value


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
            f"{m.format(self.value)} after {self.samples:,} training samples."
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
#: feedback: with 22 coded steps and reasons up to 2,000 characters each, a 1.5B model's
#: crafter_score re-plan (8,249 tokens) no longer fit its server's 8,192-token context
FEEDBACK_CLIP = 200


def evaluation_lines(evaluation: EvaluationSummary, measure: Measure) -> list[str]:
    """An evaluation summary as prompt lines: for scored tasks, achievements by success
    rate; for every task, how episodes ended, their mean length and how often each coded
    action was chosen."""
    lines = []
    rates = evaluation.achievement_rates or {}
    if measure is Measure.CRAFTER_SCORE and rates:
        ordered = sorted(rates.items(), key=lambda kv: -kv[1])
        lines.append(
            "- achievements (success rate per episode): "
            + ", ".join(f"{k} {v:.2f}" for k, v in ordered)
        )
    ends = evaluation.episode_ends or {}
    if ends:  # a plan whose failures die of thirst needs a step that drinks, not a rewrite
        total = sum(ends.values())
        lines.append(
            "- how episodes ended: "
            + ", ".join(f"{k} {n}/{total}" for k, n in sorted(ends.items(), key=lambda kv: -kv[1]))
        )
    if evaluation.mean_length is not None:
        lines.append(f"- mean episode length {evaluation.mean_length:.0f} steps")
    calls = {
        name: stats.get("calls", 0) for name, stats in (evaluation.coded_actions or {}).items()
    }
    if calls:
        lines.append(
            "- coded action calls in training: "
            + ", ".join(f"{k} {n}" for k, n in sorted(calls.items(), key=lambda kv: -kv[1]))
        )
    for name, notes in (evaluation.coded_notes or {}).items():
        said = "; ".join(f"{clipped(note, 120)} ({n} calls)" for note, n in notes.items())
        lines.append(f"- {name} logged: {said}")
    return lines


class SlowAgent(ABC):
    """Decomposes a task into sub-actions, code or RL, and revises from feedback."""

    @abstractmethod
    def plan(self, task: Task, history: list[IterationFeedback]) -> Plan: ...

    def fallback_plan(self, task: Task) -> Plan | None:
        """A plan not of this agent's making, for when it can make no first plan (its
        answers all failed); ``None``: there is none, and the session cannot go on."""
        return None


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


class Critic(ABC):
    """Judges sub-actions from observations before and after, and from run statistics."""

    @abstractmethod
    def judge_code(self, task: Task, sub: SubAction, runs: list[Execution]) -> Verdict: ...

    @abstractmethod
    def judge_rl(
        self, task: Task, sub: SubAction, evaluation: EvaluationSummary, target: float
    ) -> Verdict: ...


class TaskPlanner(ABC):
    """Orders sub-tasks for long-horizon tasks."""

    @abstractmethod
    def subtasks(self, task: Task) -> list[str]: ...


@dataclass
class AgentTeam:
    """The four roles, and a label saying who they are (``builtin`` or ``llm:MODEL``)."""

    label: str
    slow: SlowAgent
    fast: FastAgent
    critic: Critic
    planner: TaskPlanner

    @property
    def wants_frames(self) -> bool:
        """Does the critic look at images (a vision model)? Then executions carry frames."""
        client = getattr(self, "client", None)
        return bool(client is not None and client.settings.vision)

    @property
    def tokens(self) -> int:
        client = getattr(self, "client", None)
        return client.tokens if client is not None else 0
