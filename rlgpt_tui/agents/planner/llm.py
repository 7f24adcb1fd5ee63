"""The task planner backed by an LLM (``assets/prompts/planner.md``)."""

from __future__ import annotations

from rlgpt_tui.agents.llm_role import LLMRole
from rlgpt_tui.agents.planner.base import TaskPlanner
from rlgpt_tui.agents.prompts import answer_shape, render
from rlgpt_tui.agents.schemas import TaskPlanAnswer
from rlgpt_tui.tasks import Task, load_catalog


class LLMPlanner(LLMRole, TaskPlanner):
    def subtasks(self, task: Task) -> list[str]:
        catalog = load_catalog()
        messages = render(
            "planner",
            task=task.prompt_text(),
            catalog="\n".join(f"- {t.name}: {t.description}" for t in catalog.values()),
            environment=self.environment,
            schema=answer_shape(TaskPlanAnswer),
            example=TaskPlanAnswer.EXAMPLE,
        )
        plan = self.client.structured("planner", messages, TaskPlanAnswer)
        unknown = [s for s in plan.subtasks if s not in catalog]
        if unknown:  # keep known ones; the task itself always ends the chain
            plan.subtasks = [s for s in plan.subtasks if s in catalog]
        if not plan.subtasks or plan.subtasks[-1] != task.name:
            plan.subtasks.append(task.name)
        return plan.subtasks
