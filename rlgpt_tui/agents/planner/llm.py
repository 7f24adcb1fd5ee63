"""The task planner backed by an LLM (``assets/prompts/planner.md``)."""

from __future__ import annotations

from collections.abc import Mapping

from rlgpt_tui.agents.llm_role import LLMRole
from rlgpt_tui.agents.planner.base import TaskPlanner
from rlgpt_tui.agents.prompts import answer_shape, earlier_ends_text, render
from rlgpt_tui.agents.schemas import TaskPlanAnswer
from rlgpt_tui.envs.knowledge import WorldDocs
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.tasks.catalog import Task, load_catalog


class LLMPlanner(LLMRole, TaskPlanner):
    """Orders sub-tasks from the catalog; it also sees how earlier sessions' episodes ended
    (``earlier_ends``, from a learn record), so that a chain can begin with staying alive."""

    def __init__(
        self, client: LLMClient, docs: WorldDocs, earlier_ends: Mapping[str, int] | None = None
    ):
        super().__init__(client, docs)
        self.earlier_ends = dict(earlier_ends or {})

    def subtasks(self, task: Task) -> list[str]:
        catalog = load_catalog()
        ended = earlier_ends_text(self.earlier_ends)
        messages = render(
            "planner",
            task=task.prompt_text(),
            ended=f"# How earlier episodes ended\n{ended}\n" if ended else "",
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
