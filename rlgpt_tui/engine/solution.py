"""What solves a task: a coded routine alone, or a PPO policy over its action table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rlgpt_tui.skills.runtime import CodedAction

if TYPE_CHECKING:
    from rlgpt_tui.engine.choice import Candidate


@dataclass
class StageSolution:
    """How one sub-task is solved: ``coded`` alone, or ``model`` over ``config``'s actions."""

    task: str
    coded: CodedAction | None = None
    model: Any = None  # a stable-baselines3 PPO
    config: Any = None  # its RLConfig

    @property
    def kind(self) -> str:
        return "code" if self.coded is not None else "rl"


def stage_solution(task: str, candidate: Candidate) -> StageSolution:
    """A chosen candidate as the stage solution a chain runs."""
    if candidate.model is not None:
        return StageSolution(task, model=candidate.model, config=candidate.config)
    spec = next(c for c in candidate.config.coded_actions if c.name == candidate.only_coded)
    return StageSolution(task, coded=spec.validated())
