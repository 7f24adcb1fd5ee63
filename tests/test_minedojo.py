"""The MineDojo backend over its real pipe protocol, against a stand-in worker env."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from rlgpt_tui.cli import main
from rlgpt_tui.envs import ACTION_NAMES
from rlgpt_tui.envs.minedojo import (
    MineDojoError,
    MineDojoWorld,
    WorkerProcess,
    WorkerTimeout,
    load_minedojo_tasks,
    minedojo_success,
)
from rlgpt_tui.envs.minedojo.actions import ActionEncoder
from rlgpt_tui.envs.minedojo.worker import read_message, serve, write_message
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[1]
STANDIN = {"RLGPT_MINEDOJO_FACTORY": "tests.minedojo_standin:make", "PYTHONPATH": str(ROOT)}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as stat:  # a zombie is dead too
            return stat.read().split()[2] != "Z"
    except (ProcessLookupError, FileNotFoundError):  # gone, or reaped between the two
        return False


def dies(pid: int, within: float = 5.0) -> bool:
    """Whether ``pid`` is dead within ``within`` s (SIGKILL lands when the process next runs)."""
    return wait_for(lambda: not alive(pid), within, f"process {pid} to die")


def world(tmp_path: Path, **env: str) -> tuple[MineDojoWorld, Path]:
    pid_file = tmp_path / "pids"
    worker_env = STANDIN | {"STANDIN_PID_FILE": str(pid_file)} | env
    return MineDojoWorld(1, python=sys.executable, worker_env=worker_env, step_timeout=5), pid_file


def pids(pid_file: Path) -> tuple[int, int]:
    worker, child = pid_file.read_text().split()
    return int(worker), int(child)


def test_start_step_view_and_clean_shutdown(tmp_path: Path) -> None:
    w, pid_file = world(tmp_path)
    first = w.reset(0)
    assert first.obs.shape == (1, w.observation_size) and first.obs.dtype == np.float32
    view = w.views()[0]
    assert view.block_at(*view.facing_position) == "tree"  # the log ahead of the player
    assert view.health == 9 and view.food == 8 and view.energy == 9
    assert w.frame(0).shape == (160, 256, 3)
    result = w.step(np.array([ACTION_NAMES.index("do")]))  # Crafter's do: MineDojo's attack
    assert result.reward[0] == 1.0 and result.game_over[0]  # harvest_1_log reached
    assert result.inventory[0][0] == 1  # Crafter's "wood" <- Minecraft's "log"
    assert minedojo_success({"log": 1}, w.obs[0]) and not minedojo_success({"log": 2}, w.obs[0])
    assert w.steps_taken == 1
    worker, java = pids(pid_file)
    assert alive(worker) and alive(java)
    w.close()
    assert dies(worker) and dies(java)  # no orphans


def test_crash_restarts_the_worker_and_ends_the_episode(tmp_path: Path) -> None:
    w, pid_file = world(tmp_path, STANDIN_CRASH_AT_STEP="2")
    w.reset(0)
    forward = ACTION_NAMES.index("move_down")  # facing south already: one forward step
    first_worker, first_java = pids(pid_file)
    assert not w.step(np.array([forward])).game_over[0]
    crashed = w.step(np.array([forward]))  # Minecraft dies here
    assert crashed.game_over[0] and w.restarts == 1
    assert dies(first_java)  # the dead worker's child was reaped with its group
    assert pids(pid_file)[0] != first_worker
    assert not w.step(np.array([forward])).game_over[0]  # the new worker answers
    w.close()


@pytest.mark.slow
def test_timeout_kills_the_worker_group(tmp_path: Path) -> None:
    w, pid_file = world(tmp_path, STANDIN_HANG_AT_STEP="1")
    w.reset(0)
    worker, java = pids(pid_file)
    with pytest.raises(WorkerTimeout, match="no answer to 'step' within 5 s"):
        w.step(np.array([0]))
    assert dies(worker) and dies(java)
    w.close()


@pytest.mark.parametrize("request_", [{"op": "reset"}, {"op": "step", "action": [0] * 8}])
def test_the_worker_refuses_a_reset_or_step_before_make_by_name(request_: dict) -> None:
    requests, replies = io.BytesIO(), io.BytesIO()
    write_message(requests, request_)
    requests.seek(0)
    serve(requests, replies)
    replies.seek(0)
    reply = read_message(replies)
    assert not reply["ok"]
    assert reply["error"] == f"RuntimeError: {request_['op']} before make: send make first"


def test_bad_interpreter_is_one_line_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(MineDojoError, match="does not exist: point --minedojo-python"):
        WorkerProcess(str(tmp_path / "no-python"))
    not_python = tmp_path / "fake-python"
    not_python.write_text("#!/bin/sh\nexit 1\n")
    not_python.chmod(0o755)
    with pytest.raises(MineDojoError, match=r"did not start .* \(run `rlgpt-tui doctor`\)"):
        WorkerProcess(str(not_python), start_timeout=5)


def test_action_encoding_follows_minedojo_layout() -> None:
    encoder = ActionEncoder(["planks", "stick", "crafting_table"])
    assert encoder.encode("forward", None).tolist() == [1, 0, 0, 12, 12, 0, 0, 0]
    assert encoder.encode("camera_left", None).tolist() == [0, 0, 0, 12, 11, 0, 0, 0]
    assert encoder.encode("craft:stick", None).tolist() == [0, 0, 0, 12, 12, 4, 1, 0]
    obs = {"inventory": {"name": ["air", "wooden pickaxe"], "quantity": [0, 1]}}
    assert encoder.encode("equip:wooden_pickaxe", obs).tolist()[5:] == [5, 0, 1]
    with pytest.raises(ValueError, match="cannot craft 'bed'"):
        encoder.encode("craft:bed", None)


def test_paper_tasks_have_minedojo_ids_and_goals() -> None:
    tasks = load_minedojo_tasks()
    assert len(tasks) == 14
    assert tasks["obtain_diamond"].task_id == "harvest_1_diamond"
    assert tasks["harvest_milk"].goal == {"milk_bucket": 1}
    assert all(t.horizon > 0 and t.goal for t in tasks.values())


def test_doctor_reports_each_check_and_a_bad_minedojo_python(capsys, tmp_path) -> None:
    code = main(
        [
            "doctor",
            "--sessions-dir",
            str(tmp_path / "sessions"),
            "--minedojo-python",
            str(tmp_path / "missing"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    for name in (
        "python",
        "torch device",
        "jax device",
        "sessions folder",
        "LLM",
        "minedojo python",
    ):
        assert name in out
    line = next(x for x in out.splitlines() if "minedojo python" in x)
    assert "FAIL" in line and "does not exist" in line
    assert "OK" in next(x for x in out.splitlines() if "sessions folder" in x)


def test_a_run_without_a_minedojo_interpreter_is_refused_before_any_session(
    capsys, tmp_path, monkeypatch
) -> None:
    """A missing backend is found before anything is recorded: no plan printed, no session."""
    from rlgpt_tui.store import SessionStore
    from rlgpt_tui.store.learning import LearnStore

    monkeypatch.setenv("RLGPT_MINEDOJO_PYTHON", "")  # restored after: the run sets it
    monkeypatch.delenv("RLGPT_MINEDOJO_PYTHON")
    sessions = tmp_path / "sessions"
    SessionStore(sessions).close()  # a sessions database that already exists
    code = main(
        ["run", "--task", "collect_wood", "--env", "minedojo", "--sessions-dir", str(sessions)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("rlgpt-tui: error: no MineDojo interpreter: pass --minedojo-python")
    assert err.count("\n") == 1
    assert SessionStore(sessions).list_sessions() == []
    missing = str(tmp_path / "nowhere" / "python")
    argv = ["run", "--task", "collect_wood", "--env", "minedojo", "--minedojo-python", missing]
    assert main([*argv, "--sessions-dir", str(sessions)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert SessionStore(sessions).list_sessions() == []
    # so is a learn on it (the run above left the missing interpreter in the environment):
    # one line, no learn record, no session
    learn = ["learn", "--env", "minedojo", "--max-tasks", "1", "--sessions-dir", str(sessions)]
    assert main(learn) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rlgpt-tui: error: MineDojo interpreter {missing} does not exist")
    assert err.count("\n") == 1
    assert LearnStore(SessionStore(sessions)).latest() is None
    assert SessionStore(sessions).list_sessions() == []


@pytest.mark.slow
def test_the_engine_drives_minedojo_through_the_skill_api(tmp_path: Path, monkeypatch) -> None:
    """The same agents, engine and store on MineDojo: Crafter actions become MineDojo ones."""
    from rlgpt_tui.agents.schemas import Plan
    from rlgpt_tui.session import Session
    from rlgpt_tui.store import SessionStore
    from tests.settings import tiny_settings

    for key, value in STANDIN.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("RLGPT_MINEDOJO_PYTHON", sys.executable)
    store = SessionStore(tmp_path)
    settings = tiny_settings(
        env="minedojo",
        num_envs=2,
        max_iterations=1,
        samples_per_iteration=256,
        eval_episodes=2,
        final_episodes=2,
    )
    session = Session.create(store, settings)
    go_to_tree = {"name": "go_to_tree", "description": "walk to a tree", "mode": "code"}
    chop = {"name": "collect_wood", "description": "chop", "mode": "rl"}
    chop["high_level_actions"] = ["go_to_tree"]
    session.control.edit_plan(Plan.model_validate({"subactions": [go_to_tree, chop]}))
    session.run()
    assert store.get(session.id).env == "minedojo" and store.get(session.id).status == "finished"
    verdicts = {v["subaction"]: v for v in store.rows("verdicts", session.id)}
    assert verdicts["go_to_tree"]["success"], verdicts  # the skill API ran on MineDojo's View
    started = store.rows("training_runs", session.id)[0]
    assert json.loads(started["config"])["env"] == "minedojo"
    evaluation = store.rows("evaluations", session.id)[0]
    assert evaluation["episodes"] == 2 and evaluation["success_rate"] is not None
    assert store.rows("training_metrics", session.id)[-1]["samples"] >= 256


def test_crafter_actions_translate_to_minedojo_primitives() -> None:
    from rlgpt_tui.envs.minedojo.actions import crafter_to_minedojo

    assert crafter_to_minedojo("move_left", yaw=0.0) == [("turn", 6), ("forward", 0)]
    assert crafter_to_minedojo("move_down", yaw=0.0) == [("forward", 0)]
    assert crafter_to_minedojo("move_right", yaw=0.0) == [("turn", -6), ("forward", 0)]
    assert crafter_to_minedojo("do", yaw=0.0) == [("attack", 0)]
    assert crafter_to_minedojo("make_wood_pickaxe", 0.0)[-1] == ("craft:wooden_pickaxe", 0)
    assert ActionEncoder([]).encode("turn", None, 6).tolist() == [0, 0, 0, 12, 18, 0, 0, 0]
