"""The skill library browser: every skill version (author, where it was made, calls, the
success of the task it served) and every policy skill (a trained policy code calls, with its
author, calls and measured record), the selected one's record and code, and the trained
policies a later session on their task starts PPO from."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TextArea

from rlgpt_tui.library.compose import policy_call
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.library.storage import (
    COLUMNS,
    POLICY_AUTHOR,
    POLICY_COLUMNS,
    LibraryPolicy,
    LibrarySkill,
    where_made,
)
from rlgpt_tui.skills.policy import PolicySkill
from rlgpt_tui.store import SessionStore

#: a policy skill's row: the library's policy and the skill it is
PolicyRow = tuple[LibraryPolicy, PolicySkill]


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
        self.skills: list[LibrarySkill | PolicyRow] = []  # the skills table's rows, in order

    def compose(self) -> ComposeResult:
        yield Static(f"[b]Skill library[/b] in {self.store.path}", id="skills-title")
        table: DataTable = DataTable(id="skills", cursor_type="row", zebra_stripes=True)
        table.add_columns(COLUMNS[0], "kind", *COLUMNS[1:])
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
        policies = self.store.policies()
        self.skills = [*self.store.skills(), *policy_rows(self.store, policies)]
        table.clear()
        for row in self.skills:
            table.add_row(*row_cells(row), key=row_key(row))
        if selected is not None and row_key(selected) in table.rows:
            table.move_cursor(row=table.get_row_index(row_key(selected)))
        self.show(self.selected())
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

    def selected(self) -> LibrarySkill | PolicyRow | None:
        table = self.query_one("#skills", DataTable)
        if not table.row_count or not self.skills:
            return None
        return self.skills[min(table.cursor_row, len(self.skills) - 1)]

    def show(self, skill: LibrarySkill | PolicyRow | None) -> None:
        detail = self.query_one("#skill-detail", Static)
        code = self.query_one("#skill-code", TextArea)
        if isinstance(skill, tuple):
            policy, called = skill
            detail.update(
                "\n".join(
                    [
                        f"[b]{escape(called.name)}[/b] ({policy.world}), a policy skill by "
                        f"[b]{POLICY_AUTHOR}[/b], "
                        f"{escape(where_made(policy.made_in, policy.origin))}",
                        f"{escape(policy.task)}'s trained policy #{policy.id} "
                        f"({policy.samples:,} samples): acts until {escape(policy.task)}, at "
                        f"most {called.max_steps} steps",
                        f"calls {policy.calls:,}; measured {escape(policy.figure)}",
                    ]
                )
            )
            code.load_text("# code runs it with:\n" + policy_call(called.name))
            return
        if skill is None:
            detail.update(
                "No skills yet: every coded action that validates and runs in a session joins "
                "the library; `rlgpt-tui skills import DIR` adds a shared folder."
            )
            code.load_text("")
            return
        record = skill.record
        versions = [
            s
            for s in self.skills
            if isinstance(s, LibrarySkill) and (s.world, s.name) == (skill.world, skill.name)
        ]
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


def policy_rows(store: SessionStore, policies: list[LibraryPolicy]) -> list[PolicyRow]:
    """The library's policy skills (of each name, the best-proven callable policy of each
    world), each with its library row."""
    library = SkillLibrary(store)
    rows: list[PolicyRow] = []
    for world in sorted({p.world for p in policies}):
        for called, _ in library.policy_skills(world).values():
            entry = next((p for p in policies if called.label.endswith(f"#{p.id}")), None)
            if entry is not None:
                rows.append((entry, called))
    return rows


def row_key(row: LibrarySkill | PolicyRow) -> str:
    return f"policy-{row[0].id}" if isinstance(row, tuple) else str(row.id)


def row_cells(row: LibrarySkill | PolicyRow) -> tuple[str, ...]:
    """A row of the skills table: a code version's cells, or a policy skill's."""
    if not isinstance(row, tuple):
        label, *rest = row.cells()
        return (label, "code", *rest)
    policy, called = row
    return (
        called.name,
        "policy",
        policy.world,
        POLICY_AUTHOR,
        where_made(policy.made_in, policy.origin),
        f"{policy.calls:,}",
        policy.figure,
    )
