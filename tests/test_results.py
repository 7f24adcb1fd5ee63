"""Results that cannot drift: benchmarks/results/*.json, their loader, superseding, and the
pages rendered from them (docs/results.md, the README's headline table)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rlgpt_bench import render
from rlgpt_bench.results import (
    RESULTS_DIR,
    ROOT,
    ResultsError,
    current,
    load_file,
    load_results,
    write_run,
)

RUN = {
    "schema": 1,
    "command": "python benchmarks/table2.py --tasks collect_wood --methods code",
    "commit": "abc1234",
    "machine": "a test machine",
    "date": "2026-11-20",
    "source": "a test",
    "agent": "builtin",
    "code_author": "hand-written (ours)",
    "library": "builtin library",
    "world": "craftax",
    "group": "Table 2",
}


def row(**fields) -> dict:
    return {
        "task": "collect_wood",
        "metric": "success_rate",
        "method": "code",
        "value": 0.9,
        "low": 0.8,
        "high": 0.95,
        "budget": 0,
    } | fields


def write(folder: Path, name: str, rows: list[dict], **common) -> Path:
    path = folder / name
    path.write_text(json.dumps(RUN | common | {"rows": rows}))
    return path


def test_the_committed_pages_are_what_the_committed_json_renders() -> None:
    files = render.rendered(ROOT)
    assert ROOT / "docs" / "results.md" in files
    for path, text in files.items():
        assert path.read_text() == text, (
            f"{path.relative_to(ROOT)} differs from what benchmarks/results/*.json renders: "
            "run `python benchmarks/render.py`"
        )


def test_every_committed_result_loads_and_the_headline_figures_are_there() -> None:
    rows = [r for _, r in current(load_results(RESULTS_DIR))]
    assert rows and all(r.command and r.date and r.source for r in rows)
    page = (ROOT / "docs" / "results.md").read_text()
    assert "Generated from benchmarks/results/*.json" in page
    shown = {(r.task, r.method, r.code_author, r.figure()) for r in rows if r.headline}
    # the hand-written script on fresh seeds, and RL above an LLM's code
    assert ("crafter_score", "code", "hand-written (ours)", "70.5 [66.7-74.0]") in shown
    assert ("make_iron_pickaxe", "code", "hand-written (ours)", "0.68 [0.61-0.74]") in shown
    assert any(r.task == "collect_coal" and r.value == 0.77 for r in rows if r.headline)
    for r in rows:  # every figure on the page, with its interval or n/a
        assert r.figure().split(" ")[0] in page
    # two figures of one model's code on one task are told apart by their library
    readme = (ROOT / "README.md").read_text()
    learn = "`qwen2.5-coder-1.5b-learn` | 1M | 21.0 [18.9-22.5]"
    assert learn in readme and "`qwen2.5-coder-1.5b-curriculum-iron` | 1M | 24.7" in readme


def test_a_newer_measurement_of_the_same_thing_replaces_the_older(tmp_path: Path) -> None:
    write(tmp_path, "a-old.json", [row(value=0.5, low=0.4, high=0.6), row(task="eat_cow")])
    write(tmp_path, "b-new.json", [row(value=0.7, low=0.6, high=0.8)], date="2026-11-25")
    write(tmp_path, "c-other.json", [row(value=0.2, low=0.1, high=0.3, budget=None)])
    kept = [(name, r.task, r.value) for name, r in current(load_results(tmp_path))]
    # collect_wood code: the newer 0.7 only; another task and another budget stay
    assert kept == [
        ("a-old.json", "eat_cow", 0.9),
        ("b-new.json", "collect_wood", 0.7),
        ("c-other.json", "collect_wood", 0.2),
    ]
    page = render.results_page(current(load_results(tmp_path)))
    assert "**0.70** [0.60-0.80]" in page and "0.50" not in page
    # a measurement of the same thing on the same date: which stands would be a guess
    write(tmp_path, "d-tie.json", [row(value=0.1, low=0.0, high=0.2)], date="2026-11-25")
    with pytest.raises(ResultsError, match="collect_wood / code measured at 2026-11-25") as tie:
        current(load_results(tmp_path))
    assert {"b-new.json", "d-tie.json"} <= set(str(tie.value).replace(":", "").split())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "bad.json: not JSON"),
        (json.dumps({"schema": 1}), "bad.json: field 'rows'"),
        (json.dumps(RUN | {"schema": 2, "rows": []}), "bad.json: field 'schema'"),
        (json.dumps(RUN | {"rows": [row(value=1.5, low=None, high=None)]}), "value 1.5 is outside"),
        (json.dumps(RUN | {"rows": [row(value=0.3)]}), "outside its interval"),
        (json.dumps(RUN | {"rows": [row(method="dqn")]}), "rows[0] (collect_wood): field 'method'"),
        (
            json.dumps({k: v for k, v in RUN.items() if k != "world"} | {"rows": [row()]}),
            "field 'world': Field required",
        ),
        (json.dumps(RUN | {"rows": [row(seedz=[1])]}), "field 'seedz'"),
        (json.dumps(RUN | {"date": "yesterday", "rows": [row()]}), "YYYY-MM-DD"),
        (json.dumps(RUN | {"rows": [row(low=None)]}), "low and high go together"),
    ],
)
def test_a_bad_results_file_is_one_line_naming_the_file_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(ResultsError) as error:
        load_file(bad)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith("bad.json: ")


def test_a_figure_without_an_interval_shows_n_a(tmp_path: Path) -> None:
    write(tmp_path, "a.json", [row(low=None, high=None, statistic="seed mean", value=0.5)])
    ((_, result),) = current(load_results(tmp_path))
    assert result.figure() == "0.50 (seed mean) [n/a]"


def test_write_run_records_commit_machine_and_date(tmp_path: Path) -> None:
    path = write_run(
        "table2-test",
        [row()],
        command="python benchmarks/table2.py --record table2-test",
        source="recorded by a test",
        folder=tmp_path,
        agent="builtin",
        code_author="hand-written (ours)",
        world="craftax",
        details={"cells": []},
    )
    (result,) = load_file(path)
    assert result.commit and len(result.commit.split("+")[0]) >= 7  # this checkout's
    assert "CPUs" in result.machine and result.date[:4].isdigit()
    with pytest.raises(ValueError, match="field|value"):  # validated before it is written
        write_run(
            "bad",
            [row(value=2.0)],
            command="x",
            source="y",
            folder=tmp_path,
            agent="builtin",
            code_author="none",
            world="craftax",
        )
    assert not (tmp_path / "bad.json").exists()


def test_render_check_fails_on_a_hand_edit_and_passes_after_rendering(tmp_path: Path) -> None:
    """As a person runs it: ``python benchmarks/render.py --check`` over a copy of the
    repository's results, a README with the markers, and a hand-edited page."""
    shutil.copytree(RESULTS_DIR, tmp_path / "benchmarks" / "results")
    (tmp_path / "README.md").write_text(
        f"# rlgpt\n\n## Results\n\n{render.BEGIN}\nold table\n{render.END}\n\n## Licence\n"
    )

    def run(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "render.py"),
                "--root",
                str(tmp_path),
                *flags,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )

    stale = run("--check")
    assert stale.returncode == 1
    assert "docs/results.md, README.md" in stale.stderr and "benchmarks/render.py" in stale.stderr
    assert run().returncode == 0
    readme = (tmp_path / "README.md").read_text()
    assert readme.startswith("# rlgpt\n\n## Results\n\n<!-- results:begin -->\n")
    assert readme.endswith("<!-- results:end -->\n\n## Licence\n") and "old table" not in readme
    assert "70.5 [66.7-74.0]" in readme and "(docs/results.md)" in readme
    assert run("--check").returncode == 0
    page = tmp_path / "docs" / "results.md"
    page.write_text(page.read_text().replace("70.5", "75.0"))  # a hand edit
    edited = run("--check")
    assert edited.returncode == 1 and "docs/results.md" in edited.stderr
    assert "README.md" not in edited.stderr


@pytest.mark.slow
def test_script_edits_records_its_figures(tmp_path: Path) -> None:
    """``script_edits.py --record NAME``: the script's and each variant's pooled figure."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "script_edits.py"), "--task", "place_table"]
        + ["--variant", "recover", "--episodes", "2", "--eval-seeds", "90000"]
        + ["--record", "edits", "--results-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    script, variant = load_file(tmp_path / "edits.json")
    for row, label in ((script, "script"), (variant, "recover")):
        pooled = report["results"][label]["pooled"]
        assert (row.value, [row.low, row.high]) == (pooled["value"], pooled["ci95"])
        assert row.method == "code" and row.budget == 0 and row.eval_seeds == [90000]
    assert script.library == "builtin library (assets/skills/templates)"
    assert variant.library == "builtin library, script with edit `recover`"
    assert "minus the script +0.00" in variant.note and "--record edits" in script.command


def test_the_page_names_each_recorded_library_where_it_is_now() -> None:
    """A record keeps the library path it ran with (inside the package, some relative to
    it); the page names the folder where it is now, so each command runs as shown."""
    recorded = "--skills assets/skills/llm/a --x rlgpt_tui/assets/skills/handwritten/b"
    assert render.where_now(recorded) == (
        "--skills benchmarks/skills/llm/a --x benchmarks/skills/handwritten/b"
    )
    kept = "builtin library (assets/skills/templates)"
    assert render.where_now(kept) == kept
    page = (ROOT / "docs" / "results.md").read_text()
    folders = {f.rstrip("`;") for f in re.findall(r"--skills (\S+)", page)}
    assert folders and all((ROOT / folder).is_dir() for folder in folders), folders
