"""The two loops of RL-GPT.

Inner loop (per sub-action): the fast agent writes code or an RL configuration, the world
runs it (sampled executions, or PPO training and evaluation), the critic judges, and the
fast agent repairs, up to ``max_repairs`` times. Outer loop (per iteration): the slow agent
proposes or revises the decomposition from the critic's verdicts and the task's success
rate. It stops at the target success rate or at a budget (iterations, samples, tokens).

The engine emits typed events, pauses at safe points (before each plan and each
sub-action, and between PPO rollouts), and applies the human edits of its control plane
(``engine/control.py``) there: a code edit reaches a running training between two
rollouts (the coded action is swapped in the action table, same index, same policy).
An optional ``approver`` sees each agent proposal before it is used.
A run can continue a recorded one (``ResumeState``, rebuilt from its events): finished
iterations are kept, the unfinished one reuses its plan and judged code, and cut-off
training continues from its checkpoint.
It never imports Textual.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rlgpt_tui.agents.base import AgentTeam, Execution, IterationFeedback
from rlgpt_tui.agents.schemas import Plan, RLAnswer, SubAction, Verdict
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import (
    CODE,
    FRESH_SEED,
    Candidate,
    Candidates,
    FinalChoice,
    choose,
    fresh_episodes,
)
from rlgpt_tui.engine.control import (
    CodeEdit,
    ControlPlane,
    EditRefused,
    PlanEdit,
    RLConfigEdit,
    StopRequested,
    check_rl_changes,
)
from rlgpt_tui.engine.ends import EndKind, RunEnd
from rlgpt_tui.engine.resume import ResumeState
from rlgpt_tui.engine.solution import StageSolution
from rlgpt_tui.envs import make_world
from rlgpt_tui.llm.client import LLMAnswerError, LLMError
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.decide import AgainstTarget
from rlgpt_tui.rl.train import build_env, evaluate, load_checkpoint, train
from rlgpt_tui.skills.compose import compose_sources
from rlgpt_tui.skills.episodes import EpisodeTally, run_one_call_each
from rlgpt_tui.skills.pool import SandboxUnavailable
from rlgpt_tui.skills.sandbox import CodeValidationError
from rlgpt_tui.skills.validation import ValidatedAction, validate
from rlgpt_tui.tasks import Measure, Measurement, Task, get_task

EventHandler = Callable[[ev.Event], None]
Approver = Callable[[str, str, Any], Any]


@dataclass
class EngineSettings:
    """Budgets and targets of one engine run."""

    task: str
    env: str = "craftax"
    num_envs: int = 64
    seed: int = 0
    max_iterations: int = 4
    target: float | None = None  # in the task's measure; None: its default (0.9, or 50.5)
    samples_per_iteration: int | None = None  # None: 30,000; scored tasks share the budget
    max_samples: int = 200_000
    max_tokens: int | None = None
    max_repairs: int = 2
    eval_episodes: int = 64
    critic_runs: int = 8
    artifacts_dir: str | None = None  # checkpoints go here (a session's folder)
    checkpoint_every: int = 2  # rollouts between training checkpoints

    @classmethod
    def from_recorded(cls, data: dict[str, Any]) -> EngineSettings:
        """Settings as a session recorded them (older sessions: ``target_success``)."""
        data = dict(data)
        if "target_success" in data:
            data.setdefault("target", data.pop("target_success"))
        return cls(**data)

    def target_for(self, task: Task) -> float:
        """The target in ``task``'s measure."""
        return self.target if self.target is not None else task.measure.default_target

    def iteration_budget(self, task: Task) -> int:
        """Training samples per iteration: as set, else 30,000; a scored task (open-ended
        play, judged at the whole budget) spreads the budget over its iterations."""
        if self.samples_per_iteration is not None:
            return self.samples_per_iteration
        if task.scored:
            return max(self.max_samples // max(self.max_iterations, 1), 1)
        return 30_000


@dataclass
class EngineResult:
    """How the run ended, with its measured history."""

    end: RunEnd
    best: float  # the best iteration's value of the task's measure
    total_samples: int
    tokens: int
    history: list[IterationFeedback] = field(default_factory=list)
    final_code: dict[str, str] = field(default_factory=dict)
    measure: Measure = Measure.SUCCESS_RATE
    run: Measurement | None = None  # scored tasks: over every training episode of the run
    final: FinalChoice | None = None  # the candidates' fresh evaluation and the one kept

    @property
    def reason(self) -> str:
        """The recorded text of :attr:`end` (``target reached``, ``error: ...``)."""
        return self.end.text


class ProposalRejected(Exception):
    """Raised by an approver to reject an agent's proposal (a plan or code)."""


class _AnswerFailed(Exception):
    """The fast agent's answer for a sub-action failed after its repair rounds."""


MAX_PLAN_REJECTIONS = 3


class Engine:
    """Runs the two loops for one task with one agent team, emitting events."""

    def __init__(
        self,
        settings: EngineSettings,
        team: AgentTeam,
        on_event: EventHandler,
        resume: ResumeState | None = None,
        control: ControlPlane | None = None,
    ):
        self.settings = settings
        self.team = team
        self.on_event = on_event
        self.approver: Approver | None = None  # approver(kind, target, proposal) -> proposal
        # on_frame(rgb) receives env 0's frame during training, at most every frame_interval s
        self.on_frame: Callable[[Any], None] | None = None
        self.frame_interval = 0.5
        self.resume_state = resume
        client = getattr(team, "client", None)
        if client is not None:
            client.on_call = self._llm_called
        # pause, stop and human edits; shared by every stage engine of a chain
        self.control = control or ControlPlane(settings.task)
        self.control.task = settings.task
        self.control.attach(on_event, lambda: (self.iteration, self.team.label))
        self.close_control_at_end = True  # a chain closes it after its last stage
        self._total_before = 0  # the session's samples before the current training run
        self._tokens_before = resume.tokens if resume else 0
        self.iteration = 0
        self.code: dict[str, str] = {}
        self.solution: StageSolution | None = None  # the best iteration's policy or code
        self._candidate: StageSolution | None = None
        self._notes: list[str] = []  # what went wrong with agent answers this iteration
        self._evaluation: dict[str, Any] = {}  # this iteration's final evaluation summary
        self._training: dict[str, Any] = {}  # scored tasks: what its training episodes unlocked
        self.run_tally = EpisodeTally()  # scored tasks: every training episode of the session
        self.candidates = Candidates()  # the best solution of each kind, for the final choice
        self._last_policy: tuple[str, RLConfig, Any] | None = None  # (sub-action, config, PPO)
        self._continued = None  # the policy the next training continues (scored tasks)
        self._trained_total = 0  # the session's samples trained so far (a cut-off run's too)
        # where the run is, for edits that could no longer take effect (see _edit_would_apply)
        self.phase = ""
        self._plan: Plan | None = None  # this iteration's plan, once made
        self._coded_done: set[str] = set()  # sub-actions whose code loop ended this iteration
        self._training_actions: set[str] = set()  # coded actions of the running training
        self._training_begun = False  # this iteration's training has started
        self._last_iteration = False  # no iteration can follow this one
        self._last_progress = 0.0
        self.control.would_apply = self._edit_would_apply

    @property
    def tokens(self) -> int:
        """LLM tokens of this session, including those spent before a resume."""
        return self._tokens_before + self.team.tokens

    def _safe_point(self) -> None:
        self.control.safe_point()

    def _phase(self, phase: str, detail: str = "", total: int | None = None) -> None:
        """The run enters ``phase`` (planning, coding, validating, critic runs, world,
        training, evaluating, critic, final evaluation): a ``PhaseStarted`` event."""
        self.phase = phase
        self._emit(ev.PhaseStarted, phase=phase, detail=detail, total=total)

    def _final_progress(self, done: int, total: int) -> None:
        """Episodes ended so far in an evaluation (at most one event a second, and the last);
        no safe point: the final choice's evaluations use it as is (the run is ending, a
        person's stop included, and its result is measured either way)."""
        now = time.monotonic()
        if done == total or now - self._last_progress >= 1.0:
            self._last_progress = now
            self._emit(ev.PhaseProgress, phase=self.phase, done=done, total=total)

    def _evaluation_progress(self, done: int, total: int) -> None:
        """Episodes ended so far in an evaluation; pause and stop are taken here too."""
        self._final_progress(done, total)
        self._safe_point()

    def _edit_would_apply(self, what: str, target: str) -> str | None:
        """Why an edit of ``what`` for ``target`` made now could never take effect (None: it
        can). Only the run's last iteration refuses: later iterations take any edit."""
        if not self.close_control_at_end or self._plan is None:
            return None  # a chain (a later stage may use it), or this iteration's plan to come
        last = self.iteration >= self.settings.max_iterations - 1 or self._last_iteration
        if not last:
            return None
        here = f"iteration {self.iteration + 1} is the session's last"
        if what == "plan":
            return f"{here} and its plan is made: no later plan would use this edit"
        if what == "code":
            coded = {sub.name for sub in self._plan.coded()}
            if target in self._training_actions or (
                target in coded and target not in self._coded_done
            ):
                return None
            return f"{here} and {target} is no longer coded or trained in it: nothing would run it"
        if what == "rl_config":
            learned = [sub.name for sub in self._plan.learned()]
            if target in learned and not self._training_begun:
                return None
            return f"{here} and no training of {target} starts after now"
        return None

    def _emit(self, kind: type[ev.Event], **data: Any) -> Any:
        """Send an event; returns what the handler returns (a store's sequence number)."""
        return self.on_event(kind(iteration=self.iteration, agent=self.team.label, **data))

    def _llm_called(self, call) -> None:
        data = call.as_dict()
        data.pop("started", None)
        self._emit(ev.LLMCalled, **data)

    def _note(self, text: str) -> None:
        """Something went wrong with an agent's answer: the slow agent hears of it."""
        self._notes.append(text)

    def _approve(self, kind: str, target: str, proposal: Any) -> Any:
        return proposal if self.approver is None else self.approver(kind, target, proposal)

    # -- the outer loop -------------------------------------------------------------------
    def run(self) -> EngineResult:
        s = self.settings
        task = get_task(s.task)
        target = s.target_for(task)
        resume = self.resume_state
        history: list[IterationFeedback] = []
        total, best, end, first = 0, 0.0, RunEnd(EndKind.FINISHED), 0
        self.run_tally = resume.tally if resume else EpisodeTally()
        if resume is None:
            self._emit(ev.SessionStarted, task=s.task, env=s.env, settings=asdict(s))
        else:
            history, total, best = list(resume.history), resume.total_samples, resume.best
            self.code = dict(resume.code)
            first = self.iteration = resume.next_iteration
            self._emit(
                ev.SessionResumed,
                total_samples=total,
                training_samples_done=resume.training_samples_done(self._checkpoint_dir),
                edits_carried=[e.id for e in self.control.pending()],
            )
        try:
            for self.iteration in range(first, s.max_iterations):
                self._safe_point()
                self._candidate = None
                self._notes = []
                self._evaluation, self._training = {}, {}
                self._plan, self._coded_done, self._training_begun = None, set(), False
                self._last_iteration = False
                unfinished = resume if resume and self.iteration == resume.next_iteration else None
                plan = unfinished.plan if unfinished and unfinished.plan else None
                plan = plan or self._next_plan(task, history)
                self._plan = plan
                verdicts: dict[str, Verdict] = {}
                coded = self._inner_code_loop(task, plan, verdicts, unfinished)
                learned = plan.learned()
                if learned:
                    budget = min(s.iteration_budget(task), s.max_samples - total)
                    if budget <= 0:
                        end = RunEnd(EndKind.SAMPLE_BUDGET)
                        break
                    self._total_before = total
                    self._last_iteration = total + budget >= s.max_samples
                    training = unfinished.training if unfinished else None
                    value, samples = self._inner_rl_loop(
                        task, learned[0], coded, budget, verdicts, training
                    )
                    total += samples
                else:
                    value, samples = self._evaluate_code_only(task, plan, coded), 0
                if value > best or self.solution is None:
                    self.solution = self._candidate
                best = max(best, value)
                history.append(
                    IterationFeedback(
                        self.iteration,
                        plan,
                        verdicts,
                        value,
                        samples,
                        {"notes": list(self._notes)} if self._notes else {},
                        task.measure,
                        self._evaluation,
                    )
                )
                self._emit(
                    ev.IterationDone,
                    plan=plan.summary(),
                    value=value,
                    samples=samples,
                    total_samples=total,
                    tokens=self.tokens,
                    measure=task.measure.value,
                    evaluation=self._evaluation,
                    training=self._training,
                )
                if value >= target:
                    end = RunEnd(EndKind.TARGET)
                    break
                if total >= s.max_samples:
                    end = RunEnd(EndKind.SAMPLE_BUDGET)
                    break
                if s.max_tokens is not None and self.tokens >= s.max_tokens:
                    end = RunEnd(EndKind.TOKEN_BUDGET)
                    break
        except StopRequested:
            end = RunEnd(EndKind.STOPPED)
            total = max(total, self._trained_total)  # the interrupted training's samples
        except (LLMError, SandboxUnavailable) as error:
            end = RunEnd.failed(error)
            self._emit(ev.EngineError, message=str(error))
        if self.close_control_at_end:  # a resumable end keeps pending edits for the resume
            why = f"the session ended ({end.text}) before a safe point used it"
            self.control.close(why, keep_pending=not end.ended_on_its_own)
        final = self._final_choice(task)
        scored_run = task.scored and len(self.run_tally)
        run = self.run_tally.measure(task, seed=s.seed) if scored_run else None
        self._emit(
            ev.SessionFinished,
            reason=end.text,
            end=end.kind.value,
            best=best,
            total_samples=total,
            tokens=self.tokens,
            measure=task.measure.value,
            run=run.as_dict() if run else {},
            result=final.as_dict() if final else {},
            stop_requested=self.control.stop_requested,
        )
        return EngineResult(
            end, best, total, self.tokens, history, dict(self.code), task.measure, run, final
        )

    def _final_choice(self, task: Task) -> FinalChoice | None:
        """The candidates evaluated again on fresh worlds; the best becomes the solution."""
        s = self.settings
        if not len(self.candidates):
            return None
        episodes = fresh_episodes(task, s.eval_episodes)

        def on_candidate(candidate: Candidate):
            self._phase("final evaluation", candidate.subject, total=episodes)
            return self._final_progress

        try:
            final = choose(
                self.candidates,
                task,
                episodes,
                FRESH_SEED + s.seed,
                s.target_for(task),
                on_candidate,
            )
        except (SandboxUnavailable, CodeValidationError) as error:
            self._emit(ev.EngineError, message=f"the final evaluation failed: {error}")
            return None
        self._emit(ev.SolutionChosen, candidates=final.candidates_dicts(), result=final.as_dict())
        self.solution = stage_solution(task, final.chosen)
        return final

    def _checkpoint_dir(self, iteration: int, subaction: str) -> Path | None:
        return checkpoint_folder(self.settings.artifacts_dir, iteration, subaction)

    def _next_plan(self, task, history) -> Plan:
        self._phase("planning", f"iteration {self.iteration + 1}")
        edit = self.control.take(PlanEdit)
        if edit is not None:
            edited = _drop_unknown_high_level_actions(edit.plan.model_copy(deep=True))
            before = history[-1].plan.summary() if history else ""
            self.control.applied(
                edit, f"before iteration {self.iteration + 1}'s plan", before, edited.summary()
            )
            self._emit(ev.PlanProposed, plan=edited.model_dump(), source="human")
            return edited
        for _ in range(MAX_PLAN_REJECTIONS):
            try:
                plan = _drop_unknown_high_level_actions(self.team.slow.plan(task, history))
            except LLMAnswerError as error:
                if not history:  # no plan at all: the session cannot go on
                    raise LLMError(f"no plan could be made: {error}") from None
                # one failed answer never ends a session: keep the last plan, say so
                message = f"the slow agent's answer failed ({error}); the previous plan is kept"
                self._note(message)
                self._emit(ev.EngineError, message=message)
                plan = history[-1].plan.model_copy(deep=True)
                self._emit(ev.PlanProposed, plan=plan.model_dump(), source="previous plan")
                return plan
            try:
                plan = _drop_unknown_high_level_actions(self._approve("plan", "", plan))
            except ProposalRejected as why:
                self._emit(ev.EngineError, message=f"plan rejected by a person: {why}")
                continue
            self._emit(ev.PlanProposed, plan=plan.model_dump())
            return plan
        raise StopRequested

    # -- inner loop for coded sub-actions -----------------------------------------------------
    def _inner_code_loop(
        self, task, plan: Plan, verdicts: dict[str, Verdict], unfinished: ResumeState | None
    ):
        coded: dict[str, ValidatedAction] = {}
        for sub in plan.coded():
            self._safe_point()
            done = unfinished.judged.get(sub.name) if unfinished else None
            if done is not None:  # judged before the session was cut off: reuse
                source, verdicts[sub.name] = done
                if source:
                    coded[sub.name] = validate(sub.name, source, sub.description)
                    self.code[sub.name] = source
                self._coded_done.add(sub.name)
                continue
            action = verdict = None  # the last valid code and its verdict
            previous = problem = None
            failed_answer = ""
            for attempt in range(self.settings.max_repairs + 1):
                try:
                    tried, source = self._code_for(task, sub, attempt, previous, problem)
                except _AnswerFailed as error:  # kept: the last valid code, if any
                    failed_answer = str(error)
                    break
                if tried is None:
                    previous, problem = source, self._last_error
                    continue
                action = tried
                self._phase("critic runs", sub.name, total=self.settings.critic_runs)
                runs = self._sample_runs(action)
                self._phase("critic", sub.name)
                try:
                    verdict = self.team.critic.judge_code(task, sub, runs)
                except LLMAnswerError as error:
                    verdict = Verdict(
                        success=False, reason=f"no verdict: the critic's answer failed ({error})"
                    )
                    self._note(f"{sub.name}: {verdict.reason}")
                    self._emit(ev.VerdictGiven, subaction=sub.name, **verdict.model_dump())
                    break
                self._emit(ev.VerdictGiven, subaction=sub.name, **verdict.model_dump())
                if verdict.success or source == previous:  # passed, or no new code to try
                    break
                previous = source
                problem = f"{verdict.reason}. {verdict.suggestion}"
            if action is None:
                reason = (
                    f"no valid code: the fast agent's answer failed ({failed_answer})"
                    if failed_answer
                    else "no valid code after repairs"
                )
                verdict = Verdict(success=False, reason=reason)
                self._emit(ev.VerdictGiven, subaction=sub.name, **verdict.model_dump())
            else:
                coded[sub.name] = action
                self.code[sub.name] = action.source
            verdicts[sub.name] = verdict
            self._coded_done.add(sub.name)
            self._emit(
                ev.SubActionDone,
                subaction=sub.name,
                mode="code",
                code=action.source if action else "",
                **verdict.model_dump(),
            )
        return coded

    _last_error = ""

    def _code_for(self, task, sub: SubAction, attempt, previous, problem):
        """Validated code for ``sub``: a human edit if there is one, else the fast agent's."""
        edit = self.control.take(CodeEdit, sub.name)
        if edit is not None:
            source, origin = edit.code, "human"
        else:
            self._phase("coding", sub.name)
            try:
                source = self.team.fast.write_code(task, sub, previous, problem)
            except LLMAnswerError as error:
                message = f"the fast agent's answer failed: {error}"
                self._last_error = message
                self._note(f"{sub.name}: {message}")
                self._emit(
                    ev.CodeValidationFailed, subaction=sub.name, error=message, attempt=attempt
                )
                raise _AnswerFailed(str(error)) from None
            try:
                source = self._approve("code", sub.name, source)
            except (ValueError, ProposalRejected) as error:  # no template, or a person said no
                message = str(error)
                if isinstance(error, ProposalRejected):
                    message = f"rejected by a person: {error}"
                self._last_error = message
                self._emit(
                    ev.CodeValidationFailed, subaction=sub.name, error=message, attempt=attempt
                )
                return None, previous
            origin = "agent"
        version = self._emit(
            ev.CodeWritten, subaction=sub.name, code=source, attempt=attempt, source=origin
        )
        version = version if isinstance(version, int) else None
        self._phase("validating", sub.name)
        try:
            if edit is not None:  # validated when the person made the edit
                action = replace(edit.action, description=sub.description, version=version)
            else:
                action = validate(sub.name, source, sub.description, version=version)
        except CodeValidationError as error:
            self._last_error = str(error)
            self._emit(
                ev.CodeValidationFailed, subaction=sub.name, error=str(error), attempt=attempt
            )
            if edit is not None:
                self.control.refused(edit, str(error).splitlines()[0])
            return None, source
        if edit is not None:
            at = f"before iteration {self.iteration + 1}'s code of {sub.name}"
            self.control.applied(edit, at, self.code.get(sub.name, ""), source, version=version)
        return action, source

    def _sample_runs(self, action: ValidatedAction) -> list[Execution]:
        """Run one call of ``action`` in each of a few fresh worlds; Views before and after."""
        s = self.settings
        seed = s.seed + 7919 * (self.iteration + 1)
        world = make_world(s.env, s.critic_runs, seed=seed, task=s.task)
        world.reset(seed)
        shown = range(min(3, s.critic_runs)) if self.team.wants_frames else range(0)
        first = {i: world.frame(i, 144) for i in shown}  # for a critic that sees images
        before, after, calls = run_one_call_each(world, action)
        frames = {i: (first[i], world.frame(i, 144)) for i in shown}
        world.close()
        return [
            Execution(b, a, c.steps, c.end, c.detail, frames.get(i))
            for i, (b, a, c) in enumerate(zip(before, after, calls, strict=True))
        ]

    # -- inner loop for the learned sub-action ------------------------------------------------
    def _inner_rl_loop(
        self, task, sub: SubAction, coded, budget: int, verdicts, training: dict | None = None
    ):
        self._safe_point()
        s = self.settings
        checkpoints = self._checkpoint_dir(self.iteration, sub.name)
        if training is not None and training.get("subaction") == sub.name:
            return self._resume_training(task, sub, coded, verdicts, training, checkpoints)
        self._phase("coding", f"{sub.name} (RL configuration)")
        try:
            answer = self.team.fast.write_rl(task, sub, list(coded), env=s.env)
        except LLMAnswerError as error:
            message = (
                f"the fast agent's RL answer failed ({error}): training with the plan's "
                "high-level actions and default settings"
            )
            self._note(f"{sub.name}: {message}")
            self._emit(ev.RLConfigValidationFailed, subaction=sub.name, error=message)
            answer = RLAnswer()
        # PPO gets the plan's high-level actions unless the RL answer changes them
        planned = list(sub.high_level_actions)
        wanted = planned if answer.high_level_actions is None else answer.high_level_actions
        chosen = [n for n in wanted if n in coded]
        notes = []
        if answer.high_level_actions is not None and sorted(set(wanted)) != sorted(planned):
            notes.append(f"the fast agent changed the plan's {planned} to {wanted}")
        if [n for n in wanted if n not in coded]:
            missing = [n for n in wanted if n not in coded]
            notes.append(f"left out (no valid code): {', '.join(missing)}")
        specs = [CodedActionSpec.of(coded[n]) for n in chosen]  # validated: not again
        base = {
            "task": task.name,
            "env": s.env,
            "num_envs": s.num_envs,
            "seed": s.seed + self.iteration,
            "samples": budget,
            "coded_actions": specs,
            "checkpoint_dir": checkpoints,
            "checkpoint_every": s.checkpoint_every,
        }
        start_from = answer.start_from if answer.start_from in chosen else None
        code = self.candidates.best.get(CODE)
        if start_from is None and code is not None:  # RL starts from the best code so far
            spec = next(c for c in code.config.coded_actions if c.name == code.only_coded)
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
                start_from=start_from,
            )
            if config.reward_code:
                from rlgpt_tui.skills.reward import RewardCode

                RewardCode(config.reward_code)  # validate before training
        except (ValidationError, CodeValidationError) as error:
            self._emit(
                ev.RLConfigValidationFailed, subaction=sub.name, error=str(error).splitlines()[0]
            )
            config = RLConfig(**base, start_from=start_from)
        config = self._apply_rl_edits(sub.name, config)
        # open-ended play: one policy keeps learning while the library grows
        self._continued = self._policy_to_continue(sub.name, config) if task.scored else None
        if self._continued is not None:
            notes.append("PPO continues the last iteration's policy (new actions appended)")
        self._emit_training_started(sub, config, planned, notes, checkpoints)
        return self._train_and_judge(task, sub, config, verdicts, checkpoints)

    def _apply_rl_edits(self, subaction: str, config: RLConfig) -> RLConfig:
        edit = self.control.take(RLConfigEdit, subaction)
        if edit is None:
            return config
        changes = edit.changes
        try:
            edited = check_rl_changes(changes, config.model_dump()).carry_validation(config)
        except EditRefused as why:  # valid when made, not with this training's config
            self.control.refused(edit, f"not valid with this training's configuration: {why}")
            return config
        old, new = config.model_dump(mode="json"), edited.model_dump(mode="json")
        self.control.applied(
            edit,
            f"start of iteration {self.iteration + 1}'s training of {subaction}",
            json.dumps({k: old[k] for k in changes}),
            json.dumps({k: new[k] for k in changes}),
        )
        return edited

    def _resume_training(self, task, sub: SubAction, coded, verdicts, training, checkpoints):
        """Continue the training run that was cut off: its recorded configuration with the
        person's RL edits on top (pending ones are carried over a resume), from its last
        checkpoint when the edits leave the policy's shape and training unchanged (samples,
        checkpointing); otherwise a fresh training of the edited configuration."""
        recorded = RLConfig.model_validate(training["rl_config"]).carry_validation(coded)
        config = self._apply_rl_edits(sub.name, recorded)
        same = {"samples", "checkpoint_every"}
        fits = recorded.model_dump(exclude=same) == config.model_dump(exclude=same)
        note = "continues its checkpoint" if fits else "restarts: the RL edit changes the policy"
        self._emit_training_started(sub, config, list(sub.high_level_actions), [note], checkpoints)
        return self._train_and_judge(task, sub, config, verdicts, checkpoints, fits)

    def _emit_training_started(self, sub, config: RLConfig, planned, notes, checkpoints) -> None:
        self._emit(
            ev.TrainingStarted,
            subaction=sub.name,
            config=config.model_dump(mode="json", exclude={"coded_actions"})
            | {
                "coded_actions": [c.name for c in config.coded_actions],
                "plan_high_level_actions": planned,
                "high_level_actions_note": "; ".join(notes),
            },
            rl_config=config.model_dump(mode="json"),
            checkpoint_dir=str(checkpoints) if checkpoints else None,
        )
        self.control.rl_bases[sub.name] = config.model_dump(mode="json")

    def _train_and_judge(
        self, task, sub: SubAction, config: RLConfig, verdicts, checkpoints, resume=True
    ):
        s = self.settings
        model, done = None, 0
        saved = load_checkpoint(checkpoints) if checkpoints and resume else None
        if saved is not None:  # continue a training run that was cut off
            model, done = saved
        elif self._continued is not None:  # open-ended play: the last iteration's policy
            model, self._continued = self._continued, None
        self._phase("world", sub.name, total=config.num_envs)
        env = build_env(config)
        if env.world.compiling():  # say what the wait is for (a first run's compilation)
            self._phase("world", f"{sub.name}: {env.world.compiling()}")
        env.reset()  # generate the worlds (and compile) here, not in the first rollout
        last_frame = [0.0]
        specs = {spec.name: spec for spec in config.coded_actions}  # edited ones replaced
        rollouts = [0]
        self._swap_edited_code(env, specs, 0, done)  # edits pending before training starts

        def on_metrics(metrics: dict[str, Any]) -> None:
            rollouts[0] += 1
            self._trained_total = self._total_before + metrics["samples"]
            self._emit(
                ev.TrainingProgress,
                subaction=sub.name,
                metrics=metrics,
                total_samples=self._total_before + metrics["samples"],
            )
            now = time.monotonic()
            if self.on_frame is not None and now - last_frame[0] >= self.frame_interval:
                last_frame[0] = now
                self.on_frame(env.world.frame(0, 144))
            self._safe_point()  # between rollouts: pause here, or stop (checkpoint kept)
            self._swap_edited_code(env, specs, rollouts[0], metrics["samples"])

        self._training_begun = True
        self._training_actions = set(specs)
        self._phase("training", sub.name, total=config.samples)
        try:
            result = train(config, on_metrics=on_metrics, model=model, env=env, samples_done=done)
        except BaseException:
            env.close()  # worker processes, for out-of-process worlds
            raise
        finally:
            self._training_actions = set()
            usage = env.coded_usage()
        if any(specs[c.name] is not c for c in config.coded_actions):  # evaluate what ran last
            config = config.model_copy(update={"coded_actions": list(specs.values())})
        self._trained_total = self._total_before + result.samples
        self._phase("evaluating", f"{sub.name} (RL policy)", total=s.eval_episodes)
        try:  # in the training's world when it has one env per episode: nothing to build
            evaluation = evaluate(
                config,
                result.model,
                episodes=s.eval_episodes,
                seed=10_000 + s.seed + self.iteration,
                on_episodes=self._evaluation_progress,
                question=self._question(
                    task, Candidate(config, self.iteration, None, result.model)
                ),
                env=env,
            )
        finally:
            env.close()
        summary = evaluation.as_dict() | {
            "coded_decision_share": round(usage["decision_share"], 4),
            "training_samples": result.samples,
            "coded_actions": {
                name: {k: v for k, v in stats.items() if k in ("calls", "steps", "end_reasons")}
                for name, stats in usage["actions"].items()
            },
        }
        self._evaluation = summary
        tally = result.env.runner.tally
        if task.scored and len(tally):
            self.run_tally.extend(tally)
            training = tally.measure(task, seed=s.seed)
            self._training = {
                "episodes": len(tally),
                "score": round(training.value, 3),
                "achievements": tally.bitmasks(),
                "ends": training.ends,
            }
        self._emit(ev.EvaluationDone, subject=f"{sub.name} (RL policy)", result=summary)
        self._phase("critic", sub.name)
        try:
            verdict = self.team.critic.judge_rl(task, sub, summary, s.target_for(task))
        except LLMAnswerError as error:
            verdict = Verdict(
                success=False,
                reason=f"no verdict: the critic's answer failed ({error}); "
                f"{evaluation.measurement.text()}",
            )
            self._note(f"{sub.name}: {verdict.reason}")
        self._emit(ev.VerdictGiven, subaction=sub.name, **verdict.model_dump())
        self._emit(ev.SubActionDone, subaction=sub.name, mode="rl", code="", **verdict.model_dump())
        verdicts[sub.name] = verdict
        self._candidate = StageSolution(task.name, model=result.model, config=config)
        self.candidates.offer(Candidate(config, self.iteration, evaluation.value, result.model))
        if config.start_from is not None:  # the code it started from, run alone
            self.candidates.offer(
                Candidate(config, self.iteration, None, only_coded=config.start_from)
            )
        self._last_policy = (sub.name, config, result.model)
        return evaluation.value, result.samples

    def _question(self, task: Task, candidate: Candidate) -> AgainstTarget:
        """What an iteration's evaluation decides: the target, and (below it) whether it
        beats the best of its kind so far (:mod:`rlgpt_tui.rl.decide`)."""
        held = self.candidates.best.get(candidate.kind)
        return AgainstTarget(self.settings.target_for(task), held.value if held else None)

    def _policy_to_continue(self, subaction: str, config: RLConfig):
        """The last training's policy, when this one offers the same observation and
        primitives and its coded actions extend the last ones (new ones appended): PPO
        goes on learning with its action head grown. None: start a fresh policy."""
        if self._last_policy is None:
            return None
        name, last, model = self._last_policy
        before = [c.name for c in last.coded_actions]
        now = [c.name for c in config.coded_actions]
        same = (name, last.observation, last.primitives, last.ppo) == (
            subaction,
            config.observation,
            config.primitives,
            config.ppo,
        )
        if not same or now[: len(before)] != before:
            return None
        return model

    def _swap_edited_code(
        self, env, specs: dict[str, CodedActionSpec], rollout: int, samples: int
    ) -> None:
        """Between two PPO rollouts: human code edits of coded actions in this training's
        action table replace them in place (the policy keeps its weights)."""
        for edit in self.control.take_code_for(set(specs)):
            self._swap_one(env, specs, edit, rollout, samples)

    def _swap_one(self, env, specs, edit: CodeEdit, rollout: int, samples: int) -> None:
        """Swap in a person's code, validated when the edit was made (not again here)."""
        name, old = edit.target, specs[edit.target]
        version = self._emit(
            ev.CodeWritten, subaction=name, code=edit.code, attempt=0, source="human"
        )
        version = version if isinstance(version, int) else None
        action = replace(
            edit.action, description=old.description, limits=old.limits, version=version
        )
        env.replace_coded(name, action)
        specs[name] = CodedActionSpec.of(action, max_steps=old.max_steps, seconds=old.seconds)
        before, self.code[name] = self.code.get(name, old.source), edit.code
        at = f"between PPO rollouts {rollout} and {rollout + 1} of iteration {self.iteration + 1}"
        if rollout == 0:
            at = f"before the first PPO rollout of iteration {self.iteration + 1}'s training"
        self.control.applied(
            edit, at, before, edit.code, rollout=rollout, samples=samples, version=version
        )

    def _evaluate_code_only(self, task, plan: Plan, coded: dict[str, ValidatedAction]) -> float:
        parts = [coded[s.name] for s in plan.coded() if s.name in coded]
        if not parts:
            return 0.0
        if len(parts) == 1:  # validated when it was written
            action = parts[0]
        else:  # the plan's routines composed into one: a new program, validated once
            composed = compose_sources([(a.name, a.source) for a in parts])
            action = validate("plan", composed)
        self._candidate = StageSolution(task.name, coded=action)
        s = self.settings
        config = RLConfig(
            task=task.name,
            env=s.env,
            num_envs=s.eval_episodes,
            seed=s.seed,
            coded_actions=[CodedActionSpec.of(action)],
        )
        self._phase("evaluating", f"{action.name} (code only)", total=s.eval_episodes)
        evaluation = evaluate(
            config,
            only_coded=action.name,
            episodes=s.eval_episodes,
            seed=10_000 + s.seed + self.iteration,
            on_episodes=self._evaluation_progress,
            question=self._question(
                task, Candidate(config, self.iteration, None, only_coded=action.name)
            ),
        )
        self.candidates.offer(
            Candidate(config, self.iteration, evaluation.value, only_coded=action.name)
        )
        self._evaluation = evaluation.as_dict()
        self._emit(ev.EvaluationDone, subject=f"{action.name} (code only)", result=self._evaluation)
        return evaluation.value


def stage_solution(task: Task, candidate: Candidate) -> StageSolution:
    """A chosen candidate as the stage solution a chain runs."""
    if candidate.model is not None:
        return StageSolution(task.name, model=candidate.model, config=candidate.config)
    spec = next(c for c in candidate.config.coded_actions if c.name == candidate.only_coded)
    return StageSolution(task.name, coded=spec.validated())


def checkpoint_folder(artifacts_dir: str | None, iteration: int, subaction: str) -> Path | None:
    """Where the training run of ``subaction`` in ``iteration`` keeps its checkpoints."""
    if not artifacts_dir:
        return None
    return Path(artifacts_dir) / "checkpoints" / f"iter{iteration}-{subaction}"


def _drop_unknown_high_level_actions(plan: Plan) -> Plan:
    """High-level actions must name coded sub-actions of the same plan."""
    coded = {s.name for s in plan.coded()}
    for sub in plan.learned():
        sub.high_level_actions = [n for n in sub.high_level_actions if n in coded]
    return plan
