"""Plan pane: the slow agent's decomposition per iteration, code or RL, and each status."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.markup import escape
from textual.widgets import DataTable, Static

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.provenance import planned_by


class PlanPane(Vertical):
    """A row per sub-action per iteration; the latest plan is kept for editing."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Plan (slow agent)"
        self.plan: Plan | None = None
        self.plan_iteration = 0
        self.stage_task = ""  # a chain runs one stage (task) after another
        self.engine_trained: list[str] = []  # RL the engine added to the latest plan
        self.judged: dict[str, str] = {}  # row key -> the critic's last verdict (ok, failed)

    def compose(self) -> ComposeResult:
        yield Static("no plan yet", id="plan-summary")
        table: DataTable = DataTable(id="plan-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("iter", "sub-action", "mode", "status", "high-level actions")
        yield table

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def learned(self) -> list[str]:
        """The latest plan's learned sub-actions, and RL the engine trained from its code."""
        subs = self.plan.subactions if self.plan is not None else []
        return [s.name for s in subs if s.mode == "rl"] + self.engine_trained

    def selected_subaction(self) -> str | None:
        """The sub-action of the selected row, if it belongs to the latest plan."""
        table = self.table
        if not table.row_count or self.plan is None:
            return None
        row = table.get_row_at(table.cursor_row)
        return str(row[1]) if int(row[0]) == self.plan_iteration + 1 else None

    def show(self, event: ev.Event) -> None:
        i = event.iteration
        match event:
            case ev.SessionStarted():
                self.stage_task = event.task
            case ev.PlanProposed():
                self.plan, self.plan_iteration = event.plan, i
                self.engine_trained = []
                who = planned_by(event.source, event.agent)
                self.query_one("#plan-summary", Static).update(
                    f"iteration {i + 1}: plan by {escape(who)} "
                    f"({len(event.plan.subactions)} sub-actions)"
                )
                follow = following(self.table)
                for sub in event.plan.subactions:
                    key = self._key(i, sub.name)
                    if key in self.table.rows:
                        continue
                    self.table.add_row(
                        str(i + 1),
                        sub.name,
                        sub.mode,
                        "pending",
                        ", ".join(sub.high_level_actions) or "-",
                        key=key,
                    )
                if follow:
                    self.table.move_cursor(row=self.table.row_count - 1)
            case ev.CodeWritten():
                self._set_status(i, event.subaction, "code written")
            case ev.CodeValidationFailed():  # a judged version stays in force
                judged = self.judged.get(self._key(i, event.subaction))
                status = f"{judged}, repair rejected" if judged else "code rejected"
                self._set_status(i, event.subaction, status)
            case ev.TrainingStarted():
                self._rl_row(i, event.subaction, event.config.get("coded_actions") or [])
                self._set_status(i, event.subaction, "training")
            case ev.PolicyReused():
                self._rl_row(i, event.subaction, event.coded_actions)
                self._set_status(i, event.subaction, "library policy")
            case ev.VerdictGiven():
                verdict = "ok" if event.success else "failed"
                self.judged[self._key(i, event.subaction)] = verdict
                self._set_status(i, event.subaction, verdict)
            case ev.TaskPlanProposed():
                self.query_one("#plan-summary", Static).update(
                    escape(f"task plan for {event.task}: {' -> '.join(event.subtasks)}")
                )

    def _rl_row(self, i: int, subaction: str, actions: list[str]) -> None:
        """The row of an RL run the engine added (the code fell short), if not planned."""
        key = self._key(i, subaction)
        if key in self.table.rows:
            return
        follow = following(self.table)
        self.table.add_row(str(i + 1), subaction, "rl", "", ", ".join(actions) or "-", key=key)
        if follow:
            self.table.move_cursor(row=self.table.row_count - 1)
        if i == self.plan_iteration:
            self.engine_trained.append(subaction)

    def _key(self, iteration: int, subaction: str) -> str:
        """The row of ``subaction`` in ``iteration`` (of the chain's current stage)."""
        return f"{self.stage_task}:{iteration}:{subaction}"

    def _set_status(self, iteration: int, subaction: str, status: str) -> None:
        key = self._key(iteration, subaction)
        if key in self.table.rows:
            column = self.table.ordered_columns[3].key
            self.table.update_cell(key, column, status, update_width=True)


def following(table: DataTable) -> bool:
    """Whether new rows should take the selection: the person has not moved it off the
    newest row (else the selection stays on the row they chose)."""
    return table.row_count == 0 or table.cursor_row >= table.row_count - 1
