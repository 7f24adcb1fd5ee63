"""benchmarks/plan_search.py in its own process on a real library: each step's skill chosen
by code alone's measure on selection worlds, the plan written for table2.py to run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rlgpt_tui.library.compose import COMPOSED_PLAN
from rlgpt_tui.library.shelf import folder_shelf
from rlgpt_tui.store import SessionStore
from tests.test_library_store import record_session

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "plan_search.py"

IDLE = "def act(ctx):\n    yield Action.NOOP\n    return False\n"  # never drinks
WATER = 'def act(ctx):\n    yield from ctx.collect("water", max_steps=60)\n    return True\n'


def last_line(*argv: str) -> dict:
    """A benchmark script run in its own process from the repository root: its JSON line."""
    done = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_search_replaces_a_step_skill_whose_record_misled_by_one_that_measures_higher(
    tmp_path: Path,
) -> None:
    """A 1.5B model's collect_drink v3 measured 0.62 on collect_drink, yet made tools with
    the plan's wood; the records' choice (the skill named like the step) put it in the
    crafter_score plan, which fell from 19.0 to 7.9. The search measures each step's
    candidates on selection worlds and keeps what scores higher: here the step's own skill
    (recorded as serving collect_drink, but idle) gives way to go_to_water."""
    store = SessionStore(tmp_path / "lib")
    record_session(store, "llm:qwen", IDLE, rate=0.75, task="collect_drink", skill="collect_drink")
    record_session(store, "llm:qwen", WATER, rate=0.5, task="collect_drink", skill="go_to_water")
    idle_water = IDLE.replace("NOOP", "NOOP\n    yield Action.NOOP")  # v2, never evaluated
    record_session(
        store, "llm:qwen", idle_water, rate=None, task="collect_drink", skill="go_to_water"
    )
    out = tmp_path / "chosen"
    lib = str(tmp_path / "lib")
    report = last_line(
        str(SCRIPT),
        "--sessions-dir",
        lib,
        "--task",
        "collect_drink",
        "--out",
        str(out),
        "--selection-worlds",
        "1",
        "--episodes",
        "6",
    )
    assert report["records_choice"] == 0.0 and report["chosen"] > 0, report
    assert report["steps"] == {"collect_drink": "go_to_water v1"}
    assert all(e["skill"] != "left out" for e in report["evaluations"])  # no empty plan
    plan = folder_shelf(out, "craftax").find(COMPOSED_PLAN)
    assert plan is not None and 'ctx.collect("water"' in plan.source.replace("'", '"')
    assert "Action.NOOP" not in plan.source
    assert "plan_search.py on selection worlds 70000-70000" in plan.docstring
    # table2.py reads the whole folder (both go_to_water versions): the reused one, v1
    table = last_line(
        "benchmarks/table2.py",
        "--tasks",
        "collect_drink",
        "--skills",
        str(out),
        "--script",
        "plan",
        "--methods",
        "code",
        "--seeds",
        "0",
        "--episodes",
        "6",
    )
    assert table["skills"]["versions"] == {"collect_drink": 1, "go_to_water": 1, "plan": 1}
    assert table["cells"][0]["value"] > 0, table["cells"]
