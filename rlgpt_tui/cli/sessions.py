"""``rlgpt-tui sessions list | show | delete | export``: the recorded sessions."""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from rlgpt_tui.labels import agent_label
from rlgpt_tui.report.export import export_session
from rlgpt_tui.report.session_markdown import session_markdown
from rlgpt_tui.store import SessionStore


def cmd_sessions(args: argparse.Namespace) -> int:
    """List, show, delete or export recorded sessions."""
    store = SessionStore(args.sessions_dir)
    console = Console(width=max(Console().width, 140))
    if args.action == "list":
        table = Table(title=f"Sessions in {store.path}")
        for column in ("id", "task", "env", "agent", "status", "result", "samples", "created"):
            table.add_column(column)
        for s in store.list_sessions():
            best = s.best_text
            created = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.created_at))
            table.add_row(
                str(s.id),
                s.task,
                s.env,
                agent_label(s.agent),
                s.status,
                best,
                f"{s.total_samples:,}",
                created,
            )
        console.print(table)
    elif args.action == "show":
        console.print(session_markdown(store, args.session_id, assets=None), markup=False)
    elif args.action == "delete":
        store.delete(args.session_id)
        console.print(f"deleted session {args.session_id}")
    else:
        path = export_session(
            store, args.session_id, args.format, args.out, with_gif=not args.no_gif
        )
        console.print(f"wrote {path}")
    return 0
