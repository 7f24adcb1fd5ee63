"""Does a figure depend on what else the machine runs? Code alone, quiet and busy, side by side.

Evaluates one coded script (a skill folder's ``--script``, as ``table2.py --skills`` reads it)
on the same evaluation worlds twice: once on a quiet machine, once while ``--hogs``
processes spin on every core. A coded call's time budget is its worker's CPU time, so
the two figures should be equal; ``same_figure`` says whether they are, and the call ends
show whether the load cut calls short (``timeout``).

Prints one JSON line: each run's figure, interval, call ends and seconds (after a first
evaluation on other worlds that compiles the world, so the seconds compare).

    python benchmarks/busy_machine.py --script plan --task crafter_score --seed 60002 \\
        --skills benchmarks/skills/llm/qwen2.5-coder-1.5b-curriculum-searched
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from typing import Any

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_bench.skills import FolderSkills
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.tasks.catalog import get_task


def spin() -> None:
    """Keep one core busy until killed."""
    while True:
        pass


def measure(config: RLConfig, script: str, episodes: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    result = evaluate(config, only_coded=script, episodes=episodes, seed=seed)
    calls = result.calls.get(script, {})
    low, high = result.measurement.ci95
    return {
        "value": round(result.measurement.value, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "end_reasons": calls.get("end_reasons", {}),
        "seconds": round(time.perf_counter() - started, 1),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = options.parser("busy_machine", __doc__)
    add_options(
        parser,
        "skills",
        "script",
        "task",
        "env",
        "episodes",
        "eval_seed",
        required=("skills", "script"),
    )
    # its older name for --eval-seed: the evaluation world's seed
    parser.add_argument(
        "--seed", dest="eval_seed", type=int, default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--hogs", type=int, default=2 * (os.cpu_count() or 1), help="busy processes"
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    folder = FolderSkills(args.skills, args.script)
    task = get_task(args.task)
    script = folder.script(task)
    config = RLConfig(task=task.name, env=args.env, seed=0, coded_actions=folder.specs([script]))
    measure(config, script, args.episodes, args.eval_seed + 1)  # compiles the world: not timed
    quiet = measure(config, script, args.episodes, args.eval_seed)
    hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    try:
        busy = measure(config, script, args.episodes, args.eval_seed)
    finally:
        for hog in hogs:
            hog.kill()
    print(
        json.dumps(
            {
                "benchmark": "busy_machine",
                "task": task.name,
                "skills": str(args.skills),
                "script": script,
                "episodes": args.episodes,
                "seed": args.eval_seed,
                "cores": os.cpu_count(),
                "hogs": args.hogs,
                "quiet": quiet,
                "busy": busy,
                "same_figure": quiet["value"] == busy["value"],
            }
        )
    )


if __name__ == "__main__":
    main()
