"""The fast agent backed by an LLM (``assets/prompts/fast*.md``): code for coded sub-actions
(a shelf skill of the same name reused as it is), RL configurations for learned ones."""

from __future__ import annotations

import ast
import contextlib

from rlgpt_tui.agents.fast.base import FastAgent
from rlgpt_tui.agents.fast.checks import (
    helper_check,
    placed_item_check,
    recipe_check,
    stat_check,
)
from rlgpt_tui.agents.grounding import both, example_check
from rlgpt_tui.agents.llm_role import LLMRole
from rlgpt_tui.agents.prompts import answer_shape, open_ended_text, render
from rlgpt_tui.agents.schemas import CodeAnswer, RLAnswer, RLAnswerStrict
from rlgpt_tui.library.compose import policy_call
from rlgpt_tui.library.storage import POLICY_AUTHOR
from rlgpt_tui.llm.client import LLMAnswerError, Unrepairable
from rlgpt_tui.rl.config import world_actions, world_segments
from rlgpt_tui.skills.api import SKILL_API_DOC
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.tasks.catalog import Task


def _same_code(a: str, b: str) -> bool:
    """Are two sources the same program (comments and layout aside)?"""
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return a.strip() == b.strip()


class LLMFastAgent(LLMRole, FastAgent):
    origin = "agent"  # where the last code came from: the LLM, or library:<author>

    def write_code(self, task, sub, previous=None, problem=None) -> str:
        """A shelf skill of the sub-action's name is reused as it is (no LLM call): a code
        skill's source, or a call of a policy skill (:func:`~rlgpt_tui.library.compose.
        policy_call`) where the shelf's best version of the name is a trained policy; new
        code, and any repair, comes from the LLM."""
        if previous is None and sub.name in self.shelf.callable_skills()[1]:
            # the library's best version of the name is a trained policy: the code calls it
            self.origin = f"library:{POLICY_AUTHOR}"
            return policy_call(sub.name)
        reused = self.shelf.find(sub.name) if previous is None else None
        if reused is not None:
            self.origin = reused.origin
            return reused.source
        self.origin = "agent"
        request = f"Write the code of the coded sub-action `{sub.name}`: {sub.description}."
        step = self.docs.step(sub.name)
        if step is not None:  # else a step's code may wait for the task's material
            request += (
                f"\nThe world's recipe for this step: {step.text()}. The helper that does it "
                f"once: `{step.helper()}`."
            )
        else:
            request += self._step_note(task, sub.name)
        code, policies = self.shelf.callable_skills()
        library = sorted((set(code) | set(policies)) - {sub.name})
        if library:
            request += (
                '\nLibrary skills your code may run with `yield from ctx.skill("name")` '
                f"(True when it succeeded): {', '.join(sorted(library))}."
            )
        if previous is not None:
            request += (
                f"\nYour previous code was rejected or failed: {problem}\nPrevious code:\n"
                f"{previous}\nFix it."
            )

        linked: dict[str, str] = {}  # the answer's code, linked once by the check
        placing = placed_item_check(sub.name)
        recipe = None if step is None else recipe_check(step)

        def links(answer: CodeAnswer) -> None:
            if previous is not None and _same_code(answer.code, previous):
                raise Unrepairable(  # an unchanged fix: asked again, a model repeats it
                    "code: the previous code unchanged, which failed: the model keeps it"
                )
            for check in (placing, recipe, helper_check, stat_check):
                if check is not None:
                    check(answer)
            with contextlib.suppress(SyntaxError):  # validation names a syntax error
                linked[answer.code] = self.shelf.link(answer.code, leave_out=sub.name)[0]

        fixed = CodeAnswer.example_for(sub.name)
        example = self.shelf.code_example(sub.name)
        try:
            code = self._ask(task, request, CodeAnswer, links, example=example or fixed).code
        except LLMAnswerError as error:
            if example is None or not error.well_formed:
                raise
            # a library skill shown as the example can be copied whatever the repair line
            # says: asked once more with the made-up world's example of its kind
            code = self._ask(task, request, CodeAnswer, links, example=fixed).code
        return linked.get(code, code)

    def _step_note(self, task: Task, name: str) -> str:
        """What the world's documentation says of a goal step its recipes do not cover
        (eat_cow, wake_up on a scored task), and the creature or block it reaches; for a
        sub-action that is no step of a goal of one step or none (go_to_cow on eat_cow),
        what that goal takes."""
        step = next((s for s in task.steps(self.docs) if s.name == name), None)
        if step is not None and step.description:
            note = f"\nWhat this step does in this world: {step.description}."
        elif step is None and (step := self._goal_step(task)) is not None:
            note = f"\nWhat the task's goal takes in this world: {step.text()}."
        else:
            return ""
        if step.target:
            note += (
                f" `yield from ctx.collect({step.target!r})` reaches the nearest {step.target}"
                " and hits it until something is gained."
            )
        return note

    def write_rl(self, task, sub, coded, env: str = "craftax") -> RLAnswer:
        segments, actions = world_segments(env), world_actions(env)
        planned = [n for n in sub.high_level_actions if n in coded]
        request = (
            f"Write the RL configuration of the learned sub-action `{sub.name}`: "
            f"{sub.description}. Coded actions available as high-level actions: "
            f"{', '.join(coded) or 'none'}; the plan gives it {', '.join(planned) or 'none'} "
            "(high_level_actions null keeps the plan's). Observation segments: "
            f"{', '.join(segments)} (null = all). Primitives: {', '.join(actions)} (null = "
            "all). reward_code, if given, defines `def reward(prev, now) -> float` over Views "
            '(attributes as ctx.view\'s, e.g. `now.inventory.get("wood", 0)`) and is '
            "added to the goal reward. The sample budget is the engine's. start_from "
            "(optional): a coded action among the high-level actions that solves the "
            "sub-action on its own; the policy then starts by always running it and RL "
            "learns where to do better (null: the engine's default; a navigation routine "
            "that does not finish the sub-action is not one)."
        )

        def check(answer: RLAnswer) -> None:
            for key, allowed in (
                ("observation", segments),
                ("primitives", actions),
                ("high_level_actions", tuple(coded)),
            ):
                unknown = [v for v in getattr(answer, key) or [] if v not in allowed]
                if unknown:
                    raise ValueError(
                        f"{key}: unknown name(s) {', '.join(map(str, unknown))}: use "
                        f"{', '.join(allowed) or 'none (an empty list)'} or null"
                    )
            offered = planned if answer.high_level_actions is None else answer.high_level_actions
            if answer.start_from is not None and answer.start_from not in offered:
                raise ValueError(
                    f"start_from: {answer.start_from!r} is not a high-level action: use one of "
                    f"{', '.join(offered) or 'none'} or null"
                )
            if answer.primitives == [] and not (answer.high_level_actions or planned):
                raise ValueError("primitives: an empty list leaves no action: use null for all")
            if answer.reward_code:  # validated and dry-run in the validation worker
                try:
                    RewardCode(answer.reward_code)
                except CodeValidationError as error:
                    raise ValueError(f"reward_code: {str(error).splitlines()[0]}") from None

        choices = {
            "observation": segments,
            "primitives": actions,
            "high_level_actions": tuple(coded),
            "start_from": tuple(coded),
        }
        return self._ask(task, request, RLAnswerStrict, check, choices=choices)

    def _ask(
        self, task: Task, request: str, schema, check=None, example: str | None = None, choices=None
    ):
        """One structured answer of ``schema``; ``example`` (default: the schema's) is shown
        in the prompt, and an answer repeating it is repaired; ``choices``: the names each
        property may take (sent with the schema). ``check`` runs first: where a copied
        example also breaks it, its line says what to change: told only that it repeated
        the example, a model copies it again; the recipe check says what the copy lacks."""
        example = example or schema.EXAMPLE
        messages = render(
            "fast",
            task=task.prompt_text(),
            environment=self.environment,
            steps=self.goal_steps(task),
            skill_api=SKILL_API_DOC,
            request=request,
            schema=answer_shape(schema),
            example=example,
            open_ended=open_ended_text("fast", task),
        )
        return self.client.structured(
            "fast", messages, schema, both(check, example_check(example)), choices
        )
