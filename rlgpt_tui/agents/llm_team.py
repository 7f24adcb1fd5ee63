"""The four roles backed by one LLM client, with prompts read from ``assets/prompts/``."""

from __future__ import annotations

from collections.abc import Mapping

from rlgpt_tui.agents.critic.llm import LLMCritic
from rlgpt_tui.agents.fast.llm import LLMFastAgent
from rlgpt_tui.agents.planner.llm import LLMPlanner
from rlgpt_tui.agents.slow.llm import LLMSlowAgent
from rlgpt_tui.agents.slow.records import MeasuredRecords
from rlgpt_tui.agents.team import AgentTeam
from rlgpt_tui.envs.knowledge import WorldDocs
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.llm.client import LLMClient


class LLMTeam(AgentTeam):
    """An AgentTeam whose roles share one LLM client; every prompt describes ``world`` (a
        registered world's name, or its documentation) from the world's own documentation; the
    slow agent's first plan and the planner see how earlier sessions' episodes ended
    (``earlier_ends``)."""

    def __init__(
        self,
        client: LLMClient,
        world: str | WorldDocs = "craftax",
        shelf: SkillShelf | None = None,
        earlier_ends: Mapping[str, int] | None = None,
        records: MeasuredRecords | None = None,
    ):
        env = world if isinstance(world, WorldDocs) else world_info(world).documentation()
        super().__init__(
            label=client.settings.agent_label,
            slow=LLMSlowAgent(client, env, shelf, earlier_ends, records),
            fast=LLMFastAgent(client, env, shelf),
            critic=LLMCritic(client, env),
            planner=LLMPlanner(client, env, earlier_ends),
        )
        self.client = client
