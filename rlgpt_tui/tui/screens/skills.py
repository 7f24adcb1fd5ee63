"""The skill library browser: every skill version (author, where it was made, calls, the
success of the task it served), the selected one's record and code, and the trained
policies a later session on their task starts PPO from."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TextArea

from rlgpt_tui.library.storage import COLUMNS, POLICY_COLUMNS, LibrarySkill
from rlgpt_tui.store import SessionStore


class SkillsScreen(Screen):
    """Reached from the session browser (l); escape goes back."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("f5", "reload", "Refresh"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.skills: list[LibrarySkill] = []

    def compose(self) -> ComposeResult:
        yield Static(f"[b]Skill library[/b] in {self.store.path}", id="skills-title")
        table: DataTable = DataTable(id="skills", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        yield Static("", id="skill-detail")
        yield TextArea.code_editor("", language="python", read_only=True, id="skill-code")
        yield Static("", id="policies-title")
        policies: DataTable = DataTable(id="policies", cursor_type="row", zebra_stripes=True)
        policies.add_columns(*POLICY_COLUMNS)
        yield policies
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        table = self.query_one("#skills", DataTable)
        selected = self.selected()
        self.skills = self.store.skills()
        table.clear()
        for skill in self.skills:
            table.add_row(*skill.cells(), key=str(skill.id))
        if selected is not None and str(selected.id) in table.rows:
            table.move_cursor(row=table.get_row_index(str(selected.id)))
        self.show(self.selected())
        policies = self.store.policies()
        self.query_one("#policies", DataTable).clear()
        for policy in policies:
            self.query_one("#policies", DataTable).add_row(*policy.cells(), key=str(policy.id))
        self.query_one("#policies-title", Static).update(
            f"[b]Trained policies[/b] ({len(policies)}): a session on their task starts PPO "
            "from the best of them"
            if policies
            else "No trained policies yet: every evaluated training joins the library."
        )
        table.focus()

    def selected(self) -> LibrarySkill | None:
        table = self.query_one("#skills", DataTable)
        if not table.row_count or not self.skills:
            return None
        return self.skills[min(table.cursor_row, len(self.skills) - 1)]

    def show(self, skill: LibrarySkill | None) -> None:
        detail = self.query_one("#skill-detail", Static)
        code = self.query_one("#skill-code", TextArea)
        if skill is None:
            detail.update(
                "No skills yet: every coded action that validates and runs in a session joins "
                "the library; `rlgpt-tui skills import DIR` adds a shared folder."
            )
            code.load_text("")
            return
        record = skill.record
        versions = [s for s in self.skills if (s.world, s.name) == (skill.world, skill.name)]
        made = skill.made_in or skill.origin
        lines = [
            f"[b]{skill.label}[/b] ({skill.world}) by [b]{escape(skill.author)}[/b], "
            f"{escape(made)}" + (f", code version {skill.code_seq}" if skill.code_seq else ""),
            escape(skill.docstring.splitlines()[0]) if skill.docstring else "(no docstring)",
            f"calls {record.calls_text}; ends: {escape(record.ends_text)}",
            f"success of the task it served: {escape(record.success_text)}",
        ]
        if len(versions) > 1:
            lines.append(
                "versions: " + ", ".join(f"v{v.version} {escape(v.author)}" for v in versions)
            )
        detail.update("\n".join(lines))
        code.load_text(skill.source)

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        if message.data_table.id == "skills":
            self.show(self.selected())
