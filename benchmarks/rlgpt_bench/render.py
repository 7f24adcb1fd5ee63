"""Render the recorded results: ``docs/results.md`` whole, and the README's headline table.

    python benchmarks/render.py            # write both
    python benchmarks/render.py --check    # exit 1, naming the file, where they differ

Both come only from ``benchmarks/results/*.json`` (:mod:`rlgpt_bench.results`); a figure
superseded by a newer measurement of the same thing is left out. The README's table goes
between ``<!-- results:begin -->`` and ``<!-- results:end -->``; a README without them is
left alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path, PurePosixPath

from rlgpt_bench.results import (
    HAND_WRITTEN,
    METHODS,
    ROOT,
    TASK_ORDER,
    Result,
    ResultsError,
    current,
    load_results,
)

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
COMMAND = "python benchmarks/render.py"
GENERATED = (
    f"<!-- Generated from benchmarks/results/*.json by `{COMMAND}`: do not edit by hand. "
    "Record or correct a measurement in its JSON file, then run that command. -->"
)
INTRO = """\
Every figure here comes from one JSON file per benchmark run under `benchmarks/results/`
(a benchmark writes one with `--record`). Each row gives the figure with its 95% interval
(`n/a` where the run did not record one), what ran, who wrote the code, the world, the
training budget per seed and the seeds; its run (the command, commit, machine and date)
is listed under the table. Where a later run measured the same thing (task, method, agent,
code author, library, world and budget), only the later figure is shown; git keeps the
history. A library folder is named where it is now (`benchmarks/skills/`), so its command
runs as shown; its JSON keeps the path it was recorded with. "craftax" is Craftax-Classic
with the symbolic 7x9 View plus inventory and position: not comparable with Crafter's
pixel-based scoreboard.
"""


#: where the grown and hand-made libraries lived when their runs were recorded (inside the
#: package, ``rlgpt_tui/assets/skills/``, some recorded relative to it): the page names them
#: where they are now, ``benchmarks/skills/``
RECORDED_LIBRARY = re.compile(r"(?<![\w/])(?:rlgpt_tui/)?assets/skills/(llm|handwritten)/")


def where_now(text: str) -> str:
    """``text`` (a command or a library) with each recorded library folder where it is now."""
    return RECORDED_LIBRARY.sub(r"benchmarks/skills/\1/", text)


def cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def budget_text(budget: int | None) -> str:
    if budget is None:
        return "n/a"
    if budget == 0:
        return "0"
    if budget >= 1_000_000 and budget % 1_000_000 == 0:
        return f"{budget // 1_000_000}M"
    return f"{budget // 1000}k" if budget >= 10_000 and budget % 1000 == 0 else f"{budget:,}"


def seeds_text(seeds: list[int] | None) -> str:
    if not seeds:
        return "n/a"
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(map(str, seeds))


def evaluation_text(row: Result) -> str:
    seeds = seeds_text(row.eval_seeds)
    episodes = "n/a" if row.episodes is None else f"{row.episodes:,}"
    return f"{episodes} episodes; seeds {seeds}"


def what_ran(row: Result) -> str:
    text = METHODS[row.method]
    if row.agent != "builtin" or row.method == "agent":
        text += f" ({row.agent} agent)"
    return text


def code_text(row: Result) -> str:
    if row.method == "ppo":
        return "none"
    return row.code_author + (f"; `{where_now(row.library)}`" if row.library else "")


def library_name(library: str | None) -> str:
    """A library as the README's table names it: ``builtin`` (ours), a shipped folder by
    its name (two figures of one model's code on one task differ by library)."""
    if not library:
        return "none"
    if library.startswith("builtin library"):
        return "builtin"
    return f"`{PurePosixPath(library).name}`"


def run_id(row: Result) -> tuple[str, str | None, str | None, str, str]:
    return (row.command, row.commit, row.machine, row.date, row.source)


def results_page(rows: list[tuple[str, Result]]) -> str:
    """docs/results.md: one section per group, each a table and then its runs."""
    groups: dict[str, list[tuple[str, Result]]] = {}
    for name, row in rows:
        groups.setdefault(row.group or "Other results", []).append((name, row))
    lines = ["# Results", "", GENERATED, "", INTRO.strip(), ""]
    numbers: dict[tuple[str, str | None, str | None, str, str], int] = {}
    for title, members in groups.items():
        members = in_order(members)
        lines += [
            f"## {title}",
            "",
            "| task | what ran | figure [95% interval] | code by | world | budget | "
            "training seeds | evaluation | note | run |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        runs: list[tuple[int, str, Result]] = []
        for name, row in members:
            rid = run_id(row)
            if rid not in numbers:
                numbers[rid] = len(numbers) + 1
                runs.append((numbers[rid], name, row))
            figure = row.figure()
            lines.append(
                "| "
                + " | ".join(
                    cell(x)
                    for x in (
                        row.task,
                        what_ran(row),
                        f"**{figure.split(' ', 1)[0]}** {figure.split(' ', 1)[1]}",
                        code_text(row),
                        row.world,
                        budget_text(row.budget),
                        seeds_text(row.training_seeds),
                        evaluation_text(row),
                        row.note or "",
                        f"[R{numbers[rid]}](#r{numbers[rid]})",
                    )
                )
                + " |"
            )
        lines.append("")
        for number, name, row in runs:
            lines.append(
                f'- <a id="r{number}"></a>**R{number}** `{where_now(row.command)}`; commit '
                f"{row.commit or 'n/a'}; {row.machine or 'machine n/a'}; {row.date}; "
                f"{row.source} (`benchmarks/results/{name}`)"
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def in_order(rows: list[tuple[str, Result]]) -> list[tuple[str, Result]]:
    """Rows by section (as they first appear), then task (tech tree), method and budget."""
    groups = list(dict.fromkeys(row.group for _, row in rows))
    tasks = list(TASK_ORDER) + sorted({r.task for _, r in rows} - set(TASK_ORDER))
    methods = list(METHODS)
    return sorted(
        rows,
        key=lambda pair: (
            groups.index(pair[1].group),
            tasks.index(pair[1].task),
            methods.index(pair[1].method),
            pair[1].budget or 0,
        ),
    )


def headline_table(rows: list[tuple[str, Result]]) -> str:
    """The README's table: the rows marked ``headline``, and a link to the whole page."""
    lines = [
        GENERATED,
        "",
        "| task | what ran | code by | library | training budget | figure [95% interval] "
        "| evaluation |",
        "|---|---|---|---|---|---|---|",
    ]
    headline = [pair for pair in rows if pair[1].headline]
    tasks = list(TASK_ORDER) + sorted({r.task for _, r in headline} - set(TASK_ORDER))
    methods = list(METHODS)
    headline.sort(  # ours first, then the rest; each by task, method and budget
        key=lambda pair: (
            pair[1].code_author != HAND_WRITTEN,
            tasks.index(pair[1].task),
            methods.index(pair[1].method),
            pair[1].budget or 0,
        )
    )
    for _, row in headline:
        lines.append(
            "| "
            + " | ".join(
                cell(x)
                for x in (
                    row.task,
                    what_ran(row),
                    row.code_author,
                    library_name(row.library),
                    budget_text(row.budget),
                    row.figure(),
                    "n/a episodes" if row.episodes is None else f"{row.episodes} episodes",
                )
            )
            + " |"
        )
    lines += [
        "",
        "Every figure with its command, commit, machine and date: "
        "[docs/results.md](docs/results.md).",
    ]
    return "\n".join(lines)


def with_headline(readme: str, table: str) -> str | None:
    """``readme`` with the text between the markers replaced; None without the markers."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < 0:
        return None
    if end < start:
        raise ResultsError(f"README.md: {END} comes before {BEGIN}: put them in order")
    return readme[: start + len(BEGIN)] + "\n" + table + "\n" + readme[end:]


def rendered(root: Path = ROOT, results: Path | None = None) -> dict[Path, str]:
    """What each generated file should hold: docs/results.md, and README.md where it has
    the markers."""
    rows = current(load_results(results or root / "benchmarks" / "results"))
    out = {root / "docs" / "results.md": results_page(rows)}
    readme = root / "README.md"
    if readme.exists():
        text = with_headline(readme.read_text(), headline_table(rows))
        if text is not None:
            out[readme] = text
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 naming each file that differs from what the JSON renders",
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this)")
    args = parser.parse_args(argv)
    try:
        files = rendered(args.root)
    except ResultsError as error:
        print(f"render: error: {error}", file=sys.stderr)
        return 2
    stale = []
    for path, text in files.items():
        shown = path.relative_to(args.root)
        old = path.read_text() if path.exists() else None
        if old == text:
            continue
        if args.check:
            stale.append(str(shown))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {shown}")
    if stale:
        print(
            f"render: {', '.join(stale)}: not what benchmarks/results/*.json renders "
            f"(edited by hand, or the JSON changed): run `{COMMAND}`",
            file=sys.stderr,
        )
        return 1
    if args.check:
        print("render: up to date: " + ", ".join(str(p.relative_to(args.root)) for p in files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
