"""The evaluation step: the iteration's solution on fresh evaluation worlds, one episode
each (seeds ``10_000 + seed + iteration``), and what the outer loop learns of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.agents.schemas import Plan, Verdict
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import ITERATION_SEED, Candidate
from rlgpt_tui.engine.solution import StageSolution
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.engine.steps.train import Policy
from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.decide import AgainstTarget
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.progress import TrainingEpisodes
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.validation import ValidatedAction, validate


@dataclass
class Outcome:
    """What an iteration's last step (the RL step, or the code alone evaluated) gives the
    outer loop."""

    value: float = 0.0  # the task's measure in the iteration's evaluation
    samples: int = 0  # training samples spent
    solution: StageSolution | None = None  # the iteration's policy or code
    evaluation: EvaluationSummary = field(default_factory=EvaluationSummary)
    training: TrainingEpisodes | None = None  # scored: training episodes
    candidates: list[Candidate] = field(default_factory=list)  # for the final choice
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # the critic's, if asked
    notes: list[str] = field(default_factory=list)  # for the slow agent
    policy: Policy | None = None  # the training's (sub-action, RLConfig, PPO), if any
    code: dict[str, str] = field(default_factory=dict)  # a person's code swapped in training
    tally: EpisodeTally = field(default_factory=EpisodeTally)  # scored: training episodes


def evaluate_code_only(
    ctx: StepContext,
    plan: Plan,
    coded: dict[str, ValidatedAction],
    best: float | None = None,
) -> Outcome:
    """A plan without a learned sub-action: its coded sub-actions (composed into one
    program when there are several, validated once) run alone, called again whenever
    they return. ``best``: the best code alone so far (its evaluation may stop early once
    below it and the target)."""
    parts = [coded[s.name] for s in plan.coded() if s.name in coded]
    if not parts:
        return Outcome()
    if len(parts) == 1:  # validated when it was written
        action = parts[0]
    else:  # the plan's routines composed into one: a new program, validated once
        try:
            composed = compose_sources([(a.name, a.source) for a in parts], ctx.recipes)
            policies = {p.name: p for a in parts for p in a.policies}  # what the steps call
            action = validate(COMPOSED_PLAN, composed, policies=tuple(policies.values()))
        except CodeValidationError as error:  # e.g. too long together: nothing to measure
            names = ", ".join(a.name for a in parts)
            return Outcome(
                notes=[
                    f"the plan's coded steps ({names}) could not run as one "
                    f"routine ({error}): plan fewer or shorter coded steps"
                ]
            )
    s = ctx.settings
    config = RLConfig(
        task=ctx.task.name,
        env=s.env,
        num_envs=s.eval_episodes,
        seed=s.seed,
        coded_actions=[CodedActionSpec.of(action)],
    )
    subject = f"{action.name} (code only)"
    evaluation = evaluate_solution(ctx, subject, config, only_coded=action.name, best=best)
    summary = evaluation.summary()
    ctx.emit(ev.EvaluationDone(subject=subject, result=summary))
    return Outcome(
        value=evaluation.value,
        solution=StageSolution(ctx.task.name, coded=action),
        evaluation=summary,
        candidates=[Candidate(config, ctx.iteration, evaluation.value, only_coded=action.name)],
    )


def evaluate_solution(
    ctx: StepContext,
    subject: str,
    config: RLConfig,
    model: Any = None,
    only_coded: str | None = None,
    best: float | None = None,
    env: CodedActionVecEnv | None = None,
    deterministic: bool | None = None,
) -> EvalResult:
    """``model`` over ``config``'s actions (or the coded action ``only_coded`` alone) on
    the iteration's evaluation worlds; pause and stop are taken between episodes. It stops
    once its episodes decide the run's question (:class:`~rlgpt_tui.rl.decide.
    AgainstTarget`: the target, and ``best``, the best of its kind so far). ``env``: play
    in the training's world (nothing new built or compiled); ``deterministic``: how the
    policy acts (None: :func:`~rlgpt_tui.rl.evaluation.evaluate`'s default)."""
    s = ctx.settings
    ctx.phase("evaluating", subject, total=s.eval_episodes)
    return evaluate(
        config,
        model,
        only_coded=only_coded,
        episodes=s.eval_episodes,
        seed=ITERATION_SEED + s.seed + ctx.iteration,
        deterministic=deterministic,
        on_episodes=ctx.evaluation_progress,
        question=AgainstTarget(ctx.target, best),
        env=env,
    )


def policy_summary(
    evaluation: EvalResult, usage: dict[str, Any], samples: int
) -> EvaluationSummary:
    """A trained policy's evaluation summary: its measurement, how much it used its coded
    actions in training, and the training's samples."""
    summary = evaluation.summary()
    summary.coded_decision_share = round(usage["decision_share"], 4)
    summary.training_samples = samples
    summary.coded_actions = {
        name: {k: v for k, v in stats.items() if k in ("calls", "steps", "end_reasons")}
        for name, stats in usage["actions"].items()
    }
    return summary
