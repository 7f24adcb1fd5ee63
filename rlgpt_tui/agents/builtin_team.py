"""The builtin agent (no LLM): the four builtin roles, which plan and judge with the world's
tech tree; everything they produce is labelled ``builtin``."""

from __future__ import annotations

from rlgpt_tui.agents.critic.builtin import BuiltinCritic
from rlgpt_tui.agents.fast.builtin import BuiltinFastAgent
from rlgpt_tui.agents.planner.builtin import BuiltinPlanner
from rlgpt_tui.agents.slow.builtin import BuiltinSlowAgent
from rlgpt_tui.agents.slow.records import MeasuredRecords
from rlgpt_tui.agents.team import AgentTeam
from rlgpt_tui.envs.registry import world_info

LABEL = "builtin"


def builtin_team(world: str = "craftax", records: MeasuredRecords | None = None) -> AgentTeam:
    """The builtin agent for ``world``: it plans and judges with the world's tech tree (and
    the sub-actions' measured ``records``: where code fell short, RL)."""
    tree = world_info(world).documentation().tech_tree
    return AgentTeam(
        label=LABEL,
        slow=BuiltinSlowAgent(tree, records),
        fast=BuiltinFastAgent(),
        critic=BuiltinCritic(tree),
        planner=BuiltinPlanner(),
    )
