"""``rlgpt-tui tasks``: the task catalog."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from rlgpt_tui.tasks.catalog import load_catalog


def cmd_tasks(args: argparse.Namespace) -> int:
    """Print the task catalog as a table."""
    table = Table(title="Tasks")
    for column in ("name", "horizon", "goal", "description"):
        table.add_column(column)
    for task in load_catalog().values():
        table.add_row(task.name, str(task.horizon), task.goal_text, task.description)
    Console(width=160).print(table)
    return 0
