"""benchmarks/curriculum.py end to end: real rlgpt-tui runs over HTTP (a scripted model), one
sessions database, each session building on the skills the earlier ones wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rlgpt_tui.store import SessionStore
from tests.llm_server import ScriptedLLMServer
from tests.test_agents_engine import role_of, scripted_agent

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "curriculum.py"


def run_curriculum(server: ScriptedLLMServer, folder: Path, *flags: str):
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--sessions-dir", str(folder)]
        + ["--llm-base-url", server.base_url, "--llm-model", server.model]
        + ["--iterations", "1", "--samples-per-iteration", "2048", "--num-envs", "8"]
        + ["--final-episodes", "8", "--eval-episodes", "8", "--target", "0.05", *flags],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )


def code_requests(server: ScriptedLLMServer) -> int:
    """The fast agent's requests for code (not for an RL configuration)."""
    return sum(
        1
        for r in server.requests
        if role_of(r["messages"]) == "fast"
        and "Write the RL configuration" not in r["messages"][-1]["content"]
    )


@pytest.mark.slow
def test_a_curriculum_reuses_what_its_earlier_sessions_wrote_and_nothing_hand_written(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "curriculum"
    with ScriptedLLMServer(responder=scripted_agent) as server:
        first = run_curriculum(server, folder, "--tasks", "collect_wood", "--then", "")
        assert first.returncode == 0, first.stderr[-2000:]
        written = code_requests(server)
        assert written >= 1  # the model wrote go_to_tree in the first session
        done = run_curriculum(server, folder, "--tasks", "collect_wood", "--then", "eat_cow")
        assert done.returncode == 0, done.stderr[-2000:]
        # the second session asked for no code: go_to_tree came from the first one's library
        assert code_requests(server) == written
    assert "collect_wood: reached its target earlier, skipped" in done.stdout
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert [s["task"] for s in report["sessions"]] == ["collect_wood", "eat_cow"]
    assert all(s["result"] is not None for s in report["sessions"])
    assert report["library"]["authors"] == {"llm:scripted-model": report["library"]["skills"]}
    store = SessionStore(folder)
    second = report["sessions"][1]["session"]
    assert store.get(second).settings["library"] == "own"
    versions = store.rows("code_versions", second)
    assert {(v["source"], v["agent"]) for v in versions} == {
        ("library:llm:scripted-model", "llm:scripted-model")
    }


def test_a_bad_flag_stops_the_curriculum_with_one_line(tmp_path: Path) -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        done = run_curriculum(server, tmp_path, "--tasks", "colect_wood", "--then", "")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "colect_wood" in done.stderr
