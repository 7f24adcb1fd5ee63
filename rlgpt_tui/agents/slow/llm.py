"""The slow agent backed by an LLM (``assets/prompts/slow*.md``)."""

from __future__ import annotations

from collections.abc import Mapping

from rlgpt_tui.agents.grounding import both, example_check
from rlgpt_tui.agents.llm_role import LLMRole
from rlgpt_tui.agents.prompts import answer_shape, earlier_ends_text, open_ended_text, render
from rlgpt_tui.agents.schemas import Plan, PlanAnswer, SubAction
from rlgpt_tui.agents.slow.base import IterationFeedback, SlowAgent
from rlgpt_tui.agents.slow.checks import tech_tree_check
from rlgpt_tui.agents.slow.records import MeasuredRecords, rl_where_code_failed
from rlgpt_tui.envs.knowledge import WorldDocs
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.skills.api import SKILL_API_DOC
from rlgpt_tui.tasks.catalog import Task


class LLMSlowAgent(LLMRole, SlowAgent):
    """Plans from the task, the goal's steps, the library and the feedback; its first plan
    also sees how earlier sessions' episodes ended (``earlier_ends``, from a learn record)."""

    def __init__(
        self,
        client: LLMClient,
        docs: WorldDocs,
        shelf: SkillShelf | None = None,
        earlier_ends: Mapping[str, int] | None = None,
        records: MeasuredRecords | None = None,
    ):
        super().__init__(client, docs, shelf)
        self.earlier_ends = dict(earlier_ends or {})
        self.records = records

    def plan(self, task: Task, history: list[IterationFeedback]) -> Plan:
        first = " ".join(
            ["None yet: this is the first plan.", earlier_ends_text(self.earlier_ends)]
        ).strip()
        feedback = "\n".join(h.text() for h in history) or first
        steps = task.steps(self.docs)
        names = [step.name for step in steps]  # the library's first, and the order
        messages = render(
            "slow",
            task=task.prompt_text(),
            environment=self.environment,
            steps=self.goal_steps(task),
            skill_api=SKILL_API_DOC,
            library=self.shelf.prompt_text(task, first=names),
            records=self._records_text(task, names),
            feedback=feedback,
            schema=answer_shape(PlanAnswer),
            example=PlanAnswer.EXAMPLE,
            open_ended=open_ended_text("slow", task),
        )
        # a survival goal's one step: no other step names it
        alive = steps[0].name if task.goal.survive and steps else ""
        tree = tech_tree_check(
            self.docs.recipes, task.goal.achievement, alive, complete=not task.scored
        )
        check = both(example_check(PlanAnswer.EXAMPLE), tree)
        answer = self.client.structured("slow", messages, PlanAnswer, check)
        plan = Plan.model_validate(answer.model_dump())
        return rl_where_code_failed(plan, task.name, self.records)

    def _records_text(self, task: Task, names: list[str]) -> str:
        """The measured record of the task's steps and the task (earlier sessions, by code
        and by RL), and which of them code has fallen short at."""
        if self.records is None:
            return "None: no earlier sessions measured these sub-actions."
        wanted = [*names, task.name, *self.records.subactions]
        text = self.records.prompt_text(wanted) or "None measured yet."
        failed = [
            why for n in dict.fromkeys(wanted) if (why := self.records.code_failed(n, task.name))
        ]
        if failed:
            text += "\nLearn these with RL, not code: " + "; ".join(failed)
        return text

    def fallback_plan(self, task: Task) -> Plan:
        """The goal's steps from the world's recipes, each coded (one coded sub-action for
        the whole task where the recipes do not say): the first plan when every answer of
        the model's failed (out of order, or the example copied), so that the model still
        writes and repairs the code."""
        reason = "from the world's recipes: the model's plans failed"
        subs = [
            SubAction(
                name=s.name, description=s.text().partition(": ")[2], mode="code", reason=reason
            )
            for s in task.steps(self.docs)
        ]
        if not subs:
            subs = [
                SubAction(name=task.name, description=task.description, mode="code", reason=reason)
            ]
        return rl_where_code_failed(Plan(subactions=subs), task.name, self.records)
