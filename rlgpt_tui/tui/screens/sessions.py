"""The session browser: saved sessions (task, agent, status, best success, date). The
selection stays on its session when rows are added; a session just started or left
becomes the selected one."""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from rlgpt_tui.labels import agent_label
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tui.screens.actions import app_actions
from rlgpt_tui.tui.screens.skills import SkillsScreen


class SessionsScreen(Screen):
    """Enter resumes an unfinished session, replays a finished one, or returns to a running
    one; n starts a new one. The list refreshes itself while a session runs."""

    BINDINGS = [
        Binding("n", "new", "New session"),
        Binding("enter", "open", "Open / resume"),
        Binding("r", "replay", "Replay"),
        Binding("x", "export", "Export report"),
        Binding("l", "library", "Skill library"),
        Binding("f", "frontier", "Frontier"),
        Binding("f5", "reload", "Refresh"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.wanted: int | None = None  # the session to select at the next reload

    def compose(self) -> ComposeResult:
        yield Static(f"[b]rlgpt-tui[/b]  RL-GPT sessions in {self.store.path}", id="sessions-title")
        table: DataTable = DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        table.add_columns("id", "task", "env", "agent", "status", "result", "samples", "date")
        yield table
        yield Static("", id="sessions-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()
        self.set_interval(2.0, self._reload_while_running)

    def _reload_while_running(self) -> None:
        if self.is_current and getattr(self.app, "running", lambda: [])():
            self.action_reload()

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        table = self.query_one(DataTable)
        selected = self.wanted if self.wanted is not None else self.selected_id()
        self.wanted = None
        table.clear()
        sessions = self.store.list_sessions()
        for s in sessions:
            best = s.best_text
            table.add_row(
                str(s.id),
                s.task + (" (chain)" if s.chain else ""),
                s.env,
                agent_label(s.agent),
                s.status,
                best,
                f"{s.total_samples:,}",
                time.strftime("%Y-%m-%d %H:%M", time.localtime(s.created_at)),
                key=str(s.id),
            )
        hint = (
            "n: new session"
            if not sessions
            else "enter: resume or replay, r: replay, x: export the report, n: new"
        ) + ", l: skill library, f: frontier (learn)"
        running = [str(i) for i in getattr(self.app, "live_runs", {})]
        if running:
            hint += f"; enter on session {', '.join(running)} returns to it"
        self.query_one("#sessions-hint", Static).update(hint + "; ?: help")
        if selected is not None and str(selected) in table.rows:
            table.move_cursor(row=table.get_row_index(str(selected)))
        table.focus()

    def select(self, session_id: int) -> None:
        """Make ``session_id`` the selected row (now if it is listed, else at the reload)."""
        self.wanted = session_id
        if self.is_current:
            self.action_reload()

    def selected_id(self) -> int | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return int(table.get_row_at(table.cursor_row)[0])

    def action_new(self) -> None:
        app_actions(self).action_new_session()

    def action_open(self) -> None:
        session_id = self.selected_id()
        if session_id is not None:
            app_actions(self).open_session(session_id)

    def action_replay(self) -> None:
        session_id = self.selected_id()
        if session_id is not None:
            app_actions(self).replay_session(session_id)

    def action_export(self) -> None:
        session_id = self.selected_id()
        if session_id is not None:
            app_actions(self).export_report(session_id)

    def action_library(self) -> None:
        self.app.push_screen(SkillsScreen(self.store))

    def action_frontier(self) -> None:
        app_actions(self).action_frontier()

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        self.action_open()
