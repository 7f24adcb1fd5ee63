"""Where a recorded run stopped, rebuilt from its events, so the engine can continue it.

Finished iterations are kept as they were (plan, verdicts, success, samples). The
unfinished iteration keeps its plan and the sub-actions already judged; a training run it
had started continues from that run's last checkpoint with the same RLConfig.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlgpt_tui.agents.schemas import Plan, Verdict
from rlgpt_tui.agents.slow import IterationFeedback
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import Candidate
from rlgpt_tui.engine.chosen import CandidateRecord
from rlgpt_tui.engine.ends import RunEnd
from rlgpt_tui.engine.solution import StageSolution
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.library.compose import compose_sources
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.rl.checkpoints import checkpoint_samples, load_checkpoint
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.measure import Measure


@dataclass
class StartedTraining:
    """A training the cut-off iteration had started: its sub-action, its RLConfig as
    recorded, and the samples a library policy it started from had trained on before."""

    subaction: str
    rl_config: dict[str, Any]
    library_samples: int = 0


@dataclass
class ResumeState:
    """What the engine needs to continue a run: its history and the unfinished iteration."""

    next_iteration: int = 0
    history: list[IterationFeedback] = field(default_factory=list)
    total_samples: int = 0
    best: float = 0.0
    tokens: int = 0
    code: dict[str, str] = field(default_factory=dict)
    plan: Plan | None = None  # the unfinished iteration's plan, if it had one
    judged: dict[str, tuple[str, Verdict]] = field(default_factory=dict)
    training: StartedTraining | None = None  # a run the unfinished iteration started
    tally: EpisodeTally = field(default_factory=EpisodeTally)  # finished iterations' training
    candidates: list[Candidate] = field(default_factory=list)  # finished iterations' solutions

    @classmethod
    def from_events(cls, records: ev.Records) -> ResumeState:
        """Rebuild from one run's stored events (records or typed), oldest first."""
        events = ev.events_from_records(records)
        starts = [i for i, e in enumerate(events) if isinstance(e, ev.SessionStarted)]
        run = events[starts[-1] :] if starts else events
        state = cls(tokens=sum(_tokens(e) for e in events))
        plans: dict[int, Plan] = {}
        verdicts: dict[int, dict[str, Verdict]] = {}
        code_by_iteration: dict[int, dict[str, str]] = {}
        training: dict[int, StartedTraining] = {}
        library_samples: dict[int, int] = {}  # a library policy's training before
        done: list[ev.IterationDone] = []
        offered: dict[int, list[CandidateRecord]] = {}
        for e in run:
            i = e.iteration
            match e:
                case ev.PlanProposed():
                    plans[i] = e.plan.model_copy(deep=True)  # as recorded, never refused
                    verdicts[i], code_by_iteration[i], offered[i] = {}, {}, []
                    training.pop(i, None)
                    library_samples.pop(i, None)
                case ev.SubActionDone():
                    verdict = Verdict(success=e.success, reason=e.reason, suggestion=e.suggestion)
                    verdicts.setdefault(i, {})[e.subaction] = verdict
                    if e.mode == "code":
                        code_by_iteration.setdefault(i, {})[e.subaction] = e.code
                case ev.PolicyReused():  # the training that follows starts from it
                    library_samples[i] = e.samples
                case ev.TrainingStarted() if e.rl_config:
                    training[i] = StartedTraining(
                        e.subaction, e.rl_config, library_samples.get(i, 0)
                    )
                case ev.CandidateOffered():
                    offered.setdefault(i, []).append(e.candidate)
                case ev.IterationDone():
                    done.append(e)
        for e in done:
            i = e.iteration
            state.history.append(
                IterationFeedback(
                    i,
                    plans[i],
                    dict(verdicts.get(i, {})),
                    e.value,
                    e.samples,
                    measure=Measure(e.measure),
                    evaluation=e.evaluation,
                )
            )
            rebuilt = (Candidate.recorded(i, record) for record in offered.get(i, []))
            state.candidates += [c for c in rebuilt if c is not None]
            if e.training is not None and e.training.achievements:
                trained = e.training
                state.tally.extend(EpisodeTally.from_bitmasks(trained.achievements, trained.ends))
        for i in sorted(code_by_iteration):
            state.code.update({n: c for n, c in code_by_iteration[i].items() if c})
        if done:
            state.next_iteration = done[-1].iteration + 1
            state.total_samples = done[-1].total_samples
            state.best = max(h.value for h in state.history)
        i = state.next_iteration
        state.plan = plans.get(i)
        if state.plan is not None:
            judged = code_by_iteration.get(i, {})
            state.judged = {n: (c, verdicts[i][n]) for n, c in judged.items()}
            state.training = training.get(i)
        return state

    def training_samples_done(self, checkpoint_dir: Callable[[int, str], Path | None]) -> int:
        """Samples the cut-off training run had checkpointed (0 if none)."""
        if self.training is None:
            return 0
        directory = checkpoint_dir(self.next_iteration, self.training.subaction)
        return (checkpoint_samples(directory) or 0) if directory else 0


def _tokens(event: ev.Event) -> int:
    if not isinstance(event, ev.LLMCalled):
        return 0
    return int(event.prompt_tokens) + int(event.completion_tokens)


def split_runs(records: ev.Records) -> list[list[ev.Event]]:
    """A chain session's events cut into one list per stage run (at each session_started)."""
    runs: list[list[ev.Event]] = []
    for event in ev.events_from_records(records):
        if isinstance(event, ev.SessionStarted):
            runs.append([])
        if runs:
            runs[-1].append(event)
    return runs


def run_end(run: ev.Records) -> RunEnd | None:
    """How this run ended, if it recorded its end."""
    ends = [e for e in ev.events_from_records(run) if isinstance(e, ev.SessionFinished)]
    return ends[-1].run_end if ends else None


def finished(run: ev.Records) -> bool:
    """Did this stage run end on its own (not stopped by a person, not by an error)?"""
    end = run_end(run)
    return end is not None and end.ended_on_its_own


def recorded_stage_solution(
    run: ev.Records,
    checkpoint_dir: Callable[[int, str], Path | None],
    shelf: SkillShelf | None = None,
):
    """The solution a finished stage run chose (its final choice on fresh worlds; for older
    runs its best iteration), rebuilt from its events; code calling policy skills runs
    ``shelf``'s (those it recorded, while the shelf holds them).

    Returns ``(StageSolution | None, training samples the stage spent)``.
    """
    events = ev.events_from_records(run)
    state = ResumeState.from_events(events)
    task = next(e.task for e in events if isinstance(e, ev.SessionStarted))
    chosen_events = [e for e in events if isinstance(e, ev.SolutionChosen)]
    if chosen_events:  # the run's final choice on fresh worlds
        result = chosen_events[-1].result
        i, only_coded = result.iteration, result.only_coded
        plan = next((h.plan for h in state.history if h.iteration == i), None)
    else:  # older runs: the best iteration by its own evaluation
        best = max(state.history, key=lambda h: h.value, default=None)
        if best is None:
            return None, state.total_samples
        i, only_coded, plan = best.iteration, None, best.plan
    started = [e for e in events if isinstance(e, ev.TrainingStarted) and e.iteration == i]
    config = (
        RLConfig.model_validate(started[-1].rl_config)
        if started and started[-1].rl_config
        else None
    )
    if config is not None and only_coded in {c.name for c in config.coded_actions}:
        spec = next(c for c in config.coded_actions if c.name == only_coded)  # RL started from it
        policies = shelf.policies_called(spec.source, spec.policies) if shelf else ()
        coded = validate(spec.name, spec.source, policies=policies)
        return StageSolution(task, coded=coded), state.total_samples
    # a policy (a final choice names code by only_coded; a plan of code alone may have
    # trained from it)
    if only_coded is None and (bool(chosen_events) or plan is not None and plan.learned()):
        directory = checkpoint_dir(i, started[-1].subaction) if config else None
        saved = load_checkpoint(directory) if directory else None
        if saved is None:
            return None, state.total_samples
        return StageSolution(task, model=saved[0], config=config), state.total_samples
    code = {
        e.subaction: e.code
        for e in events
        if isinstance(e, ev.SubActionDone) and e.iteration == i and e.code
    }
    parts = [(s.name, code[s.name]) for s in plan.coded() if s.name in code] if plan else []
    if not parts:
        return None, state.total_samples
    env = next(e.env for e in events if isinstance(e, ev.SessionStarted))
    recipes = world_info(env).documentation().recipes
    name, source = parts[0] if len(parts) == 1 else ("plan", compose_sources(parts, recipes))
    policies = shelf.policies_called(source) if shelf else ()
    return StageSolution(task, coded=validate(name, source, policies=policies)), state.total_samples
