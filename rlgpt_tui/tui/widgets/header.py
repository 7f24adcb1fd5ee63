"""The session line: session, task, agent, iteration i/N, samples x/budget, tokens, elapsed,
ETA, approval mode, pending edits and the engine's state."""

from __future__ import annotations

import time

from textual.content import Content
from textual.markup import escape
from textual.reactive import reactive
from textual.widget import Widget

from rlgpt_tui.engine import events as ev


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

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)  # the clock and the ETA

    # -- events -----------------------------------------------------------------------------
    def show(self, event: ev.Event) -> None:
        if event.agent:
            self.agent = event.agent
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
            case ev.TrainingProgress():
                total = event.total_samples
                self.samples = (
                    total
                    if total is not None
                    else self._base_samples + int(event.metrics.get("samples") or 0)
                )
                if self.state not in ("pausing", "paused", "stopping"):
                    self.state = "training"
            case ev.IterationDone():
                self.samples = self._base_samples = event.total_samples
                self.tokens = event.tokens
                if self.state == "training":
                    self.state = "running"
            case ev.LLMCalled():
                self.tokens += event.prompt_tokens + event.completion_tokens
            case ev.ControlChanged():
                self.state = event.state
            case ev.EditQueued():
                self._pending_ids.add(event.edit_id)
            case ev.EditApplied() | ev.EditRefused() | ev.EditDiscarded():
                self._pending_ids.discard(event.edit_id)
            case ev.SessionFinished():
                self.state = f"finished: {event.reason}"
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
        """Seconds left at this segment's sample rate (None before it has one)."""
        if self._segment_start is None or not self.live or not self.budget:
            return None
        spent = time.time() - self._segment_start
        gained = self.samples - self._segment_samples
        if gained <= 0 or spent <= 0:
            return None
        return max(0, self.budget - self.samples) / (gained / spent)

    def render(self) -> Content:
        label = escape("builtin agent (no LLM)" if self.agent == "builtin" else self.agent)
        session = self.session_id if self.session_id is not None else "-"
        of = f"/{self.iterations}" if self.iterations else ""
        budget = f"/{self.budget:,}" if self.budget else ""
        eta = self.eta
        timing = clock(self.elapsed) + (f" (ETA {clock(eta)})" if eta is not None else "")
        edits = f"{self.pending} edit{'s' if self.pending != 1 else ''} pending"
        parts = [
            f"[b]session {session}[/b] {self.task_name} on {self.env_name}",
            label,
            f"iteration {self.iteration + 1}{of}",
            f"samples {self.samples:,}{budget}",
            f"tokens {self.tokens:,}",
            timing,
            f"approval {'on' if self.approval else 'off'}",
            edits,
            f"[b]{escape(self.state)}[/b]",
        ]
        return Content.from_markup("  |  ".join(parts))
