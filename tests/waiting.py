"""Polling with a deadline, for tests that wait on another thread or process."""

from __future__ import annotations

import subprocess
import time


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
