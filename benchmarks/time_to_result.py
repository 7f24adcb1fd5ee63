"""Where a run's wall time goes: the phase shares of the README's main job, as one JSON line.

Runs ``rlgpt-tui run --task collect_wood`` (the builtin agent, craftax) and
``rlgpt-tui run --task crafter_score --max-samples N`` as a person would (a fresh process
each, in a fresh sessions folder), then reads each session's phase times from its record
(:mod:`rlgpt_tui.engine.phases`): training proper's share of the wall time, seconds per
phase, samples per second of training proper. Also ``training_between_reports_s``: the
time between each training run's first and last progress report (training without its
first rollout, a figure older records allow too), and the seconds from launching `run` to
PPO's first sample (``to_first_sample_s``: its training phase begins, the world built and
compiled) and to its first progress report. Run it twice in a row to see a warm start.

    python benchmarks/time_to_result.py                       # both jobs
    python benchmarks/time_to_result.py --jobs collect_wood
    python benchmarks/time_to_result.py --jobs crafter_score --max-samples 1000000  # a GPU box
    python benchmarks/time_to_result.py --jobs crafter_score --max-samples 1000000 --target 100
    python benchmarks/time_to_result.py --existing sessions/  # sessions already recorded

Goals (issue 23): training proper >= 50% of the main job's wall time, >= 75% on
crafter_score with 1,000,000 samples.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.phases import session_phases
from rlgpt_tui.store import SessionStore


def between_reports(records: list[dict[str, Any]]) -> float:
    """Seconds between each training run's first and last progress report, summed."""
    total, first, last = 0.0, None, None
    for e in ev.events_from_records(records):
        if isinstance(e, ev.PhaseStarted | ev.SessionFinished):
            if first is not None:
                total += last - first
            first = last = None
        elif isinstance(e, ev.TrainingProgress):
            first = e.time if first is None else first
            last = e.time
    return round(total + ((last - first) if first is not None else 0.0), 2)


def session_figures(store: SessionStore, session_id: int) -> dict[str, Any]:
    records = store.events(session_id)
    summary = store.get(session_id)
    phases = session_phases(records).as_dict()
    del phases["iterations"]
    return {
        "session": session_id,
        "task": summary.task,
        "status": summary.status,
        "result": summary.result,
        "total_samples": summary.total_samples,
        "training_between_reports_s": between_reports(records),
    } | phases


def run_job(args: list[str], sessions: Path) -> dict[str, Any]:
    """One ``rlgpt-tui run`` in a fresh process; its phase figures from the record."""
    command = [sys.executable, "-m", "rlgpt_tui.cli", "run", *args]
    started = time.time()
    load = os.getloadavg()
    done = subprocess.run(
        [*command, "--sessions-dir", str(sessions)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    store = SessionStore(sessions)
    newest = store.list_sessions()[0].id
    records = store.events(newest)
    training = [e for e in records if e["kind"] == "phase_started" and e["phase"] == "training"]
    reports = [e for e in records if e["kind"] == "training_progress"]
    return {
        "command": "rlgpt-tui run " + " ".join(args),
        "process_seconds": round(time.time() - started, 1),
        # from `run` to PPO's first sample (training begins), and to its first report
        "to_first_sample_s": round(training[0]["time"] - started, 1) if training else None,
        "to_first_report_s": round(reports[0]["time"] - started, 1) if reports else None,
        "load_before": [round(x, 2) for x in load],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    } | session_figures(store, newest)


def build_parser() -> argparse.ArgumentParser:
    """Its own options only: its ``--jobs`` names the jobs a person runs (not processes)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--jobs",
        default="collect_wood,crafter_score",
        help="comma-separated: collect_wood (the README's main job), crafter_score",
    )
    parser.add_argument(
        "--max-samples",
        type=int,
        default=20_000,
        help="crafter_score's sample budget (default 20,000: minutes on 2 cores; the "
        "issue's goal is for 1,000,000 on a GPU machine)",
    )
    parser.add_argument(
        "--target",
        type=float,
        help="crafter_score's target (default: the task's; 100 is never reached, so every "
        "sample trains)",
    )
    parser.add_argument("--existing", metavar="DIR", help="report the sessions recorded in DIR")
    parser.add_argument("--keep", metavar="DIR", help="record the runs in DIR (default: a temp)")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_samples < 1:
        parser.error(f"--max-samples must be at least 1, got {args.max_samples}")
    if args.existing:
        store = SessionStore(args.existing)
        sessions = [session_figures(store, s.id) for s in reversed(store.list_sessions())]
        print(json.dumps({"benchmark": "time_to_result", "sessions": sessions}))
        return
    jobs = {
        "collect_wood": ["--task", "collect_wood"],
        "crafter_score": ["--task", "crafter_score", "--max-samples", str(args.max_samples)],
    }
    if args.target is not None:
        jobs["crafter_score"] += ["--target", f"{args.target:g}"]
    chosen = [j.strip() for j in args.jobs.split(",") if j.strip()]
    unknown = [j for j in chosen if j not in jobs]
    if unknown:
        parser.error(f"unknown job(s) {', '.join(unknown)}: use collect_wood, crafter_score")
    results = []
    with tempfile.TemporaryDirectory(prefix="ttr-") as scratch:
        root = Path(args.keep or scratch)
        for job in chosen:
            results.append(run_job(jobs[job], root / job))
    print(
        json.dumps(
            {"benchmark": "time_to_result", "cpus": os.cpu_count(), "jobs": results},
        )
    )


if __name__ == "__main__":
    main()
