"""The team the engine drives: the paper's four roles, whichever backs them (an LLM or the
builtin rules)."""

from __future__ import annotations

from dataclasses import dataclass

from rlgpt_tui.agents.critic.base import Critic
from rlgpt_tui.agents.fast.base import FastAgent
from rlgpt_tui.agents.planner.base import TaskPlanner
from rlgpt_tui.agents.slow.base import SlowAgent


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
