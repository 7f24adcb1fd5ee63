"""The event traces of five builtin-agent sessions (``scripts/event_traces.py``: plain,
scored, edits with approval, a person's plan and code edits, stop and resume) are the
golden ones in ``tests/traces/``: a refactoring that changes what a run does, or the order
in which it says so, fails here (timings and paths are normalised away). After an intended
change of behaviour, record them again and read the diff:
``python scripts/event_traces.py record tests/traces``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "event_traces.py"
GOLDEN = ROOT / "tests" / "traces"


def traces(*args: str) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=900
    )


@pytest.mark.slow
def test_five_builtin_sessions_record_the_golden_event_traces(tmp_path: Path) -> None:
    recorded = traces("record", str(tmp_path))
    assert recorded.returncode == 0, recorded.stderr[-3000:]
    compared = traces("compare", str(GOLDEN), str(tmp_path))
    assert compared.returncode == 0, compared.stdout
    assert compared.stdout.count("identical") == 5
