"""Where a session's wall time went: seconds per phase and iteration, from its events.

A phase lasts from its ``PhaseStarted`` to the next one (or the session's end, or the last
event before a resume: a killed run's time stops at its last record). Paused spans (the
``control`` events paused..resumed) are counted as ``paused``, not as the phase. Inside a
phase, LLM calls count as ``LLM <role>`` (their recorded latency). A training phase is
split by its last ``TrainingProgress`` metrics: ``world`` (the world's reset and its
compilation before the first rollout, ``setup_seconds``), ``checkpointing``
(``checkpoint_seconds``) and ``training`` (PPO proper: rollouts and updates). Sessions
recorded before those metrics count all of it as training.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.engine import events as ev

#: the order of phases in tables and bars (LLM roles come after ``critic``; others last)
ORDER = (
    "planning",
    "coding",
    "validating",
    "critic runs",
    "world",
    "training",
    "checkpointing",
    "evaluating",
    "critic",
    "final evaluation",
)
TRAINING = "training"


@dataclass
class IterationPhases:
    """One iteration's wall seconds per phase, and its training proper's samples."""

    iteration: int
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    samples: int = 0  # samples trained in this iteration's training runs (this run's part)

    @property
    def wall(self) -> float:
        return sum(v for k, v in self.seconds.items() if k != "paused")

    @property
    def samples_per_second(self) -> float | None:
        """Samples per second of training proper (None: nothing trained)."""
        seconds = self.seconds.get(TRAINING, 0.0)
        return self.samples / seconds if self.samples and seconds > 0 else None


@dataclass
class SessionPhases:
    """Every iteration's phases, in order, and their totals."""

    iterations: list[IterationPhases]

    @property
    def totals(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for it in self.iterations:
            for name, seconds in it.seconds.items():
                out[name] += seconds
        return dict(out)

    @property
    def wall(self) -> float:
        return sum(it.wall for it in self.iterations)

    @property
    def samples(self) -> int:
        return sum(it.samples for it in self.iterations)

    @property
    def training_share(self) -> float:
        """Training proper's share of the wall time (pauses left out)."""
        wall = self.wall
        return self.totals.get(TRAINING, 0.0) / wall if wall > 0 else 0.0

    @property
    def samples_per_second(self) -> float | None:
        seconds = self.totals.get(TRAINING, 0.0)
        return self.samples / seconds if self.samples and seconds > 0 else None

    def names(self) -> list[str]:
        """The phases that took time, in :data:`ORDER` (then LLM roles, then others)."""
        present = {k for it in self.iterations for k, v in it.seconds.items() if v > 0}
        ordered = [p for p in ORDER if p in present]
        llm = sorted(p for p in present if p.startswith("LLM "))
        rest = sorted(present - set(ordered) - set(llm))
        return ordered + llm + rest

    def as_dict(self) -> dict[str, Any]:
        """Totals and shares (for JSON: the benchmark, the export)."""
        wall = self.wall
        totals = self.totals
        return {
            "wall_seconds": round(wall, 2),
            "training_share": round(self.training_share, 4),
            "samples": self.samples,
            "samples_per_second": (
                round(self.samples_per_second, 1) if self.samples_per_second else None
            ),
            "seconds": {name: round(totals[name], 2) for name in self.names()},
            "shares": {
                name: round(totals[name] / wall, 4) if wall > 0 else 0.0
                for name in self.names()
                if name != "paused"
            },
            "iterations": [
                {
                    "iteration": it.iteration,
                    "wall_seconds": round(it.wall, 2),
                    "samples_per_second": (
                        round(it.samples_per_second, 1) if it.samples_per_second else None
                    ),
                    "seconds": {k: round(v, 2) for k, v in it.seconds.items() if v > 0},
                }
                for it in self.iterations
            ],
        }


def session_phases(records: ev.Records) -> SessionPhases:
    """The phases of a recorded session (its events, oldest first)."""
    events = ev.events_from_records(records)
    per: dict[int, IterationPhases] = {}

    def at(iteration: int) -> IterationPhases:
        if iteration not in per:
            per[iteration] = IterationPhases(iteration)
        return per[iteration]

    phase: ev.PhaseStarted | None = None
    start = paused_at = None
    llm: list[ev.LLMCalled] = []
    progress: ev.TrainingProgress | None = None
    last_time = None

    def close(end: float) -> None:
        """The open phase ends at ``end``: its time, less LLM calls, split if training."""
        nonlocal phase, start, llm, progress
        if phase is None or start is None:
            return
        it = at(phase.iteration)
        wall = max(0.0, end - start)
        for call in llm:
            share = min(float(call.latency_s), wall)
            it.seconds[f"LLM {call.role}"] += share
            wall -= share
        if phase.phase == TRAINING and progress is not None:
            m = progress.metrics
            setup = min(float(m.setup_seconds or 0.0), wall)
            saving = min(float(m.checkpoint_seconds or 0.0), wall - setup)
            it.seconds["world"] += setup
            it.seconds["checkpointing"] += saving
            wall -= setup + saving
            it.samples += max(0, int(m.samples or 0) - int(m.resumed_from or 0))
        it.seconds[phase.phase] += wall
        phase, start, llm, progress = None, None, [], None

    for e in events:
        match e:
            case ev.SessionResumed():  # a kill: the last segment ended at its last record
                if paused_at is not None:
                    paused_at = None
                if last_time is not None:
                    close(last_time)
            case ev.PhaseStarted():
                close(e.time)
                phase, start = e, e.time
            case ev.LLMCalled() if phase is not None:
                llm.append(e)
            case ev.TrainingProgress() if phase is not None and phase.phase == TRAINING:
                progress = e
            case ev.ControlChanged() if e.state == "paused" and paused_at is None:
                paused_at = e.time
            case ev.ControlChanged() if e.state in ("resumed", "stopping") and paused_at:
                held = max(0.0, e.time - paused_at)
                at(phase.iteration if phase else e.iteration).seconds["paused"] += held
                if start is not None:
                    start += held  # the phase's own time goes on after the pause
                paused_at = None
            case ev.SessionFinished():
                close(e.time)
        last_time = e.time
    if phase is not None and last_time is not None:
        close(last_time)
    return SessionPhases([per[k] for k in sorted(per)])
