"""The skill step: a coded step of the plan that the records say code fell short at, and that
is a task of its own, is learned with RL as its own skill before any code is written.

Its policy is trained over primitive actions on the task of the step's name (the RL step,
:func:`~rlgpt_tui.engine.steps.rl.rl_step`, in a context whose task is that one), measured
fresh on it and judged by the critic; the library records it (``PolicyTrained``) and the
session's shelf takes it at once, so that the step's code calls it, ``yield from
ctx.skill(name)``, where it measured better than the library's code (the fast agent writes that
call). RL-GPT's split, per sub-action: code where code works, RL where it does not, and the
learned part a skill the code uses."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from rlgpt_tui.agents.schemas import Plan, Verdict
from rlgpt_tui.agents.slow.records import OWN_SKILL, own_skill, rl_skill_subaction
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.engine.steps.evaluation import Outcome
from rlgpt_tui.engine.steps.rl import RLRequest, rl_step
from rlgpt_tui.rl.policyfile import SavedPolicy
from rlgpt_tui.tasks.catalog import get_task


@dataclass
class SkillsLearned:
    """What the skill step trained: the samples it spent, the critic's verdict on each
    policy (by the step's name), and notes for the slow agent."""

    samples: int = 0
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def skill_step(ctx: StepContext, plan: Plan, budget: int, total: int) -> SkillsLearned:
    """Train a policy for each of ``plan``'s coded steps to be learned as its own skill
    (:func:`~rlgpt_tui.agents.slow.records.own_skill`) that the session's shelf has no
    callable policy of yet, ``budget`` samples each (``total``: the session's samples so
    far), and hand it to the shelf."""
    learned = SkillsLearned()
    for sub in plan.coded():
        if not own_skill(sub) or sub.name in ctx.shelf.callable_skills()[1] or budget <= 0:
            continue
        task = get_task(sub.name)
        why = sub.reason.removesuffix(OWN_SKILL)
        skill = rl_skill_subaction(sub.name, sub.description, why)
        request = RLRequest(skill, {}, budget, total + learned.samples)
        outcome = rl_step(replace(ctx, task=task), request)
        learned.samples += outcome.samples
        learned.verdicts.update(outcome.verdicts)
        figure = task.measure.show(outcome.value)
        learned.notes.append(f"{sub.name}: learned with RL as its own skill, {figure} fresh")
        policy = kept_policy(ctx, outcome)
        if policy is not None:
            ctx.shelf.policies.append(policy)
    return learned


def kept_policy(ctx: StepContext, outcome: Outcome) -> SavedPolicy | None:
    """The policy ``outcome``'s training kept, as the library records it (None: no
    training, or its weights were not kept)."""
    trained = next((c for c in outcome.candidates if c.weights), None)
    if outcome.policy is None or trained is None or trained.weights is None:
        return None
    name, config, _ = outcome.policy
    result = outcome.evaluation
    return SavedPolicy(
        task=config.task,
        world=config.env,
        subaction=name,
        rl_config=config.model_dump(mode="json", exclude={"checkpoint_dir"}),
        authors={},
        samples=outcome.samples,
        measure=result.measured_in.value,
        value=result.value,
        ci95=result.ci95 if result.ci95 and result.ci95[0] is not None else None,
        episodes=result.episodes,
        deterministic=trained.deterministic,
        made_in=f"this session, iteration {ctx.iteration + 1}",
        weights=Path(trained.weights).read_bytes(),
    )
