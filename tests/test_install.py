"""rlgpt-tui as an installed package and a well-behaved command: a wheel installed in a
fresh venv works from any folder, a missing data file is one line naming the fix, `doctor`
writes nothing and names the devices, and `--help` shows defaults."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from rlgpt_tui import MissingAssetError, read_asset
from rlgpt_tui.cli import main
from rlgpt_tui.doctor import GPU_EXTRA_FIX, check_devices
from rlgpt_tui.tasks.catalog import load_catalog

REPO = Path(__file__).resolve().parent.parent


def help_text(capsys, command: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


def option_help(text: str, flag: str) -> str:
    """The help of ``flag`` in a --help text: its line and the wrapped lines after it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(flag + " "))
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if line.strip().startswith("-"):
            break
        block.append(line)
    return " ".join(" ".join(block).split())


@pytest.mark.parametrize("command", ["train", "eval"])
def test_train_and_eval_help_show_their_defaults(capsys, command) -> None:
    text = help_text(capsys, command)
    assert "default: craftax 64, crafter 8" in option_help(text, "--num-envs")
    assert "default: 0" in option_help(text, "--seed")
    assert "default: the task's" in option_help(text, "--horizon")
    assert "(default: craftax" in option_help(text, "--env")


def test_run_help_shows_its_defaults(capsys) -> None:
    text = help_text(capsys, "run")
    assert "(default: 4)" in option_help(text, "--iterations")
    assert "(default: 200000)" in option_help(text, "--max-samples")
    assert "(default: 0)" in option_help(text, "--seed")


def test_a_missing_data_file_or_an_empty_catalog_is_one_line_naming_the_fix(tmp_path) -> None:
    with pytest.raises(MissingAssetError) as caught:
        load_catalog(tmp_path)  # a catalog folder without task files
    message = str(caught.value)
    assert "no *.toml files in the package data folder" in message
    assert "reinstall rlgpt-tui" in message and "\n" not in message
    with pytest.raises(MissingAssetError, match=r"cannot read the package data file .*reinstall"):
        read_asset(tmp_path / "prompts" / "slow.md")


def test_doctor_writes_nothing_and_names_the_devices(tmp_path) -> None:
    """Run in an empty folder with the default sessions folder (./sessions), `doctor` leaves
    the folder empty."""
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "RLGPT_SESSIONS_DIR"}
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run(
        [sys.executable, "-m", "rlgpt_tui.cli", "doctor"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(empty.iterdir()) == []
    lines = {line.split()[1]: line for line in result.stdout.splitlines() if "device " in line}
    assert "PPO uses" in lines["torch"] and "Craftax runs there" in lines["jax"]
    sessions = next(line for line in result.stdout.splitlines() if "sessions folder" in line)
    assert f"{empty / 'sessions'} (none yet: the first session creates it)" in sessions


def test_doctor_names_the_gpu_extra_when_jax_leaves_an_nvidia_gpu_idle() -> None:
    import jax

    checks = {c.name: c for c in check_devices(gpus=["GPU 0: NVIDIA H200"])}
    assert checks["nvidia gpu"].detail == "GPU 0: NVIDIA H200"
    if jax.default_backend() == "cpu":
        assert checks["jax device"].status == "WARN"
        assert "but this machine has an NVIDIA GPU" in checks["jax device"].detail
        assert checks["jax device"].fix == GPU_EXTRA_FIX and "rlgpt-tui[gpu]" in GPU_EXTRA_FIX
    else:
        assert checks["jax device"].status == "OK"
    alone = {c.name: c for c in check_devices(gpus=[])}
    assert "nvidia gpu" not in alone and alone["jax device"].status in ("OK", "WARN")


def _fresh_venv(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A venv with this project's wheel installed (no editable install) and the current
    environment's other packages reachable through a plain path line (.pth)."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "rlgpt_tui",
        source / "rlgpt_tui",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(source), "-w", str(wheels)],
        check=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("rlgpt_tui-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RLGPT_SESSIONS_DIR")}
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q"]
        + ["--ignore-installed", str(wheel)],  # installed here whatever else is on the path
        check=True,
        timeout=600,
        env=env,
    )
    # then the dependencies (after: pip must not see the editable install there): a plain
    # path line, so the .pth files there, this project's editable finder among them, are
    # not run
    (Path(purelib) / "current_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env["RLGPT_CONFIG"] = os.devnull
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return venv, env


@pytest.mark.slow
def test_the_wheel_installed_in_a_fresh_venv_works_from_an_empty_folder(tmp_path) -> None:
    from rlgpt_tui.store import SessionStore

    venv, env = _fresh_venv(tmp_path)
    python, command = venv / "bin" / "python", str(venv / "bin" / "rlgpt-tui")
    empty = tmp_path / "empty"
    empty.mkdir()

    def run(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(
            argv, cwd=empty, env=env, capture_output=True, text=True, timeout=timeout
        )

    where = run(
        str(python),
        "-c",
        "import sys, rlgpt_tui; print(rlgpt_tui.__file__); "
        "print(any('editable' in type(f).__name__.lower() or 'editable' in repr(f) "
        "for f in sys.meta_path))",
    )
    assert where.returncode == 0, where.stderr
    installed, editable = where.stdout.split()
    assert Path(installed).is_relative_to(venv), installed
    assert editable == "False"

    listed = run(command, "tasks")
    assert listed.returncode == 0, listed.stderr
    assert set(load_catalog()) <= set(listed.stdout.split())

    ran = run(
        command, "run", "--task", "collect_wood", "--iterations", "1", "--num-envs", "8",
        "--samples-per-iteration", "1024", "--max-samples", "1024", "--eval-episodes", "8",
        "--final-episodes", "8",
        timeout=900,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "session 1 recorded in sessions/rlgpt.db" in ran.stderr
    store = SessionStore(empty / "sessions")
    (session,) = store.list_sessions()
    assert (session.task, session.agent) == ("collect_wood", "builtin")
    assert session.status not in ("running", "failed"), session.status
    store.close()

    # the installed package without its task catalog: one line naming the fix, exit 2
    shutil.rmtree(Path(installed).parent / "assets" / "tasks")
    broken = run(command, "tasks")
    assert broken.returncode == 2
    assert broken.stderr.startswith("rlgpt-tui: error: no *.toml files in the package data")
    assert "reinstall rlgpt-tui" in broken.stderr and broken.stderr.count("\n") == 1
    assert broken.stdout == ""
