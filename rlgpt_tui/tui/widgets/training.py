"""Training pane: the task's measure during PPO training (its success rate, or Crafter's
score over the training episodes so far) on one sample axis across iterations, with
iteration markers and evaluation points with their 95% intervals as error bars, a legend
naming each series, and the latest fps (training time only)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static
from textual_plotext import PlotextPlot

from rlgpt_tui.engine import events as ev
from rlgpt_tui.tasks.catalog import get_task
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.ticks import nice_ticks, short_number


@dataclass
class Curve:
    """One training run, on the session's sample axis."""

    name: str
    x: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)  # the task's measure


@dataclass
class EvalPoint:
    x: int
    value: float
    low: float
    high: float


class TrainingPane(Vertical):
    """Curves of every training run, iteration markers, evaluation points; redrawn at most
    twice a second."""

    can_focus = True  # key 3 focuses it (and z zooms it)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Training (PPO)"
        self.curves: dict[str, Curve] = {}
        self.evaluations: list[EvalPoint] = []
        self.boundaries: list[int] = []  # samples where an iteration ended
        self.current = ""
        self.points = 0
        self.configs: dict[str, dict[str, Any]] = {}  # latest RLConfig per sub-action
        self.measure = Measure.SUCCESS_RATE  # the task's, from the session's start
        self.border_subtitle = self.subtitle()
        self._base = 0  # the stage's samples before the current iteration
        self._stage_offset = 0  # samples of earlier chain stages
        self._dirty = False

    def compose(self) -> ComposeResult:
        yield Static("waiting for the first rollout", id="training-status")
        yield PlotextPlot(id="training-plot")

    def on_mount(self) -> None:
        self.set_interval(0.5, self._redraw_if_changed)

    @property
    def axis_end(self) -> int:
        ends = [c.x[-1] for c in self.curves.values() if c.x] + self.boundaries
        return max(ends + [p.x for p in self.evaluations], default=0)

    def show(self, event: ev.Event) -> None:
        status = self.query_one("#training-status", Static)
        match event:
            case ev.SessionStarted():  # a chain's next stage continues the axis
                self._stage_offset, self._base = self.axis_end, 0
                with contextlib.suppress(KeyError, ValueError):  # a task unknown here
                    self.measure = get_task(event.task).measure
                self.border_subtitle = self.subtitle()
            case ev.SessionResumed():
                self._base = event.total_samples
            case ev.TrainingStarted():
                self.current = f"it{event.iteration + 1} {event.subaction}"
                self.curves[self.current] = Curve(self.current)
                self.configs[event.subaction] = event.rl_config or event.config
                coded = ", ".join(event.config.get("coded_actions") or []) or "none"
                status.update(
                    f"{self.current}: {event.config['samples']:,} samples, coded actions: {coded}"
                )
            case ev.PolicyReused():  # measured first: training follows only below target
                coded = ", ".join(event.coded_actions) or "none"
                status.update(
                    f"it{event.iteration + 1} {event.subaction}: the library's trained policy "
                    f"(coded actions: {coded}), measured before any training"
                )
            case ev.TrainingProgress() if self.current:
                m = event.metrics
                total = event.total_samples
                x = total if total is not None else self._base + int(m.samples)
                curve = self.curves[self.current]
                curve.x.append(self._stage_offset + x)
                self.measure = m.measured_in
                value = m.measured_value
                curve.values.append(value or 0.0)
                self.points += 1
                fps = f"{m.fps:,.0f} fps" if m.fps else "- fps"
                status.update(
                    f"{self.current}: {m.samples:,} samples  {fps}  "
                    f"training {self.measure.label} {self.measure.show(value)}  "
                    f"coded {m.coded_decision_share:.0%} of decisions"
                )
                self._dirty = True
            case ev.EvaluationDone():
                r = event.result
                value = r.measured_value
                if value is None:
                    return
                self.measure = r.measured_in
                ci = r.ci95 or (value, value)
                x = self._stage_offset + self._base + int(r.training_samples or 0)
                self.evaluations.append(EvalPoint(x, value, ci[0], ci[1]))
                self._dirty = True
            case ev.IterationDone():
                self._base = event.total_samples
                self.boundaries.append(self._stage_offset + event.total_samples)
                self._dirty = True

    def _redraw_if_changed(self) -> None:
        if self._dirty:
            self.redraw()

    def subtitle(self) -> str:
        """What the plot shows, in the task's measure (known from the session's start)."""
        return f"{self.measure.label} vs samples"

    def redraw(self) -> None:
        plots = self.query(PlotextPlot)
        if not plots:  # not composed yet, or being removed: draw on a later tick
            self._dirty = True
            return
        self._dirty = False
        widget = plots.first()
        plt = widget.plt
        plt.clear_data()
        plt.clear_figure()
        top = self.measure.top
        self.border_subtitle = self.subtitle()
        plt.xlabel("samples (all iterations)")
        if self.measure is Measure.SUCCESS_RATE:
            plt.ylim(0, 1.05)
            plt.yticks([0, 0.5, 1.0], ["0", ".5", "1"])  # three: they fit a pane at 100x30
        else:  # a score: the axis follows the data (a score rarely nears 100)
            seen = [v for c in self.curves.values() for v in c.values]
            seen += [p.high for p in self.evaluations]
            high = min(top, max(seen + [1.0]) * 1.1)
            plt.ylim(0, high)
            plt.yticks([0, high / 2, high], ["0", f"{high / 2:.0f}", f"{high:.0f}"])
        end = self.axis_end
        ticks = nice_ticks(end)
        positions: list[float] = list(ticks)
        plt.xticks(positions, [short_number(t) for t in ticks])
        plt.xlim(0, max(ticks[-1], 1))
        for x in self.boundaries:
            plt.vline(x, "gray")
        for curve in self.curves.values():
            if curve.x:
                plt.plot(curve.x, curve.values, label=f"training {curve.name}")
        cap = max(ticks[-1], 1) / 80  # half an error bar's cap, in samples
        for point in self.evaluations:  # error bars: the 95% interval, capped at both ends
            plt.plot([point.x, point.x], [point.low, point.high], color="red", marker="│")
            for y in (point.low, point.high):
                plt.plot([point.x - cap, point.x + cap], [y, y], color="red", marker="─")
        if self.evaluations:
            plt.scatter(
                [p.x for p in self.evaluations],
                [p.value for p in self.evaluations],
                color="red",
                marker="●",
                label="evaluation (95% CI)",
            )
        widget.refresh()
