"""Task catalog and the headless CLI (bad input gives one line and exit code 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rlgpt_tui.cli import main
from rlgpt_tui.envs.base import ACHIEVEMENTS

#: the hand-written skill files the tests use
from rlgpt_tui.tasks.catalog import get_task, load_catalog
from rlgpt_tui.tasks.statistics import crafter_score

SKILLS = Path(__file__).resolve().parent / "skills"

PAPER_TASKS = {
    "collect_wood",
    "place_table",
    "make_wood_pickaxe",
    "collect_stone",
    "make_stone_pickaxe",
    "place_furnace",
    "collect_coal",
    "collect_iron",
    "make_iron_pickaxe",
    "collect_diamond",
    "eat_cow",
    "collect_drink",
    "crafter_score",
}


def test_catalog_has_the_paper_tasks() -> None:
    catalog = load_catalog()
    assert set(catalog) >= PAPER_TASKS
    for task in catalog.values():
        assert task.horizon > 0 and task.description
        assert all(p in catalog for p in task.prerequisites)


def test_every_achievement_is_a_task_whose_prerequisites_are_tasks_too() -> None:
    """A curriculum (benchmarks/curriculum.py) can build a skill for each achievement."""
    catalog = load_catalog()
    by_goal = {t.goal.achievement: t for t in catalog.values() if t.goal.achievement}
    assert set(by_goal) == set(ACHIEVEMENTS)
    for task in by_goal.values():
        assert task.name == task.goal.achievement and task.name not in task.prerequisites


def test_goal_predicate() -> None:
    task = get_task("collect_stone")
    achievements = np.zeros((2, 22), dtype=bool)
    achievements[1, ACHIEVEMENTS.index("collect_stone")] = True
    assert task.success(achievements, np.zeros((2, 12))).tolist() == [False, True]
    assert get_task("crafter_score").scored


def test_crafter_score_formula() -> None:
    assert crafter_score(np.zeros(22)) == pytest.approx(0.0)
    assert crafter_score(np.ones(22)) == pytest.approx(100.0)
    # geometric mean of (1 + %) minus one: half the achievements always, half never
    assert crafter_score(np.array([1.0] * 11 + [0.0] * 11)) == pytest.approx(101**0.5 - 1)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", "--task", "chop_tree"], "unknown task 'chop_tree'"),
        (["train", "--task", "collect_wood", "--env", "nether"], "unknown env 'nether'"),
        (["train", "--task", "collect_wood", "--steps", "0"], "--steps"),
        (["train"], "no task given: pass --task"),
        (["train", "--task", "collect_wood", "--coded", "/nonexistent.py"], "cannot read"),
        (["eval", "--task", "collect_wood", "--model", "/tmp"], "not a run folder"),
        (["train", "--task", "collect_wood", "--config", "/nonexistent.json"], "--config"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_invalid_coded_action_file_exit_2(tmp_path, capsys) -> None:
    bad = tmp_path / "evil.py"
    bad.write_text("def act(ctx):\n    open('/etc/passwd')\n    yield 0\n")
    assert main(["train", "--task", "collect_wood", "--coded", str(bad)]) == 2
    assert "builtin 'open' is not allowed" in capsys.readouterr().err


def test_tasks_command_lists_catalog(capsys) -> None:
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    assert "collect_diamond" in out and "crafter_score" in out


@pytest.mark.slow
def test_train_then_eval_round_trip(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    code = main(
        [
            "train",
            "--task",
            "collect_wood",
            "--steps",
            "1500",
            "--num-envs",
            "8",
            "--coded",
            str(SKILLS / "go_to_tree.py"),
            "--save",
            str(run),
            "--eval-episodes",
            "8",
            "--json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["samples"] >= 1500 and summary["coded_actions"] == ["go_to_tree"]
    assert (run / "latest.zip").exists() and (run / "config.json").exists()
    assert main(["eval", "--model", str(run), "--episodes", "8", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["evaluated"] == "policy" and result["eval"]["episodes"] == 8
    # the policy's own coded action given again (or edited): it replaces the trained one's
    # code; an action the policy was not trained with is refused in one line
    skill = str(SKILLS / "go_to_tree.py")
    again = ["eval", "--model", str(run), "--episodes", "8", "--json", "--coded", skill]
    assert main(again) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["eval"]["episodes"] == 8
    other = str(SKILLS / "collect_wood.py")
    assert main(["eval", "--model", str(run), "--coded", other]) == 2
    error = capsys.readouterr().err.strip()
    assert "trained with the coded actions go_to_tree" in error and len(error.splitlines()) == 1
    assert (
        main(
            [
                "eval",
                "--task",
                "collect_wood",
                "--num-envs",
                "8",
                "--episodes",
                "8",
                "--coded",
                str(SKILLS / "collect_wood.py"),
                "--only-coded",
                "collect_wood",
                "--json",
            ]
        )
        == 0
    )
    coded_only = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # seeded: measured 1.00 (8 of 8 episodes) on every run
    assert coded_only["eval"]["success_rate"] == pytest.approx(1.0, abs=0.05)
