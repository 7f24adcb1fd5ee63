"""Critic pane: each verdict, with its reason and suggestion, and the evaluations."""

from __future__ import annotations

from typing import Any

from textual.markup import escape

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.printer import candidate_lines
from rlgpt_tui.engine.provenance import PROVENANCE_EVENTS, solution_provenance
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tui.widgets.searchable import SearchableLog


class CriticPane(SearchableLog):
    """Verdicts (ok / failed, reason, suggestion) and evaluation results, newest last."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("Critic", markup=True, **kwargs)
        self.verdicts: list[ev.VerdictGiven] = []
        self._kept: list[ev.Event] = []  # what the solution's provenance is read from

    def show(self, event: ev.Event) -> None:
        if isinstance(event, PROVENANCE_EVENTS):
            self._kept.append(event)
        match event:
            case ev.VerdictGiven():
                self.verdicts.append(event)
                mark = "[green]ok[/]" if event.success else "[red]failed[/]"
                tip = f"\n    suggestion: {escape(event.suggestion)}" if event.suggestion else ""
                self.add(
                    f"it {event.iteration + 1} [b]{event.subaction}[/b] {mark} "
                    f"({escape(event.agent)}): {escape(event.reason)}{tip}"
                )
            case ev.EvaluationDone():
                r = event.result
                if r.measured_value is None:
                    return
                subject, text = escape(event.subject), escape(r.text())
                self.add(f"it {event.iteration + 1} eval {subject}: {text}")
                low = low_achievements(r)
                if low:
                    self.add(f"    achievements at 0: {escape(low)}")
            case ev.IterationDone():
                measure = Measure(event.measure)
                self.add(
                    f"[b]iteration {event.iteration + 1} done[/b]: {measure.label} "
                    f"{measure.show(event.value)}, {event.samples:,} samples"
                )
            case ev.SolutionChosen():
                for line in candidate_lines(event):
                    self.add(escape(line))
                self.add(f"[b]solution[/b]: {escape(event.result.subject)}")
                for line in solution_provenance(self._kept, event.result).lines():
                    self.add(f"    {escape(line)}")
            case ev.SessionFinished() if event.run:
                self.add(
                    f"[b]all {event.run.episodes or 0:,} training episodes[/b] (Crafter's "
                    f"definition): {escape(event.run.text())}"
                )


def low_achievements(result: EvaluationSummary) -> str:
    """Scored tasks: the achievements no evaluation episode unlocked."""
    if result.measure != Measure.CRAFTER_SCORE:
        return ""
    rates = result.achievement_rates or {}
    return ", ".join(k for k, v in rates.items() if v == 0)
