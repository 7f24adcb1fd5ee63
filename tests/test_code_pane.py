"""The code pane keeps Textual's own widget API working (found by mypy)."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from rlgpt_tui.tui.widgets.code import CodePane


class PaneApp(App):
    def compose(self) -> ComposeResult:
        yield CodePane(id="code")


def test_code_pane_recomposes_and_keeps_its_table() -> None:
    """CodePane once set ``self.batch = False``, hiding Textual's ``Widget.batch()``: a
    recompose (and any removal that batches) raised "'bool' object is not callable"."""

    async def run() -> None:
        app = PaneApp()
        async with app.run_test() as pilot:
            pane = app.query_one(CodePane)
            await pane.recompose()
            await pilot.pause()
            assert pane.query_one("#code-versions", DataTable).columns

    asyncio.run(run())
