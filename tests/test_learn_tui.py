"""The frontier screen driven by Pilot, on a database a real ``rlgpt-tui learn`` writes."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from rlgpt_tui.store import SessionStore
from rlgpt_tui.store.learning import LearnStore
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.screens.frontier import FrontierScreen
from rlgpt_tui.tui.screens.run import RunScreen
from tests.test_learn import ROOT, TINY, cli, run_cli
from tests.test_tui import SIZE
from tests.waiting import until


def cell(table: DataTable, task: str, column: int) -> str:
    return str(table.get_row(task)[column])


@pytest.mark.slow
def test_the_frontier_shows_a_learn_run_live_and_takes_pin_skip_and_stop(
    tmp_path: Path,
) -> None:
    first = run_cli(tmp_path, "learn", "--max-tasks", "1", *TINY)
    assert first.returncode == 0, first.stderr[-3000:]
    store = SessionStore(tmp_path)
    learn = LearnStore(store)
    record = learn.latest()
    first_choice = learn.choices(record.id)[0]

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f")  # the session list's key (shown in its footer)
            await until(pilot, lambda: isinstance(app.screen, FrontierScreen), 10, "frontier")
            screen = app.screen
            table = screen.query_one("#frontier", DataTable)
            await until(pilot, lambda: table.row_count == 23, 10, "the frontier's rows")
            assert cell(table, first_choice.task, 1) == first_choice.status
            assert cell(table, first_choice.task, 4) == "1"  # tries
            assert cell(table, first_choice.task, 6) == "1,024"  # samples
            assert cell(table, "collect_diamond", 1) == "not tried"
            choices = str(screen.query_one("#frontier-choices", Static).render())
            assert first_choice.reason in choices
            # pin collect_drink, skip eat_cow: recorded for the learn run to take
            table.move_cursor(row=table.get_row_index("collect_drink"))
            await pilot.press("p")
            table.move_cursor(row=table.get_row_index("eat_cow"))
            await pilot.press("s")
            pending = learn.pending_commands(record.id)
            assert [(c.kind, c.task) for c in pending] == [
                ("pin", "collect_drink"),
                ("skip", "eat_cow"),
            ]
            # a learn run in another process writes while the screen is shown: it refreshes
            process = subprocess.Popen(
                cli(tmp_path, "learn", "--max-tasks", "3", *TINY),
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                await until(
                    pilot,
                    lambda: cell(table, "collect_drink", 4) == "1",
                    240,
                    "the pinned task's session on the frontier",
                )
                await pilot.press("x")  # stop: taken by the running learn's watcher
                await until(pilot, lambda: process.poll() is not None, 240, "the learn to stop")
            finally:
                if process.poll() is None:
                    process.kill()
            choices = learn.choices(record.id)
            assert choices[1].task == "collect_drink" and choices[1].chooser == "person"
            assert "eat_cow" not in [c.task for c in choices]
            assert learn.latest().status == "stopped"
            await pilot.press("f5")
            assert "stopped" in str(screen.query_one("#frontier-title", Static).render())
            # started again, the learn resumes the stopped choice's session (not a new one)
            stopped = learn.choices(record.id)[-1]
            assert (stopped.task, stopped.status) == ("collect_drink", "stopped")
            done = run_cli(tmp_path, "learn", "--max-tasks", str(stopped.position), *TINY)
            assert done.returncode == 0, done.stderr[-3000:]
            assert f"continuing choice {stopped.position}: {stopped.task}" in done.stderr
            resumed = learn.choices(record.id)[-1]
            assert resumed.session_id == stopped.session_id and resumed.status != "stopped"
            assert store.get(stopped.session_id).status == "finished"
            # enter opens the task's session panes (recorded: a replay)
            table.move_cursor(row=table.get_row_index(first_choice.task))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, RunScreen), 20, "the run screen")
            assert app.screen.session_id == first_choice.session_id

    asyncio.run(scenario())
