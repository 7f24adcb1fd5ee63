"""The two loops of RL-GPT, one task with one agent team.

    for each iteration, until the target or a budget (iterations, samples, tokens):
        plan    = plan step: a person's plan, else the slow agent's (approved), revised
                  from the history of plans, verdicts and measured values
        skills  = skill step: each coded step the records say code fell short at that is
                  a task of its own, its policy trained on that task first (RL step) and
                  handed to the shelf, so that the step's code calls it
        code    = code step: for each coded sub-action, the inner code loop
                  (write, validate, run one call in a few worlds, critic, repair)
        if the plan has a learned sub-action:
            outcome = RL step: the inner RL loop (configure, train PPO over the primitives
                      and the coded actions, evaluate, critic)
        else:
            outcome = the coded sub-actions alone, evaluated
            if it is below the target and samples are left (none with --max-samples 0):
                outcome = the better of it and the RL step over the plan's coded actions,
                          starting as that code
    final choice: the best candidate of each kind (code, RL + code, RL) evaluated again
                  on fresh worlds; the best fresh value is the run's result

Each step (``engine/steps/``) takes its inputs as arguments and returns its results; it
changes nothing it is handed. The engine folds the results into the session's state (its
code table, sample runs, training episodes, candidates) and follows the steps' events to
know where the run is (for the control plane). The task planner's chain of sub-tasks, each
one run of these loops, is ``engine/chain.py``.

The engine emits typed events, pauses at safe points (before each plan and each
sub-action, and between PPO rollouts and evaluation episodes), and applies a person's
edits from its control plane (``engine/control.py``) there: a code edit reaches a running
training between two rollouts. An optional ``approver`` sees each agent proposal before it
is used. A run can continue a recorded one (``ResumeState``): finished iterations are
kept; of the unfinished one the recorded results are replayed and their steps skipped (its
plan, its judged code, its training's configuration), and cut-off training continues from
its checkpoint. It never imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace
from functools import partial
from threading import Thread
from typing import Any

from rlgpt_tui.agents.schemas import SubAction
from rlgpt_tui.agents.slow import IterationFeedback
from rlgpt_tui.agents.team import AgentTeam
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import CODE, Candidate, Candidates
from rlgpt_tui.engine.control import ControlPlane, StopRequested
from rlgpt_tui.engine.ends import EndKind, RunEnd
from rlgpt_tui.engine.result import EngineResult
from rlgpt_tui.engine.resume import ResumeState
from rlgpt_tui.engine.settings import EngineSettings, checkpoint_folder
from rlgpt_tui.engine.solution import StageSolution, stage_solution
from rlgpt_tui.engine.steps.code import CodeStep, Sampled, code_step
from rlgpt_tui.engine.steps.context import (
    Approver,
    Position,
    Progress,
    ProposalRejected,
    StepContext,
)
from rlgpt_tui.engine.steps.evaluation import Outcome, evaluate_code_only
from rlgpt_tui.engine.steps.final import final_step
from rlgpt_tui.engine.steps.plan import plan_step
from rlgpt_tui.engine.steps.rl import (
    RLRequest,
    resumed_configuration,
    rl_from_short_code,
    rl_step,
    short_code_subaction,
)
from rlgpt_tui.engine.steps.skill import skill_step
from rlgpt_tui.engine.steps.train import Policy, TrainingStopped
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.llm.client import LLMCall
from rlgpt_tui.llm.settings import LLMError
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.sandbox import SandboxUnavailable
from rlgpt_tui.skills.validation import ValidatedAction
from rlgpt_tui.tasks.catalog import Task, get_task

__all__ = ["Engine", "EngineResult", "EngineSettings", "EventHandler", "ProposalRejected"]
__all__ += ["Approver", "checkpoint_folder"]  # names other modules import from here

# what hears each event; a store that records it returns the event's sequence number
EventHandler = Callable[[ev.Event], int | None]


class Engine:
    """Runs the two loops for one task with one agent team, emitting events."""

    def __init__(
        self,
        settings: EngineSettings,
        team: AgentTeam,
        on_event: EventHandler,
        resume: ResumeState | None = None,
        control: ControlPlane | None = None,
        shelf: SkillShelf | None = None,
    ):
        """``shelf``: the skill library's offer this run's agents reuse (``--library``);
        by default the fast agent's (the builtin agent's is empty: its templates are its
        own)."""
        self.settings = settings
        self.team = team
        self.shelf = shelf if shelf is not None else team.fast.shelf
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
        self.control.would_apply = self._edit_would_apply
        self.close_control_at_end = True  # a chain closes it after its last stage
        # the session's state across iterations
        self._tokens_before = resume.tokens if resume else 0
        self.iteration = 0
        self.code: dict[str, str] = {}  # each sub-action's latest kept code
        self.sampled: dict[str, Sampled] = {}  # each sub-action's last critic sample runs
        self.solution: StageSolution | None = None  # the best iteration's policy or code
        self.run_tally = EpisodeTally()  # scored tasks: every training episode of the session
        self.candidates = Candidates()  # the best solution of each kind, for the final choice
        self.last_policy: Policy | None = None  # the last training's, for open-ended play
        self.position = Position()  # where this iteration is, for the control plane
        self._progress = Progress(self._emit)  # evaluation progress events, throttled
        self._preparing: list[Thread] = []  # threads preparing worlds (joined at the end)

    @property
    def tokens(self) -> int:
        """LLM tokens of this session, including those spent before a resume."""
        return self._tokens_before + self.team.tokens

    # -- the outer loop -------------------------------------------------------------------
    def run(self) -> EngineResult:
        """Run the iterations until the target or a budget, then the final choice."""
        s = self.settings
        task = get_task(s.task)
        history, total, best, first, ended = self._start(task)
        end = RunEnd(EndKind.FINISHED)
        if ended is not None:  # the recorded run had ended: only its final choice is left
            end, first = ended, s.max_iterations
        try:
            for self.iteration in range(first, s.max_iterations):
                self.position = Position()  # before the pause: no plan of this one is made
                self.control.safe_point()
                done = self._iteration(task, history, total)
                if done is None:  # no samples left to train this iteration's plan
                    end = RunEnd(EndKind.SAMPLE_BUDGET)
                    break
                feedback, outcome = done
                total += feedback.samples
                if feedback.value > best or self.solution is None:
                    self.solution = outcome.solution
                best = max(best, feedback.value)
                history.append(feedback)
                self._emit(
                    ev.IterationDone(
                        plan=feedback.plan.summary(),
                        value=feedback.value,
                        samples=feedback.samples,
                        total_samples=total,
                        tokens=self.tokens,
                        measure=task.measure.value,
                        evaluation=outcome.evaluation,
                        training=outcome.training,
                    ),
                )
                ended = self._ended(task, feedback.value, total)
                if ended is not None:
                    end = ended
                    break
        except StopRequested as stop:
            end = RunEnd(EndKind.STOPPED)
            if isinstance(stop, TrainingStopped):  # the interrupted training's samples
                total = max(total, stop.total)
                self.code.update(stop.code)  # and a person's code swapped into it
        except (LLMError, SandboxUnavailable) as error:
            end = RunEnd.failed(error)
            self._emit(ev.EngineError(message=str(error)))
        for thread in self._preparing:  # never left running past the session
            thread.join()
        return self._finish(task, end, history, total, best)

    def _ended(self, task: Task, value: float, total: int) -> RunEnd | None:
        """How an iteration that measured ``value``, with ``total`` samples spent in the
        session, ends the run (None: it goes on)."""
        s = self.settings
        if value >= s.target_for(task):
            return RunEnd(EndKind.TARGET)
        if s.max_samples and total >= s.max_samples:  # 0: code alone, no training
            return RunEnd(EndKind.SAMPLE_BUDGET)
        if s.max_tokens is not None and self.tokens >= s.max_tokens:
            return RunEnd(EndKind.TOKEN_BUDGET)
        return None

    def _iteration(
        self, task: Task, history: list[IterationFeedback], total: int
    ) -> tuple[IterationFeedback, Outcome] | None:
        """One iteration: plan, code, then RL or the code alone evaluated. ``total``: the
        session's samples so far. None: no samples are left for its training."""
        s, ctx = self.settings, self._context(task)
        cut = self._cut_off()  # what a resumed run recorded of this iteration: replayed
        notes: list[str]
        if cut is not None and cut.plan is not None:  # planned before the cut
            plan, notes = cut.plan, []
        else:
            plan, notes = plan_step(ctx, history)
        self.position.plan = plan
        # the world needed next compiles on another thread while this one works (the games
        # it plays are unchanged): the training's while the plan's code is tried, or the
        # critic runs' while a plan without code trains
        self._preparing.append(s.prepare_next_world(trains_first=not plan.coded()))
        judged = CodeStep.replayed(plan, cut.judged, ctx.shelf) if cut is not None else None
        self.position.coded_done |= set(judged.verdicts) if judged else set()
        # steps code fell short at that are tasks of their own: their policies first
        skills = skill_step(ctx, plan, min(s.iteration_budget(task), s.max_samples - total), total)
        total += skills.samples
        code = code_step(ctx, plan, self.code, self.sampled, judged)
        self.code.update(code.code)
        self.sampled.update(code.sampled)
        learned = plan.learned()
        budget = min(s.iteration_budget(task), s.max_samples - total)
        offered: list[int] = []  # candidates offered before the RL step
        if learned:
            if budget <= 0:
                return None
            self.position.samples_end = total + budget >= s.max_samples
            request = self._rl_request(ctx, learned[0], code.coded, budget, total)
            outcome = rl_step(ctx, request)
        else:
            best_code = self.candidates.best.get(CODE)
            best = best_code.value if best_code is not None else None
            outcome = evaluate_code_only(ctx, plan, code.coded, best)
            if outcome.candidates and outcome.value < s.target_for(task) and budget > 0:
                self._offer(outcome.candidates)  # RL starts from the best code so far
                offered = [id(c) for c in outcome.candidates]
                self.position.samples_end = total + budget >= s.max_samples
                sub = short_code_subaction(ctx, plan, code.coded, outcome)
                request = self._rl_request(ctx, sub, code.coded, budget, total)
                outcome = rl_from_short_code(ctx, outcome, request)
        self._offer([c for c in outcome.candidates if id(c) not in offered])
        self.code.update(outcome.code)  # a person's code swapped in during training
        self.run_tally.extend(outcome.tally)
        self.last_policy = outcome.policy or self.last_policy
        notes += skills.notes + code.notes + outcome.notes
        outcome = replace(outcome, samples=skills.samples + outcome.samples)
        feedback = IterationFeedback(
            self.iteration,
            plan,
            skills.verdicts | code.verdicts | outcome.verdicts,
            outcome.value,
            outcome.samples,
            {"notes": notes} if notes else {},
            task.measure,
            outcome.evaluation,
        )
        return feedback, outcome

    def _rl_request(
        self,
        ctx: StepContext,
        sub: SubAction,
        coded: dict[str, ValidatedAction],
        budget: int,
        total: int,
    ) -> RLRequest:
        """What the RL step is asked for ``sub``, from the session's state (``total``: its
        samples so far). A resumed run cut off in this training hands in the recorded
        configuration (with a person's RL edits on top, after a safe point): the step
        continues it instead of configuring anew."""
        request = RLRequest(
            sub,
            coded,
            budget,
            total,
            code=dict(self.code),
            best_code=self.candidates.best.get(CODE),
            last_policy=self.last_policy,
            best_values={kind: c.value for kind, c in self.candidates.best.items()},
        )
        cut = self._cut_off()
        training = cut.training if cut is not None else None
        if training is None or training.subaction != sub.name:
            return request
        ctx.safe_point()
        configured = resumed_configuration(
            ctx, sub, coded, training.rl_config, training.library_samples
        )
        return replace(request, configured=configured)

    def _cut_off(self) -> ResumeState | None:
        """The resumed run's state when this iteration is the one it was cut off in."""
        resume = self.resume_state
        return resume if resume and self.iteration == resume.next_iteration else None

    def _offer(self, candidates: list[Candidate]) -> None:
        """Offer each for the final choice, recorded so that a resume can offer it again."""
        for candidate in candidates:
            self.candidates.offer(candidate)
            self._emit(ev.CandidateOffered(candidate=candidate.record()))

    def _start(self, task: Task) -> tuple[list[IterationFeedback], int, float, int, RunEnd | None]:
        """A ``SessionStarted`` event, or a recorded run's state and ``SessionResumed``:
        (history, samples, best value, first iteration, how the recorded iterations had
        already ended the run or None)."""
        s, resume = self.settings, self.resume_state
        self.run_tally = EpisodeTally()
        if resume is not None:  # the recorded iterations' training episodes
            self.run_tally.extend(resume.tally)
        if resume is None:
            self._emit(ev.SessionStarted(task=s.task, env=s.env, settings=asdict(s)))
            return [], 0, 0.0, 0, None
        self.code = dict(resume.code)
        for candidate in resume.candidates:  # the finished iterations' solutions
            self.candidates.offer(candidate)
        history = list(resume.history)
        # e.g. killed in its final evaluation after its last iteration reached the target
        ended = self._ended(task, history[-1].value, resume.total_samples) if history else None
        self.iteration = history[-1].iteration if ended else resume.next_iteration
        self._emit(
            ev.SessionResumed(
                total_samples=resume.total_samples,
                training_samples_done=resume.training_samples_done(
                    partial(checkpoint_folder, s.artifacts_dir)
                ),
                edits_carried=[e.id for e in self.control.pending()],
                ended=ended.kind.value if ended else "",
            ),
        )
        return history, resume.total_samples, resume.best, resume.next_iteration, ended

    def _finish(
        self, task: Task, end: RunEnd, history: list, total: int, best: float
    ) -> EngineResult:
        """Close the control plane, make the final choice, and a ``SessionFinished``."""
        if self.close_control_at_end:  # a resumable end keeps pending edits for the resume
            why = f"the session ended ({end.text}) before a safe point used it"
            self.control.close(why, keep_pending=not end.ended_on_its_own)
        final = final_step(self._context(task), self.candidates)
        if final is not None:
            self.solution = stage_solution(task.name, final.chosen)
        scored_run = task.scored and len(self.run_tally)
        run = self.run_tally.measure(task, seed=self.settings.seed) if scored_run else None
        self._emit(
            ev.SessionFinished(
                reason=end.text,
                end=end.kind.value,
                best=best,
                total_samples=total,
                tokens=self.tokens,
                measure=task.measure.value,
                run=EvaluationSummary.of_measurement(run) if run else EvaluationSummary(),
                result=final.solution() if final else None,
                stop_requested=self.control.stop_requested,
                evaluated=bool(history) or final is not None,
            ),
        )
        return EngineResult(
            end, best, total, self.tokens, history, dict(self.code), task.measure, run, final
        )

    # -- what the steps are handed ----------------------------------------------------------
    def _context(self, task: Task) -> StepContext:
        """The step context of the current iteration."""
        return StepContext(
            self.settings,
            task,
            self.team,
            self.control,
            self.iteration,
            self._emit,
            self._approve,
            self._progress,
            self.shelf,
            self.on_frame,
            self.frame_interval,
        )

    def _emit(self, event: ev.Event) -> Any:
        """Send an event made at the call site, stamped with the iteration and the agent;
        returns what the handler returns (a store's sequence number). The position and the
        control plane follow it first (where the run is)."""
        event.iteration, event.agent = self.iteration, self.team.label
        self.position.follow(event)
        self.control.follow(event)
        return self.on_event(event)

    def _llm_called(self, call: LLMCall) -> None:
        self._emit(ev.LLMCalled.of(call))

    def _approve(self, kind: str, target: str, proposal: Any) -> Any:
        """A person's answer to an agent proposal (the proposal itself with no approver)."""
        return proposal if self.approver is None else self.approver(kind, target, proposal)

    def _edit_would_apply(self, what: str, target: str) -> str | None:
        """Why an edit made now could never take effect (None: it can); a chain's stages
        take any edit (a later stage may use it)."""
        if not self.close_control_at_end:
            return None
        return self.position.why_not(what, target, self.iteration, self.settings.max_iterations)
