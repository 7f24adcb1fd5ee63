"""The type checker stays clean on the modules listed in pyproject's ``[tool.mypy] files``.

A module joins the list once ``python -m mypy -p rlgpt_tui`` reports nothing in it; the list
is the one place that says which modules are checked. Cold (no ``.mypy_cache``) the check
takes about half a minute, so it runs in the slow tier (CI runs it).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def checked_files() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["mypy"]["files"]


def test_checked_files_exist() -> None:
    missing = [f for f in checked_files() if not (ROOT / f).is_file()]
    assert not missing, f"pyproject's [tool.mypy] files names modules that are gone: {missing}"


@pytest.mark.slow
def test_mypy_is_clean_on_the_checked_modules() -> None:
    pytest.importorskip("mypy")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 0 and not errors, (
        "mypy found type errors (run `python -m mypy` from the repository root):\n"
        + (done.stdout + done.stderr)[-6000:]
    )
