"""``rlgpt-tui app`` (and ``rlgpt-tui`` alone): the terminal app."""

from __future__ import annotations

import argparse

from rlgpt_tui.tasks.catalog import load_catalog
from rlgpt_tui.tui.app import RlgptApp


def cmd_app(args: argparse.Namespace) -> int:
    """Run the terminal app."""
    load_catalog()  # a broken install: one line, before the app takes the terminal

    # a bad --llm-config or --llm-timeout: one line from the constructor, before run()
    RlgptApp(
        args.sessions_dir,
        approval=args.approval,
        llm_config=args.llm_config,
        llm_timeout=args.llm_timeout,
    ).run()
    return 0
