"""``rlgpt-tui resume``: a recorded session continued where it stopped."""

from __future__ import annotations

import argparse

from rlgpt_tui.cli.common import UsageError
from rlgpt_tui.cli.run import run_session
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore


def cmd_resume(args: argparse.Namespace) -> int:
    """Continue a recorded session with its recorded settings (a moved endpoint or a new
    timeout given), printing its events."""
    store = SessionStore(args.sessions_dir)
    llm = None
    if args.llm_base_url or args.llm_timeout is not None:
        recorded = store.get(args.session_id).llm
        if not recorded:
            raise UsageError(
                f"session {args.session_id} used the builtin agent: drop --llm-base-url and "
                "--llm-timeout"
            )
        llm = LLMSettings.recorded(recorded, base_url=args.llm_base_url, timeout=args.llm_timeout)
    session = Session.resume(store, args.session_id, llm=llm)
    return run_session(session, session.settings.seed)
