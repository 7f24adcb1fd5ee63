"""The four roles backed by an LLM, with prompts read from ``assets/prompts/``."""

from __future__ import annotations

import ast
import contextlib
import json
from string import Template
from typing import Any

from rlgpt_tui import ASSETS_DIR, read_asset
from rlgpt_tui.agents.base import (
    AgentTeam,
    Critic,
    Execution,
    FastAgent,
    IterationFeedback,
    SlowAgent,
    TaskPlanner,
    evaluation_lines,
)
from rlgpt_tui.agents.grounding import (
    both,
    code_evidence,
    evidence_check,
    example_check,
    helper_check,
    overrule_code,
    overrule_rl,
    passed_by_runs,
    placed_item_check,
    recipe_check,
    runs_summary,
    stat_check,
    step_named_check,
    step_order_check,
    text_evidence,
)
from rlgpt_tui.agents.schemas import (
    CodeAnswer,
    Plan,
    PlanAnswer,
    RLAnswer,
    RLAnswerStrict,
    SubAction,
    TaskPlanAnswer,
    Verdict,
    VerdictAnswer,
)
from rlgpt_tui.envs.base import describe_view
from rlgpt_tui.envs.knowledge import Step, WorldDocs, steps_text
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.library.compose import link_skills
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.llm.client import LLMAnswerError, LLMClient, Unrepairable
from rlgpt_tui.rl.config import world_actions, world_segments
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.skills.api import SKILL_API_DOC
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.tasks import Measure, Task, load_catalog

PROMPTS = ASSETS_DIR / "prompts"


def open_ended_text(role: str, task: Task) -> str:
    """The scored-task section of ``role``'s prompt (``<role>_scored.md``) for a scored task
    (open-ended play: a library of skills, Crafter's score); empty otherwise."""
    return read_asset(PROMPTS / f"{role}_scored.md") if task.scored else ""


def render(role: str, **values: Any) -> list[dict[str, str]]:
    """The prompt file of ``role`` with ``$placeholders`` filled, as chat messages
    (``open_ended`` defaults to empty: only scored tasks fill it)."""
    values.setdefault("open_ended", "")
    text = Template(read_asset(PROMPTS / f"{role}.md")).safe_substitute(values)
    text = text.replace("\x00", "")
    return [
        {"role": "system", "content": f"You are part of RL-GPT, acting as the {role} agent."},
        {"role": "user", "content": text},
    ]


def answer_shape(schema) -> str:
    """The keys and value types of ``schema``'s answer as one compact JSON-like line (what
    the prompt asks for; the full JSON Schema goes as response_format, never in the text)."""
    document = schema.model_json_schema()
    defs = document.get("$defs", {})

    def shape(node: dict[str, Any]) -> str:
        if "$ref" in node:
            return shape(defs[node["$ref"].split("/")[-1]])
        if "anyOf" in node:
            return " | ".join(shape(n) for n in node["anyOf"])
        if "enum" in node:
            return " | ".join(json.dumps(v) for v in node["enum"])
        if "const" in node:
            return json.dumps(node["const"])
        kind = node.get("type")
        if kind == "object":
            props = node.get("properties", {})
            return "{" + ", ".join(f'"{k}": {shape(v)}' for k, v in props.items()) + "}"
        if kind == "array":
            return "[" + shape(node.get("items", {})) + ", ...]"
        return {"integer": "int", "number": "number", "boolean": "true | false"}.get(
            str(kind), str(kind)
        )

    return shape(document)


class _LLMRole:
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
        of that task works toward. A 1.5B model's wake_up session, told nothing of it, looked
        for a 'sleep' block three times and ended with no valid code."""
        steps = task.steps(self.docs)
        if task.scored or len(steps) > 1 or not task.goal.achievement:
            return None
        return next((s for s in self.docs.score_steps() if s.name == task.goal.achievement), None)

    def _library_note(self, step: Step) -> str:
        """Where the shelf holds a skill named like ``step``: say so, and how to reuse it
        (its record is in the library section, once: each record names the tasks it
        served, and a 1.5B model shown make_stone_pickaxe's figures beside every step of
        make_stone_sword planned make_stone_pickaxe into it)."""
        skill = self.shelf.find(step.name)
        if skill is None:
            return ""
        return (
            f"[the library's `{skill.name}` ({skill.author}) does this step: "
            f"a code sub-action named `{skill.name}` reuses it]"
        )


class LLMSlowAgent(_LLMRole, SlowAgent):
    def plan(self, task: Task, history: list[IterationFeedback]) -> Plan:
        feedback = "\n".join(h.text() for h in history) or "None yet: this is the first plan."
        steps = task.steps(self.docs)
        names = [step.name for step in steps]  # the library's first, and the order
        messages = render(
            "slow",
            task=task.prompt_text(),
            environment=self.environment,
            steps=self.goal_steps(task),
            skill_api=SKILL_API_DOC,
            library=self.shelf.prompt_text(task, first=names),
            feedback=feedback,
            schema=answer_shape(PlanAnswer),
            example=PlanAnswer.EXAMPLE,
            open_ended=open_ended_text("slow", task),
        )
        order = step_order_check(names, complete=not task.scored)
        alive = None
        if task.goal.survive and steps:  # its one step: no other step names it
            alive = step_named_check(steps[0].name, steps[0].description)
        check = both(example_check(PlanAnswer.EXAMPLE), order, alive)
        answer = self.client.structured("slow", messages, PlanAnswer, check)
        return Plan.model_validate(answer.model_dump())

    def fallback_plan(self, task: Task) -> Plan:
        """The goal's steps from the world's recipes, each coded (one coded sub-action for
        the whole task where the recipes do not say): the first plan when every answer of
        the model's failed (a 1.5B model's three plans for make_wood_pickaxe: out of order,
        then twice the example), so that the model still writes and repairs the code."""
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
        return Plan(subactions=subs)


def _same_code(a: str, b: str) -> bool:
    """Are two sources the same program (comments and layout aside)?"""
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return a.strip() == b.strip()


class LLMFastAgent(_LLMRole, FastAgent):
    origin = "agent"  # where the last code came from: the LLM, or library:<author>

    def write_code(self, task, sub, previous=None, problem=None) -> str:
        """A shelf skill of the sub-action's name is reused as it is (no LLM call); new code,
        and any repair, comes from the LLM."""
        reused = self.shelf.find(sub.name) if previous is None else None
        if reused is not None:
            self.origin = reused.origin
            return reused.source
        self.origin = "agent"
        request = f"Write the code of the coded sub-action `{sub.name}`: {sub.description}."
        step = self.docs.step(sub.name)
        if step is not None:  # a 1.5B model wrote place_table to wait for the task's stone
            request += (
                f"\nThe world's recipe for this step: {step.text()}. The helper that does it "
                f"once: `{step.helper()}`."
            )
        else:
            request += self._step_note(task, sub.name)
        library = {s.name: s.source for s in self.shelf.skills if s.name != sub.name}
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
                raise Unrepairable(  # a 1.5B model's unchanged fix: asked again, it repeats
                    "code: the previous code unchanged, which failed: the model keeps it"
                )
            for check in (placing, recipe, helper_check, stat_check):
                if check is not None:
                    check(answer)
            with contextlib.suppress(SyntaxError):  # validation names a syntax error
                linked[answer.code] = link_skills(answer.code, library)

        fixed = CodeAnswer.example_for(sub.name)
        example = self.shelf.code_example(sub.name)
        try:
            code = self._ask(task, request, CodeAnswer, links, example=example or fixed).code
        except LLMAnswerError as error:
            if example is None or not error.well_formed:
                raise
            # a library skill shown as the example was copied (a 1.5B model's place_furnace
            # was the library's place_stone in 9 of 9 answers, whatever the repair line
            # said): asked once more with the made-up world's example of its kind
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
        example also breaks it, its line says what to change (a 1.5B model's place_furnace
        copied the library's place_stone word for word three times, told only that it
        repeated the example; the recipe check says it never places a furnace)."""
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


def _round(run: Execution) -> str:
    """``round N of the plan, `` for a call after earlier rounds of a code-alone plan."""
    return f"round {run.round} of the plan, " if run.round > 1 else ""


class LLMCritic(_LLMRole, Critic):
    def judge_code(self, task: Task, sub: SubAction, runs: list[Execution]) -> Verdict:
        # its runs (those that held what its recipe uses) made what it is named for
        decided = passed_by_runs(runs, sub.name, self.docs.step(sub.name))
        if decided is not None:
            return decided
        shown = runs[:3]
        executions = (
            runs_summary(runs)
            + "\n\n"
            + "\n\n".join(
                f"Run {i + 1} ({_round(r)}{r.steps} steps, ended: {r.end_reason})\nBEFORE:\n"
                f"{describe_view(r.before)}\nAFTER:\n{describe_view(r.after)}"
                for i, r in enumerate(shown)
            )
        )
        images = []
        if self.client.settings.vision:
            for i, run in enumerate(shown):
                if run.frames is not None:
                    images += [(f"Run {i + 1} before", run.frames[0])]
                    images += [(f"Run {i + 1} after", run.frames[1])]
        subaction = f"{sub.name} (code): {sub.description}"
        # the sub-action is judged by its own description and runs, not by the task's goal
        # (a 1.5B model failed collect_wood runs that all got wood for placing no table)
        evidence = code_evidence([subaction], shown)
        verdict = self._judge(task, subaction, executions, evidence, images)
        return overrule_code(verdict, runs)

    def judge_rl(self, task, sub, evaluation: EvaluationSummary, target: float) -> Verdict:
        summary = json.dumps(evaluation.to_dict())
        if task.scored:
            lines = evaluation_lines(evaluation, Measure.CRAFTER_SCORE)
            value = evaluation.value
            if value is None:
                value = evaluation.score or 0.0
            executions = "\n".join(
                [
                    f"RL policy evaluation: Crafter score {value}; target Crafter score "
                    f"{target} (0-100).",
                    *lines,
                    f"Full summary: {summary}",
                ]
            )
        else:
            value = evaluation.success_rate
            if value is None:
                value = evaluation.value or 0.0
            executions = f"RL policy evaluation: {summary}; target success rate {target}."
        subaction = f"{sub.name} (RL): {sub.description}"
        evidence = text_evidence([task.prompt_text(), subaction, executions])
        verdict = self._judge(task, subaction, executions, evidence)
        rates = evaluation.achievement_rates or {}
        return overrule_rl(verdict, float(value), target, task.measure.label, rates)

    def _judge(
        self, task: Task, subaction: str, executions: str, evidence: set[str], images=()
    ) -> Verdict:
        """The critic's verdict: an answer repeating the example or naming things outside
        ``evidence`` is repaired."""
        messages: list[dict[str, Any]] = render(
            "critic",
            task=task.prompt_text(),
            subaction=subaction,
            environment=self.environment,
            executions=executions,
            schema=answer_shape(VerdictAnswer),
            example=VerdictAnswer.EXAMPLE,
            open_ended=open_ended_text("critic", task),
        )
        if images:  # OpenAI-style content parts: the text, then each labelled frame
            parts: list[dict[str, Any]] = [{"type": "text", "text": messages[-1]["content"]}]
            for label, frame in images:
                parts.append({"type": "text", "text": f"{label}:"})
                parts.append({"type": "image_url", "image_url": {"url": png_data_url(frame)}})
            messages[-1] = {"role": "user", "content": parts}
        check = both(example_check(VerdictAnswer.EXAMPLE), evidence_check(evidence))
        return self.client.structured("critic", messages, VerdictAnswer, check)


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


class LLMTeam(AgentTeam):
    """An AgentTeam whose roles share one LLM client; every prompt describes ``world`` (a
    registered world's name, or its documentation) from the world's own documentation."""

    def __init__(
        self,
        client: LLMClient,
        world: str | WorldDocs = "craftax",
        shelf: SkillShelf | None = None,
    ):
        env = world if isinstance(world, WorldDocs) else world_info(world).documentation()
        super().__init__(
            label=f"llm:{client.settings.model}",
            slow=LLMSlowAgent(client, env, shelf),
            fast=LLMFastAgent(client, env, shelf),
            critic=LLMCritic(client, env),
            planner=LLMPlanner(client, env),
        )
        self.client = client
