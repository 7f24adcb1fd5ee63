"""Critic pane: each verdict, with its reason and suggestion, and the evaluations."""

from __future__ import annotations

from typing import Any

from textual.markup import escape

from rlgpt_tui.engine import events as ev
from rlgpt_tui.tui.widgets.searchable import SearchableLog


class CriticPane(SearchableLog):
    """Verdicts (ok / failed, reason, suggestion) and evaluation results, newest last."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("Critic", markup=True, **kwargs)
        self.verdicts: list[ev.VerdictGiven] = []

    def show(self, event: ev.Event) -> None:
        match event:
            case ev.VerdictGiven():
                self.verdicts.append(event)
                mark = "[green]ok[/]" if event.success else "[red]failed[/]"
                tip = f"\n    suggestion: {escape(event.suggestion)}" if event.suggestion else ""
                self.add(
                    f"it {event.iteration} [b]{event.subaction}[/b] {mark} "
                    f"({escape(event.agent)}): {escape(event.reason)}{tip}"
                )
            case ev.EvaluationDone():
                r = event.result
                if r.get("success_rate") is None:
                    return
                ci = r.get("ci95") or [0, 0]
                self.add(
                    f"it {event.iteration} eval {escape(event.subject)}: success "
                    f"{r['success_rate']:.2f} (95% CI {ci[0]:.2f}-{ci[1]:.2f}, "
                    f"{r.get('episodes')} episodes)"
                )
            case ev.IterationDone():
                self.add(
                    f"[b]iteration {event.iteration} done[/b]: success "
                    f"{event.success_rate:.2f}, {event.samples:,} samples"
                )
