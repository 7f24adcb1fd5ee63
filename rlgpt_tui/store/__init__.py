"""Sessions in SQLite (the only package with SQL): events, records, artifacts, reports."""

from rlgpt_tui.store.lifecycle import (
    ENV_SESSIONS_DIR,
    SessionStore,
    SessionSummary,
    StoreError,
    UnknownSessionError,
    default_sessions_dir,
)

__all__ = [
    "ENV_SESSIONS_DIR",
    "SessionStore",
    "SessionSummary",
    "StoreError",
    "UnknownSessionError",
    "default_sessions_dir",
]
