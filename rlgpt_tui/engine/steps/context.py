"""What every step of an iteration is handed: the run's parts and how a step reports.

A step is a function of a :class:`StepContext` and its inputs that returns its results; it
reports through the context (events, phases, evaluation progress, approval). It changes
nothing it is handed: the engine folds its results into the session's state, and follows
its events to know where the run is (:class:`Position`, for the control plane).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.agents.team import AgentTeam
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import ControlPlane
from rlgpt_tui.engine.settings import EngineSettings
from rlgpt_tui.envs.knowledge import Recipes
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.tasks.catalog import Task

Emit = Callable[[ev.Event], Any]  # emit(event) -> what the event handler returns
Approver = Callable[[str, str, Any], Any]  # approver(kind, target, proposal) -> proposal


class ProposalRejected(Exception):
    """Raised by an approver to reject an agent's proposal (a plan or code)."""


@dataclass
class Position:
    """Where the run is in one iteration, for the control plane to refuse edits that
    could no longer take effect (the engine writes it, from its own state and the steps'
    events, :meth:`follow`; only :meth:`why_not` reads it)."""

    plan: Plan | None = None  # this iteration's plan, once made
    coded_done: set[str] = field(default_factory=set)  # code loops ended this iteration
    training_actions: set[str] = field(default_factory=set)  # coded actions being trained
    training_begun: bool = False  # this iteration's training has started
    samples_end: bool = False  # its training spends the last samples: no iteration follows
    configured: tuple[str, ...] = ()  # the coded actions of the training last configured

    def follow(self, event: ev.Event) -> None:
        """Move with a step's event: a code loop ended (``SubActionDone``), a training
        configured (``TrainingStarted``), its PPO begun (the ``training`` phase) or ended
        (the next phase)."""
        match event:
            case ev.SubActionDone(mode="code"):
                self.coded_done.add(event.subaction)
            case ev.TrainingStarted():
                self.configured = tuple(event.config.get("coded_actions", ()))
            case ev.PhaseStarted(phase="training"):
                self.training_begun = True
                self.training_actions = set(self.configured)
            case ev.PhaseStarted():
                self.training_actions = set()

    def why_not(self, what: str, target: str, iteration: int, iterations: int) -> str | None:
        """Why an edit of ``what`` for ``target`` made now, in ``iteration`` of
        ``iterations``, could never take effect (None: it can). Only the run's last
        iteration, once planned, refuses."""
        if self.plan is None or not (iteration >= iterations - 1 or self.samples_end):
            return None
        here = f"iteration {iteration + 1} is the session's last"
        if what == "plan":
            return f"{here} and its plan is made: no later plan would use this edit"
        if what == "code":
            coded = {sub.name for sub in self.plan.coded()}
            if target in self.training_actions or (
                target in coded and target not in self.coded_done
            ):
                return None
            return f"{here} and {target} is no longer coded or trained in it: nothing would run it"
        if what == "rl_config":
            learned = [sub.name for sub in self.plan.learned()]
            if target in learned and not self.training_begun:
                return None
            return f"{here} and no training of {target} starts after now"
        return None


class Progress:
    """``PhaseProgress`` events of the current phase (evaluations, the final evaluation):
    at most one a second, and the last."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.last = 0.0
        self.phase = "evaluating"  # the phase the progress is of (the last one started)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - self.last >= 1.0:
            self.last = now
            self.emit(ev.PhaseProgress(phase=self.phase, done=done, total=total))


@dataclass(frozen=True)
class StepContext:
    """The run's parts as one iteration's steps see them."""

    settings: EngineSettings
    task: Task
    team: AgentTeam
    control: ControlPlane
    iteration: int
    emit: Emit
    approve: Approver  # the identity when no person approves
    progress: Progress
    shelf: SkillShelf  # the skills and trained policies this run's agents reuse
    on_frame: Callable[[Any], None] | None = None  # env 0's frames during training
    frame_interval: float = 0.5  # at most one frame this often (seconds)

    @property
    def target(self) -> float:
        """The run's target in the task's measure."""
        return self.settings.target_for(self.task)

    @property
    def recipes(self) -> Recipes | None:
        """The world's recipes (None where they are not data): a composed plan's steps wait
        on what earlier steps obtain for them."""
        return world_info(self.settings.env).documentation().recipes

    def training_fields(self, samples: int, checkpoints: Path | None) -> dict[str, Any]:
        """What an RL configuration takes from the session and the iteration, whoever
        chose its actions: the envs, the seed, ``samples`` and where to checkpoint."""
        s = self.settings
        return {
            "num_envs": s.num_envs,
            "seed": s.seed + self.iteration,
            "samples": samples,
            "checkpoint_dir": checkpoints,
            "checkpoint_every": s.checkpoint_every,
        }

    def phase(self, phase: str, detail: str = "", total: int | None = None) -> None:
        """The run enters ``phase`` (planning, coding, validating, critic runs, critic,
        world, training, evaluating, final evaluation): a ``PhaseStarted`` event."""
        self.progress.phase = phase
        self.emit(ev.PhaseStarted(phase=phase, detail=detail, total=total))

    def safe_point(self) -> None:
        """Pause here while paused; raise ``StopRequested`` after a stop."""
        self.control.safe_point()

    def evaluation_progress(self, done: int, total: int) -> None:
        """Episodes ended so far in an evaluation; pause and stop are taken here too."""
        self.progress(done, total)
        self.safe_point()

    def record_code(self, subaction: str, code: str, attempt: int, source: str) -> int | None:
        """A ``CodeWritten`` event; the code version it records (the store's number)."""
        version = self.emit(
            ev.CodeWritten(subaction=subaction, code=code, attempt=attempt, source=source)
        )
        return version if isinstance(version, int) else None
