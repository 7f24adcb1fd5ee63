"""benchmarks/table2.py with code an LLM wrote: the agent row of a model over HTTP, and the
code and RL methods over a folder of a model's skill files (split from test_table2.py, so
that the two halves run on both test workers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_table2 import (
    ROOT,
    assert_refused_in_one_line,
    kept_by_the_final_choice,
    run_table2,
)


@pytest.mark.slow
def test_table2_agent_row_for_an_llm_names_its_code_tokens_and_time(tmp_path: Path) -> None:
    from tests.llm_server import ScriptedLLMServer
    from tests.test_agents_engine import scripted_agent

    with ScriptedLLMServer(responder=scripted_agent) as server:
        done = run_table2(
            *("--tasks", "collect_wood", "--methods", "agent", "--seeds", "0"),
            *("--samples", "2048", "--iterations", "1", "--episodes", "4"),
            *("--final-episodes", "4", "--num-envs", "8", "--library", "empty"),
            *("--llm-base-url", server.base_url, "--llm-model", server.model),
        )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    report = json.loads(lines[-1])
    assert report["agent"] == "llm:scripted-model" and report["library"] == "empty"
    run = report["cells"][0]["per_seed"][0]
    assert run["tokens"] > 0 and run["llm_calls"] >= 3 and run["llm_seconds"] >= 0
    # iteration 1 of the scripted plan: PPO with the model's go_to_tree in its action space
    assert run["authors"] == {"go_to_tree": "llm:scripted-model"}
    assert run["llm_share"] == 1.0
    assert "LLM-written share: 100%; by llm:scripted-model" in "\n".join(lines[:-1])


@pytest.mark.slow
def test_table2_measures_a_folder_of_skills_an_llm_wrote(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """--skills: the code and RL methods over skills from a folder (here what Qwen2.5-Coder-
    1.5B wrote for crafter_score), no LLM needed; the report names each skill's author. Its
    bad folders are refused as ``python benchmarks/table2.py FLAGS`` runs it, in this process
    (as for the bad flags in test_table2.py; the run itself is in its own process)."""
    folder = ROOT / "benchmarks" / "skills" / "llm" / "qwen2.5-coder-1.5b-crafter_score"
    done = run_table2(
        *("--tasks", "collect_wood", "--skills", str(folder), "--script", "collect_wood"),
        *("--methods", "code", "rl_from_code", "--seeds", "0", "--samples", "2048"),
        *("--episodes", "8", "--final-episodes", "8", "--num-envs", "8"),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    authors = report["skills"]["authors"]
    assert len(authors) == 17 and set(authors.values()) == {"llm:models/qwen2.5-coder-1.5b.gguf"}
    by = {c["method"]: c for c in report["cells"]}
    assert by["code"]["value"] >= 0.5, by["code"]  # the model's collect_wood gets wood
    from_code = by["rl_from_code"]["per_seed"][0]
    assert from_code["kind"] == kept_by_the_final_choice(from_code) and from_code["samples"] >= 2048
    for flags, fix in (
        (["--skills", str(tmp_path)], "no .py skill files there"),
        (["--skills", str(folder), "--script", "fly"], "--script fly: not a skill of"),
    ):
        assert_refused_in_one_line(flags, fix, monkeypatch, capsys)
