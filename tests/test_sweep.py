"""Sweeps of many cells in parallel (benchmarks/rlgpt_bench/sweep.py, table2.py
--jobs/--sweep/--ray): real processes, each cell's result kept as it lands, an interrupted
sweep resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlgpt_bench.results import load_file
from rlgpt_bench.sweep import Cell, SweepError, run_cells
from tests.test_table2 import ROOT, SCRIPT

# a tiny table2 sweep: code alone on one task and two seeds, no training (each cell a
# process of its own: about 15-20 s of imports and world set-up on a 2-core machine)
TINY = ("--tasks", "place_table", "--methods", "code", "--seeds", "0", "1", "--episodes", "4")
TINY += ("--num-envs", "8")
TINY_CELLS = {f"place_table--code--seed{seed}" for seed in (0, 1)}


def python_cell(name: str, code: str) -> Cell:
    return Cell(name, (sys.executable, "-c", code))


def stamp_cell(name: str, folder: Path, sleep: float = 0.0) -> Cell:
    """A cell that notes when it ran (start, end) in ``folder`` and prints its name."""
    code = (
        "import json, time, pathlib\n"
        f"start = time.time(); time.sleep({sleep})\n"
        f"ran = pathlib.Path({str(folder)!r}, {name + '.ran'!r})\n"
        "ran.write_text(f'{start} {time.time()}')\n"
        f"print('progress'); print(json.dumps({{'name': {name!r}}}))"
    )
    return python_cell(name, code)


def test_cells_run_at_once_and_land_in_the_folder(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    ran.mkdir()
    cells = [stamp_cell(f"c{i}", ran, sleep=1.5) for i in range(2)]
    outcomes = run_cells(cells, tmp_path / "sweep", jobs=2)
    assert [o.result for o in outcomes] == [{"name": "c0"}, {"name": "c1"}]
    spans = [tuple(map(float, (ran / f"c{i}.ran").read_text().split())) for i in range(2)]
    assert max(s for s, _ in spans) < min(e for _, e in spans)  # they overlapped
    for i in range(2):
        assert json.loads((tmp_path / "sweep" / f"c{i}.json").read_text()) == {"name": f"c{i}"}


def test_a_rerun_skips_finished_cells_and_a_failed_cell_runs_again(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    ran.mkdir()
    folder = tmp_path / "sweep"
    good = stamp_cell("good", ran)
    bad = python_cell("bad", "import sys; sys.exit('no world')")
    first = run_cells([good, bad], folder, jobs=2)
    assert first[0].result == {"name": "good"} and not first[0].reused
    assert first[1].result is None and first[1].error == "exit status 1: no world"
    assert not (folder / "bad.json").exists()  # a failure is not kept: it runs again
    (ran / "good.ran").unlink()
    fixed = stamp_cell("bad", ran)
    second = run_cells([good, fixed], folder, jobs=1)
    assert second[0].reused and not (ran / "good.ran").exists()  # not run again
    assert second[1].result == {"name": "bad"} and (ran / "bad.ran").exists()
    with pytest.raises(ValueError, match="distinct"):
        run_cells([good, good], folder)


def table2(*flags: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *TINY, *flags],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def comparable(done: subprocess.CompletedProcess) -> list[dict]:
    """A table2 run's cells without their wall times."""
    assert done.returncode == 0, done.stderr[-2000:]
    cells = json.loads(done.stdout.strip().splitlines()[-1])["cells"]
    for cell in cells:
        del cell["seconds"]
        for run in cell["per_seed"]:
            del run["seconds"]
    return cells


@pytest.fixture(scope="module")
def sequential() -> list[dict]:
    return comparable(table2())


@pytest.mark.slow
def test_table2_in_two_processes_gives_the_sequential_cells(tmp_path: Path, sequential) -> None:
    sweep, results = tmp_path / "sweep", tmp_path / "results"
    parallel = table2(
        *("--jobs", "2", "--sweep", str(sweep), "--record", "tiny", "--results-dir", str(results))
    )
    cells = comparable(parallel)
    assert cells == sequential
    assert {p.stem for p in sweep.glob("*--*.json")} == TINY_CELLS
    one = json.loads((sweep / "place_table--code--seed1.json").read_text())
    assert one["seed"] == 1 and len(one["tally"]["success"]) == 4  # its episodes, to pool
    # --record: the run's cell as a row of benchmarks/results, with its provenance
    (row,) = load_file(results / "tiny.json")
    assert (row.task, row.method, row.value, [row.low, row.high]) == (
        "place_table",
        "code",
        cells[0]["value"],
        cells[0]["ci95"],
    )
    assert row.budget == 0 and row.episodes == 8 and row.training_seeds == [0, 1]
    assert row.code_author == "hand-written (ours)" and row.agent == "builtin"
    assert "--jobs 2" in row.command and row.commit and "CPUs" in row.machine
    # the same folder with other settings is refused, naming them
    other = table2("--jobs", "2", "--sweep", str(sweep), "--episodes", "8")
    assert other.returncode == 2 and "other settings (episodes)" in other.stderr


@pytest.mark.slow
def test_an_interrupted_sweep_resumes_with_the_missing_cells_only(
    tmp_path: Path, sequential
) -> None:
    command = [sys.executable, str(SCRIPT), *TINY]
    command += ["--jobs", "1", "--sweep", str(tmp_path)]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 300
    while not list(tmp_path.glob("*--*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)  # as `kill` does
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert "interrupted: reporting the" in err
    landed = {p.stem for p in tmp_path.glob("*--*.json")}
    assert landed and landed < TINY_CELLS, landed
    times = {name: (tmp_path / f"{name}.json").stat().st_mtime_ns for name in landed}
    cell_processes = " ".join((*TINY, "--cell"))
    children = subprocess.run(["pgrep", "-f", cell_processes], capture_output=True)
    assert children.stdout == b"", "a cell's process outlived its sweep"

    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert comparable(resumed) == sequential
    for name in landed:  # not run again
        assert f"{name}: already in the sweep folder" in resumed.stderr
        assert (tmp_path / f"{name}.json").stat().st_mtime_ns == times[name]
    for name in TINY_CELLS - landed:
        assert f"{name}: landed" in resumed.stderr


@pytest.mark.slow
def test_table2_on_a_local_ray_gives_the_sequential_cells(tmp_path: Path, sequential) -> None:
    pytest.importorskip("ray", reason="the ray extra: pip install 'rlgpt-tui[ray]'")
    env = os.environ | {"RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *TINY]
        + ["--ray", "local", "--jobs", "2", "--sweep", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )
    assert comparable(done) == sequential
    assert json.loads(done.stdout.strip().splitlines()[-1])["ray"] == "local"
    assert {p.stem for p in tmp_path.glob("*--*.json")} == TINY_CELLS


def test_a_ray_cluster_out_of_reach_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the ray extra: pip install 'rlgpt-tui[ray]'")
    cell = python_cell("c", "print('{}')")
    with pytest.raises(SweepError, match=r"^--ray 127\.0\.0\.1:1: nothing answers") as error:
        run_cells([cell], tmp_path, ray_address="127.0.0.1:1")
    assert "use --ray local" in str(error.value) and "\n" not in str(error.value)
    assert not list(tmp_path.glob("*.json"))
