"""Polling with a deadline, for tests that wait on another thread or process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def wait_for(predicate, timeout: float, what: str, child: subprocess.Popen | None = None):
    """``predicate()``'s first truthy value within ``timeout`` s; fails naming ``what``, or at
    once with the child's stderr if ``child`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if child is not None and child.poll() is not None:
            stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
            raise AssertionError(
                f"the run exited ({child.returncode}) before {what}; stderr: {stderr[-2000:]}"
            )
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def until(pilot, predicate, timeout: float, what: str) -> None:
    """Let the Textual app under ``pilot`` run until ``predicate()`` holds, within
    ``timeout`` s of wall clock; fails naming ``what``. The one wait of the app's tests: a
    test waits on what it will check, never on a fixed pause."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)  # the poll's interval: the app runs meanwhile


def kill_run_when(flags: list[str], sessions: Path, ready: Callable, timeout: float, what: str):
    """Start ``rlgpt-tui run FLAGS`` in its own process group, wait until
    ``ready(store)`` holds for its session store (a reader beside the writer), then
    ``kill -9`` the group. Returns the reader's ``SessionStore``."""
    from rlgpt_tui.store import SessionStore

    command = [
        sys.executable,
        "-m",
        "rlgpt_tui.cli",
        "run",
        *flags,
        "--sessions-dir",
        str(sessions),
    ]
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    try:

        def open_db():
            return (sessions / "rlgpt.db").exists() and SessionStore(sessions)

        reader = wait_for(open_db, 120, "the db", child)
        wait_for(lambda: ready(reader), timeout, what, child)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    return reader
