"""A curriculum of LLM sessions that builds one skill library, then a task that uses it.

Voyager's idea in RL-GPT's setting: each task of ``--tasks`` is one ``rlgpt-tui run`` (the
real CLI, in its own process) with ``--library own`` in one sessions folder, so every
session starts from the skills the earlier ones wrote and adds its own; no hand-written
skill is ever offered. ``--then`` (default crafter_score) runs last, from the whole library.
Run again with the same ``--sessions-dir``, it skips the tasks whose session there reached
its target (a stopped curriculum goes on where it stopped; a task that fell short runs again).

Any other flag goes to every ``rlgpt-tui run`` as it is (``--final-episodes 32``, ``--target
0.8``); a session that exits on bad input (code 2) stops the curriculum with its one-line error.
Prints a line per session and, at the end, one JSON line: each session's fresh result (the
engine's final choice on worlds no decision used), its kind, samples, tokens, wall time and
end, and the library the curriculum left (skills per author).

    python benchmarks/curriculum.py --llm-base-url URL --llm-model MODEL \\
        --sessions-dir runs/curriculum [--tasks collect_wood place_table ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_tui.store import SessionStore

# the tech tree's order: each task's prerequisites come before it
ACHIEVEMENT_TASKS = (
    "collect_wood",
    "place_table",
    "make_wood_pickaxe",
    "make_wood_sword",
    "collect_stone",
    "place_stone",
    "make_stone_pickaxe",
    "make_stone_sword",
    "place_furnace",
    "collect_coal",
    "collect_drink",
    "eat_cow",
    "collect_sapling",
    "place_plant",
    "wake_up",
    "defeat_zombie",
    "collect_iron",
    "make_iron_pickaxe",
    "make_iron_sword",
    "eat_plant",
    "defeat_skeleton",
    "collect_diamond",
)


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, list[str]]:
    """The curriculum's flags, and the others (passed to every ``rlgpt-tui run``)."""
    args, extra = build_parser().parse_known_args(argv)
    if args.tasks is None:  # every achievement, in tech-tree order
        args.tasks = list(ACHIEVEMENT_TASKS)
    return args, extra


def build_parser() -> argparse.ArgumentParser:
    p = options.parser("curriculum", __doc__)
    required = ("sessions_dir", "llm_base_url", "llm_model")
    add_options(
        p,
        "tasks",
        *required,
        "llm_timeout",
        "env",
        "num_envs",
        "seed",
        script="curriculum",
        required=required,
    )
    p.add_argument("--then", default="crafter_score", help="the last task ('' for none)")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--samples-per-iteration", type=int, default=16_000)
    p.add_argument(
        "--then-samples",
        type=int,
        default=None,
        help="the last task's samples per iteration (default: --samples-per-iteration)",
    )
    return p


def finished_sessions(store: SessionStore) -> dict[str, dict]:
    """The newest finished session of each task in the folder, as a result line."""
    done: dict[str, dict] = {}
    for s in sorted(store.list_sessions(), key=lambda s: s.id):
        if s.status != "finished":
            continue
        target = s.settings.get("target") or s.measure.default_target
        done[s.task] = {
            "task": s.task,
            "session": s.id,
            "measure": s.measure.value,
            "result": s.result,
            "ci95": list(s.result_ci) if s.result_ci else None,
            "kind": s.result_kind,
            "run_score": s.run_score,
            "samples": s.total_samples,
            "tokens": s.tokens,
            "iterations": s.iterations,
            "seconds": round(s.updated_at - s.created_at, 1),
            "end": s.reason,
            "reached": s.result is not None and s.result >= target,
        }
    return done


def run_session(args: argparse.Namespace, extra: list[str], task: str, samples: int) -> int:
    """One ``rlgpt-tui run`` from the folder's own library; its exit code."""
    command = [
        sys.executable,
        "-c",
        "import sys; from rlgpt_tui.cli import main; sys.exit(main())",  # rlgpt-tui
        "--sessions-dir",
        str(args.sessions_dir),
        "run",
        "--task",
        task,
        "--env",
        args.env,
        "--library",
        "own",
        "--iterations",
        str(args.iterations),
        "--samples-per-iteration",
        str(samples),
        "--num-envs",
        str(args.num_envs),
        "--seed",
        str(args.seed),
        "--llm-base-url",
        args.llm_base_url,
        "--llm-model",
        args.llm_model,
        "--llm-timeout",
        str(args.llm_timeout),
        *extra,
    ]
    log = args.sessions_dir / f"{task}.log"
    with log.open("a") as out:
        return subprocess.call(command, stdout=out, stderr=subprocess.STDOUT, env=os.environ)


def main(argv: list[str] | None = None) -> int:
    args, extra = parse_args(argv)
    args.sessions_dir.mkdir(parents=True, exist_ok=True)
    store = SessionStore(args.sessions_dir)
    tasks = list(args.tasks) + ([args.then] if args.then else [])
    started = time.perf_counter()
    for task in tasks:
        if finished_sessions(store).get(task, {}).get("reached"):
            print(f"{task}: reached its target earlier, skipped", flush=True)
            continue
        samples = args.samples_per_iteration
        if task == args.then and args.then_samples:
            samples = args.then_samples
        code = run_session(args, extra, task, samples)
        if code == 2:  # bad input: the session's one-line error, nothing more to run
            lines = (args.sessions_dir / f"{task}.log").read_text().strip().splitlines()
            print(f"{task}: {lines[-1] if lines else 'exit 2'}", file=sys.stderr)
            return 2
        line = finished_sessions(store).get(task)
        shown = "no finished session" if line is None else json.dumps(line)
        print(f"{task}: exit {code}; {shown}", flush=True)
    authors = Counter(s.author for s in store.skills(args.env))
    done = finished_sessions(store)
    report = {
        "benchmark": "curriculum",
        "command": "python benchmarks/curriculum.py " + " ".join(sys.argv[1:]),
        "llm_model": args.llm_model,
        "env": args.env,
        "seconds": round(time.perf_counter() - started, 1),
        "sessions": [done.get(t, {"task": t}) for t in tasks],
        "library": {"skills": sum(authors.values()), "authors": dict(authors)},
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
