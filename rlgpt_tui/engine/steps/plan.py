"""The plan step: the slow agent proposes (or revises) the decomposition into sub-actions."""

from __future__ import annotations

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.agents.slow import IterationFeedback
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import StopRequested
from rlgpt_tui.engine.steps.context import ProposalRejected, StepContext
from rlgpt_tui.engine.steps.edits import apply_plan_edit, drop_unknown_high_level_actions
from rlgpt_tui.llm.client import LLMAnswerError
from rlgpt_tui.llm.settings import LLMError

MAX_PLAN_REJECTIONS = 3


def plan_step(ctx: StepContext, history: list[IterationFeedback]) -> tuple[Plan, list[str]]:
    """This iteration's plan and the notes for the slow agent of what went wrong.

    A person's queued plan is used as it is; otherwise the slow agent plans from the
    history, and an approver may reject its plan (up to :data:`MAX_PLAN_REJECTIONS` times,
    then the run stops). A failed answer keeps the last plan. With no plan yet, answers that
    had a plan's form but were refused (copies, steps out of order) give way to the slow
    agent's fallback plan (source ``recipes``); otherwise the run cannot go on
    (``LLMError``)."""
    ctx.phase("planning", f"iteration {ctx.iteration + 1}")
    edited = apply_plan_edit(ctx, history)
    if edited is not None:
        return edited, []
    for _ in range(MAX_PLAN_REJECTIONS):
        try:
            plan = drop_unknown_high_level_actions(ctx.team.slow.plan(ctx.task, history))
        except LLMAnswerError as error:
            # one failed answer never ends a session: keep the last plan (for the first,
            # take the agent's fallback), and say so
            if history:
                plan, source = history[-1].plan.model_copy(deep=True), "previous plan"
                instead = "the previous plan is kept"
            else:
                fallback = ctx.team.slow.fallback_plan(ctx.task) if error.well_formed else None
                if fallback is None:  # no plan at all: the session cannot go on
                    raise LLMError(f"no plan could be made: {error}") from None
                plan = fallback
                source = "recipes"
                instead = "the goal's steps from the world's recipes are planned"
            message = f"the slow agent's answer failed ({error}); {instead}"
            ctx.emit(ev.EngineError(message=message))
            ctx.emit(ev.PlanProposed(plan=plan.snapshot(), source=source))
            return plan, [message]
        try:
            plan = drop_unknown_high_level_actions(ctx.approve("plan", "", plan))
        except ProposalRejected as why:
            ctx.emit(ev.EngineError(message=f"plan rejected by a person: {why}"))
            continue
        ctx.emit(ev.PlanProposed(plan=plan.snapshot()))
        return plan, []
    raise StopRequested
