"""What solves a task: a coded routine alone, or a PPO policy over its action table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlgpt_tui.skills.runtime import CodedAction


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
