"""Run a benchmark's cells in parallel: local processes, or a Ray cluster.

A cell is one command (e.g. ``table2.py --cell TASK METHOD SEED``) that prints its result
as one JSON line, last on its stdout. :func:`run_cells` runs each cell in its own process
(JAX and ``fork`` do not mix, so never a forked worker), ``jobs`` at a time, or as Ray tasks
(``ray_address``; ``"local"`` starts a Ray on this machine). Each result is written to
``folder/<cell>.json`` as it lands, so a sweep run again with the same folder skips the
cells already there and resumes where an interrupted one stopped. A cell that fails (exit
status other than 0, or no JSON line) is reported, not written, so it runs again next time.

Ray's nodes run the command as given: on a cluster each node needs this checkout at the
same path with the same Python (a shared file system); the driver writes the files.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: environment variables a cell's process gets from the driver on a Ray node
PASSED_ENV = (
    "PYTHONPATH",
    "JAX_PLATFORMS",
    "RLGPT_XLA_THREADS",
    "RLGPT_WORKERS",
    "OMP_NUM_THREADS",
    "RLGPT_TORCH_DEVICE",
)


class SweepError(RuntimeError):
    """A sweep that cannot start (no Ray, a cluster out of reach): one line naming the fix."""


@dataclass(frozen=True)
class Cell:
    """One unit of a sweep: its name (the result file's stem) and the command that runs it."""

    name: str
    argv: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.name or "/" in self.name or self.name.startswith("."):
            raise ValueError(f"cell name {self.name!r}: use a plain file name")


@dataclass
class Outcome:
    """What one cell's process did: its result (None when it failed) and why it failed."""

    cell: Cell
    result: dict[str, Any] | None
    error: str | None = None
    reused: bool = False  # read from the sweep folder, not run


def result_path(folder: Path, cell: Cell) -> Path:
    return Path(folder) / f"{cell.name}.json"


def finished(folder: Path, cell: Cell) -> dict[str, Any] | None:
    """The cell's result already in ``folder``, or None (absent, or a torn file)."""
    try:
        return json.loads(result_path(folder, cell).read_text())
    except (OSError, json.JSONDecodeError):
        return None


def parse(cell: Cell, returncode: int, stdout: str, stderr: str) -> Outcome:
    """A cell's outcome from its exit status and output."""
    lines = stdout.strip().splitlines()
    if returncode != 0 or not lines:
        tail = (stderr.strip().splitlines() or ["no output"])[-1]
        return Outcome(cell, None, f"exit status {returncode}: {tail}")
    try:
        result = json.loads(lines[-1])
    except json.JSONDecodeError:
        return Outcome(cell, None, f"its last line is not JSON: {lines[-1][:200]}")
    if not isinstance(result, dict):
        return Outcome(cell, None, "its last line is not a JSON object")
    if result.get("error"):
        return Outcome(cell, None, str(result["error"]))
    return Outcome(cell, result)


def save(folder: Path, outcome: Outcome) -> None:
    """Write a finished cell's result, whole or not at all (a rename)."""
    path = result_path(folder, outcome.cell)
    temporary = path.with_name(path.name + ".part")
    temporary.write_text(json.dumps(outcome.result) + "\n")
    temporary.replace(path)


class LocalProcesses:
    """Cells as child processes of this one, ``jobs`` at a time; their stderr goes to ours."""

    def __init__(self, jobs: int, cwd: Path) -> None:
        self.jobs, self.cwd = jobs, cwd
        self.running: set[subprocess.Popen] = set()
        self.lock = threading.Lock()

    def run(self, cell: Cell) -> Outcome:
        process = subprocess.Popen(
            cell.argv,
            cwd=self.cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        with self.lock:
            self.running.add(process)
        tail: list[str] = []
        stdout_pipe, stderr_pipe = process.stdout, process.stderr
        assert stdout_pipe is not None and stderr_pipe is not None  # both piped above

        def forward() -> None:  # its progress on our stderr as it comes; the tail kept
            for line in stderr_pipe:
                sys.stderr.write(line)
                tail[:] = [*tail[-19:], line]

        forwarding = threading.Thread(target=forward, daemon=True)
        forwarding.start()
        try:
            stdout = stdout_pipe.read()
            process.wait()
            forwarding.join(timeout=10)
        finally:
            with self.lock:
                self.running.discard(process)
        return parse(cell, process.returncode, stdout, "".join(tail))

    def stop(self) -> None:
        """End the cells still running (on Ctrl-C or SIGTERM), so none outlives the sweep."""
        with self.lock:
            for process in self.running:
                process.terminate()
            for process in self.running:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()

    def sweep(self, cells: list[Cell], landed: Callable[[Outcome], None]) -> None:
        pool = ThreadPoolExecutor(max_workers=self.jobs)
        futures: dict[Future, Cell] = {pool.submit(self.run, c): c for c in cells}
        try:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    landed(future.result())
        except BaseException:
            for future in futures:
                future.cancel()
            self.stop()
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def reachable(address: str, timeout: float = 10.0) -> None:
    """Raise :class:`SweepError` when a ``HOST:PORT`` (or ``ray://HOST:PORT``) cluster does
    not answer: Ray itself would wait for it for minutes. Other addresses pass."""
    match = re.fullmatch(r"(?:ray://)?(\[[^\]]+\]|[^:/]+):(\d+)", address)
    if match is None:
        return
    host, port = match.group(1).strip("[]"), int(match.group(2))
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as error:
        raise SweepError(
            f"--ray {address}: nothing answers at {host}:{port} ({error.strerror or error}): "
            "start the cluster (ray start --head) or give its address, or use --ray local"
        ) from None


def _run_on_node(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[int, str, str]:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=os.environ | env)
    return done.returncode, done.stdout, done.stderr


class RayCluster:
    """Cells as Ray tasks (one CPU each) that run the cell's command on a node."""

    def __init__(self, address: str, jobs: int, cwd: Path) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report leaves here
        try:
            import ray  # optional: the ray extra
        except ImportError:
            raise SweepError(
                "--ray needs Ray: pip install 'rlgpt-tui[ray]' (or pip install ray)"
            ) from None
        self.ray = ray
        self.cwd = cwd
        reachable(address)
        try:
            if address == "local":
                ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
        except Exception as error:  # ConnectionError, a bad address ...
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise SweepError(
                f"--ray {address}: {first} (give a running cluster's address, or 'local')"
            ) from None
        self.remote = ray.remote(num_cpus=1)(_run_on_node)
        self.env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}

    def sweep(self, cells: list[Cell], landed: Callable[[Outcome], None]) -> None:
        ray = self.ray
        refs = {self.remote.remote(list(c.argv), str(self.cwd), self.env): c for c in cells}
        try:
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                cell = refs[done[0]]
                try:
                    returncode, stdout, stderr = ray.get(done[0])
                except Exception as error:  # the task itself failed (a lost node ...)
                    landed(Outcome(cell, None, f"Ray: {type(error).__name__}: {error}"))
                    continue
                if stderr:
                    sys.stderr.write(stderr)
                landed(parse(cell, returncode, stdout, stderr))
        except BaseException:
            for ref in refs:
                ray.cancel(ref, force=True)
            raise
        finally:
            ray.shutdown()


def run_cells(
    cells: list[Cell],
    folder: Path,
    *,
    jobs: int = 1,
    ray_address: str | None = None,
    cwd: Path | None = None,
    on_result: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Every cell's outcome, in ``cells``' order: read from ``folder`` where a result is
    already there, else run (and its result written there as it lands)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    names = [c.name for c in cells]
    if len(set(names)) != len(names):
        raise ValueError("cell names must be distinct")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    outcomes: dict[str, Outcome] = {}
    todo = []
    for cell in cells:
        result = finished(folder, cell)
        if result is None:
            todo.append(cell)
        else:
            outcomes[cell.name] = Outcome(cell, result, reused=True)
            if on_result:
                on_result(outcomes[cell.name])

    def landed(outcome: Outcome) -> None:
        if outcome.result is not None:
            save(folder, outcome)
        outcomes[outcome.cell.name] = outcome
        if on_result:
            on_result(outcome)

    if todo:
        cwd = Path(cwd or os.getcwd())
        runner = RayCluster(ray_address, jobs, cwd) if ray_address else LocalProcesses(jobs, cwd)
        runner.sweep(todo, landed)
    return [outcomes[c.name] for c in cells if c.name in outcomes]
