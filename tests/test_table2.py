"""benchmarks/table2.py end to end, at a tiny budget: its JSON line and markdown table."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from rlgpt_tui.engine.choice import FRESH_SEED, ITERATION_SEED

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "table2.py"
KINDS = {"code", "RL", "RL + code"}


def kept_by_the_final_choice(run: dict) -> str:
    """The kind an RL-from-the-code seed must report: the engine's final choice between the
    policy as it acts and the code alone, on the final choice's worlds (the higher; a tie:
    the one measured higher before, the policy)."""
    candidates = {c["kind"]: c for c in run["final_choice"]["candidates"]}
    assert set(candidates) == {"RL + code", "code"}
    policy, code = candidates["RL + code"]["value"], candidates["code"]["value"]
    kept = "code" if code > policy else "RL + code"
    assert run.get("kept") == ("code" if kept == "code" else None)
    return kept


def run_table2(*flags: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *flags],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def assert_refused_in_one_line(flags: list[str], fix: str, monkeypatch, capsys) -> None:
    """table2.py with ``flags``, run in this process: exit code 2, nothing on stdout, one
    line on stderr that holds ``fix``."""
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *flags])
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    out, err = capsys.readouterr()
    assert exited.value.code == 2, flags
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and fix in err, err


@pytest.mark.slow
def test_table2_runs_every_method_at_one_budget(tmp_path: Path) -> None:
    out = tmp_path / "table.md"
    shaping = tmp_path / "wood.py"  # reward code for the methods that train
    gained = "now.inventory['wood'] - prev.inventory['wood']"
    shaping.write_text(f"def reward(prev, now):\n    return {gained}\n")
    budget, envs, episodes, seeds = 2048, 8, 4, [0, 1]
    done = run_table2(
        "--tasks",
        "collect_wood",
        "--seeds",
        *map(str, seeds),
        "--samples",
        str(budget),
        "--episodes",
        str(episodes),
        "--final-episodes",
        str(episodes),
        "--num-envs",
        str(envs),
        "--out",
        str(out),
        "--reward",
        str(shaping),
        timeout=900,  # five methods, two seeds; the agent's final choice evaluates again
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    report = json.loads(lines[-1])
    table = "\n".join(lines[:-1])
    assert table.startswith("| task | measure | pure PPO | pure code |")
    assert "| collect_wood | success rate |" in table
    assert out.read_text().strip() == table
    assert report["benchmark"] == "table2"
    assert report["seeds"] == seeds and report["budget"] == budget
    assert report["env"] == "craftax" and report["agent"] == "builtin"
    assert {"cpus", "cpu", "gpu"} <= set(report["machine"])
    cells = report["cells"]
    assert [c["method"] for c in cells] == ["ppo", "code", "rl_code", "rl_from_code", "agent"]
    overshoot = envs * 64  # a coded action may finish past the budget
    for cell in cells:
        assert cell["task"] == "collect_wood" and cell["measure"] == "success_rate"
        assert cell["errors"] == []
        low, high = cell["ci95"]
        assert 0 <= low <= cell["value"] <= high <= 1
        assert cell["episodes"] == episodes * len(seeds)  # pooled over the seeds
        assert cell["budget"] == budget
        assert [s["seed"] for s in cell["per_seed"]] == seeds
        assert all(0 <= s["value"] <= 1 for s in cell["per_seed"])
        assert all(s["kind"] in KINDS for s in cell["per_seed"])
        assert max(cell["samples"]) <= budget + overshoot
        assert cell["seconds"] > 0
    by = {c["method"]: c for c in cells}
    # the methods that train spend the same budget; pure code spends none
    for method in ("ppo", "rl_code", "rl_from_code"):
        assert min(by[method]["samples"]) >= budget
    assert by["code"]["samples"] == [0] * len(seeds)
    assert by["ppo"]["kind"] == "RL" and by["code"]["kind"] == "code"
    assert by["rl_code"]["kind"] == "RL + code"
    assert by["rl_code"]["per_seed"][0]["coded_actions"] == ["go_to_tree"]
    # RL that starts from the code: the same skills and the code, the policy starting as it
    from_code = by["rl_from_code"]["per_seed"][0]
    assert from_code["coded_actions"] == ["go_to_tree", "collect_wood"]
    assert from_code["start_from"] == "collect_wood"
    assert report["reward_code"] == shaping.read_text()
    # where its mode leaves the script: every state of its last rollout, in need or not
    off = from_code["off_script"]
    states = 256 // envs * envs  # RLConfig.start_rollout_decisions, in rows of envs
    assert off["in_need"]["states"] + off["otherwise"]["states"] == states
    for where in off.values():
        assert where["states"] == 0 or 0 <= where["off"] <= 1
    # how it acts (mode or sampled), then it or the code: the engine's choices, on the
    # engine's worlds, which its evaluation never plays
    assert from_code["selection"]["seed"] == ITERATION_SEED + seeds[0]
    assert from_code["final_choice"]["seed"] == FRESH_SEED + seeds[0]
    assert 0 <= from_code["selection"]["mode"] <= 1
    for run in by["rl_from_code"]["per_seed"]:  # the code kept where it measured higher there
        assert run["kind"] == kept_by_the_final_choice(run)
    # the agent's row: its final choice, beside the fresh figure and the one that stopped it
    for run in by["agent"]["per_seed"]:
        assert run["agent_fresh"]["episodes"] == episodes  # --final-episodes
        assert run["kind"] == run["agent_fresh"]["kind"]
        assert 0 <= run["agent_best"] <= 1
        # who wrote the solution's code: the builtin agent's templates, no LLM
        assert set(run["authors"].values()) <= {"builtin library"}
        assert run["llm_share"] in (0.0, None) and run["tokens"] == 0
    assert "its own stop figures:" in table
    assert "LLM-written share: " in table and report["library"] == "builtin agent"
    assert by["code"]["value"] >= 0.5  # the tech tree's collect_wood skill works


@pytest.mark.slow
def test_table2_bad_flags_say_the_fix_in_one_line(capsys, monkeypatch) -> None:
    """The script as ``python benchmarks/table2.py FLAGS`` runs it (its ``__main__``), in
    this process: one import of torch and the worlds, not one per bad flag."""
    done = run_table2("--tasks", "collect_gold", timeout=60)  # and once in its own process
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().count("\n") == 0 and "use collect_wood" in done.stderr
    for flags, fix in (
        (["--methods", "dqn"], "use ppo, code, rl_code, rl_from_code, agent"),
        (["--env", "minecraft"], "--env craftax or --env crafter"),
        (["--samples", "0"], "--samples must be at least 1"),
        (["--final-episodes", "0"], "--final-episodes must be at least 1"),
        (["--seeds", "1", "1"], "--seeds must be distinct"),
        (["--reward", "/no/such/reward.py"], "give a readable file"),
        (["--reward", str(SCRIPT)], "'reward'"),
    ):
        assert_refused_in_one_line(flags, fix, monkeypatch, capsys)
