"""The two loops of RL-GPT.

Inner loop (per sub-action): the fast agent writes code or an RL configuration, the world
runs it (sampled executions, or PPO training and evaluation), the critic judges, and the
fast agent repairs, up to ``max_repairs`` times. Outer loop (per iteration): the slow agent
proposes or revises the decomposition from the critic's verdicts and the task's success
rate. It stops at the target success rate or at a budget (iterations, samples, tokens).

The engine emits typed events, pauses at safe points (before each plan and each
sub-action), and applies edits to the plan and to code there. It never imports Textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import ValidationError

from rlgpt_tui.agents.base import AgentTeam, Execution, IterationFeedback
from rlgpt_tui.agents.schemas import Plan, SubAction, Verdict
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.chain import StageSolution
from rlgpt_tui.envs import make_world
from rlgpt_tui.llm.client import LLMError
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.train import evaluate, train
from rlgpt_tui.skills.compose import compose_sources
from rlgpt_tui.skills.runtime import CodedAction, run_one_call_each
from rlgpt_tui.skills.sandbox import CodeValidationError
from rlgpt_tui.tasks import get_task

EventHandler = Callable[[ev.Event], None]


@dataclass
class EngineSettings:
    """Budgets and targets of one engine run."""

    task: str
    env: str = "craftax"
    num_envs: int = 64
    seed: int = 0
    max_iterations: int = 4
    target_success: float = 0.9
    samples_per_iteration: int = 30_000
    max_samples: int = 200_000
    max_tokens: int | None = None
    max_repairs: int = 2
    eval_episodes: int = 64
    critic_runs: int = 8


@dataclass
class EngineResult:
    """How the run ended, with its measured history."""

    reason: str
    best_success: float
    total_samples: int
    tokens: int
    history: list[IterationFeedback] = field(default_factory=list)
    final_code: dict[str, str] = field(default_factory=dict)


class StopRequested(Exception):
    """Raised at a safe point after stop() was called."""


class Engine:
    """Runs the two loops for one task with one agent team, emitting events."""

    def __init__(self, settings: EngineSettings, team: AgentTeam, on_event: EventHandler):
        self.settings = settings
        self.team = team
        self.on_event = on_event
        self._running = threading.Event()
        self._running.set()
        self._stop = False
        self._lock = threading.Lock()
        self._plan_edit: Plan | None = None
        self._code_edits: dict[str, str] = {}
        self.iteration = 0
        self.code: dict[str, str] = {}
        self.solution: StageSolution | None = None  # the best iteration's policy or code
        self._candidate: StageSolution | None = None

    # -- control (any thread) ---------------------------------------------------------------
    def pause(self) -> None:
        self._running.clear()
        self._emit(ev.ControlChanged, state="paused")

    def resume(self) -> None:
        self._running.set()
        self._emit(ev.ControlChanged, state="resumed")

    def stop(self) -> None:
        self._stop = True
        self._running.set()
        self._emit(ev.ControlChanged, state="stopping")

    def edit_plan(self, plan: Plan) -> None:
        """Use ``plan`` instead of asking the slow agent, at the next safe point."""
        with self._lock:
            self._plan_edit = plan

    def edit_code(self, subaction: str, code: str) -> None:
        """Use ``code`` for ``subaction`` from the next safe point (validated first)."""
        with self._lock:
            self._code_edits[subaction] = code

    def _safe_point(self) -> None:
        self._running.wait()
        if self._stop:
            raise StopRequested

    def _emit(self, kind: type[ev.Event], **data: Any) -> None:
        self.on_event(kind(iteration=self.iteration, agent=self.team.label, **data))

    # -- the outer loop -------------------------------------------------------------------
    def run(self) -> EngineResult:
        s = self.settings
        task = get_task(s.task)
        self._emit(ev.SessionStarted, task=s.task, env=s.env, settings=asdict(s))
        history: list[IterationFeedback] = []
        total, best, reason = 0, 0.0, "iterations used up"
        try:
            for self.iteration in range(s.max_iterations):
                self._safe_point()
                self._candidate = None
                plan = self._next_plan(task, history)
                verdicts: dict[str, Verdict] = {}
                coded = self._inner_code_loop(task, plan, verdicts)
                learned = plan.learned()
                if learned:
                    budget = min(s.samples_per_iteration, s.max_samples - total)
                    if budget <= 0:
                        reason = "sample budget spent"
                        break
                    success, samples = self._inner_rl_loop(
                        task, learned[0], coded, budget, verdicts
                    )
                    total += samples
                else:
                    success, samples = self._evaluate_code_only(task, plan, coded), 0
                if success > best or self.solution is None:
                    self.solution = self._candidate
                best = max(best, success)
                history.append(IterationFeedback(self.iteration, plan, verdicts, success, samples))
                self._emit(
                    ev.IterationDone,
                    plan=plan.summary(),
                    success_rate=success,
                    samples=samples,
                    total_samples=total,
                    tokens=self.team.tokens,
                )
                if success >= s.target_success:
                    reason = "target reached"
                    break
                if total >= s.max_samples:
                    reason = "sample budget spent"
                    break
                if s.max_tokens is not None and self.team.tokens >= s.max_tokens:
                    reason = "token budget spent"
                    break
        except StopRequested:
            reason = "stopped"
        except LLMError as error:
            reason = f"error: {error}"
            self._emit(ev.EngineError, message=str(error))
        self._emit(
            ev.SessionFinished,
            reason=reason,
            best_success=best,
            total_samples=total,
            tokens=self.team.tokens,
        )
        return EngineResult(reason, best, total, self.team.tokens, history, dict(self.code))

    def _next_plan(self, task, history) -> Plan:
        with self._lock:
            edited, self._plan_edit = self._plan_edit, None
        if edited is not None:
            self._emit(ev.PlanProposed, plan=edited.model_dump(), source="human")
            return edited
        plan = self.team.slow.plan(task, history)
        plan = _drop_unknown_high_level_actions(plan)
        self._emit(ev.PlanProposed, plan=plan.model_dump())
        return plan

    # -- inner loop for coded sub-actions -----------------------------------------------------
    def _inner_code_loop(self, task, plan: Plan, verdicts: dict[str, Verdict]):
        coded: dict[str, CodedAction] = {}
        for sub in plan.coded():
            self._safe_point()
            action = verdict = None
            previous = problem = None
            for attempt in range(self.settings.max_repairs + 1):
                action, source = self._code_for(task, sub, attempt, previous, problem)
                if action is None:
                    previous, problem = source, self._last_error
                    continue
                verdict = self.team.critic.judge_code(task, sub, self._sample_runs(action))
                self._emit(ev.VerdictGiven, subaction=sub.name, **verdict.model_dump())
                if verdict.success or source == previous:  # passed, or no new code to try
                    break
                previous = source
                problem = f"{verdict.reason}. {verdict.suggestion}"
            if action is None:
                verdict = Verdict(success=False, reason="no valid code after repairs")
                self._emit(ev.VerdictGiven, subaction=sub.name, **verdict.model_dump())
            else:
                coded[sub.name] = action
                self.code[sub.name] = action.source
            verdicts[sub.name] = verdict
        return coded

    _last_error = ""

    def _code_for(self, task, sub: SubAction, attempt, previous, problem):
        """Validated code for ``sub``: a human edit if there is one, else the fast agent's."""
        with self._lock:
            human = self._code_edits.pop(sub.name, None)
        if human is not None:
            source, origin = human, "human"
            self._emit(
                ev.EditApplied,
                what="code",
                target=sub.name,
                before=self.code.get(sub.name, ""),
                after=human,
            )
        else:
            try:
                source = self.team.fast.write_code(task, sub, previous, problem)
            except ValueError as error:  # e.g. the builtin agent has no template
                self._last_error = str(error)
                self._emit(
                    ev.ValidationFailed, subaction=sub.name, error=str(error), attempt=attempt
                )
                return None, previous
            origin = "agent"
        self._emit(ev.CodeWritten, subaction=sub.name, code=source, attempt=attempt, source=origin)
        try:
            return CodedAction.from_source(sub.name, source, sub.description), source
        except CodeValidationError as error:
            self._last_error = str(error)
            self._emit(ev.ValidationFailed, subaction=sub.name, error=str(error), attempt=attempt)
            return None, source

    def _sample_runs(self, action: CodedAction) -> list[Execution]:
        """Run one call of ``action`` in each of a few fresh worlds; Views before and after."""
        s = self.settings
        world = make_world(s.env, s.critic_runs, seed=s.seed + 7919 * (self.iteration + 1))
        world.reset(s.seed + 7919 * (self.iteration + 1))
        before, after, calls = run_one_call_each(world, action)
        world.close()
        return [
            Execution(b, a, c.steps, c.end_reason or "")
            for b, a, c in zip(before, after, calls, strict=True)
        ]

    # -- inner loop for the learned sub-action ------------------------------------------------
    def _inner_rl_loop(self, task, sub: SubAction, coded, budget: int, verdicts):
        self._safe_point()
        s = self.settings
        answer = self.team.fast.write_rl(task, sub, list(coded))
        specs = [
            CodedActionSpec(name=n, source=coded[n].source, description=coded[n].description)
            for n in answer.high_level_actions
            if n in coded
        ]
        base = {
            "task": task.name,
            "env": s.env,
            "num_envs": s.num_envs,
            "seed": s.seed + self.iteration,
            "samples": budget,
            "coded_actions": specs,
        }
        try:
            config = RLConfig(
                **base,
                observation=answer.observation,
                reward_code=answer.reward_code,
                primitives=answer.primitives,
            )
            if config.reward_code:
                from rlgpt_tui.skills.reward import RewardCode

                RewardCode(config.reward_code)  # validate before training
        except (ValidationError, CodeValidationError) as error:
            self._emit(
                ev.ValidationFailed, subaction=sub.name, error=str(error).splitlines()[0], attempt=0
            )
            config = RLConfig(**base)
        self._emit(
            ev.TrainingStarted,
            subaction=sub.name,
            config=config.model_dump(exclude={"coded_actions"})
            | {"coded_actions": [c.name for c in config.coded_actions]},
        )
        result = train(
            config,
            on_metrics=lambda m: self._emit(ev.TrainingProgress, subaction=sub.name, metrics=m),
        )
        evaluation = evaluate(
            config, result.model, episodes=s.eval_episodes, seed=10_000 + s.seed + self.iteration
        )
        summary = evaluation.as_dict() | {
            "coded_decision_share": result.env.coded_usage()["decision_share"],
            "training_samples": result.samples,
        }
        self._emit(ev.EvaluationDone, subject=f"{sub.name} (RL policy)", result=summary)
        verdict = self.team.critic.judge_rl(task, sub, summary, s.target_success)
        self._emit(ev.VerdictGiven, subaction=sub.name, **verdict.model_dump())
        verdicts[sub.name] = verdict
        self._candidate = StageSolution(task.name, model=result.model, config=config)
        return evaluation.success_rate, result.samples

    def _evaluate_code_only(self, task, plan: Plan, coded: dict[str, CodedAction]) -> float:
        parts = [(s.name, coded[s.name].source) for s in plan.coded() if s.name in coded]
        if not parts:
            return 0.0
        name, source = parts[0] if len(parts) == 1 else ("plan", compose_sources(parts))
        self._candidate = StageSolution(task.name, coded=CodedAction.from_source(name, source))
        s = self.settings
        config = RLConfig(
            task=task.name,
            env=s.env,
            num_envs=s.eval_episodes,
            seed=s.seed,
            coded_actions=[CodedActionSpec(name=name, source=source)],
        )
        evaluation = evaluate(
            config, only_coded=name, episodes=s.eval_episodes, seed=10_000 + s.seed + self.iteration
        )
        self._emit(ev.EvaluationDone, subject=f"{name} (code only)", result=evaluation.as_dict())
        return evaluation.success_rate


def _drop_unknown_high_level_actions(plan: Plan) -> Plan:
    """High-level actions must name coded sub-actions of the same plan."""
    coded = {s.name for s in plan.coded()}
    for sub in plan.learned():
        sub.high_level_actions = [n for n in sub.high_level_actions if n in coded]
    return plan


def run_task_chain(settings: EngineSettings, team: AgentTeam, on_event: EventHandler) -> dict:
    """Long-horizon tasks: the planner's sub-tasks, each solved by the two loops, chained.

    The sample budget is shared: each sub-task gets what the earlier ones left. Returns the
    chained evaluation on the whole task (also emitted as an ``evaluation`` event).
    """
    from dataclasses import replace

    from rlgpt_tui.engine.chain import evaluate_chain

    task = get_task(settings.task)
    subtasks = team.planner.subtasks(task)
    on_event(ev.TaskPlanProposed(iteration=0, agent=team.label, task=task.name, subtasks=subtasks))
    stages, spent = [], 0
    for name in subtasks:
        left = settings.max_samples - spent
        engine = Engine(replace(settings, task=name, max_samples=max(left, 1)), team, on_event)
        result = engine.run()
        spent += result.total_samples
        if engine.solution is None:
            break
        stages.append(engine.solution)
    summary: dict[str, Any] = {
        "subtasks": subtasks,
        "solved_stages": [s.task for s in stages],
        "training_samples": spent,
    }
    if stages:
        summary |= evaluate_chain(
            stages, task.name, settings.env, settings.eval_episodes, seed=20_000 + settings.seed
        )
        on_event(
            ev.EvaluationDone(
                iteration=0,
                agent=team.label,
                subject=f"chain {' -> '.join(s.task for s in stages)}",
                result=summary,
            )
        )
    return summary
