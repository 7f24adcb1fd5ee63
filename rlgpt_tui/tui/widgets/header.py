"""The session line: session, task, agent, iteration i/N, samples x/budget, tokens, elapsed,
ETA, approval mode, pending edits, and the engine's phase with its own progress and the time
it has run (planning, coding, validating, critic runs, world, training x/y, evaluating n/N
episodes, critic, final evaluation) or its state (paused, stopping, waiting for your
approval, finished). One line: narrower terminals get shorter
forms of the same facts."""

from __future__ import annotations

import math
import time

from textual.content import Content
from textual.markup import escape
from textual.reactive import reactive
from textual.widget import Widget

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.printer import ended_why
from rlgpt_tui.labels import agent_label
from rlgpt_tui.ticks import short_number

HELD = ("pausing", "paused", "stopping")  # control states shown beside the phase


def clock(seconds: float) -> str:
    """``mm:ss``, or ``h:mm:ss`` from an hour on."""
    minutes, secs = divmod(int(max(seconds, 0)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class SessionHeader(Widget):
    """Built from events (recorded ones first, then live ones); ticks once a second.

    Elapsed time is the time the session ran: from each start or resume to its last event
    (so a replay shows recorded time, and the hours between a kill and a resume don't count).
    """

    task_name = reactive("-")
    env_name = reactive("-")
    agent = reactive("-")
    iteration = reactive(0)
    iterations = reactive(0)  # the session's maximum (N of i/N)
    samples = reactive(0)
    budget = reactive(0)
    tokens = reactive(0)
    state = reactive("starting")
    approval = reactive(False)
    pending = reactive(0)

    def __init__(self, session_id: int | None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session_id = session_id
        self._done_before = 0.0  # run time of earlier segments (before a resume)
        self._segment_start: float | None = None  # wall time the running segment began
        self._segment_samples = 0  # samples when it began (for the ETA's rate)
        self._last_event = 0.0
        self._base_samples = 0  # samples of finished iterations (for old records)
        self._pending_ids: set[int] = set()
        self.live = False  # a live run: the clock ticks with wall time
        self.waiting = False  # an approval dialog waits for the person
        self.phase = ""  # planning, coding, ..., training, evaluating, critic (events.py)
        self.phase_detail = ""
        self.phase_total: int | None = None
        self.phase_done = 0  # training: samples of this run; evaluating: episodes ended
        self._phase_start = 0.0
        self.fps = 0.0  # the latest training rollout's (training time only)
        self.eval_seconds = 0.0  # the last evaluation's wall time (for the ETA)
        self.iteration_samples = 0  # the current training run's budget
        self._trained_iteration = -1  # the last iteration whose training began

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)  # the clock and the ETA

    # -- events -----------------------------------------------------------------------------
    def show(self, event: ev.Event) -> None:
        if event.agent:
            self.agent = agent_label(event.agent)  # older sessions recorded a GGUF path
        self.iteration = event.iteration
        previous, self._last_event = self._last_event, event.time
        match event:
            case ev.SessionStarted():
                self.task_name, self.env_name, self.state = event.task, event.env, "running"
                self.iterations = int(event.settings.get("max_iterations") or 0)
                self.budget = int(event.settings.get("max_samples") or 0)
                self._start_segment(event.time, previous)
            case ev.SessionResumed():  # finished iterations, and the checkpointed training
                self._base_samples = event.total_samples
                self.samples = event.total_samples + event.training_samples_done
                self.state = "resumed"
                self._start_segment(event.time, previous)
            case ev.PhaseStarted():
                if self.phase == "evaluating":
                    self.eval_seconds = max(0.0, event.time - self._phase_start)
                self.phase, self.phase_detail = event.phase, event.detail
                self.phase_total, self.phase_done = event.total, 0
                self._phase_start = event.time
                if event.phase == "training":
                    self.iteration_samples = event.total or 0
                    self._trained_iteration = event.iteration
                if self.state not in HELD:
                    self.state = "running"
            case ev.PhaseProgress():
                self.phase_done, self.phase_total = event.done, event.total
            case ev.TrainingProgress():
                total = event.total_samples
                run = int(event.metrics.samples or 0)
                self.samples = total if total is not None else self._base_samples + run
                if not self.phase:  # sessions recorded before phases were
                    self.phase = "training"
                if self.phase == "training":
                    self.phase_done = run
                self.fps = float(event.metrics.fps or 0.0) or self.fps
            case ev.IterationDone():
                self.samples = self._base_samples = event.total_samples
                self.tokens = event.tokens
            case ev.LLMCalled():
                self.tokens += event.prompt_tokens + event.completion_tokens
            case ev.ControlChanged():
                self.state = "running" if event.state == "resumed" else event.state
            case ev.EditQueued():
                self._pending_ids.add(event.edit_id)
            case ev.EditApplied() | ev.EditRefused() | ev.EditDiscarded():
                self._pending_ids.discard(event.edit_id)
            case ev.SessionFinished():
                self.state = f"finished: {ended_why(event)}"
                self.phase = ""
                # stopped mid-training: the samples it spent (checkpointed) stay shown
                self.samples = max(self.samples, event.total_samples)
                self.tokens = event.tokens
                self._end_segment(event.time)
        self.pending = len(self._pending_ids)
        self.refresh()

    def _start_segment(self, when: float, previous: float) -> None:
        if self._segment_start is not None:  # a kill: that segment ended at its last event
            self._done_before += max(0.0, previous - self._segment_start)
        self._segment_start = when
        self._segment_samples = self.samples

    def _end_segment(self, when: float) -> None:
        if self._segment_start is not None:
            self._done_before += max(0.0, when - self._segment_start)
        self._segment_start = None

    # -- text -------------------------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        if self._segment_start is None:
            return self._done_before
        now = time.time() if self.live else self._last_event
        return self._done_before + max(0.0, now - self._segment_start)

    @property
    def eta(self) -> float | None:
        """Seconds left: the training samples left at the training rate (fps, training time
        only), plus an evaluation per training left at the last evaluation's wall time, plus
        what the running evaluation still needs. None before a rate is known."""
        if self._segment_start is None or not self.live or not self.budget or self.fps <= 0:
            return None
        per_run = self.iteration_samples
        evaluating = self.phase == "evaluating"
        # this iteration's training: still to come, running, or done (then evaluated)
        if self._trained_iteration != self.iteration:
            current_trains, left_in_run = per_run > 0, per_run
        else:
            current_trains = self.phase in ("training", "") and per_run > 0
            left_in_run = max(0, per_run - self.phase_done) if current_trains else 0
        later = max(0, self.iterations - self.iteration - 1) if self.iterations else 0
        samples_left = max(0, self.budget - self.samples)
        if per_run:
            samples_left = min(samples_left, left_in_run + later * per_run)
        trainings = (1 if current_trains else 0) + (
            min(later, math.ceil(max(0, samples_left - left_in_run) / per_run)) if per_run else 0
        )
        seconds = samples_left / self.fps + trainings * self.eval_seconds
        if evaluating:
            spent = time.time() - self._phase_start
            total, done = self.phase_total or 0, self.phase_done
            seconds += spent * (total - done) / done if done else self.eval_seconds
        return seconds

    @property
    def phase_elapsed(self) -> float:
        """Seconds the current phase has run (a replay: up to its last recorded event)."""
        if not self.phase or not self._phase_start:
            return 0.0
        now = time.time() if self.live else self._last_event
        return max(0.0, now - self._phase_start)

    def phase_text(self, short: bool = False) -> str:
        """The phase with its own progress and how long it has run (``training
        1.0k/4.1k 0:12``, ``evaluating 3/8 episodes 0:04``); ``short``: without what it
        works on."""
        phase, detail = self.phase, self.phase_detail
        if not phase:
            return "running"
        spent = f" {clock(self.phase_elapsed)}" if self._phase_start else ""
        if phase == "training" and self.phase_total:
            done = f"{short_number(self.phase_done)}/{short_number(self.phase_total)}"
            return (f"training {done}" if short else f"training {detail} {done}") + spent
        if phase in ("evaluating", "final evaluation") and self.phase_total:
            return f"{phase} {self.phase_done}/{self.phase_total} episodes{spent}"
        if phase == "world" and "compiling" in detail and short:  # what the wait is for
            return f"compiling{spent}"
        if short or phase == "planning" or not detail:
            return phase + spent
        return f"{phase} {detail}{spent}"

    def state_text(self, short: bool = False) -> str:
        """What the engine does now, as a person reads it."""
        if self.waiting:
            return "waiting for your approval"
        state = self.state
        if state in ("running", "resumed") and self.live:
            return self.phase_text(short)
        if state in HELD and self.phase:
            return f"{state} ({self.phase})"
        return state

    def render(self) -> Content:
        width = max(20, self.size.width - 2) if self.size.width else 200
        for level in range(5):
            parts = self._parts(level)
            content = Content.from_markup("  |  ".join(parts) if level == 0 else " | ".join(parts))
            if content.cell_length <= width or level == 4:
                break
        return content

    def _parts(self, level: int) -> list[str]:
        """The header's parts, shorter at each ``level`` (0: all of them in full; 4: for 80
        columns)."""
        full = level == 0
        agent = "builtin agent (no LLM)" if self.agent == "builtin" else self.agent
        if level >= 2:
            agent = "builtin" if self.agent == "builtin" else self.agent.removeprefix("llm:")
        session = self.session_id if self.session_id is not None else "-"
        of = f"/{self.iterations}" if self.iterations else ""
        eta = self.eta
        timing = clock(self.elapsed) + (
            (f" (ETA {clock(eta)})" if full else f" ETA {clock(eta)}") if eta is not None else ""
        )
        if level >= 4 and eta is not None:  # the narrowest: the time left only
            timing = f"ETA {clock(eta)}"
        state = f"[b]{escape(self.state_text(short=level >= 3))}[/b]"
        if level >= 2:
            samples = short_number(self.samples) + (
                f"/{short_number(self.budget)}" if self.budget else ""
            )
        else:
            samples = f"samples {self.samples:,}" + (f"/{self.budget:,}" if self.budget else "")
        edits = f"{self.pending} edit{'s' if self.pending != 1 else ''} pending"
        if level == 0:
            return [
                f"[b]session {session}[/b] {escape(self.task_name)} on {escape(self.env_name)}",
                escape(agent),
                f"iteration {self.iteration + 1}{of}",
                samples,
                f"tokens {self.tokens:,}",
                timing,
                f"approval {'on' if self.approval else 'off'}",
                edits,
                state,
            ]
        parts = [f"[b]#{session}[/b] {escape(self.task_name)}"]
        if level <= 2:
            parts.append(escape(agent))
        parts += [f"it {self.iteration + 1}{of}", samples]
        if level == 1 or self.tokens:
            parts.append(f"tok {short_number(self.tokens)}")
        parts.append(timing)
        if self.approval or level == 1:
            parts.append(f"approval {'on' if self.approval else 'off'}")
        if self.pending or level == 1:
            parts.append(edits)
        parts.append(state)
        return parts
