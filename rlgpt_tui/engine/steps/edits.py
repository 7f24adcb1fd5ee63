"""A person's edits, applied where the steps take them: a plan before the plan step, code
before a sub-action's code loop and between PPO rollouts, an RL configuration at the start
of a training. Each edit ends applied or refused (``engine/control.py`` records it)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rlgpt_tui.agents.schemas import Plan, SubAction
from rlgpt_tui.agents.slow import IterationFeedback
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import CodeEdit, EditRefused, PlanEdit, RLConfigEdit, check_rl_changes
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig, dumped_value
from rlgpt_tui.skills.validation import ValidatedAction


def drop_unknown_high_level_actions(plan: Plan) -> Plan:
    """High-level actions must name coded sub-actions of the same plan."""
    coded = {s.name for s in plan.coded()}
    for sub in plan.learned():
        sub.high_level_actions = [n for n in sub.high_level_actions if n in coded]
    return plan


def apply_plan_edit(ctx: StepContext, history: list[IterationFeedback]) -> Plan | None:
    """A person's queued plan, as this iteration's plan (None: there is none)."""
    edit = ctx.control.take(PlanEdit)
    if edit is None:
        return None
    edited = drop_unknown_high_level_actions(edit.plan.model_copy(deep=True))
    before = history[-1].plan.summary() if history else ""
    ctx.control.applied(
        edit, f"before iteration {ctx.iteration + 1}'s plan", before, edited.summary()
    )
    ctx.emit(ev.PlanProposed(plan=edited.snapshot(), source="human"))
    return edited


def apply_code_edit(
    ctx: StepContext, sub: SubAction, edit: CodeEdit, attempt: int, before: str
) -> ValidatedAction:
    """A person's code for ``sub`` (validated when the edit was made, not again here),
    recorded as a new code version; ``before``: the code it replaces."""
    version = ctx.record_code(sub.name, edit.code, attempt, "human")
    ctx.phase("validating", sub.name)
    action = replace(edit.action, description=sub.description, version=version)
    at = f"before iteration {ctx.iteration + 1}'s code of {sub.name}"
    ctx.control.applied(edit, at, before, edit.code, version=version)
    return action


def apply_rl_edits(ctx: StepContext, subaction: str, config: RLConfig) -> RLConfig:
    """``config`` with a person's queued RL-config edit of ``subaction`` on top (refused,
    and ``config`` kept, when it no longer validates with this configuration)."""
    edit = ctx.control.take(RLConfigEdit, subaction)
    if edit is None:
        return config
    changes = edit.changes
    try:
        edited = check_rl_changes(changes, config.model_dump()).carry_validation(config)
    except EditRefused as why:  # valid when made, not with this training's config
        ctx.control.refused(edit, f"not valid with this training's configuration: {why}")
        return config
    old, new = config.model_dump(mode="json"), edited.model_dump(mode="json")
    ctx.control.applied(
        edit,
        f"start of iteration {ctx.iteration + 1}'s training of {subaction}",
        json.dumps({k: dumped_value(old, k) for k in changes}),
        json.dumps({k: dumped_value(new, k) for k in changes}),
    )
    return edited


def swap_code_edits(
    ctx: StepContext,
    env: Any,
    specs: dict[str, CodedActionSpec],
    rollout: int,
    samples: int,
    code: Mapping[str, str],
) -> dict[str, str]:
    """Between two PPO rollouts: a person's code for coded actions of this training's
    action table replaces them in place (same index; the policy keeps its weights).
    ``specs`` (the training's own table of coded actions) is updated; ``code``: the
    session's code of each sub-action (what an edit replaces). Returns the sources swapped
    in, by name."""
    swapped: dict[str, str] = {}
    for edit in ctx.control.take_code_for(set(specs)):
        name, old = edit.target, specs[edit.target]
        version = ctx.record_code(name, edit.code, 0, "human")
        action = replace(
            edit.action, description=old.description, limits=old.limits, version=version
        )
        env.replace_coded(name, action)
        specs[name] = CodedActionSpec.of(action, max_steps=old.max_steps, seconds=old.seconds)
        before, swapped[name] = code.get(name, old.source), edit.code
        at = f"between PPO rollouts {rollout} and {rollout + 1} of iteration {ctx.iteration + 1}"
        if rollout == 0:
            at = f"before the first PPO rollout of iteration {ctx.iteration + 1}'s training"
        ctx.control.applied(
            edit, at, before, edit.code, rollout=rollout, samples=samples, version=version
        )
    return swapped
