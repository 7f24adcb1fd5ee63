"""The RL step: the inner loop of the learned sub-action.

Configure (the fast agent's RL answer over the plan's coded actions, or the library's
trained policy, with a person's RL edits on top; a resumed run hands in the cut-off
training's configuration instead), train PPO (``train.py``: a person's code edits are
swapped in between rollouts, pause and stop are taken there), evaluate the policy, and let
the critic judge it. The step is asked with an :class:`RLRequest` and returns an
:class:`~rlgpt_tui.engine.steps.evaluation.Outcome` (with the code a person swapped in and
a scored task's training episodes, for the engine to keep)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rlgpt_tui.agents.schemas import MAX_HIGH_LEVEL_ACTIONS, Plan, RLAnswer, SubAction, Verdict
from rlgpt_tui.agents.slow.records import learned_as_skill
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import RL, RL_CODE, Candidate, mode_or_sampled
from rlgpt_tui.engine.control import StopRequested
from rlgpt_tui.engine.settings import checkpoint_folder, tensorboard_folder
from rlgpt_tui.engine.solution import StageSolution
from rlgpt_tui.engine.steps.context import StepContext
from rlgpt_tui.engine.steps.critic import judge_rl
from rlgpt_tui.engine.steps.edits import apply_rl_edits
from rlgpt_tui.engine.steps.evaluation import Outcome, evaluate_solution, policy_summary
from rlgpt_tui.engine.steps.reuse import Reused, keep_policy, library_policy, reuse_policy
from rlgpt_tui.engine.steps.train import (
    Policy,
    Trained,
    TrainingStopped,
    policy_to_continue,
    train_policy,
)
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.llm.client import LLMAnswerError
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.progress import TrainingEpisodes
from rlgpt_tui.rl.tensorboard import log_evaluation
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.skills.validation import ValidatedAction, validate
from rlgpt_tui.text import MAX_NAME


@dataclass
class Configured:
    """A training run as configured, before it starts."""

    config: RLConfig
    planned: list[str]  # the plan's high-level actions for it
    notes: list[str]  # how its actions differ from the plan's (recorded with it)
    agent_notes: list[str] = field(default_factory=list)  # for the slow agent
    continued: Any = None  # the PPO it continues (open-ended play), or None
    from_checkpoint: bool = True  # continue the checkpoint in its folder, if there is one
    samples_before: int = 0  # what its policy was trained on before (the library's)


@dataclass(frozen=True)
class RLRequest:
    """What the RL step is asked: train ``sub`` over the plan's ``coded`` actions with
    ``budget`` samples, in a session that has spent ``total_before``."""

    sub: SubAction
    coded: dict[str, ValidatedAction]
    budget: int
    total_before: int
    code: Mapping[str, str] = field(default_factory=dict)  # the session's code (edits replace)
    best_code: Candidate | None = None  # the best code alone so far (RL starts from it)
    last_policy: Policy | None = None  # the last training's (open-ended play continues it)
    # the best of each kind so far: an evaluation below it and the target stops early
    best_values: Mapping[str, float | None] = field(default_factory=dict)
    why: str = ""  # the engine's reason for a training the plan did not ask for (shown)
    added: tuple[str, ...] = ()  # names in ``coded`` PPO gets whatever the RL answer says
    configured: Configured | None = None  # its configuration, made already (a resumed run's)


def rl_step(ctx: StepContext, request: RLRequest) -> Outcome:
    """Configure, train, evaluate and judge ``request.sub`` (see :class:`RLRequest`). A
    request with its configuration made (a resumed run's cut-off training) trains that;
    otherwise, when the session's library holds a trained policy for the task, PPO starts
    from it (:mod:`~rlgpt_tui.engine.steps.reuse`: no training when it measures at the
    target), else from the fast agent's RL answer. A stop raises :class:`TrainingStopped`
    once training has begun. Nothing handed in is changed: the outcome carries a person's
    code swapped in during training and a scored task's training episodes."""
    sub, best_values = request.sub, request.best_values
    ctx.safe_point()
    checkpoints = checkpoint_folder(ctx.settings.artifacts_dir, ctx.iteration, sub.name)
    configured, reused = how_training_starts(ctx, request, checkpoints)
    if configured is None and reused is not None:  # at the target with no sample spent
        return untrained(ctx, sub, reused)
    assert configured is not None
    if request.why:
        configured = replace(configured, notes=[request.why, *configured.notes])
    board = tensorboard_folder(ctx.settings.tensorboard_dir, ctx.iteration, sub.name)
    configured = replace(
        configured, config=configured.config.model_copy(update={"tensorboard_dir": board})
    )
    start_training(ctx, sub, configured, checkpoints)
    total_before = request.total_before
    trained = train_policy(
        ctx,
        sub,
        configured.config,
        checkpoints,
        from_checkpoint=configured.from_checkpoint,
        continued=configured.continued,
        total_before=total_before,
        code=request.code,
    )
    config, model, samples = trained.config, trained.result.model, trained.result.samples
    before = configured.samples_before
    subject = f"{sub.name} (RL policy)"
    kind = RL_CODE if config.coded_actions else RL
    try:  # in the training's world (when it has one env per episode: nothing to build)
        evaluation = evaluate_solution(
            ctx, subject, config, model, best=best_values.get(kind), env=trained.env
        )
        evaluation, sampled, how = evaluate_sampled(
            ctx, sub, trained, evaluation, best_values.get(kind)
        )
        if sampled is False:
            subject = f"{sub.name} (RL policy, sampled as trained)"
    except StopRequested:
        raise TrainingStopped(total_before + samples, trained.code) from None
    finally:
        trained.env.close()
    log_evaluation(model, evaluation)  # its TensorBoard run ends with its evaluation
    weights = keep_policy(ctx, sub, config, model, before + samples, evaluation, sampled)
    summary = policy_summary(evaluation, trained.usage, samples)
    training = None
    tally = trained.result.env.runner.tally
    kept = EpisodeTally()  # a scored task's training episodes, for the session's measure
    if ctx.task.scored and len(tally):
        kept = tally
        training = TrainingEpisodes.of_tally(tally, ctx.task, ctx.settings.seed)
    ctx.emit(ev.EvaluationDone(subject=subject, result=summary))
    verdict, note = judge_rl(ctx, sub, summary, evaluation)
    ctx.emit(ev.SubActionDone(subaction=sub.name, mode="rl", code="", **verdict.model_dump()))
    trained_policy = Candidate(
        config, ctx.iteration, evaluation.value, model, deterministic=sampled, weights=weights
    )
    return Outcome(
        value=evaluation.value,
        samples=samples,
        solution=StageSolution(ctx.task.name, model=model, config=config),
        evaluation=summary,
        training=training,
        candidates=rl_candidates(ctx, trained_policy, reused),
        verdicts={sub.name: verdict},
        notes=configured.agent_notes + ([note] if note else []) + ([how] if how else []),
        policy=(sub.name, config, model),
        code=trained.code,
        tally=kept,
    )


def rl_candidates(ctx: StepContext, trained: Candidate, reused: Reused | None) -> list[Candidate]:
    """The final choice's candidates from one training: the trained policy, the code it
    started from run alone, and the library's policy as it was before this training."""
    candidates = [trained]
    if trained.config.start.action is not None:
        only = trained.config.start.action
        candidates.append(Candidate(trained.config, ctx.iteration, None, only_coded=only))
    if reused is not None:
        candidates.append(reused.candidate(ctx.iteration))
    return candidates


def how_training_starts(
    ctx: StepContext, request: RLRequest, checkpoints: Path | None
) -> tuple[Configured | None, Reused | None]:
    """The configuration PPO trains, and the library's trained policy it starts from (if
    any): a resumed run's own, else the library's policy for the task, else the fast
    agent's RL answer. No configuration: the library's policy is at the target already."""
    sub, budget = request.sub, request.budget
    if request.configured is not None:
        return request.configured, None
    saved = library_policy(
        ctx, request.last_policy, primitives_only=learned_as_skill(sub, ctx.task.name)
    )
    best = request.best_values.get(RL_CODE)
    reused = reuse_policy(ctx, sub, saved, budget, checkpoints, best) if saved else None
    if reused is None:
        configured = configure_rl(
            ctx,
            sub,
            request.coded,
            budget,
            checkpoints,
            request.best_code,
            request.last_policy,
            request.added,
        )
        return configured, None
    if reused.evaluation.value >= ctx.target:
        return None, reused
    configured = Configured(
        reused.config,
        list(sub.high_level_actions),
        [reused.note],
        continued=reused.model,
        from_checkpoint=False,
        samples_before=reused.policy.samples,
    )
    return configured, reused


def untrained(ctx: StepContext, sub: SubAction, reused: Reused) -> Outcome:
    """The library's policy measured at the target before training: the step's result,
    with no sample spent and no critic asked (the measured figure is the verdict)."""
    config, model, evaluation = reused.config, reused.model, reused.evaluation
    fmt = ctx.task.measure.show
    verdict = Verdict(
        success=True,
        reason=f"{reused.note}, at the target {fmt(ctx.target)}: no training needed "
        "(the critic was not asked)",
    )
    ctx.emit(ev.VerdictGiven(subaction=sub.name, **verdict.model_dump()))
    ctx.emit(ev.SubActionDone(subaction=sub.name, mode="rl", code="", **verdict.model_dump()))
    return Outcome(
        value=evaluation.value,
        samples=0,
        solution=StageSolution(ctx.task.name, model=model, config=config),
        evaluation=reused.summary,
        candidates=[
            Candidate(
                config,
                ctx.iteration,
                evaluation.value,
                model,
                deterministic=reused.policy.deterministic,
                weights=reused.weights,
            )
        ],
        verdicts={sub.name: verdict},
        notes=[verdict.reason],
        policy=(sub.name, config, model),
    )


def short_code_subaction(
    ctx: StepContext, plan: Plan, coded: dict[str, ValidatedAction], code_alone: Outcome
) -> SubAction:
    """The learned sub-action of RL from a plan of code alone that measured below the
    target (``code_alone``): the task, over the plan's coded steps, the reason why."""
    task = ctx.task
    steps = [s.name for s in plan.coded() if s.name in coded][:MAX_HIGH_LEVEL_ACTIONS]
    name = task.name if task.name not in coded else f"learn_{task.name}"[:MAX_NAME]
    fmt = task.measure.show
    why = (
        f"the plan's code alone measured {fmt(code_alone.value)}, below the target "
        f"{fmt(ctx.target)}: RL starts from that code and learns where to do better"
    )
    return SubAction(
        name=name,
        description=task.description,
        mode="rl",
        reason=why,
        high_level_actions=steps,
    )


def rl_from_short_code(ctx: StepContext, code_alone: Outcome, request: RLRequest) -> Outcome:
    """A plan of code alone that measured below the target: RL over its coded actions,
    starting as the code (RL-GPT's RL where code falls short), in the same iteration
    (``request.sub``: :func:`short_code_subaction`'s). Returns the better of the two
    measurements, with both kinds' candidates for the final choice and both notes for
    the slow agent."""
    fmt = ctx.task.measure.show
    coded, why = request.coded, request.sub.reason
    answers: dict[str, ValidatedAction] = {}
    deaths = ""
    # a cut-off training's config has them already; a library policy brings its own actions
    if request.configured is None and not library_policy(ctx, request.last_policy):
        answers, deaths = death_answers(ctx, code_alone, coded)
    if answers:
        why += f"; PPO also gets the library's {', '.join(answers)}, which answer {deaths}"
    learned = rl_step(ctx, replace(request, coded=coded | answers, why=why, added=tuple(answers)))
    ran = (
        f"{why}; after {learned.samples:,} samples it measured {fmt(learned.value)} "
        f"(the code alone: {fmt(code_alone.value)})"
    )
    climbed = learned.value > code_alone.value
    kept, other = (learned, code_alone) if climbed else (code_alone, learned)
    return replace(
        kept,
        samples=learned.samples,
        candidates=code_alone.candidates + learned.candidates,
        verdicts=code_alone.verdicts | learned.verdicts,
        notes=other.notes + kept.notes + [ran],
        policy=learned.policy,
        code=learned.code,
        tally=learned.tally,
    )


#: at most this many library skills join RL's actions as answers to how the code died
MAX_DEATH_ANSWERS = 4


def death_answers(
    ctx: StepContext, code_alone: Outcome, coded: dict[str, ValidatedAction]
) -> tuple[dict[str, ValidatedAction], str]:
    """The session's library skills that answer how the code alone's episodes died, to join
    PPO's actions beside the plan's: for each way of dying in an eighth or more of the
    failed episodes, the skills the world's documentation names for it
    (``TechTree.deaths``: eating for starved, drinking for dehydrated, ...), or library
    skills measured serving those as tasks (a model's ``collect_water`` served
    collect_drink). RL can then learn where to eat or drink, which the code does not
    (what that was worth: docs/findings.md). Each is validated and recorded as reused from
    the library (its provenance is its author's); one that fails validation is left out.
    Returns them by name, and the deaths they answer ("starved in 11, dehydrated in 4 of
    the code's 32 failed episodes")."""
    shelf = ctx.shelf
    ends = code_alone.evaluation.episode_ends or {}
    tree = world_info(ctx.settings.env).documentation().tech_tree
    failed = sum(n for end, n in ends.items() if end != "success")
    counted = tree.common_deaths(ends, failed)
    if not shelf.skills or not counted:
        return {}, ""
    # each way of dying in turn gives its next answer (zombies' four would crowd out food)
    per_end = [
        [(end, n, s) for job in tree.deaths[end][0] for s in shelf.doing([job])]
        for end, n in counted
    ]
    turns = [
        skills[i] for i in range(max(map(len, per_end))) for skills in per_end if i < len(skills)
    ]
    answers: dict[str, ValidatedAction] = {}
    answered: dict[str, int] = {}  # the ways of dying answered, and their episodes
    for end, n, skill in turns:
        if skill.name in coded or skill.name in answers or len(answers) >= MAX_DEATH_ANSWERS:
            continue
        version = ctx.record_code(skill.name, skill.source, 0, skill.origin)
        try:
            answers[skill.name] = validate(
                skill.name,
                skill.source,
                skill.docstring,
                version=version,
                policies=ctx.shelf.policies_called(skill.source),
            )
            answered[end] = n
        except CodeValidationError as error:
            ctx.emit(ev.CodeValidationFailed(subaction=skill.name, error=str(error), attempt=0))
    said = ", ".join(f"{end} in {n}" for end, n in answered.items())
    return answers, f"{said} of the code's {failed} failed episodes"


def evaluate_sampled(
    ctx: StepContext, sub: SubAction, trained: Trained, mode: EvalResult, best: float | None
) -> tuple[EvalResult, bool | None, str]:
    """A policy that started from code is evaluated by its mode (the code, until PPO learns
    better). When that code does not finish the task alone (a navigation routine), the
    mode can measure far below what the policy did in training, where it sampled. Then
    the policy is evaluated again as trained (sampled) on the same worlds, and the higher
    measurement is kept. Returns the kept evaluation, how the policy acts (``False``:
    sampled; ``None``: the default) and a note for the slow agent ("" when not needed)."""
    config = trained.config
    subject = f"{sub.name} (RL policy, sampled as trained)"

    def sampled() -> EvalResult:
        ctx.emit(
            ev.EvaluationDone(
                subject=f"{sub.name} (RL policy, its mode: mostly {config.start.action})",
                result=mode.summary(),
            )
        )
        model = trained.result.model
        return evaluate_solution(
            ctx, subject, config, model, best=best, env=trained.env, deterministic=False
        )

    acts = mode_or_sampled(config, trained.result.history, mode, sampled)
    if acts.in_training is None or acts.sampled is None:
        return mode, None, ""
    fmt = ctx.task.measure.show
    note = (
        f"the policy's mode (mostly {config.start.action}) measured {fmt(mode.value)}, below "
        f"its training episodes' {fmt(acts.in_training)}; sampled as trained it measured "
        f"{fmt(acts.sampled.value)}"
    )
    if acts.deterministic is None:
        return mode, None, note + ": the mode is kept"
    return acts.kept, False, note + ": the policy acts sampled"


def configure_rl(
    ctx: StepContext,
    sub: SubAction,
    coded: dict[str, ValidatedAction],
    budget: int,
    checkpoints: Path | None,
    best_code: Candidate | None,
    last_policy: Policy | None,
    added: Sequence[str] = (),
) -> Configured:
    """The fast agent's RL configuration for ``sub`` (defaults when its answer fails or
    does not validate), starting from the best code so far, with ``added`` (the engine's)
    beside its actions and a person's RL edit on top; open-ended play continues
    ``last_policy`` when the action table extends it."""
    s, task = ctx.settings, ctx.task
    agent_notes = []
    ctx.phase("coding", f"{sub.name} (RL configuration)")
    try:
        answer = ctx.team.fast.write_rl(task, sub, list(coded), env=s.env)
    except LLMAnswerError as error:
        message = (
            f"the fast agent's RL answer failed ({error}): training with the plan's "
            "high-level actions and default settings"
        )
        agent_notes.append(f"{sub.name}: {message}")
        ctx.emit(ev.RLConfigValidationFailed(subaction=sub.name, error=message))
        answer = RLAnswer()
    # PPO gets the plan's high-level actions unless the RL answer changes them
    planned = list(sub.high_level_actions)
    wanted = planned if answer.high_level_actions is None else answer.high_level_actions
    skill = learned_as_skill(sub, task.name)
    notes = []
    if skill:  # the records assigned it: its policy is to be a skill code calls
        if wanted or added or best_code is not None:
            notes.append(
                "over primitive actions only (code fell short at it: its policy is to be a "
                "skill code calls)"
            )
        wanted, added, best_code = [], (), None
    chosen = [n for n in wanted if n in coded]
    if (
        not skill
        and answer.high_level_actions is not None
        and sorted(set(wanted)) != sorted(planned)
    ):
        notes.append(f"the fast agent changed the plan's {planned} to {wanted}")
    if [n for n in wanted if n not in coded]:
        missing = [n for n in wanted if n not in coded]
        notes.append(f"left out (no valid code): {', '.join(missing)}")
    chosen += [n for n in added if n not in chosen]  # the engine's, whatever the answer
    specs = [CodedActionSpec.of(coded[n]) for n in chosen]  # validated: not again
    base = {
        "task": task.name,
        "env": s.env,
        "coded_actions": specs,
        **ctx.training_fields(budget, checkpoints),
    }
    start_from = answer.start_from if answer.start_from in chosen else None
    if start_from is None and best_code is not None:  # RL starts from the best code so far
        spec = next(c for c in best_code.config.coded_actions if c.name == best_code.only_coded)
        if spec.name in chosen:
            start_from = spec.name
        elif spec.name not in coded:
            base["coded_actions"] = [*specs, spec]
            start_from = spec.name
            notes.append(f"starts from {spec.name}, the best code alone so far")
    try:
        config = RLConfig(
            **base,
            observation=answer.observation,
            reward_code=answer.reward_code,
            primitives=answer.primitives,
            start={"action": start_from},
        )
        if config.reward_code:
            RewardCode(config.reward_code)  # validate before training
    except (ValidationError, CodeValidationError) as error:
        ctx.emit(ev.RLConfigValidationFailed(subaction=sub.name, error=str(error).splitlines()[0]))
        config = RLConfig(**base, start={"action": start_from})
    config = apply_rl_edits(ctx, sub.name, config)
    # open-ended play: one policy keeps learning while the library grows
    continued = policy_to_continue(last_policy, sub.name, config) if task.scored else None
    if continued is not None:
        notes.append("PPO continues the last iteration's policy (new actions appended)")
    return Configured(config, planned, notes, agent_notes, continued)


def resumed_configuration(
    ctx: StepContext,
    sub: SubAction,
    coded: dict[str, ValidatedAction],
    rl_config: dict[str, Any],
    samples_before: int = 0,
) -> Configured:
    """The training run that was cut off (its recorded ``rl_config``; ``samples_before``:
    what a library policy it started from had been trained on), with the person's RL
    edits on top (pending ones are carried over a resume), from its last checkpoint when
    the edits leave the policy's shape and training unchanged (samples, checkpointing);
    otherwise a fresh training of the edited configuration."""
    before = (
        RLConfig.model_validate(rl_config)
        .carry_validation(coded)
        .load_policies(ctx.shelf.policies_called)
    )
    config = apply_rl_edits(ctx, sub.name, before)
    same = {"samples", "checkpoint_every"}
    fits = before.model_dump(exclude=same) == config.model_dump(exclude=same)
    note = "continues its checkpoint" if fits else "restarts: the RL edit changes the policy"
    planned = list(sub.high_level_actions)
    return Configured(config, planned, [note], from_checkpoint=fits, samples_before=samples_before)


def start_training(
    ctx: StepContext, sub: SubAction, configured: Configured, checkpoints: Path | None
) -> None:
    """A ``TrainingStarted`` event (the control plane takes its configuration as the base
    of RL edits, :meth:`~rlgpt_tui.engine.control.ControlPlane.follow`)."""
    config = configured.config
    ctx.emit(
        ev.TrainingStarted(
            subaction=sub.name,
            config=config.model_dump(mode="json", exclude={"coded_actions"})
            | {
                "coded_actions": [c.name for c in config.coded_actions],
                "plan_high_level_actions": configured.planned,
                "high_level_actions_note": "; ".join(configured.notes),
            },
            rl_config=config.model_dump(mode="json"),
            checkpoint_dir=str(checkpoints) if checkpoints else None,
        ),
    )
