"""The critic's step: a verdict on a sub-action's sample runs or on a trained policy.

A failed critic answer never ends a session: the verdict is a failure saying so, and the
slow agent hears of it (the returned note)."""

from __future__ import annotations

from rlgpt_tui.agents.critic.overrule import measured_verdict
from rlgpt_tui.agents.runs import Execution
from rlgpt_tui.agents.schemas import SubAction, Verdict
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.llm.client import LLMAnswerError
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.summary import EvaluationSummary


def judge_code(
    ctx: StepContext, sub: SubAction, runs: list[Execution]
) -> tuple[Verdict, str | None]:
    """The critic's verdict on ``sub``'s code from its sample runs, and a note for the slow
    agent when the critic's answer failed (None otherwise)."""
    ctx.phase("critic", sub.name)
    note = None
    try:
        verdict = ctx.team.critic.judge_code(ctx.task, sub, runs)
    except LLMAnswerError as error:
        verdict = measured_verdict(sub, runs, str(error))
        note = f"{sub.name}: {verdict.reason}"
    ctx.emit(ev.VerdictGiven(subaction=sub.name, **verdict.model_dump()))
    return verdict, note


def judge_rl(
    ctx: StepContext, sub: SubAction, summary: EvaluationSummary, evaluation: EvalResult
) -> tuple[Verdict, str | None]:
    """The critic's verdict on ``sub``'s trained policy from its evaluation ``summary``,
    and a note for the slow agent when the critic's answer failed (None otherwise)."""
    ctx.phase("critic", sub.name)
    note = None
    try:
        verdict = ctx.team.critic.judge_rl(ctx.task, sub, summary, ctx.target)
    except LLMAnswerError as error:
        verdict = Verdict(
            success=False,
            reason=f"no verdict: the critic's answer failed ({error}); "
            f"{evaluation.measurement.text()}",
        )
        note = f"{sub.name}: {verdict.reason}"
    ctx.emit(ev.VerdictGiven(subaction=sub.name, **verdict.model_dump()))
    return verdict, note
