"""Training pane: PPO curves (success rate, mean return) against samples, and fps."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static
from textual_plotext import PlotextPlot


class TrainingPane(Vertical):
    """One curve per training run; the status line shows the latest fps and samples."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Training (PPO)"
        self.runs: dict[str, dict[str, list[float]]] = {}
        self.current = ""
        self.points = 0
        self.configs: dict[str, dict[str, Any]] = {}  # latest RLConfig per sub-action

    def compose(self) -> ComposeResult:
        yield Static("waiting for the first rollout", id="training-status")
        yield PlotextPlot(id="training-plot")

    def show(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "training_started":
            self.current = f"it{event['iteration']} {event['subaction']}"
            self.runs[self.current] = {"samples": [], "success": [], "return": []}
            self.configs[event["subaction"]] = event.get("rl_config") or event["config"]
            coded = ", ".join(event["config"].get("coded_actions") or []) or "none"
            self.query_one("#training-status", Static).update(
                f"{self.current}: {event['config']['samples']:,} samples, coded actions: {coded}"
            )
        elif kind == "training_progress" and self.current:
            m = event["metrics"]
            run = self.runs[self.current]
            run["samples"].append(m["samples"])
            run["success"].append(m["success_rate"] if m["success_rate"] is not None else 0.0)
            run["return"].append(m["ep_return_mean"] if m["ep_return_mean"] is not None else 0.0)
            self.points += 1
            rate = "-" if m["success_rate"] is None else f"{m['success_rate']:.2f}"
            self.query_one("#training-status", Static).update(
                f"{self.current}: {m['samples']:,} samples  {m['fps']:,.0f} fps  "
                f"train success {rate}  coded {m['coded_decision_share']:.0%} of decisions"
            )
            self.redraw()

    def redraw(self) -> None:
        widget = self.query_one(PlotextPlot)
        plt = widget.plt
        plt.clear_data()
        plt.title("training success rate (left) and mean return (right) vs samples")
        plt.ylim(0, 1)
        for name, run in self.runs.items():
            if run["samples"]:
                plt.plot(run["samples"], run["success"], label=f"{name} success")
                plt.plot(run["samples"], run["return"], label="return", yside="right", marker="dot")
        widget.refresh()
