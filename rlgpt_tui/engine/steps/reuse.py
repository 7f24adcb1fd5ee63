"""RL from the library's trained policy: a later session starts PPO where an earlier one
stopped, instead of from the code again.

Every training whose policy was evaluated is kept in the skill library (a
``PolicyTrained`` event: its configuration with its coded actions' sources, and its
weights). When a session's RL step trains for a task the library holds a policy of, the
engine takes that policy whole: its coded actions (validated again, recorded as reused from
the library with their authors), its configuration and its weights. It is evaluated first
on the iteration's worlds; at the target it is the step's result with no sample spent, and
below it PPO trains on from it (no longer pulled toward the code it once started from).
The fast agent's RL answer is not asked: the library's policy is that answer, measured.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlgpt_tui.agents.schemas import SubAction
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import Candidate
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.engine.steps.evaluation import evaluate_solution, policy_summary
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.policyfile import SavedPolicy, WeightsError
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.rl.weights import load_policy, policy_weights
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.validation import validate

POLICY_FILE = "policy.npz"  # a training's weights for the library, beside its checkpoint
LIBRARY_POLICY_FILE = "library_policy.npz"  # the library's policy as this session took it


@dataclass
class Reused:
    """The library's policy, made ready to act and measured before any training."""

    policy: SavedPolicy
    config: RLConfig  # its configuration with this session's budget, envs and seed
    model: Any  # a stable-baselines3 PPO with its weights
    evaluation: EvalResult
    summary: EvaluationSummary  # the evaluation with how often it chose its coded actions
    note: str  # what was reused, for the plan pane and the slow agent
    before: Any = None  # a copy of its policy network, kept as it was before any training
    weights: str | None = None  # its weights beside this session's checkpoint (None: none)

    def candidate(self, iteration: int) -> Candidate:
        """The policy as the library gave it, for the final choice: where it measured
        higher before training than the policy after, it is the run's RL + code candidate
        measured on fresh worlds."""
        return Candidate(
            self.config,
            iteration,
            self.evaluation.value,
            self.before,
            deterministic=self.policy.deterministic,
            weights=self.weights,
        )


def library_policy(
    ctx: StepContext, last_policy: Any, primitives_only: bool = False
) -> SavedPolicy | None:
    """The session library's best trained policy for the task, for an RL step to start
    from (None: none); with ``primitives_only``, the best of those over primitive actions
    (RL whose policy is to be a skill code calls). Open-ended play (a scored task) takes it
    for its first training only, then continues its own (``last_policy``: the last
    training's, or None)."""
    if last_policy is not None and ctx.task.scored:
        return None
    return ctx.shelf.policy_for(ctx.task.name, primitives_only)


def reuse_policy(
    ctx: StepContext,
    sub: SubAction,
    policy: SavedPolicy,
    budget: int,
    checkpoints: Path | None,
    best: float | None,
) -> Reused | None:
    """``policy`` over its own coded actions (each validated and recorded as reused from
    the library), with this session's ``budget``, envs, seed and ``checkpoints``, loaded and
    evaluated. None when it cannot be reused here (a coded action fails validation, the
    weights do not fit): an ``RLConfigValidationFailed`` event says why, and the caller
    configures RL as usual."""
    s = ctx.settings
    try:
        stored = RLConfig.model_validate(policy.rl_config)
        specs = []
        for spec in stored.coded_actions:
            origin = f"library:{policy.authors.get(spec.name, 'unknown')}"
            version = ctx.record_code(spec.name, spec.source, 0, origin)
            policies = ctx.shelf.policies_called(spec.source, spec.policies)
            action = validate(
                spec.name, spec.source, spec.description, version=version, policies=policies
            )
            specs.append(CodedActionSpec.of(action, max_steps=spec.max_steps, seconds=spec.seconds))
        config = stored.model_copy(
            update={
                "coded_actions": specs,
                **ctx.training_fields(budget, checkpoints),
                # it climbed from the code: not pulled back to it
                "start": stored.start.model_copy(update={"anchor": 0.0}),
            }
        )
        fmt = ctx.task.measure.show
        note = (
            f"PPO starts from the library's policy for {policy.task} ({policy.made_in}: "
            f"{policy.samples:,} samples, measured {fmt(policy.value)} over "
            f"{', '.join(policy.actions) or 'the primitives'})"
        )
        ctx.emit(
            ev.PolicyReused(
                subaction=sub.name, coded_actions=policy.actions, note=note, samples=policy.samples
            ),
        )
        ctx.phase("world", f"{sub.name} (the library's policy)", total=s.eval_episodes)
        env = build_env(config, num_envs=s.eval_episodes)  # the evaluation resets its worlds
        try:
            model = load_policy(config, env, policy.weights)
            subject = f"{sub.name} (the library's policy, before training)"
            evaluation = evaluate_solution(
                ctx, subject, config, model, best=best, env=env, deterministic=policy.deterministic
            )
            usage = env.coded_usage()
        finally:
            env.close()
    except (ValueError, CodeValidationError, WeightsError) as error:
        reason = str(error).splitlines()[0]
        ctx.emit(
            ev.RLConfigValidationFailed(
                subaction=sub.name,
                error=f"the library's policy for {policy.task} cannot be reused ({reason}): "
                "configuring RL afresh",
            ),
        )
        return None
    summary = policy_summary(evaluation, usage, 0)
    ctx.emit(ev.EvaluationDone(subject=subject, result=summary))
    note += f"; here it measured {fmt(evaluation.value)} before training"
    before = copy.deepcopy(model.policy)  # acts like the model (``predict``), untrained
    weights = None
    if config.checkpoint_dir is not None:  # so that a resumed run can measure it again
        path = Path(config.checkpoint_dir) / LIBRARY_POLICY_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(policy.weights)
        weights = str(path)
    return Reused(policy, config, model, evaluation, summary, note, before, weights)


def keep_policy(
    ctx: StepContext,
    sub: SubAction,
    config: RLConfig,
    model: Any,
    samples: int,
    evaluation: EvalResult,
    deterministic: bool | None,
) -> str | None:
    """Write the trained policy's weights beside its checkpoint and record it for the
    library (a ``PolicyTrained`` event); returns the weights file (None: no artifacts
    folder, nothing kept)."""
    if config.checkpoint_dir is None:
        return None
    folder = Path(config.checkpoint_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / POLICY_FILE
    path.write_bytes(policy_weights(model))
    ctx.emit(
        ev.PolicyTrained(
            subaction=sub.name,
            rl_config=config.model_dump(mode="json", exclude={"checkpoint_dir"}),
            weights=str(path),
            samples=samples,
            result=evaluation.summary(),
            deterministic=deterministic,
        ),
    )
    return str(path)
