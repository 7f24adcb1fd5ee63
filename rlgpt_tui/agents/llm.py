"""The four roles backed by an LLM, with prompts read from ``assets/prompts/``."""

from __future__ import annotations

import json
from string import Template
from typing import Any

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.agents.base import (
    AgentTeam,
    Critic,
    Execution,
    FastAgent,
    IterationFeedback,
    SlowAgent,
    TaskPlanner,
)
from rlgpt_tui.agents.schemas import CodeAnswer, Plan, RLAnswer, SubAction, TaskPlan, Verdict
from rlgpt_tui.envs.base import describe_view
from rlgpt_tui.envs.knowledge import crafter_knowledge
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.skills.api import SKILL_API_DOC
from rlgpt_tui.tasks import Task, load_catalog

PROMPTS = ASSETS_DIR / "prompts"


def render(role: str, **values: Any) -> list[dict[str, str]]:
    """The prompt file of ``role`` with ``$placeholders`` filled, as chat messages."""
    text = Template((PROMPTS / f"{role}.md").read_text()).safe_substitute(values)
    return [
        {"role": "system", "content": f"You are part of RL-GPT, acting as the {role} agent."},
        {"role": "user", "content": text},
    ]


class _LLMRole:
    def __init__(self, client: LLMClient, environment: str):
        self.client = client
        self.environment = environment


class LLMSlowAgent(_LLMRole, SlowAgent):
    def plan(self, task: Task, history: list[IterationFeedback]) -> Plan:
        feedback = "\n".join(h.text() for h in history) or "None yet: this is the first plan."
        messages = render(
            "slow",
            task=task.prompt_text(),
            environment=self.environment,
            skill_api=SKILL_API_DOC,
            feedback=feedback,
            schema=json.dumps(Plan.model_json_schema()),
        )
        return self.client.structured("slow", messages, Plan)


class LLMFastAgent(_LLMRole, FastAgent):
    def write_code(self, task, sub, previous=None, problem=None) -> str:
        request = f"Write the code of the coded sub-action `{sub.name}`: {sub.description}."
        if previous is not None:
            request += (
                f"\nYour previous code was rejected or failed: {problem}\nPrevious code:\n"
                f"{previous}\nFix it."
            )
        return self._ask(task, request, CodeAnswer).code

    def write_rl(self, task, sub, coded) -> RLAnswer:
        request = (
            f"Write the RL configuration of the learned sub-action `{sub.name}`: "
            f"{sub.description}. Coded actions available as high-level actions: "
            f"{', '.join(coded) or 'none'}. Observation features: map, inventory, intrinsics, "
            "direction, light, sleeping (null = all). reward_code, if given, defines "
            "`def reward(prev, now) -> float` over Views and is added to the goal reward."
        )
        return self._ask(task, request, RLAnswer)

    def _ask(self, task: Task, request: str, schema):
        messages = render(
            "fast",
            task=task.prompt_text(),
            environment=self.environment,
            skill_api=SKILL_API_DOC,
            request=request,
            schema=json.dumps(schema.model_json_schema()),
        )
        return self.client.structured("fast", messages, schema)


class LLMCritic(_LLMRole, Critic):
    def judge_code(self, task: Task, sub: SubAction, runs: list[Execution]) -> Verdict:
        shown = runs[:3]
        executions = "\n\n".join(
            f"Run {i + 1} ({r.steps} steps, ended: {r.end_reason})\nBEFORE:\n"
            f"{describe_view(r.before)}\nAFTER:\n{describe_view(r.after)}"
            for i, r in enumerate(shown)
        )
        images = []
        if self.client.settings.vision:
            for i, run in enumerate(shown):
                if run.frames is not None:
                    images += [(f"Run {i + 1} before", run.frames[0])]
                    images += [(f"Run {i + 1} after", run.frames[1])]
        return self._judge(task, f"{sub.name} (code): {sub.description}", executions, images)

    def judge_rl(self, task, sub, evaluation: dict[str, Any], target: float) -> Verdict:
        executions = (
            f"RL policy evaluation: {json.dumps(evaluation)}; target success rate {target}."
        )
        return self._judge(task, f"{sub.name} (RL): {sub.description}", executions)

    def _judge(self, task: Task, subaction: str, executions: str, images=()) -> Verdict:
        messages = render(
            "critic",
            task=task.prompt_text(),
            subaction=subaction,
            executions=executions,
            schema=json.dumps(Verdict.model_json_schema()),
        )
        if images:  # OpenAI-style content parts: the text, then each labelled frame
            parts: list[dict[str, Any]] = [{"type": "text", "text": messages[-1]["content"]}]
            for label, frame in images:
                parts.append({"type": "text", "text": f"{label}:"})
                parts.append({"type": "image_url", "image_url": {"url": png_data_url(frame)}})
            messages[-1] = {"role": "user", "content": parts}
        return self.client.structured("critic", messages, Verdict)


def png_data_url(frame) -> str:
    """An RGB array as a ``data:image/png;base64,...`` URL."""
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


class LLMPlanner(_LLMRole, TaskPlanner):
    def subtasks(self, task: Task) -> list[str]:
        catalog = load_catalog()
        messages = render(
            "planner",
            task=task.prompt_text(),
            catalog="\n".join(f"- {t.name}: {t.description}" for t in catalog.values()),
            environment=self.environment,
            schema=json.dumps(TaskPlan.model_json_schema()),
        )
        plan = self.client.structured("planner", messages, TaskPlan)
        unknown = [s for s in plan.subtasks if s not in catalog]
        if unknown:  # keep known ones; the task itself always ends the chain
            plan.subtasks = [s for s in plan.subtasks if s in catalog]
        if not plan.subtasks or plan.subtasks[-1] != task.name:
            plan.subtasks.append(task.name)
        return plan.subtasks


class LLMTeam(AgentTeam):
    """An AgentTeam whose roles share one LLM client."""

    def __init__(self, client: LLMClient, environment: str | None = None):
        env = environment or crafter_knowledge()
        super().__init__(
            label=f"llm:{client.settings.model}",
            slow=LLMSlowAgent(client, env),
            fast=LLMFastAgent(client, env),
            critic=LLMCritic(client, env),
            planner=LLMPlanner(client, env),
        )
        self.client = client
