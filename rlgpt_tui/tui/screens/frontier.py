"""The frontier of the sessions folder's learn record: one row per achievement (status, best
fresh success rate with its interval, tries, tokens, samples, who wrote the code), the latest
choices with their reasons, refreshed while a learn run writes to the database (in this app
or in another process). Enter opens the row's session (the running one, else the newest);
p pins the selected task next, s skips it, x stops the learn run, c continues it here."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from rlgpt_tui.curriculum.frontier import FRONTIER_COLUMNS, frontier, frontier_cells
from rlgpt_tui.store import SessionStore, StoreError
from rlgpt_tui.store.learning import LearnStore
from rlgpt_tui.tui.screens.actions import app_actions

REFRESH_S = 2.0


class FrontierScreen(Screen):
    """Reached from the session browser (f); escape goes back."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("enter", "open", "Open session"),
        Binding("p", "pin", "Pin next"),
        Binding("s", "skip", "Skip"),
        Binding("x", "stop", "Stop learning"),
        Binding("c", "continue", "Continue learning"),
        Binding("f5", "reload", "Refresh"),
    ]

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.learn = LearnStore(store)
        self.data: dict | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="frontier-title")
        table: DataTable = DataTable(id="frontier", cursor_type="row", zebra_stripes=True)
        table.add_columns(*FRONTIER_COLUMNS)
        yield table
        yield Static("", id="frontier-choices")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()
        self.set_interval(REFRESH_S, self._refresh_if_shown)

    def on_screen_resume(self) -> None:
        self.action_reload()

    def _refresh_if_shown(self) -> None:
        if self.is_current:
            self.action_reload()

    def action_reload(self) -> None:
        table = self.query_one("#frontier", DataTable)
        selected = self.selected_task()
        try:
            self.data = frontier(self.store)
        except StoreError as error:  # e.g. locked for longer than the busy timeout
            self.notify(str(error), severity="error", timeout=5)
            return
        table.clear()
        title = self.query_one("#frontier-title", Static)
        choices = self.query_one("#frontier-choices", Static)
        if self.data is None:
            title.update(
                f"[b]Frontier[/b] in {escape(str(self.store.path))}: no learn record yet. Start "
                "one with `rlgpt-tui learn` (or the new-session form's learn switch)."
            )
            choices.update("")
            return
        data = self.data
        for row in data["frontier"]:
            table.add_row(*frontier_cells(row), key=row["task"])
        if selected is not None and selected in table.rows:
            table.move_cursor(row=table.get_row_index(selected))
        reason = f" ({escape(data['reason'])})" if data["reason"] else ""
        title.update(
            f"[b]Frontier[/b] of learn record {data['learn']} ({data['env']}, "
            f"{escape(data['curriculum'])} curriculum, reached at {data['threshold']:g}): "
            f"[b]{data['status']}[/b]{reason}; {data['reached']} reached, "
            f"{len(data['choices'])} choices, {data['tokens']:,} tokens, "
            f"{data['samples']:,} samples, {data['hours']:.2f} h"
        )
        lines = ["[b]Choices[/b] (newest last)"]
        for c in data["choices"][-6:]:
            figure = "" if c["result"] is None else f" {c['result']:.2f}"
            lines.append(
                f"{c['position']}. {c['task']} (session {c['session']}, {c['status']}{figure}) "
                f"{escape(c['chooser'])}: {escape(c['reason'])}"
                + (f" [{escape(c['fallback'])}]" if c["fallback"] else "")
            )
            facts = c.get("facts_text") or ""
            if facts:  # what the choice stood on, beside the words
                lines.append(f"   [dim]record: {escape(facts)}[/dim]")
            if c.get("mark"):
                lines.append(f"   [b yellow]{escape(c['mark'])}[/b yellow]")
        pending = self.learn.pending_commands(data["learn"])
        if pending:
            asked = ", ".join(f"{p.kind} {p.task}".strip() for p in pending)
            lines.append(f"asked, taken before the next choice: {escape(asked)}")
        choices.update("\n".join(lines))
        table.focus()

    def selected_task(self) -> str | None:
        table = self.query_one("#frontier", DataTable)
        if not table.row_count:
            return None
        return str(table.get_row_at(table.cursor_row)[0])

    def _row(self, task: str | None) -> dict | None:
        if self.data is None or task is None:
            return None
        return next((r for r in self.data["frontier"] if r["task"] == task), None)

    def action_open(self) -> None:
        """The row's session: the running one, else its newest (its panes, as recorded)."""
        row = self._row(self.selected_task())
        if row is None or row["last_session"] is None:
            self.notify("no session on this task yet", timeout=3)
            return
        session_id = row["last_session"]
        if session_id in getattr(self.app, "live_runs", {}):
            app_actions(self).open_session(session_id)
        else:
            app_actions(self).replay_session(session_id)

    def _ask(self, kind: str, task: str = "") -> None:
        if self.data is None:
            self.notify("no learn record: start one first", severity="warning", timeout=4)
            return
        self.learn.add_command(self.data["learn"], kind, task)
        what = f"{kind} {task}".strip()
        self.notify(f"{what}: recorded; the learn run takes it before its next choice", timeout=4)
        self.action_reload()

    def action_pin(self) -> None:
        task = self.selected_task()
        if task is not None:
            self._ask("pin", task)

    def action_skip(self) -> None:
        task = self.selected_task()
        if task is not None:
            self._ask("skip", task)

    def action_stop(self) -> None:
        self._ask("stop")

    def action_continue(self) -> None:
        """Continue the learn record here, in this app (its recorded settings)."""
        if self.data is None:
            self.notify("no learn record: start one from the new-session form", timeout=4)
            return
        app_actions(self).start_learn()

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        self.action_open()
