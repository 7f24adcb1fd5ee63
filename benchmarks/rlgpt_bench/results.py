"""Benchmark results as data: one JSON file per benchmark run under ``benchmarks/results/``.

A file holds one run: what is common to its rows (command, commit, machine, date, world,
seeds ...) at the top level, and ``rows``, each of which may override any of those fields.
:func:`load_results` merges them into :class:`Result` rows, validated; a bad file is a
one-line :class:`ResultsError` naming the file, the row and the field. Benchmarks record a
run with :func:`write_run` (``--record``). A newer measurement of the same thing
(:meth:`Result.key`) supersedes the older one (:func:`current`).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS_DIR = ROOT / "benchmarks" / "results"
SCHEMA = 1
TRANSCRIBED = "transcribed from the session record"
#: the code author of the builtin agent's library and of hand edits to it: this project's
HAND_WRITTEN = "hand-written (ours)"

Metric = Literal["success_rate", "crafter_score"]
#: what ran; table2.py's method names
METHODS: dict[str, str] = {
    "ppo": "pure PPO",
    "code": "code alone",
    "rl_code": "RL over coded skills, from a uniform policy",
    "rl_from_code": "RL from the code",
    "agent": "the two loops",
}
#: how a row's figure is formed from its episodes
Statistic = Literal["pooled", "seed mean"]

#: Table 2's tasks: the tech tree in order, then the others (rows and cells in this order)
TASK_ORDER = (
    "collect_wood",
    "place_table",
    "make_wood_pickaxe",
    "collect_stone",
    "make_stone_pickaxe",
    "place_furnace",
    "collect_coal",
    "collect_iron",
    "make_iron_pickaxe",
    "eat_cow",
    "collect_drink",
    "collect_diamond",
    "crafter_score",
)


class Result(BaseModel):
    """One measured figure and everything needed to trust and reproduce it."""

    model_config = ConfigDict(extra="forbid")

    task: str
    metric: Metric
    value: float
    low: float | None = None  # 95% interval; None where it was not recorded
    high: float | None = None
    statistic: Statistic = "pooled"  # over every evaluation episode, or the seeds' mean
    method: Literal["ppo", "code", "rl_code", "rl_from_code", "agent"]
    agent: str  # who ran the loops: "builtin", or "llm:MODEL"
    code_author: str  # "hand-written (ours)", "llm:MODEL", "person", "none"
    library: str | None = None  # which coded skills: a folder, or the builtin library
    world: str  # e.g. "craftax" (Craftax-Classic, symbolic View) or "crafter"
    budget: int | None = None  # training samples per seed (0: no training)
    training_seeds: list[int] | None = None
    eval_seeds: list[int] | None = None
    episodes: int | None = None  # evaluation episodes behind the figure, all seeds
    command: str
    commit: str | None = None
    machine: str | None = None
    date: str  # YYYY-MM-DD, or YYYY-MM-DDTHH:MM where a day holds two measurements
    source: str  # TRANSCRIBED, or which benchmark recorded it
    note: str | None = None
    group: str | None = None  # the section of docs/results.md it belongs to
    headline: bool = False  # also in the README's headline table

    @model_validator(mode="after")
    def _consistent(self) -> Result:
        top = 1.0 if self.metric == "success_rate" else 100.0
        for name in ("value", "low", "high"):
            v = getattr(self, name)
            if v is not None and not 0 <= v <= top:
                raise ValueError(f"{name} {v} is outside 0..{top:g} for {self.metric}")
        if (self.low is None) != (self.high is None):
            raise ValueError("low and high go together: give both, or neither")
        if (
            self.low is not None
            and self.high is not None
            and not self.low <= self.value <= self.high
        ):
            raise ValueError(
                f"value {self.value} is outside its interval [{self.low}, {self.high}]"
            )
        self.when()  # the date parses
        return self

    def when(self) -> datetime:
        try:
            return datetime.fromisoformat(self.date)
        except ValueError:
            raise ValueError(f"date {self.date!r}: use YYYY-MM-DD or YYYY-MM-DDTHH:MM") from None

    def key(self) -> tuple[Any, ...]:
        """What was measured: a newer row with the same key supersedes this one."""
        return (
            self.task,
            self.method,
            self.agent,
            self.code_author,
            self.library,
            self.world,
            self.budget,
        )

    def format(self, value: float | None) -> str:
        if value is None:
            return "n/a"
        return f"{value:.2f}" if self.metric == "success_rate" else f"{value:.1f}"

    def figure(self) -> str:
        """e.g. ``0.68 [0.61-0.74]``, ``24.7 (seed mean) [23.0-26.4]`` or ``0.52 [n/a]``."""
        text = self.format(self.value)
        if self.statistic == "seed mean":
            text += " (seed mean)"
        if self.low is None:
            return f"{text} [n/a]"
        return f"{text} [{self.format(self.low)}-{self.format(self.high)}]"


class ResultsError(ValueError):
    """A results file that cannot be read: one line naming the file, row and field."""


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def load_file(path: Path) -> list[Result]:
    """The rows of one results file, each merged with the file's common fields."""
    name = path.name
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise ResultsError(f"{name}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ResultsError(f"{name}: not JSON: {error.msg} at line {error.lineno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise ResultsError(f"{name}: field 'rows': a list of result rows is required")
    if data.get("schema") != SCHEMA:
        raise ResultsError(f"{name}: field 'schema': must be {SCHEMA}, got {data.get('schema')!r}")
    common = {k: v for k, v in data.items() if k not in ("rows", "schema", "details")}
    return [_validated(name, common, i, row) for i, row in enumerate(data["rows"])]


def _validated(name: str, common: dict[str, Any], i: int, row: Any) -> Result:
    """Row ``i`` of file ``name`` merged with the file's common fields, validated."""
    if not isinstance(row, dict):
        raise ResultsError(f"{name}: rows[{i}]: must be an object")
    try:
        return Result.model_validate(common | row)
    except ValidationError as error:
        first = error.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        if first["loc"]:
            message = f"field '{_field_path(first['loc'])}': {message}"
        task = row.get("task", "?")
        raise ResultsError(f"{name}: rows[{i}] ({task}): {message}") from None


def load_results(folder: Path = RESULTS_DIR) -> dict[str, list[Result]]:
    """Every ``*.json`` of ``folder`` by file name, in name order."""
    return {path.name: load_file(path) for path in sorted(Path(folder).glob("*.json"))}


def current(files: dict[str, list[Result]]) -> list[tuple[str, Result]]:
    """Each row that no newer row of the same :meth:`~Result.key` supersedes, with its file,
    in file and row order. Two newest rows of one key at the same date and time are an
    error: which one stands would be a guess."""
    by_key: dict[tuple[Any, ...], list[tuple[str, Result]]] = {}
    for name, rows in files.items():
        for row in rows:
            by_key.setdefault(row.key(), []).append((name, row))
    kept = set()
    for measured in by_key.values():
        measured.sort(key=lambda pair: pair[1].when(), reverse=True)
        (name, row), *older = measured
        if older and older[0][1].when() == row.when():
            raise ResultsError(
                f"{name}: {row.task} / {row.method} measured at {row.date} also in "
                f"{older[0][0]}: give the newer one a later date or time (YYYY-MM-DDTHH:MM)"
            )
        kept.add(id(row))
    return [(name, r) for name, rows in files.items() for r in rows if id(r) in kept]


def git_commit(root: Path = ROOT) -> str | None:
    """The checkout's commit (short), ``+dirty`` when tracked files changed; None outside git."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
        )
    except OSError:
        return None
    if commit.returncode != 0:
        return None
    return commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else the platform's processor name."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def machine_text() -> str:
    """e.g. ``AMD EPYC 7B13, 2 CPUs, no GPU``."""
    gpu = "no GPU"
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if out.returncode == 0 and out.stdout.strip():
            gpu = out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired):
        pass
    return f"{cpu_model() or platform.machine()}, {os.cpu_count()} CPUs, {gpu}"


def machine() -> dict[str, Any]:
    """The machine a benchmark ran on, for its JSON report (CPU, GPU, load)."""
    import torch  # start-up: the results pages render without torch

    return {
        "cpus": os.cpu_count(),
        "cpu": cpu_model(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def write_run(
    name: str,
    rows: list[dict[str, Any]],
    *,
    command: str,
    source: str,
    folder: Path = RESULTS_DIR,
    details: dict[str, Any] | None = None,
    **common: Any,
) -> Path:
    """Record a benchmark run as ``folder/<name>.json``: its rows, with the commit, machine
    and date filled in; every row is validated before anything is written. ``details``:
    the benchmark's own report, kept beside the rows (the renderer ignores it)."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"results name {name!r}: use a plain file name such as table2-30k")
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "command": command,
        "commit": git_commit(),
        "machine": machine_text(),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M"),
        "source": source,
    } | common
    for i, row in enumerate(rows):
        _validated(f"{name}.json", {k: v for k, v in data.items() if k != "schema"}, i, row)
    data["rows"] = rows
    if details is not None:
        data["details"] = details
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(data, indent=1, default=str) + "\n")
    temporary.replace(path)
    return path
