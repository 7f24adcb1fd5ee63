"""Prints engine events for the headless `run` command (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.provenance import (
    PROVENANCE_EVENTS,
    planned_by,
    solution_provenance,
    written_by,
)
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.text import safe_text


class EventPrinter:
    """An event handler that prints plans, verdicts, success rates, samples and tokens.

    Text that comes from an agent (names, reasons, errors) is escaped: ``[/]`` in an LLM's
    answer is shown as written, never read as markup."""

    def __init__(self, console: Console):
        self.console = console
        self._last_progress = 0.0
        self._versions: dict[str, int] = {}  # code versions per sub-action (vN)
        self._kept: list[ev.Event] = []  # what the solution's provenance is read from

    def remember(self, recorded: list[ev.Event]) -> None:
        """A resumed session's record: the solution it ends with may have been written
        before the resume, and its provenance is read from there too."""
        self._kept += [e for e in recorded if isinstance(e, PROVENANCE_EVENTS)]

    def __call__(self, event: ev.Event) -> None:
        c = self.console
        who = f"[dim]{_e(event.agent)}[/]"
        if isinstance(event, PROVENANCE_EVENTS):
            self._kept.append(event)
        match event:
            case ev.SessionStarted():
                c.rule(f"RL-GPT: {_e(event.task)} on {_e(event.env)} - agent: {_e(event.agent)}")
            case ev.TaskPlanProposed():
                chain = _e(" -> ".join(event.subtasks))
                c.rule(f"task plan for {_e(event.task)} ({who}): {chain}")
            case ev.PlanProposed():
                self._plan(event)
            case ev.CodeWritten():
                n = self._versions[event.subaction] = self._versions.get(event.subaction, 0) + 1
                by = written_by(event.source, event.agent)
                c.print(f"  code for {_e(event.subaction)} v{n} ({_e(by)})")
            case ev.CodeValidationFailed():
                c.print(f"  [red]code rejected[/] {_e(event.subaction)}: {_e(event.error)}")
            case ev.RLConfigValidationFailed():
                c.print(f"  [red]RL config rejected[/] {_e(event.subaction)}: {_e(event.error)}")
            case ev.EditApplied():
                c.print(f"  human edit of {event.what} {_e(event.target)} applied ({event.at})")
            case ev.EditRefused() | ev.EditDiscarded():
                c.print(f"  [red]human edit {event.kind[5:]}[/] {event.what}: {_e(event.reason)}")
            case ev.TrainingStarted():
                coded = ", ".join(event.config["coded_actions"]) or "none"
                note = event.config.get("high_level_actions_note")
                c.print(
                    f"  PPO on {_e(event.subaction)}: {event.config['samples']:,} samples, "
                    f"coded actions: {_e(coded)}" + (f" [yellow]({_e(note)})[/]" if note else "")
                )
            case ev.PolicyReused():
                c.print(f"  [green]library policy[/] for {_e(event.subaction)}: {_e(event.note)}")
            case ev.PhaseStarted() if event.phase == "world" and ": " in event.detail:
                c.print(f"  [dim]{_e(event.detail.split(': ', 1)[1])}...[/]")  # a compilation
            case ev.TrainingProgress():
                self._progress(event)
            case ev.EvaluationDone():
                summary = event.result
                c.print(f"  eval {_e(event.subject)}: {_e(summary.text())}")
                for line in notes_lines(summary.coded_notes or {}):
                    c.print(f"  [dim]{_e(line)}[/]")
            case ev.VerdictGiven():
                mark = "[green]ok[/]" if event.success else "[red]fail[/]"
                c.print(f"  critic ({who}) {_e(event.subaction)}: {mark} {_e(event.reason)}")
            case ev.IterationDone():
                measure = Measure(event.measure)
                c.print(
                    f"[bold]iteration {event.iteration + 1} done[/]: {measure.label} "
                    f"{measure.show(event.value)}, samples {event.samples:,} "
                    f"(total {event.total_samples:,}), tokens {event.tokens:,}"
                )
            case ev.EngineError():
                c.print(f"[red]error:[/] {_e(event.message)}")
            case ev.SolutionChosen():
                self._solution(event)
            case ev.SessionFinished():
                self._finished(event)

    def _plan(self, event: ev.PlanProposed) -> None:
        """The plan, one line per sub-action: its mode, high-level actions and why."""
        c = self.console
        by = planned_by(event.source, event.agent)
        kept = " (kept)" if event.source == "previous plan" else ""
        c.print(f"[bold]iteration {event.iteration + 1}[/] plan{kept} by {_e(by)}:")
        for sub in event.plan.subactions:
            extra = (
                f" + high-level {_e(', '.join(sub.high_level_actions))}"
                if sub.high_level_actions
                else ""
            )
            why = f" ({_e(sub.reason)})" if sub.reason else ""
            c.print(
                f"  - {_e(sub.name)} "
                f"[{'cyan' if sub.mode == 'code' else 'magenta'}]"
                f"{_e(sub.mode)}[/]{extra}: {_e(sub.description)}{why}"
            )

    def _progress(self, event: ev.TrainingProgress) -> None:
        """Training progress, at most every five seconds, with coded actions' failures."""
        m = event.metrics
        if m.elapsed - self._last_progress < 5 and m.elapsed >= self._last_progress:
            return
        self._last_progress = m.elapsed
        measure = m.measured_in
        self.console.print(
            f"    {m.samples:>8,} samples  {m.fps:>7,.0f} fps  "
            f"train {measure.label} {measure.show(m.measured_value)}"
        )
        for line in coded_failure_lines(m.coded_actions or {}):
            self.console.print(f"    [yellow]{escape(line)}[/]")

    def _solution(self, event: ev.SolutionChosen) -> None:
        """The final choice: each candidate, the one chosen and who wrote what it runs."""
        c = self.console
        for line in candidate_lines(event):
            c.print(f"  {_e(line)}")
        r, measure = event.result, event.result.measure
        own = r.stop_value
        shown = "none, it ran alone only here" if own is None else measure.show(own)
        c.print(
            f"[bold]solution[/]: {_e(r.subject)}, the best on fresh worlds "
            f"(the run's own evaluation of it: {shown})"
        )
        for line in solution_provenance(self._kept, r).lines():
            c.print(f"  {_e(line)}")

    def _finished(self, event: ev.SessionFinished) -> None:
        c = self.console
        c.rule(f"session finished; agent {_e(event.agent)}")
        c.print(_e(finished_text(event)))
        if event.run:
            c.print(f"  all training episodes: {_e(event.run.text())}")
        elif event.measure == Measure.CRAFTER_SCORE and event.total_samples:
            c.print("  all training episodes: none ended, so no Crafter score of them")


def ended_why(event: ev.SessionFinished) -> str:
    """How a run ended, for a person: ``stopped by you``, or its reason (and, when a stop
    was asked for but the run ended first, that it did)."""
    if event.reason == "stopped":
        return "stopped by you"
    if event.stop_requested:
        return f"{event.reason} (reached before your stop took effect)"
    return event.reason


def candidate_lines(event: ev.SolutionChosen) -> list[str]:
    """One line per candidate of the final choice: its fresh evaluation."""
    measure = event.result.measure
    return [f"fresh worlds: {c.subject}: {c.text(measure)}" for c in event.candidates]


def finished_text(event: ev.SessionFinished) -> str:
    """``finished: WHY; result MEASURE V [LOW-HIGH] (KIND, fresh worlds; the run's own
    evaluation: S); N training samples; T tokens`` (``best MEASURE V`` when no solution
    was chosen; ``nothing evaluated yet`` when it ended before any evaluation)."""
    measure = Measure(event.measure)
    if event.result is not None:
        r = event.result
        figure = (
            f"result {r.text()} ({r.kind}, fresh worlds; the best "
            f"of the run's own evaluations {measure.show(event.best)})"
        )
        if r.reached is not None and r.target is not None:
            at = "at or above" if r.reached else "below"
            figure += f"; the result is {at} the target {measure.show(r.target)}"
    elif event.evaluated:
        figure = f"best {measure.label} {measure.show(event.best)}"
    else:
        figure = "nothing evaluated yet"
    return (
        f"finished: {ended_why(event)}; {figure}; "
        f"{event.total_samples:,} training samples; {event.tokens:,} tokens"
    )


def coded_failure_lines(usage: dict) -> list[str]:
    """One line per coded action whose calls failed: counts by reason and the last error."""
    lines = []
    for name, stats in usage.items():
        failed = {
            reason: count
            for reason, count in stats.get("end_reasons", {}).items()
            if CallEnd(reason).failure
        }
        if failed:
            counts = ", ".join(f"{count} {reason}" for reason, count in failed.items())
            last = stats.get("last_failure", "")
            lines.append(f"coded {name}: {counts} of {stats['calls']} calls; last {last}"[:200])
    return lines


def notes_lines(notes: dict[str, dict[str, int]]) -> list[str]:
    """One line per coded action whose calls logged notes (``ctx.log``; a plan's steps that
    raised log their error): the most common notes and how many calls logged each."""
    return [
        f"coded {name} noted: " + "; ".join(f"{note} ({n} calls)" for note, n in counts.items())
        for name, counts in notes.items()
    ]


def _e(text: object) -> str:
    """Agent text made safe to print with markup on."""
    return escape(safe_text(str(text), 2000))
