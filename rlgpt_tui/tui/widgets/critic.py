"""Critic pane: each verdict, with its reason and suggestion, and the evaluations."""

from __future__ import annotations

from typing import Any

from textual.widgets import RichLog


class CriticPane(RichLog):
    """Verdicts (ok / failed, reason, suggestion) and evaluation results, newest last."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(wrap=True, markup=True, **kwargs)
        self.border_title = "Critic"
        self.verdicts: list[dict[str, Any]] = []

    def show(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "verdict":
            self.verdicts.append(event)
            mark = "[green]ok[/]" if event["success"] else "[red]failed[/]"
            tip = f"\n    suggestion: {event['suggestion']}" if event["suggestion"] else ""
            self.write(
                f"it {event['iteration']} [b]{event['subaction']}[/b] {mark} "
                f"({event['agent']}): {event['reason']}{tip}"
            )
        elif kind == "evaluation":
            r = event["result"]
            if r.get("success_rate") is None:
                return
            ci = r.get("ci95") or [0, 0]
            self.write(
                f"it {event['iteration']} eval {event['subject']}: success "
                f"{r['success_rate']:.2f} (95% CI {ci[0]:.2f}-{ci[1]:.2f}, "
                f"{r.get('episodes')} episodes)"
            )
        elif kind == "iteration_done":
            self.write(
                f"[b]iteration {event['iteration']} done[/b]: success "
                f"{event['success_rate']:.2f}, {event['samples']:,} samples"
            )
