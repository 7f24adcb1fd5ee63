"""Code pane: the fast agent's code, every version, highlighted, with diffs between them."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, TextArea

from rlgpt_tui.engine import events as ev
from rlgpt_tui.library.provenance import code_author, reused_from_library
from rlgpt_tui.tui.widgets.plan import following


@dataclass
class CodeVersion:
    subaction: str
    attempt: int
    iteration: int
    source: str  # agent or human
    code: str
    error: str | None = None
    number: int = 1  # vN: the N-th version of its sub-action

    @property
    def name(self) -> str:
        return f"{self.subaction} v{self.number}"


class CodePane(Vertical):
    """A table of versions and a read-only viewer (the selected version, or its diff)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Code (fast agent)"
        self.versions: list[CodeVersion] = []
        self.show_diff = False
        # showing recorded events: the viewer is filled once, at the end (not `batch`:
        # that is Textual's Widget.batch(), which recompose() and removals call)
        self.filling_at_once = False

    def compose(self) -> ComposeResult:
        table: DataTable = DataTable(id="code-versions", cursor_type="row", zebra_stripes=True)
        table.add_columns("sub-action", "version", "iter", "by", "valid")
        yield table
        yield TextArea.code_editor("", language="python", read_only=True, id="code-view")

    def latest(self, subaction: str) -> str | None:
        """The newest code of ``subaction``, valid or not."""
        for version in reversed(self.versions):
            if version.subaction == subaction:
                return version.code
        return None

    def show(self, event: ev.Event) -> None:
        table = self.query_one(DataTable)
        match event:
            case ev.CodeWritten():
                number = 1 + sum(v.subaction == event.subaction for v in self.versions)
                version = CodeVersion(
                    event.subaction,
                    event.attempt,
                    event.iteration,
                    event.source,
                    event.code,
                    number=number,
                )
                follow = following(table)
                self.versions.append(version)
                n = len(self.versions) - 1
                who = code_author(version.source, event.agent)
                if reused_from_library(version.source):
                    who = f"library: {who}"
                table.add_row(
                    version.subaction,
                    f"v{number}",
                    str(version.iteration + 1),
                    who,
                    "yes",
                    key=str(n),
                )
                if follow:  # else the selection stays on the version the person chose
                    table.move_cursor(row=n)
                    if not self.filling_at_once:
                        self.display_version(n)
            case ev.CodeValidationFailed():
                for n in range(len(self.versions) - 1, -1, -1):
                    if self.versions[n].subaction == event.subaction:
                        self.versions[n].error = event.error
                        table.update_cell(str(n), table.ordered_columns[4].key, "no")
                        break

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        if message.data_table.id == "code-versions" and message.row_key.value is not None:
            self.display_version(int(message.row_key.value))

    def toggle_diff(self) -> None:
        self.show_diff = not self.show_diff
        table = self.query_one(DataTable)
        if self.versions:
            self.display_version(table.cursor_row)

    def display_version(self, n: int) -> None:
        version = self.versions[n]
        viewer = self.query_one(TextArea)
        text = version.code
        if self.show_diff:
            earlier = [v for v in self.versions[:n] if v.subaction == version.subaction]
            before = earlier[-1].code if earlier else ""
            text = (
                "".join(
                    difflib.unified_diff(
                        before.splitlines(keepends=True),
                        version.code.splitlines(keepends=True),
                        f"{earlier[-1].name}" if earlier else "(none)",
                        version.name,
                    )
                )
                or "(no change from the previous version)"
            )
            viewer.language = None
        else:
            viewer.language = "python"
        if version.error:
            text = f"# rejected: {version.error}\n" + text
        viewer.load_text(text)
        self.border_subtitle = f"{version.name} " + (
            "diff (d)" if self.show_diff else "code (d: diff)"
        )
