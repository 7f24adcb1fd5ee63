"""The final choice step: the run's candidates evaluated again on fresh worlds
(``engine/choice.py``), recorded as ``SolutionChosen``."""

from __future__ import annotations

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import (
    FRESH_SEED,
    Candidate,
    Candidates,
    FinalChoice,
    choose,
    fresh_episodes,
)
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.rl.policyfile import WeightsError
from rlgpt_tui.sandbox import SandboxUnavailable
from rlgpt_tui.skills.checker import CodeValidationError


def final_step(ctx: StepContext, candidates: Candidates) -> FinalChoice | None:
    """Every candidate on the same fresh worlds and the one kept (None: no candidate, or
    the evaluation failed, which is recorded)."""
    s = ctx.settings
    if not len(candidates):
        return None
    episodes = fresh_episodes(ctx.task, s.eval_episodes, s.final_episodes)

    def on_candidate(candidate: Candidate):
        ctx.phase("final evaluation", candidate.subject, total=episodes)
        return ctx.progress

    try:
        final = choose(
            candidates, ctx.task, episodes, FRESH_SEED + s.seed, ctx.target, on_candidate
        )
    except (SandboxUnavailable, CodeValidationError, WeightsError) as error:
        ctx.emit(ev.EngineError(message=f"the final evaluation failed: {error}"))
        return None
    if final is None:  # no candidate (ruled out above)
        return None
    ctx.emit(ev.SolutionChosen(candidates=final.measured_candidates(), result=final.solution()))
    return final
