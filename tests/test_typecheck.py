"""The type checker stays clean on the whole package and on what the benchmarks share.

pyproject's ``[tool.mypy]`` names both (``rlgpt_tui``, ``benchmarks/rlgpt_bench``) as its
``files``, so ``python -m mypy`` from the repository root checks every module (the skills
under ``assets/`` are data, excluded). Cold (no ``.mypy_cache``) the check takes about half a
minute, so it runs in the slow tier (CI runs it).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_configured_to_check_the_whole_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["mypy"]["files"] == ["rlgpt_tui", "benchmarks/rlgpt_bench"]


@pytest.mark.slow
def test_mypy_is_clean_on_the_whole_package() -> None:
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
