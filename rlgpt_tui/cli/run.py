"""``rlgpt-tui run``: RL-GPT's two loops on a task, headless, recorded as a session."""

from __future__ import annotations

import argparse
import json
import os

from rich.console import Console

from rlgpt_tui.cli.common import UsageError, llm_settings, tensorboard_dir
from rlgpt_tui.engine.ends import EndKind
from rlgpt_tui.engine.events import events_from_records
from rlgpt_tui.engine.printer import EventPrinter
from rlgpt_tui.engine.settings import EngineSettings
from rlgpt_tui.envs import UnknownWorldError, world_info
from rlgpt_tui.library.shelf import NAMED
from rlgpt_tui.session_settings import SessionSettings
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tasks.catalog import get_task


def cmd_run(args: argparse.Namespace) -> int:
    """Check the flags, record a new session and run it, printing its events."""
    task = get_task(args.task)
    try:
        world = world_info(args.env)
    except UnknownWorldError as error:
        raise UsageError(str(error)) from None
    given = SessionSettings(**{name: getattr(args, name) for name in SessionSettings.model_fields})
    given.check_target(task)
    llm = llm_settings(args)  # a bad [llm] setting or a missing file: before any session
    if args.minedojo_python:
        os.environ["RLGPT_MINEDOJO_PYTHON"] = args.minedojo_python  # read by make_world
    world.cls.check_backend()  # a missing backend: one line, before any session
    board = tensorboard_dir(args)
    settings = EngineSettings(
        task=args.task,
        env=args.env,
        num_envs=given.num_envs or world.default_num_envs,
        seed=given.seed,
        max_iterations=given.iterations,
        target=given.target,
        samples_per_iteration=given.samples_per_iteration,
        max_samples=given.max_samples,
        max_tokens=given.max_tokens,
        eval_episodes=given.eval_episodes,
        final_episodes=given.final_episodes,
        tensorboard_dir=str(board) if board else None,
    )
    # the worlds load their kernels while torch, the session and the plan are set up (an
    # LLM session's checks of its endpoint, or of a library folder, come first: a bad one
    # fails without waiting), and torch's optimizer support imports while the world's
    # build waits on them
    nothing_to_check = llm is None and args.library in NAMED
    preparing = [settings.prepare_first_worlds()] if nothing_to_check else []
    try:
        # start-up: torch (the session, the optimizer support) imports while the worlds load
        from rlgpt_tui.rl.model import load_optimizer_support
        from rlgpt_tui.session import Session

        store = SessionStore(args.sessions_dir)
        session = Session.create(store, settings, llm, chain=args.chain, library=args.library)
        if not preparing:
            preparing.append(settings.prepare_first_worlds())
        preparing.append(load_optimizer_support())
        return run_session(session, args.seed)
    finally:
        for thread in preparing:  # never left running past the command
            thread.join()


def run_session(session, seed: int) -> int:
    """Run a recorded session headless, printing its events; exit code from how it ended."""
    console = Console(stderr=True)
    console.print(
        f"session {session.id} recorded in {session.store.path} "
        f"(resume: rlgpt-tui resume {session.id})"
    )
    printer = EventPrinter(console)
    printer.remember(events_from_records(session.store.events(session.id)))  # resumed: its record
    outcome = session.run(printer)
    if outcome.chain is not None:
        settings = session.settings
        print(
            json.dumps(
                {
                    "session": session.id,
                    "task": settings.task,
                    "env": settings.env,
                    "agent": session.label,
                    "seed": seed,
                }
                | outcome.chain.to_dict(),
                default=str,  # as the store writes events: a value JSON lacks, as text
            )
        )
        return 0 if outcome.chain.evaluation is not None else 1
    return 1 if outcome.end.kind is EndKind.ERROR else 0
