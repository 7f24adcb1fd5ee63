"""``rlgpt-tui learn``: lifelong learning with an automatic curriculum, its frontier, and
requests to a running learn (stop, pin, skip)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.table import Table

from rlgpt_tui.cli.common import UsageError, llm_settings
from rlgpt_tui.curriculum.frontier import FRONTIER_COLUMNS, frontier, frontier_cells
from rlgpt_tui.curriculum.loop import Learner
from rlgpt_tui.engine.printer import EventPrinter
from rlgpt_tui.envs.registry import WORLDS
from rlgpt_tui.session_settings import CheckedSettings, LearnBudgets, LearnTarget, SessionPlan
from rlgpt_tui.store import SessionStore
from rlgpt_tui.store.learning import LearnStore
from rlgpt_tui.tasks.catalog import get_task


def cmd_learn(args: argparse.Namespace) -> int:
    """Print the frontier (--status), send a request (--stop, --pin, --skip), or run
    (or continue) the folder's learn record."""
    store = SessionStore(args.sessions_dir)
    if args.json and not args.status:
        raise UsageError("--json goes with --status: `rlgpt-tui learn --status --json`")
    if args.status:
        return _print_frontier(store, args.json)
    if args.stop or args.pin or args.skip:
        return _learn_request(store, args)
    return _run_learn(store, args)


def _print_frontier(store: SessionStore, as_json: bool) -> int:
    data = frontier(store)
    if data is None:
        if as_json:
            print(json.dumps({"learn": None, "frontier": [], "choices": []}))
            return 0
        raise UsageError(f"no learn record in {store.path}: start one with `rlgpt-tui learn`")
    if as_json:
        print(json.dumps(data))
        return 0
    console = Console(width=max(Console().width, 140))
    table = Table(
        title=f"Frontier of learn record {data['learn']} ({data['env']}, {data['curriculum']} "
        f"curriculum, reached at {data['threshold']:g}): {data['status']}"
        + (f", {data['reason']}" if data["reason"] else "")
    )
    for column in FRONTIER_COLUMNS:
        table.add_column(column)
    for row in data["frontier"]:
        table.add_row(*frontier_cells(row))
    console.print(table)
    console.print(
        f"{data['reached']} reached; {len(data['choices'])} choices, {data['tokens']:,} tokens, "
        f"{data['samples']:,} samples, {data['hours']:.2f} h"
    )
    for choice in data["choices"][-10:]:
        console.print(
            f"  {choice['position']}. {choice['task']} (session {choice['session']}, "
            f"{choice['status']}): {choice['chooser']}: {choice['reason']}",
            markup=False,
            highlight=False,
        )
        for line in (choice["facts_text"], choice["fallback"], choice["mark"]):
            if line:
                console.print(f"     {line}", markup=False, highlight=False)
    return 0


def _learn_request(store: SessionStore, args: argparse.Namespace) -> int:
    learn = LearnStore(store)
    run = learn.latest()
    if run is None:
        raise UsageError(f"no learn record in {store.path}: start one with `rlgpt-tui learn`")
    for kind, task in (("pin", args.pin), ("skip", args.skip), ("stop", "" if args.stop else None)):
        if task is None:
            continue
        if task:
            get_task(task)
        learn.add_command(run.id, kind, task)
        print(f"learn record {run.id}: {kind} {task}".rstrip() + " recorded")
    return 0


def _run_learn(store: SessionStore, args: argparse.Namespace) -> int:
    if args.env is not None and args.env not in WORLDS:
        raise UsageError(f"unknown --env {args.env!r}: use one of {', '.join(WORLDS)}")
    # only the flags given: they replace the learn record's settings (checked by the models)
    plan = _given(args, SessionPlan)
    budgets = _given(args, LearnBudgets)
    LearnTarget(**_given(args, LearnTarget))
    SessionPlan(**plan)
    LearnBudgets(**budgets)
    llm = llm_settings(args)
    console = Console(stderr=True)
    learner = Learner.open(
        store,
        args.env,
        args.library,
        plan,
        budgets,
        args.threshold,
        llm,
        curriculum=args.curriculum,
        retry=args.retry,
        say=lambda line: console.print(line, markup=False, highlight=False),
        on_session=lambda session: EventPrinter(console),
    )
    console.print(
        f"learn record {learner.run_record.id} in {store.path} (its frontier: rlgpt-tui learn "
        "--status; continue it: rlgpt-tui learn)",
        markup=False,
        highlight=False,
    )
    learner.run()
    return 0


def _given(args: argparse.Namespace, model: type[CheckedSettings]) -> dict[str, Any]:
    """The settings of ``model`` given as flags (None: not given)."""
    values = {name: getattr(args, name) for name in model.model_fields}
    return {name: value for name, value in values.items() if value is not None}
