"""What every LLM-backed role shares: the client, the world's documentation its prompts
show, the skills it starts from, and the goal's steps as its prompts give them."""

from __future__ import annotations

from rlgpt_tui.envs.knowledge import Step, WorldDocs, steps_text
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.tasks.catalog import Task


class LLMRole:
    """What every LLM-backed role holds: the client, the world's documentation and the
    skills the session starts from."""

    def __init__(self, client: LLMClient, docs: WorldDocs, shelf: SkillShelf | None = None):
        self.client = client
        self.docs = docs
        self.environment = docs.text()  # the world's documentation, as prompts show it
        self.shelf = shelf or SkillShelf()  # what the session starts from (--library)

    def goal_steps(self, task: Task) -> str:
        """The steps the task's goal needs, ordered from the world's recipes (a line
        saying so where the recipes do not say, e.g. a score or a creature, with what the
        world's documentation says the achievement takes)."""
        steps = steps_text(task.steps(self.docs), self._library_note)
        if steps:
            return steps
        goal = self._goal_step(task)
        what = f" What it takes in this world: {goal.text()}." if goal is not None else ""
        return "The world's recipes do not list steps for this goal." + what

    def _goal_step(self, task: Task) -> Step | None:
        """The world's word on a goal of one step or none (collect_drink's recipe step;
        for eat_cow or wake_up, what the tech tree says its skill does): what any sub-action
        of that task works toward; told nothing of it, a model may look for a 'sleep' block
        for wake_up."""
        steps = task.steps(self.docs)
        if task.scored or len(steps) > 1 or not task.goal.achievement:
            return None
        return next((s for s in self.docs.score_steps() if s.name == task.goal.achievement), None)

    def _library_note(self, step: Step) -> str:
        """Where the shelf holds a skill named like ``step``: say so, and how to reuse it
        (its record is in the library section, once: each record names the tasks it
        served, and another task's figures beside every step draw that task into a plan)."""
        skill = self.shelf.find(step.name)
        if skill is None:
            return ""
        return (
            f"[the library's `{skill.name}` ({skill.author}) does this step: "
            f"a code sub-action named `{skill.name}` reuses it]"
        )
