"""What the agents exchange: plans, code, RL configurations, verdicts (pydantic-validated)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


def _identifier(value: str) -> str:
    value = value.strip()
    if not value.isidentifier():
        raise ValueError(f"{value!r} is not a snake_case identifier")
    return value


class SubAction(BaseModel):
    """One step of a decomposition: coded (code-as-policy) or learned with RL."""

    model_config = ConfigDict(extra="ignore")

    name: str
    description: str
    mode: Literal["code", "rl"]
    reason: str = ""
    # for rl sub-actions: names of coded sub-actions RL gets as extra high-level actions
    high_level_actions: list[str] = []

    _check_name = field_validator("name")(_identifier)


class Plan(BaseModel):
    """The slow agent's decomposition of a task."""

    model_config = ConfigDict(extra="ignore")

    subactions: list[SubAction] = Field(min_length=1, max_length=8)
    notes: str = ""

    @field_validator("subactions")
    @classmethod
    def _one_learned(cls, subactions: list[SubAction]) -> list[SubAction]:
        learned = [s.name for s in subactions if s.mode == "rl"]
        if len(learned) > 1:
            raise ValueError(
                f"at most one rl sub-action (it learns the task's goal), got {learned}: make "
                "the others code, offered to it as high_level_actions"
            )
        names = [s.name for s in subactions]
        if len(set(names)) != len(names):
            raise ValueError(f"sub-action names must be distinct, got {names}")
        return subactions

    def coded(self) -> list[SubAction]:
        return [s for s in self.subactions if s.mode == "code"]

    def learned(self) -> list[SubAction]:
        return [s for s in self.subactions if s.mode == "rl"]

    def summary(self) -> str:
        return "; ".join(f"{s.name} [{s.mode}]" for s in self.subactions)


class CodeAnswer(BaseModel):
    """The fast agent's code for a coded sub-action: ``def act(ctx): ...``."""

    model_config = ConfigDict(extra="ignore")

    code: str = Field(min_length=10)
    explanation: str = ""


class RLAnswer(BaseModel):
    """The fast agent's RL configuration for a learned sub-action."""

    model_config = ConfigDict(extra="ignore")

    observation: list[str] | None = None
    reward_code: str | None = None
    primitives: list[str] | None = None
    high_level_actions: list[str] = []
    samples: int | None = Field(None, ge=1000)


class Verdict(BaseModel):
    """The critic's judgement of one sub-action."""

    model_config = ConfigDict(extra="ignore")

    success: bool
    reason: str
    suggestion: str = ""


class TaskPlan(BaseModel):
    """The task planner's ordered sub-tasks for a long-horizon task."""

    model_config = ConfigDict(extra="ignore")

    subtasks: list[str] = Field(min_length=1, max_length=12)
