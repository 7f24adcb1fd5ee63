"""The code step: the inner loop of each coded sub-action.

Write code (a person's edit, else the fast agent's, approved), validate it, run one call in
a few fresh worlds, let the critic judge, and repair, up to ``max_repairs`` times. A plan of
code alone runs its steps in order, in rounds (its routine is called again each time it
returns; a step whose tool is held or whose station is in sight skipped, see
:func:`~rlgpt_tui.library.compose.round_guard`), and so do a step's critic runs: the earlier
steps' kept code runs as the plan runs it, then the step, round after round (up to
:data:`PLAN_ROUNDS`) until the step's call gains something or fails in each world; the
critic sees, per world, the call of the first round that did (place_table in round 2,
once two calls of a one-wood collect_wood made its 2 wood). The
last valid code is kept with its verdict. Code the session already ran (the same source, e.g.
a library skill planned again, or a repair that returns the code unchanged) is not run
again: its validation is kept and the critic judges its recorded sample runs
(:class:`Sampled`); the validating and critic runs' phases say from which iteration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rlgpt_tui.agents.runs import (
    Execution,
    changed_runs,
    gains,
    idle_runs,
    run_errors,
    unmet_needs,
    waits_on_earlier,
)
from rlgpt_tui.agents.schemas import Plan, SubAction, Verdict
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import CodeEdit
from rlgpt_tui.engine.steps.context import ProposalRejected, StepContext
from rlgpt_tui.engine.steps.critic import judge_code
from rlgpt_tui.engine.steps.edits import apply_code_edit
from rlgpt_tui.envs import make_world
from rlgpt_tui.envs.knowledge import Recipes
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.llm.client import LLMAnswerError
from rlgpt_tui.rl.episodes import run_one_call_each
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.validation import ValidatedAction, validate

#: the most rounds of a code-alone plan's steps a step's critic runs follow
PLAN_ROUNDS = 4


@dataclass
class CodeStep:
    """The code step's results: each coded sub-action's kept code (those with valid code)
    and verdict, notes for the slow agent of what went wrong, and the sample runs it made
    (the session's latest of each sub-action, for later steps to reuse)."""

    coded: dict[str, ValidatedAction] = field(default_factory=dict)
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sampled: dict[str, Sampled] = field(default_factory=dict)

    @property
    def code(self) -> dict[str, str]:
        """Each sub-action's kept source (the session's code table takes them)."""
        return {name: action.source for name, action in self.coded.items()}

    @classmethod
    def replayed(
        cls, plan: Plan, judged: Mapping[str, tuple[str, Verdict]], shelf: SkillShelf | None = None
    ) -> CodeStep:
        """The results of ``plan``'s code loops a cut-off run had recorded (``judged``:
        each one's kept source, '' for none, and verdict), its code validated again (this
        may be a new process) with the policy skills it calls (``shelf``'s), in the plan's
        order."""
        step = cls()
        for sub in plan.coded():
            if sub.name in judged:
                source, step.verdicts[sub.name] = judged[sub.name]
                if source:
                    policies = shelf.policies_called(source) if shelf is not None else ()
                    step.coded[sub.name] = validate(
                        sub.name, source, sub.description, policies=policies
                    )
        return step


@dataclass(frozen=True)
class Sampled:
    """A coded action's sample runs: the validated code they ran and the iteration that
    ran them."""

    action: ValidatedAction
    iteration: int
    runs: list[Execution]
    lead_in: tuple[str, ...] = ()  # the earlier steps' sources run first in each world
    rounds: int = 1  # the most rounds of the lead-in and the step the runs followed

    @property
    def source(self) -> str:
        return self.action.source


@dataclass
class Attempt:
    """One attempt at code for a sub-action."""

    action: ValidatedAction | None  # None: no valid code from this attempt
    source: str | None  # the code tried (the previous code when none was written)
    error: str = ""  # why there is no valid code
    answer_failed: bool = False  # the fast agent's answer failed: no more attempts
    note: str | None = None  # for the slow agent


def code_step(
    ctx: StepContext,
    plan: Plan,
    code: Mapping[str, str],
    sampled: Mapping[str, Sampled],
    done: CodeStep | None = None,
) -> CodeStep:
    """The code loop of each of ``plan``'s coded sub-actions, in order. ``code``: the
    session's code of each sub-action so far (what a person's edit replaces); ``sampled``:
    the session's last sample runs of each (code run before is not run again). ``done``:
    the results this iteration already has (a resumed run's, replayed): those sub-actions
    are not run again, their results are kept. Neither is changed: the results, with the
    new sample runs, are returned."""
    done = done or CodeStep()
    runs = dict(sampled)  # this step's view: the session's runs, then its own
    step = CodeStep()
    in_order = not plan.learned()  # code alone: the steps run in order, in rounds
    rounds = PLAN_ROUNDS if in_order else 1
    for sub in plan.coded():
        lead_in = list(step.coded.values()) if in_order else []  # the steps before, in order
        ctx.safe_point()
        if sub.name in done.verdicts:  # this iteration has its result already
            step.verdicts[sub.name] = done.verdicts[sub.name]
            if sub.name in done.coded:
                step.coded[sub.name] = done.coded[sub.name]
            continue
        failed = [n for n, v in step.verdicts.items() if not v.success] if in_order else []
        action, verdict, notes = code_loop(
            ctx, sub, code.get(sub.name, ""), runs, lead_in, rounds, failed
        )
        step.notes += notes
        if action is not None:
            step.coded[sub.name] = action
        step.verdicts[sub.name] = verdict
        ctx.emit(
            ev.SubActionDone(
                subaction=sub.name,
                mode="code",
                code=action.source if action else "",
                **verdict.model_dump(),
            ),
        )
    step.sampled = {name: r for name, r in runs.items() if sampled.get(name) is not r}
    return step


def code_loop(
    ctx: StepContext,
    sub: SubAction,
    current: str,
    sampled: dict[str, Sampled],
    lead_in: Sequence[ValidatedAction] = (),
    rounds: int = 1,
    failed_before: Sequence[str] = (),
) -> tuple[ValidatedAction | None, Verdict, list[str]]:
    """Write, run, judge and repair ``sub``'s code: the last valid code (None: none), its
    verdict, and notes of what went wrong with the agents' answers. ``current``: the
    session's code of ``sub`` so far (what a person's edit replaces); ``sampled``: the
    code step's sample runs of each sub-action (code run before is not run again; new
    runs are added);
    ``lead_in``: earlier steps whose code runs first in each sample world, and ``rounds``
    the most rounds of them and the step (see :func:`sample_runs`); ``failed_before``: the
    earlier steps that failed (a step whose runs lack only what those make is neither judged
    nor repaired: :func:`~rlgpt_tui.agents.runs.waits_on_earlier`)."""
    action = verdict = None  # the last valid code and its verdict
    judged: list[tuple[ValidatedAction, Verdict, int]] = []  # each with its runs' gains
    notes: list[str] = []
    previous = problem = None
    runs: list[Execution] = []  # the last sample runs
    failed_answer = ""
    docs = world_info(ctx.settings.env).documentation()
    recipe = docs.step(sub.name)  # the world's step of this name, if any
    for attempt in range(ctx.settings.max_repairs + 1):
        tried = write_code(ctx, sub, attempt, previous, problem, current, sampled.get(sub.name))
        if tried.note:
            notes.append(tried.note)
        if tried.answer_failed:  # kept: the last valid code, if any
            failed_answer = tried.error
            break
        if tried.action is None:
            previous, problem = tried.source, tried.error
            continue
        action, source = tried.action, tried.source
        runs = runs_of(ctx, sub.name, action, sampled, lead_in, rounds)
        waiting = waits_on_earlier(runs, sub.name, recipe, failed_before)
        if waiting:
            verdict = Verdict(success=False, reason=waiting)
            ctx.emit(ev.VerdictGiven(subaction=sub.name, **verdict.model_dump()))
            judged.append((action, verdict, changed_runs(runs)))
            break
        verdict, note = judge_code(ctx, sub, runs)
        if note:  # no verdict: the critic's answer failed
            notes.append(note)
            break
        judged.append((action, verdict, changed_runs(runs)))
        if verdict.success or source == previous:  # passed, or no new code to try
            break
        previous = source
        problem = _repair_problem(verdict, runs)
    if judged and verdict is not None and not verdict.success:
        favoured = _favoured_version(judged)  # no version passed: the one its runs favour
        if favoured is not None:
            action, verdict = favoured
    if verdict is not None and not verdict.success and runs:
        steps = ctx.task.steps(docs)
        note = unmet_needs(sub.name, steps, runs)
        if note:
            notes.append(note)
    if action is None:
        reason = (
            f"no valid code: the fast agent's answer failed ({failed_answer})"
            if failed_answer
            else "no valid code after repairs"
        )
        verdict = Verdict(success=False, reason=reason)
        ctx.emit(ev.VerdictGiven(subaction=sub.name, **verdict.model_dump()))
    assert verdict is not None  # every valid code was judged (or waits on earlier steps)
    return action, verdict, notes


def _repair_problem(verdict: Verdict, runs: list[Execution]) -> str:
    """What the fast agent is asked to repair: the critic's reason and suggestion, and
    what went wrong in the runs (errors, idle calls)."""
    return " ".join(
        filter(
            None,
            [f"{verdict.reason}.", verdict.suggestion, run_errors(runs), idle_runs(runs)],
        )
    )


def _favoured_version(
    judged: list[tuple[ValidatedAction, Verdict, int]],
) -> tuple[ValidatedAction, Verdict] | None:
    """Of judged versions none of which passed, the one whose runs added to the inventory
    or achievements most often (the later on a tie), its verdict saying why it is kept;
    None when that is the last one judged."""
    kept = max(range(len(judged)), key=lambda i: (judged[i][2], i))
    if kept == len(judged) - 1:
        return None
    action, verdict, _ = judged[kept]

    def label(i: int) -> str:  # the code version, or (nothing recorded) the try
        version = judged[i][0].version
        return f"v{version}" if version is not None else f"try {i + 1}"

    counts = ", ".join(f"{label(i)}: {n}" for i, (_, _, n) in enumerate(judged))
    kept_because = (
        f"no version passed the critic: {label(kept)} kept, whose runs added to "
        f"the inventory or achievements most often (runs that did: {counts})"
    )
    return action, verdict.model_copy(
        update={"reason": f"{verdict.reason} ({kept_because})"[:2000]}
    )


def write_code(
    ctx: StepContext,
    sub: SubAction,
    attempt: int,
    previous: str | None,
    problem: str | None,
    current: str,
    earlier: Sampled | None = None,
) -> Attempt:
    """Validated code for ``sub``: a person's queued edit if there is one, else the fast
    agent's (repairing ``previous`` for ``problem``), approved, recorded and validated
    (unless it is ``earlier``'s code, validated then: kept, as this version). ``current``:
    the session's code of ``sub`` (what a person's edit replaces)."""
    edit = ctx.control.take(CodeEdit, sub.name)
    if edit is not None:
        action = apply_code_edit(ctx, sub, edit, attempt, current)
        return Attempt(action, action.source)
    ctx.phase("coding", sub.name)
    try:
        source = ctx.team.fast.write_code(ctx.task, sub, previous, problem)
    except LLMAnswerError as error:
        message = f"the fast agent's answer failed: {error}"
        ctx.emit(ev.CodeValidationFailed(subaction=sub.name, error=message, attempt=attempt))
        return Attempt(None, previous, str(error), True, f"{sub.name}: {message}")
    try:
        source = ctx.approve("code", sub.name, source)
    except (ValueError, ProposalRejected) as error:  # no template, or a person said no
        message = str(error)
        if isinstance(error, ProposalRejected):
            message = f"rejected by a person: {error}"
        ctx.emit(ev.CodeValidationFailed(subaction=sub.name, error=message, attempt=attempt))
        return Attempt(None, previous, message)
    origin = getattr(ctx.team.fast, "origin", "agent")  # library:<author> if reused
    version = ctx.record_code(sub.name, source, attempt, origin)
    before = earlier.action if earlier is not None else None
    if (
        earlier is not None
        and before is not None
        and (before.source, before.description) == (source, sub.description)
    ):
        ctx.phase("validating", f"{sub.name}: kept, validated in iteration {earlier.iteration + 1}")
        return Attempt(before.with_version(version), source)
    ctx.phase("validating", sub.name)
    try:
        action = validate(
            sub.name,
            source,
            sub.description,
            version=version,
            policies=ctx.shelf.policies_called(source),
        )
    except CodeValidationError as error:
        ctx.emit(ev.CodeValidationFailed(subaction=sub.name, error=str(error), attempt=attempt))
        return Attempt(None, source, str(error))
    return Attempt(action, source)


def runs_of(
    ctx: StepContext,
    name: str,
    action: ValidatedAction,
    sampled: dict[str, Sampled],
    lead_in: Sequence[ValidatedAction] = (),
    rounds: int = 1,
) -> list[Execution]:
    """The sample runs the critic judges of ``action`` (sub-action ``name``): those the
    session recorded of the same code after the same earlier steps (its critic runs' phase
    says so, and from which iteration), else new ones, recorded in ``sampled``."""
    earlier = sampled.get(name)
    first = tuple(a.source for a in lead_in)
    if earlier is not None and (earlier.source, earlier.lead_in, earlier.rounds) == (
        action.source,
        first,
        rounds,
    ):
        ctx.phase("critic runs", f"{name}: reused, iteration {earlier.iteration + 1}'s runs")
        return earlier.runs
    after = f" after {', '.join(a.name for a in lead_in)}" if lead_in else ""
    more = f" (up to {rounds} rounds of the plan)" if rounds > 1 else ""
    ctx.phase("critic runs", f"{name}{after}{more}", total=ctx.settings.critic_runs)
    runs = sample_runs(ctx, action, lead_in, rounds)
    sampled[name] = Sampled(action, ctx.iteration, runs, first, rounds)
    return runs


def sample_runs(
    ctx: StepContext,
    action: ValidatedAction,
    lead_in: Sequence[ValidatedAction] = (),
    rounds: int = 1,
) -> list[Execution]:
    """A call of ``action`` in each of a few fresh worlds, with its Views before and after
    (and frames, for a critic that sees images). In rounds: one call of each ``lead_in``
    step, then ``action``'s, again until its call gained something (the inventory or the
    achievements) or failed (an error, a timeout, ...) in every world, at most ``rounds``
    times; each world's run is its call of the first round that did, else of the last."""
    s = ctx.settings
    earlier = _lead_in_routine(lead_in, ctx.recipes, action.name)
    seed = s.seed + 7919 * (ctx.iteration + 1)
    world = make_world(s.env, s.critic_runs, seed=seed, task=s.task)
    world.reset(seed)
    shown = range(min(3, s.critic_runs)) if ctx.team.wants_frames else range(0)
    kept: list[Execution] = []
    for round_ in range(1, rounds + 1):
        for routine in earlier:
            run_one_call_each(world, routine)
        first = {i: world.frame(i, 144) for i in shown}  # for a critic that sees images
        before, after, calls = run_one_call_each(world, action)
        frames = {i: (first[i], world.frame(i, 144)) for i in shown}
        runs = [
            Execution(b, a, c.steps, c.end, c.detail, frames.get(i), round_)
            for i, (b, a, c) in enumerate(zip(before, after, calls, strict=True))
        ]
        if kept:  # a world whose step gained or failed keeps that round's run
            runs = [old if _settled(old) else new for old, new in zip(kept, runs, strict=True)]
        kept = runs
        if all(_settled(run) for run in kept):
            break
    world.close()
    return kept


def _lead_in_routine(
    lead_in: Sequence[ValidatedAction], recipes: Recipes | None, step: str
) -> list[ValidatedAction]:
    """The earlier steps as the plan runs them before ``step``: one routine calling each
    once, a step whose work is already done in a world, or whose materials are not there
    yet, skipped (:func:`round_guard`); each step on its own where they cannot be composed."""
    if not lead_in:
        return []
    try:
        composed = compose_sources([(a.name, a.source) for a in lead_in], recipes, [step])
        policies = {p.name: p for a in lead_in for p in a.policies}  # what the steps call
        return [validate(COMPOSED_PLAN, composed, policies=tuple(policies.values()))]
    except CodeValidationError:
        return list(lead_in)


def _settled(run: Execution) -> bool:
    """Did the call gain something, or fail? Later rounds would not change what it shows."""
    return run.end.failure or bool(gains(run))
