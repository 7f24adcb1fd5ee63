"""A session's learning curves drawn with matplotlib (Agg, no display): the task's measure
in training of every run on one sample axis across iterations, and each evaluation with its
95% interval as an error bar. The report's export writes them as ``curves.png`` and
``curves.svg``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.ticks import short_number

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: the figure's size in pixels (PNG) at :data:`DPI`
WIDTH, HEIGHT, DPI = 900, 360, 100
EVALUATION_COLOUR = "#d62728"  # a trained policy's evaluations
CODE_COLOUR = "#333333"  # code alone, evaluated (no training: at its iteration's start)

Offset = Callable[[int], int]  # an iteration -> the samples spent before it


def sample_offsets(iterations: list[dict[str, Any]]) -> dict[int, int]:
    """Samples spent before each iteration (from the iterations' running totals)."""
    offsets, before = {}, 0
    for row in sorted(iterations, key=lambda r: r["iteration"]):
        offsets[row["iteration"]] = before
        before = row["total_samples"]
    offsets[max(offsets, default=-1) + 1] = before  # an unfinished last iteration
    return offsets


def metric_value(row: dict[str, Any]) -> float | None:
    """A metrics row's value of the task's measure (older rows: their success rate)."""
    return row.get("value", row.get("success_rate"))


def draw_learning_curves(
    metrics: list[dict[str, Any]],
    evaluations: list[dict[str, Any]] | None = None,
    iterations: list[dict[str, Any]] | None = None,
    target: float | None = None,
) -> Figure | None:
    """The figure of the session's records (``training_metrics``, ``evaluations`` and
    ``iterations`` rows), or None when nothing trained: one line per training run (its
    iteration and sub-action), iterations shaded in turn, each evaluation at the samples
    its policy was trained on with its 95% interval, and ``target`` as a dashed line."""
    # start-up: matplotlib (about 0.3 s) loads only when curves are drawn
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    runs: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for row in metrics:
        runs.setdefault((row["iteration"], row["subaction"]), []).append(row)
    if not runs:
        return None
    offsets = sample_offsets(iterations or [])
    last_offset = offsets[max(offsets)]

    def offset(i: int) -> int:
        return offsets.get(i, last_offset)

    measure = Measure.SUCCESS_RATE
    for row in evaluations or []:
        measure = Measure(row.get("measure") or Measure.SUCCESS_RATE)

    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    _shade_iterations(axes, iterations or [], offset)
    _plot_training_runs(axes, runs, offset)
    _plot_evaluations(axes, evaluations or [], offset)
    if target is not None:
        axes.axhline(target, color="#999999", ls="--", lw=1, label=f"target {measure.show(target)}")
    if measure is Measure.SUCCESS_RATE:
        axes.set_ylim(-0.03, 1.03)
    else:
        axes.set_ylim(bottom=0)
    axes.set_xlim(left=0)
    axes.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10], integer=True))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda v, _: short_number(int(v))))
    axes.set_xlabel("samples (all iterations)")
    axes.set_ylabel(measure.label)
    axes.set_title(
        f"{measure.label} in training per run; evaluations with 95% intervals", fontsize=10, pad=14
    )
    axes.grid(axis="y", color="#e5e5e5")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return figure


def _shade_iterations(axes: Axes, iterations: list[dict[str, Any]], offset: Offset) -> None:
    """Every other iteration's samples shaded, each iteration named above the axes."""
    for n, row in enumerate(sorted(iterations, key=lambda r: r["iteration"])):
        start, end = offset(row["iteration"]), row["total_samples"]
        if n % 2:
            axes.axvspan(start, end, color="#f0f0f0", zorder=0)
        axes.annotate(
            f"it{row['iteration'] + 1}",
            ((start + end) / 2, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            color="#777777",
            fontsize=8,
        )


def _plot_training_runs(
    axes: Axes, runs: dict[tuple[int, str], list[dict[str, Any]]], offset: Offset
) -> None:
    """One line per training run (iteration, sub-action): its measure at its samples."""
    for n, ((iteration, sub), rows) in enumerate(sorted(runs.items())):
        line = [
            (offset(iteration) + (r["samples"] or 0), metric_value(r))
            for r in rows
            if metric_value(r) is not None
        ]
        xs, ys = zip(*line, strict=True) if line else ((), ())
        axes.plot(
            xs,
            ys,
            color=f"C{(0, 2, 4, 1, 5, 9)[n % 6]}",
            lw=1.6,
            marker=".",
            ms=3,
            label=f"training it{iteration + 1} {sub}",
        )


def _plot_evaluations(axes: Axes, evaluations: list[dict[str, Any]], offset: Offset) -> None:
    """Each evaluation with its 95% interval: a trained policy's, and code alone's."""
    trained, coded = _evaluation_points(evaluations, offset)
    for points, colour, marker, label in (
        (trained, EVALUATION_COLOUR, "o", "evaluation (95% CI)"),
        (coded, CODE_COLOUR, "D", "code alone (95% CI)"),
    ):
        if not points:
            continue
        xs, values, lows, highs = zip(*points, strict=True)
        below = [max(v - lo, 0.0) for v, lo in zip(values, lows, strict=True)]
        above = [max(hi - v, 0.0) for v, hi in zip(values, highs, strict=True)]
        axes.errorbar(
            xs,
            values,
            yerr=[below, above],
            fmt=marker,
            color=colour,
            ms=5,
            capsize=4,
            elinewidth=1.2,
            label=label,
            zorder=3,
        )


def _evaluation_points(evaluations: list[dict[str, Any]], offset: Offset) -> tuple[list, list]:
    """(x, value, low, high) of the trained policies' evaluations, and of code alone's."""
    trained: list[tuple[int, float, float, float]] = []
    coded: list[tuple[int, float, float, float]] = []
    for row in evaluations:
        result = json.loads(row["result"]) if isinstance(row["result"], str) else row["result"]
        value = result.get("value", result.get("success_rate"))
        if value is None:
            continue
        low, high = result.get("ci95") or [value] * 2
        samples = result.get("training_samples")
        point = (offset(row["iteration"]) + int(samples or 0), value, low, high)
        (trained if samples is not None else coded).append(point)
    return trained, coded


def save_curves(figure: Figure, folder: Path, name: str = "curves") -> list[Path]:
    """Write ``figure`` as ``name.png`` and ``name.svg`` (its text kept as text: searchable,
    and editable in a vector editor) in ``folder``; returns their paths."""
    import matplotlib  # start-up: as in draw_learning_curves

    paths = [folder / f"{name}.png", folder / f"{name}.svg"]
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rlgpt"}):
        figure.savefig(paths[0], dpi=DPI, metadata={"Software": None})
        figure.savefig(paths[1], metadata={"Date": None})
    return paths
